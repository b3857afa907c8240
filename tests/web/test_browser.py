"""The pages in a real browser (headless Chromium from Debian, driven by Selenium) against a
real server, with moves made through the real ``pbem`` CLI."""

import json

import pytest
import requests

from shared.games import get_game
from tests.helpers.browser import _by, csp_violations, log_count, seat_map, start_game, to_act, wait

PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}
SEATS = {"zarahemla": 3, "stone_age": 3, "title_of_liberty": 2}
def play_first_legal(live, game_id, by_seat, n):
    """Each time: the first seat that owes plays its first legal move (through the CLI)."""
    played = []
    for _ in range(n):
        seat = to_act(live, game_id)[0]
        player = by_seat[seat]
        move = player.run("moves", game_id).stdout.splitlines()[0]
        player.run("play", game_id, move)
        played.append((seat, move))
    return played


# --- the lobby ---------------------------------------------------------------------------------

def test_the_lobby_lists_a_new_game(browser, live, cli_player, screenshot):
    ann = cli_player("ann")
    game_id = ann.run("new", "zarahemla", "--seats", "3").stdout.strip()
    browser.get(live.url + "/")
    link = browser.find_element(_by("CSS_SELECTOR"), f'#open-games a[href="/g/{game_id}"]')
    assert "Zarahemla" in link.text
    assert browser.find_element(_by("CSS_SELECTOR"), 'a[href="/rules/stone_age"]')
    screenshot(browser, "lobby")
    assert not csp_violations(browser)


# --- live updates ----------------------------------------------------------------------------

def test_a_move_made_with_the_cli_appears_on_an_open_page(browser, live, cli_player,
                                                          screenshot):
    game_id, players = start_game(cli_player, "pig", 2)
    by_seat = seat_map(live, game_id, players)
    browser.get(f"{live.url}/g/{game_id}")
    assert log_count(browser) == 0
    # the script turned the UTC times into local ones (so it ran under the CSP)
    wait(browser, 5, lambda d: d.find_elements(_by("CSS_SELECTOR"), "#live[data-etag]"),
         "the live part is there")
    for expected in (1, 2):
        seat = to_act(live, game_id)[0]
        by_seat[seat].run("play", game_id, "roll")
        wait(browser, 2, lambda d: log_count(d) == expected,
             f"move {expected} did not appear on the open page within two seconds")
    assert browser.find_elements(_by("CSS_SELECTOR"), "#live time.local")
    screenshot(browser, "pig-live")
    assert not csp_violations(browser)


# --- the board of each game --------------------------------------------------------------------

@pytest.mark.parametrize("type_", sorted(SEATS))
def test_each_games_page_shows_its_board_for_a_known_position(browser, live, cli_player,
                                                              screenshot, type_):
    game_id, players = start_game(cli_player, type_, SEATS[type_])
    by_seat = seat_map(live, game_id, players)
    played = play_first_legal(live, game_id, by_seat, 3)
    api = requests.get(f"{live.url}/api/games/{game_id}/view", timeout=10).json()
    game = get_game(type_)
    try:
        drawing = game.svg(api["view"])
    except NotImplementedError:
        drawing = None
    browser.get(f"{live.url}/g/{game_id}")
    details = browser.find_element(_by("CSS_SELECTOR"), "details#text-board")
    if drawing is None:
        # no drawing yet: the text board is shown, open, exactly as the API renders it
        assert not browser.find_elements(_by("CSS_SELECTOR"), ".drawing svg")
        assert details.get_attribute("open") is not None
        pre = details.find_element(_by("TAG_NAME"), "pre")
        assert pre.get_attribute("textContent") == api["board"]
        for _seat, move in played:
            assert move in browser.find_element(_by("CSS_SELECTOR"), "#live .log").text
    else:
        svg = browser.find_element(_by("CSS_SELECTOR"), ".drawing svg")
        assert svg.is_displayed() and svg.size["width"] > 200
        # each named place (a piece: it has a class): its name, its class, and its title
        # (its own or its group's; an occupied place is titled by the piece on it)
        places = browser.execute_script("""
            function titleOf(e) {
              for (var a = e; a && a.tagName !== 'svg'; a = a.parentElement) {
                var t = a.querySelector(':scope > title');
                if (t) { return t.textContent; }
              }
              var inner = e.querySelector('title');
              return inner ? inner.textContent : null;
            }
            return Array.from(document.querySelectorAll('.drawing svg [data-place][class]'))
              .map(e => [e.getAttribute('data-place'), e.getAttribute('class'), titleOf(e)]);""")
        import xml.etree.ElementTree as ET
        expected = [e.get("data-place") for e in ET.fromstring(drawing).iter()
                    if e.get("data-place") is not None and e.get("class") is not None]
        assert [p[0] for p in places] == expected  # the page shows the view's drawing
        untitled = [(p, cls) for p, cls, title in places if not title]
        assert places and not untitled, f"places without a <title>: {untitled[:5]}"
        if type_ == "zarahemla":
            for seat, move in played:
                if move.startswith("settle "):
                    corner = move.split()[1]
                    assert any(p == corner and "settlement" in cls and seat in title
                               for p, cls, title in places), (seat, move)
        # the text board stays, as the drawing's text alternative
        assert details.get_attribute("open") is None
        assert details.find_element(_by("TAG_NAME"), "pre").get_attribute("textContent") \
            == api["board"]
    screenshot(browser, f"{type_}-desktop")
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    browser.get(f"{live.url}/g/{game_id}")
    width = browser.execute_script("return document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a 390 px phone"
    screenshot(browser, f"{type_}-phone")
    assert not csp_violations(browser)


# --- the private view ----------------------------------------------------------------------------

def test_the_private_link_shows_the_hand_and_the_spectator_page_does_not(browser, live,
                                                                         cli_player, screenshot):
    game_id, players = start_game(cli_player, "zarahemla", 3)
    ann = players[0]
    out = ann.run("open", game_id, "--no-browser")
    url = out.stdout.strip()
    assert url.startswith(live.url + "/login/")
    browser.get(url)
    wait(browser, 10, lambda d: d.current_url.endswith(f"/g/{game_id}")
         and d.find_elements(_by("CSS_SELECTOR"), "#live .viewer"),
         "the sign-in page moves on to the game")
    private = wait(browser, 10, lambda d: d.find_element(_by("CSS_SELECTOR"), "#live .private"),
                   "the private panel is shown")
    assert "Your hand" in private.text
    assert "You see the game as" in browser.find_element(_by("CSS_SELECTOR"), ".viewer").text
    cookie = browser.get_cookie("pbem_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie.get("expiry")
    screenshot(browser, "zarahemla-private")
    # the link was spent: opening it again is refused with a page
    browser.delete_all_cookies()
    browser.get(url)
    assert "already used" in browser.find_element(_by("TAG_NAME"), "main").text
    browser.get(f"{live.url}/g/{game_id}")
    assert not browser.find_elements(_by("CSS_SELECTOR"), "#live .private")
    assert "spectator" in browser.find_element(_by("CSS_SELECTOR"), ".viewer").text
    assert "Your hand" not in browser.page_source
    screenshot(browser, "zarahemla-spectator")
    assert not csp_violations(browser)


# --- the archive stepper ---------------------------------------------------------------------

def test_the_archive_stepper_reaches_the_last_move_verified(browser, live, cli_player,
                                                            screenshot, tmp_path):
    players = [cli_player("ann"), cli_player("bob")]
    game_id = players[0].run("new", "pig", "--seats", 2, "--option", "target=1").stdout.strip()
    players[1].run("join", game_id)
    by_seat = seat_map(live, game_id, players)
    for _ in range(200):
        info = requests.get(f"{live.url}/api/games/{game_id}/view", timeout=10).json()
        if info["game"]["status"] == "over":
            break
        seat = info["view"]["to_act"][0]
        by_seat[seat].run("play", game_id, "hold" if info["view"]["pot"] else "roll")
    total = len(requests.get(f"{live.url}/api/games/{game_id}/log", timeout=10)
                .json()["entries"])
    browser.get(f"{live.url}/archive")
    browser.find_element(_by("CSS_SELECTOR"), f'a[href="/archive/{game_id}"]').click()
    wait(browser, 10, lambda d: d.find_elements(_by("ID"), "verdict"), "the verdict is shown")
    verdict = browser.find_element(_by("ID"), "verdict")
    assert "Verified" in verdict.text and "outcome-refused" not in verdict.get_attribute("class")
    def title():
        return browser.find_element(_by("ID"), "step-title").text

    def step_to(which, expected):
        browser.find_element(_by("CSS_SELECTOR"), f'[data-step="{which}"]').click()
        wait(browser, 10, lambda d: title().startswith(expected), f"{which} shows {expected}")

    assert title().startswith(f"Move {total} of {total}")
    step_to("first", f"The start (move 0 of {total})")
    step_to("next", f"Move 1 of {total}")
    # the slider: drag to the end (keyboard End), released, the page goes there
    from selenium.webdriver.common.keys import Keys
    slider = browser.find_element(_by("ID"), "step-slider")
    slider.send_keys(Keys.END)
    wait(browser, 10, lambda d: f"Move {total} of {total}" in
         d.find_element(_by("ID"), "step-title").text, "the slider went to the last move")
    screenshot(browser, "archive-server-game")
    # the same game as a file, opened from the disk
    path = tmp_path / "game.json"
    players[0].run("export", game_id, "-o", str(path))
    json.loads(path.read_text())
    browser.get(f"{live.url}/archive")
    browser.find_element(_by("ID"), "archive-file").send_keys(str(path))
    browser.find_element(_by("CSS_SELECTOR"), "form.upload button").click()
    wait(browser, 10, lambda d: d.find_elements(_by("ID"), "verdict"), "the verdict is shown")
    assert "Verified" in browser.find_element(_by("ID"), "verdict").text
    assert title().startswith(f"Move {total} of {total}")
    step_to("prev", f"Move {total - 1} of {total}")
    step_to("last", f"Move {total} of {total}")
    screenshot(browser, "archive-upload")
    assert not csp_violations(browser)


# --- times in the reader's own time zone (an audit) ------------------------------------------

def test_deadlines_and_log_times_show_in_the_readers_own_time_zone(browser, live, cli_player,
                                                                   screenshot):
    """"deadlines in the viewer's own time zone".  The other tests run the browser in
    UTC, where the server's UTC text and the script's local text agree; here the browser is
    in Kathmandu (UTC+5:45), so only a converted time shows the right minutes."""
    import re
    from datetime import datetime
    from zoneinfo import ZoneInfo
    players = [cli_player(p) for p in ("ann", "bob")]
    game_id = players[0].run("new", "pig", "--seats", 2, "--move-hours", 48).stdout.strip()
    players[1].run("join", game_id)
    by_seat = seat_map(live, game_id, players)
    by_seat[to_act(live, game_id)[0]].run("play", game_id, "roll")
    zone = "Asia/Kathmandu"
    browser.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": zone})
    try:
        browser.get(f"{live.url}/g/{game_id}")
        wait(browser, 5, lambda d: d.find_elements(_by("CSS_SELECTOR"), "#live tr.owes time.local"),
             "the deadline was not shown in local time")
        times = browser.find_elements(_by("CSS_SELECTOR"), "#live time.local")
        kinds = set()
        for el in times:
            at = datetime.fromisoformat(el.get_attribute("datetime").replace("Z", "+00:00"))
            local = at.astimezone(ZoneInfo(zone))
            hour, minute = map(int, re.search(r"(\d{1,2}):(\d{2})", el.text).groups())
            assert (hour % 12, minute) == (local.hour % 12, local.minute), (el.text, local)
            assert minute != at.minute  # 45 minutes off UTC: the text is not the UTC one
            kinds.add("deadline" if el.find_elements(_by("XPATH"), "ancestor::tr") else "log")
        assert kinds == {"deadline", "log"}
        screenshot(browser, "pig-kathmandu")
    finally:
        browser.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})
