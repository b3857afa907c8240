"""Moving from the game page: the play panel, the check endpoint, and a whole
Zarahemla set-up and first turn played from a real browser against the CLI."""

import json
import random
import re
import xml.etree.ElementTree as ET

import pytest

from shared.games import get_game
from tests.helpers.examples import examples

from .helpers import sign_in, text_of


def start_zarahemla(make_player):
    """A started two-seat Zarahemla game (beginner board); returns (id, {seat: player})."""
    ann, bob = make_player("ann"), make_player("bob")
    r = ann.post("/api/games", {"type": "zarahemla", "seats": 2,
                                "options": {"board": "beginner"}})
    assert r.status_code == 201, r.get_json()
    game_id = r.get_json()["id"]
    r = bob.post(f"/api/games/{game_id}/join", {})
    assert r.get_json()["status"] == "playing"
    seats = {s["seat"]: {"ann": ann, "bob": bob}[s["player"]] for s in r.get_json()["seats"]}
    return game_id, seats


def to_act(player, game_id):
    return player.get(f"/api/games/{game_id}").get_json()["to_act"]


def check(browser, game_id, move, **extra):
    return browser.post(f"/api/games/{game_id}/check", json={"move": move, **extra})


# --- the check endpoint -------------------------------------------------------------------

def test_the_check_answers_the_signed_in_seat_with_the_rules_reason_or_the_effect(
        app, make_player):
    game_id, seats = start_zarahemla(make_player)
    first = to_act(seats["red"], game_id)[0]
    page = sign_in(app, seats[first], game_id)
    r = check(page, game_id, "settle 14")
    assert r.status_code == 200, r.get_json()
    answer = r.get_json()
    assert answer["legal"] and answer["outcome"] == "certain" and answer["seat"] == first
    assert answer["events"] == [f"{first.capitalize()} placed a settlement on 14."]
    assert answer["next_seq"] == 0
    bad = check(page, game_id, "road 1-4").get_json()
    assert bad["legal"] is False and "settlement" in bad["reason"]
    # the same question by a signed request (the CLI's way) gets the same answer
    signed = seats[first].post(f"/api/games/{game_id}/check", {"move": "settle 14"})
    assert signed.get_json() == answer
    # nothing was played
    assert seats[first].get(f"/api/games/{game_id}").get_json()["seq"] == -1


def test_strangers_get_no_check(app, client, make_player):
    game_id, seats = start_zarahemla(make_player)
    r = client.post(f"/api/games/{game_id}/check", json={"move": "settle 14"})
    assert r.status_code == 401 and r.get_json()["error"]["code"] == "unauthenticated"
    cyd = make_player("cyd")
    r = cyd.post(f"/api/games/{game_id}/check", {"move": "settle 14"})
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "not_seated"
    # a signed-in player of this game cannot ask as the other seat
    page = sign_in(app, seats["red"], game_id)
    r = check(page, game_id, "settle 14", seat="blue")
    assert r.status_code == 403
    # a forged cookie is nobody
    forged = app.test_client()
    forged.set_cookie("pbem_session", "eyJwIjoxLCJ0IjoxODAwMDAwMDAwfQ.forged.sig")
    assert check(forged, game_id, "settle 14").status_code == 401
    # bad bodies are 4xx with the JSON error body
    for body in ({}, {"move": ""}, {"move": "x" * 501}, {"move": "roll", "extra": 1}):
        r = page.post(f"/api/games/{game_id}/check", json=body)
        assert r.status_code in (400, 422) and r.get_json()["error"]["code"]
    assert check(page, "nosuchgame", "roll").status_code == 404


def test_a_check_does_not_tell_the_dice(app, make_player):
    """A roll checked many times never says what it will roll."""
    game_id, seats = start_zarahemla(make_player)
    game = get_game("zarahemla")
    while True:
        info = seats["red"].get(f"/api/games/{game_id}/view").get_json()
        seat = info["view"]["to_act"][0]
        legal = seats[seat].get(f"/api/games/{game_id}/legal").get_json()["moves"]
        if "roll" in legal:
            break
        assert seats[seat].play(game_id, seat, legal[0]).status_code == 201
    page = sign_in(app, seats[seat], game_id)
    answers = [check(page, game_id, "roll").get_json() for _ in range(3)]
    assert all(a["legal"] and a["outcome"] == "chance" and "events" not in a for a in answers)
    assert seats[seat].play(game_id, seat, "roll").status_code == 201
    log = seats[seat].get(f"/api/games/{game_id}/log").get_json()["entries"][-1]
    rolled = " ".join(log["events"])
    assert rolled and all(rolled not in json.dumps(a) for a in answers)
    assert game  # the rules library answered the roll, not the check


# --- the play panel ---------------------------------------------------------------------------

def test_the_panel_lists_the_seats_legal_moves_for_its_player_only(app, client, make_player):
    game_id, seats = start_zarahemla(make_player)
    first = to_act(seats["red"], game_id)[0]
    other = "blue" if first == "red" else "red"
    mine = sign_in(app, seats[first], game_id).get(f"/g/{game_id}").get_data(as_text=True)
    assert 'id="play"' in mine and 'data-move="settle 14"' in mine
    assert f'data-seat="{first}"' in mine and 'data-next-seq="0"' in mine
    assert "/assets/play.js" in mine
    theirs = sign_in(app, seats[other], game_id).get(f"/g/{game_id}").get_data(as_text=True)
    assert 'id="play"' in theirs and "data-move=" not in theirs
    assert "You owe no move now" in text_of(theirs)
    spectator = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert 'id="play"' not in spectator and "data-move=" not in spectator
    assert "/assets/play.js" not in spectator
    live = sign_in(app, seats[first], game_id).get(f"/g/{game_id}/live").get_data(as_text=True)
    assert 'data-move="settle 14"' in live


def test_the_panels_legal_moves_are_the_apis(app, make_player):
    game_id, seats = start_zarahemla(make_player)
    first = to_act(seats["red"], game_id)[0]
    html = sign_in(app, seats[first], game_id).get(f"/g/{game_id}").get_data(as_text=True)
    shown = re.findall(r'class="move-choice" data-move="([^"]+)"', html)
    api = seats[first].get(f"/api/games/{game_id}/legal").get_json()["moves"]
    assert shown == api and len(shown) == 54


# --- the drawings name every place a legal move names -------------------------------------------

def _places(move, known):
    out = []
    for word in move.split()[1:]:
        for part in [word] + re.split(r"[-~@,]", word):
            if part in known:
                out.append(part)
    return out


@pytest.mark.properties
@pytest.mark.parametrize("name", ["zarahemla", "stone_age", "title_of_liberty"])
def test_every_board_place_a_legal_move_names_is_on_the_drawing(name):
    """The page builds a move by clicking the places it names (``data-place``): every
    crossing, corner, path, hex, space, sector and duel place of a legal move is drawn."""
    game = get_game(name)
    seats = game.seat_names(3 if name == "stone_age" else 2)
    state = game.new_game(seats, {"board": "beginner"} if name == "zarahemla" else {},
                          b"places-1")
    rng = random.Random(1)
    place_words = {"zarahemla": re.compile(r"^([0-9]+|[0-9]+-[0-9]+|[A-S])$"),
                   "stone_age": re.compile(r"^([0-9]+|[a-z][0-9]+)$"),
                   "title_of_liberty": None}[name]
    missing, named = set(), 0
    for ply in range(examples(500, least=150)):
        acting = game.to_act(state)
        if not acting:
            break
        seat = acting[0]
        legal = game.legal_moves(state, seat)
        drawing = ET.fromstring(game.svg(game.view(state, seat)))
        known = {e.get("data-place") for e in drawing.iter() if e.get("data-place")}
        for move in legal:
            words = move.split()
            args = [p for w in words[1:] for p in re.split(r"[-~@,]", w) if p]
            if place_words is not None:
                wanted = [a for a in args if place_words.match(a)]
                if words[0] in ("offer", "bank", "counter", "discard", "play", "liahona"):
                    wanted = [a for a in wanted if not a.isdigit()]
            else:
                wanted = [a for a in args if a in ("tower", "gate", "temple", "path")
                          or a in (game.view(state, seat).get("armies") or {})
                          or re.fullmatch(r"[a-z]+[0-9]*", a) and words[0] in ("move", "sector")]
            for a in wanted:
                if a in known:
                    named += 1
                else:
                    missing.add((words[0], a))
        state = game.play(state, seat, rng.choice(legal), b"%d" % ply)
    assert not missing, sorted(missing)[:20]
    assert named > 100


# --- in a real browser (headless Chromium) against the CLI --------------------------------------

def _by(kind):
    from selenium.webdriver.common.by import By
    return getattr(By, kind)


def _wait(driver, seconds, condition, message):
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, seconds, poll_frequency=0.1, ignored_exceptions=(
        NoSuchElementException, StaleElementReferenceException)).until(condition, message)


def _api(live, path):
    import requests
    return requests.get(f"{live.url}{path}", timeout=10).json()


def _seq(live, game_id):
    return _api(live, f"/api/games/{game_id}")["seq"]


def _result_text(driver):
    return driver.find_element(_by("ID"), "move-result").text


def _panel_seq(driver):
    return int(driver.find_element(_by("ID"), "play").get_attribute("data-next-seq"))


def _csp_violations(driver):
    return [m["message"] for m in driver.get_log("browser")
            if "Content Security Policy" in m["message"] or "Refused to" in m["message"]]


class Page:
    """The page player's hands: click the board or a listed move, read the check, send."""

    def __init__(self, driver, live, game_id):
        self.d, self.live, self.game_id = driver, live, game_id

    def moves(self):
        return [b.get_attribute("data-move") for b in
                self.d.find_elements(_by("CSS_SELECTOR"), "#play button.move-choice")]

    def click_place(self, place):
        from selenium.webdriver.common.action_chains import ActionChains
        target = _wait(self.d, 5, lambda d: d.find_element(
            _by("CSS_SELECTOR"), f'#live .drawing svg .pickable[data-place="{place}"]'),
            f"place {place} is clickable")
        ActionChains(self.d).move_to_element(target).click().perform()

    def click_move(self, move):
        _wait(self.d, 5, lambda d: d.find_element(
            _by("CSS_SELECTOR"), f'#play button.move-choice[data-move="{move}"]'),
            f"{move} is not listed: {self.moves()}").click()

    def checked(self, move):
        """Wait for the check of ``move``; returns its verdict's text."""
        _wait(self.d, 10, lambda d: d.find_element(_by("ID"), "move-text")
              .get_attribute("value") == move and d.find_elements(_by("ID"), "move-result")
              and not _result_text(d).startswith("Checking"), f"{move} was checked")
        return _result_text(self.d)

    def send(self, move):
        before = _seq(self.live, self.game_id)
        button = _wait(self.d, 10, lambda d: d.find_element(_by("ID"), "send-move")
                       if d.find_element(_by("ID"), "send-move").is_enabled() else None,
                       f"Sign and send is enabled for {move}")
        button.click()
        _wait(self.d, 10, lambda d: _seq(self.live, self.game_id) == before + 1,
              f"{move} was appended")
        _wait(self.d, 10, lambda d: _panel_seq(d) == before + 2, "the page followed the move")
        entry = _api(self.live, f"/api/games/{self.game_id}/log?since={before + 1}")["entries"]
        assert entry[-1]["move"] == move
        # signed in the page by this browser's key, delegated by the player's main key
        assert json.loads(entry[-1]["envelope"])["delegation"]["label"] == "page"
        return entry[-1]


def _open_signed_in(browser, live, player, game_id, with_key, screenshot=None):
    """Give this browser a key of ``player`` (``pbem device add --browser``, the real CLI and
    keys.js) when ``with_key``, sign in with ``pbem open``, and open the game page."""
    if with_key:
        from tests.helpers.browser import add_browser
        add_browser(browser, live, player, "page", screenshot)
    url = player.run("open", game_id, "--no-browser").stdout.strip()
    browser.get(url)
    _wait(browser, 10, lambda d: d.current_url.endswith(f"/g/{game_id}")
          and d.find_elements(_by("ID"), "play"), "the game page with its play panel")


def _start(cli_player):
    ann, bob = cli_player("ann"), cli_player("bob")
    game_id = ann.run("new", "zarahemla", "--seats", 2, "--option", "board=beginner"
                      ).stdout.strip()
    bob.run("join", game_id)
    return game_id, ann, bob


def _seat_of(live, game_id, player):
    return next(s["seat"] for s in _api(live, f"/api/games/{game_id}")["seats"]
                if s["player"] == player.name)


def _cli_first_legal(player, game_id, avoid=()):
    moves = player.run("moves", game_id).stdout.splitlines()
    move = next((m for m in moves if m.split()[0] not in avoid), moves[0])
    player.run("play", game_id, move)
    return move


def test_a_zarahemla_set_up_and_first_turn_played_from_the_page_against_the_cli(
        browser, live, cli_player, screenshot, tmp_path):
    game_id, ann, bob = _start(cli_player)
    mine, theirs = _seat_of(live, game_id, ann), _seat_of(live, game_id, bob)
    _open_signed_in(browser, live, ann, game_id, True)
    page = Page(browser, live, game_id)
    _wait(browser, 10, lambda d: "signed with this browser's key" in
          d.find_element(_by("ID"), "key-status").text, "the key is found")
    shots = set()
    illegal_tried = played_from_page = 0
    for _ in range(40):
        info = _api(live, f"/api/games/{game_id}/view")
        owing = info["view"]["to_act"]
        if mine not in owing:
            if played_from_page and _turn_done(live, game_id, mine):
                break
            _cli_first_legal(bob, game_id, avoid=("offer",))
            _wait(browser, 10, lambda d: _panel_seq(d) == _seq(live, game_id) + 1,
                  "the page shows the CLI's move")
            continue
        _wait(browser, 10, lambda d: page.moves(), "the page lists my moves")
        moves = page.moves()
        kind = moves[0].split()[0]
        if kind == "settle":
            move = moves[len(moves) // 2]
            corner = move.split()[1]
            if not illegal_tried:
                # a corner next to a settlement, typed: refused with the rules' reason
                # before anything is signed
                taken = [m for m in _api(live, f"/api/games/{game_id}/view")["view"]
                         ["board"]["buildings"]]
                bad = _adjacent_corner(taken) if taken else "99"
                box = browser.find_element(_by("ID"), "move-text")
                box.clear()
                box.send_keys(f"settle {bad}\n")
                verdict = page.checked(f"settle {bad}")
                assert verdict.startswith("Not legal:"), verdict
                assert not browser.find_element(_by("ID"), "send-move").is_enabled()
                screenshot(browser, "play-illegal-refused")
                illegal_tried = 1
            page.click_place(corner)
            verdict = page.checked(move)
            assert verdict.startswith("Legal: " + move), verdict
            assert f"placed a settlement on {corner}" in verdict
            if "settle" not in shots:
                screenshot(browser, "play-settle-checked")
                shots.add("settle")
        elif kind == "road":
            move = moves[-1]
            a, b = move.split()[1].split("-")
            built = _api(live, f"/api/games/{game_id}/view")["view"]["board"]["buildings"]
            first, second = (a, b) if a in built else (b, a)
            page.click_place(first)       # my settlement: every road from it
            if len(moves) > 1:
                _wait(browser, 5, lambda d: d.find_element(_by("ID"), "move-pick")
                      .is_displayed(), "the moves naming that corner are offered")
                if "pick" not in shots:
                    screenshot(browser, "play-road-choices")
                    shots.add("pick")
                page.click_place(second)  # narrows them to one
            verdict = page.checked(move)
            assert verdict.startswith("Legal: " + move), verdict
        elif kind == "start":
            move = moves[0]
            page.click_place(move.split()[1])
            verdict = page.checked(move)
            assert verdict.startswith("Legal: " + move), verdict
        elif kind == "robber":
            # a 7: move the robber by clicking a hex, then choosing among its moves
            move = next((m for m in moves if len(m.split()) == 3), moves[0])
            page.click_place(move.split()[1])
            if sum(m.split()[1] == move.split()[1] for m in moves) > 1:
                _wait(browser, 5, lambda d: d.find_element(
                    _by("CSS_SELECTOR"), f'#move-pick button[data-move="{move}"]'),
                    "the hex's robber moves are offered").click()
            verdict = page.checked(move)
            assert verdict.startswith("Legal: " + move), verdict
            screenshot(browser, "play-robber-checked")
        elif kind == "discard":
            move = moves[0]
            page.click_move(move)
            assert page.checked(move).startswith("Legal: " + move)
        else:
            move = _first_turn_move(page, moves, live, game_id, mine, theirs, bob,
                                    browser, screenshot)
            if move is None:
                break
            continue
        page.send(move)
        played_from_page += 1
    assert played_from_page >= 7
    assert _turn_done(live, game_id, mine), "the page player's first turn was played"
    screenshot(browser, "play-after-first-turn")
    log = _api(live, f"/api/games/{game_id}/log")["entries"]
    assert any(e["seat"] == mine and e["move"] == "roll" for e in log)
    assert any(e["seat"] == mine and e["move"].startswith("offer") for e in log)
    assert any(e["seat"] == mine and e["move"] == "end" for e in log)
    if any(e["seat"] == theirs and e["move"] == "accept" for e in log):
        assert any(e["seat"] == mine and e["move"] == f"confirm {theirs}" for e in log)
    else:
        assert any(e["seat"] == mine and e["move"] == "withdraw" for e in log)
    # the whole log verifies offline, the page's moves included
    archive = tmp_path / "play-archive.json"
    bob.run("export", game_id, "-o", str(archive))
    out = bob.run("verify", str(archive), ok=5)    # a verified prefix: the game goes on
    assert "verified" in (out.stdout + out.stderr).lower()
    assert not _csp_violations(browser)


def _adjacent_corner(taken):
    from shared.zarahemla.board import CORNER_NEIGHBOURS
    corner = int(taken[0]) - 1
    return str(CORNER_NEIGHBOURS[corner][0] + 1)


def _turn_done(live, game_id, seat):
    log = _api(live, f"/api/games/{game_id}/log")["entries"]
    return any(e["seat"] == seat and e["move"] == "end" for e in log)


def _first_turn_move(page, moves, live, game_id, mine, theirs, bob, browser, screenshot):
    """The page player's first turn: roll, an offer built with the trade form (the CLI
    answers, the page confirms or withdraws), then end.  Returns None when done."""
    if "roll" in moves:
        page.click_move("roll")
        verdict = page.checked("roll")
        assert "left to chance" in verdict, verdict
        page.send("roll")
        return "roll"
    view = _api(live, f"/api/games/{game_id}/view")["view"]
    log = _api(live, f"/api/games/{game_id}/log")["entries"]
    offered = any(e["seat"] == mine and e["move"].startswith("offer") for e in log)
    confirms = [m for m in moves if m.startswith("confirm")]
    if confirms or "withdraw" in moves and offered and theirs not in view["to_act"]:
        move = confirms[0] if confirms else "withdraw"
        page.click_move(move)
        verdict = page.checked(move)
        assert verdict.startswith("Legal: " + move), verdict
        screenshot(browser, "play-confirm-checked")
        page.send(move)
        return move
    if not offered and any(m.startswith("offer") for m in moves):
        hand = _hand_on_page(browser)
        have = next((r for r, n in hand.items() if n > 0), None)
        if have is not None:
            # ask for a card the other player holds (the test reads their view through
            # their own CLI), so that they can accept and the page confirms
            theirs_hand = (bob.json("show", game_id).get("view") or {}).get("hand") or {}
            want = next((r for r, n in theirs_hand.items() if n > 0 and r != have),
                        next(r for r in hand if r != have))
            browser.find_element(_by("CSS_SELECTOR"), "#trade-form-box summary").click()
            give = browser.find_element(_by("CSS_SELECTOR"), f'input[name="give-{have}"]')
            give.clear()
            give.send_keys("1")
            get = browser.find_element(_by("CSS_SELECTOR"), f'input[name="get-{want}"]')
            get.clear()
            get.send_keys("1")
            browser.find_element(_by("CSS_SELECTOR"), f'input[name="to"][value="{theirs}"]'
                                 ).click()
            browser.find_element(_by("CSS_SELECTOR"), "#trade-form button[type=submit]").click()
            move = f"offer 1{have} for 1{want} to {theirs}"
            verdict = page.checked(move)
            assert verdict.startswith("Legal: " + move), verdict
            assert "offers" in verdict
            screenshot(browser, "play-offer-checked")
            page.send(move)
            # the other player answers from the CLI
            answers = bob.run("moves", game_id).stdout.splitlines()
            bob.run("play", game_id, "accept" if "accept" in answers else "decline")
            _wait(browser, 10, lambda d: _panel_seq(d) == _seq(live, game_id) + 1,
                  "the page shows the answer")
            return move
    page.click_move("end")
    verdict = page.checked("end")
    assert verdict.startswith("Legal: end"), verdict
    page.send("end")
    return None


def _hand_on_page(browser):
    rows = browser.find_elements(_by("CSS_SELECTOR"), "#trade-form table.bundle tbody tr")
    hand = {}
    for row in rows:
        cells = row.find_elements(_by("TAG_NAME"), "td")
        hand[cells[0].get_attribute("textContent").strip()] = int(
            cells[1].get_attribute("textContent").strip())
    return hand


def test_without_a_browser_key_the_page_checks_and_says_how_to_get_one(
        browser, live, cli_player, screenshot):
    game_id, ann, bob = _start(cli_player)
    mine = _seat_of(live, game_id, ann)
    if mine not in _api(live, f"/api/games/{game_id}")["to_act"]:
        _cli_first_legal(bob, game_id)
        _cli_first_legal(bob, game_id)
    _open_signed_in(browser, live, ann, game_id, False)
    status = _wait(browser, 10, lambda d: d.find_element(_by("CSS_SELECTOR"),
                                                         "#key-status.no-key"), "no key")
    assert "pbem device add --browser" in status.text
    page = Page(browser, live, game_id)
    move = page.moves()[0]
    page.click_move(move)
    assert page.checked(move).startswith("Legal: " + move)
    assert not browser.find_element(_by("ID"), "send-move").is_enabled()
    screenshot(browser, "play-no-key")
    # on a phone: the panel fits, and tapping near a corner picks it
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 390, "height": 844, "deviceScaleFactor": 2,
                             "mobile": True})
    browser.get(f"{live.url}/g/{game_id}")
    _wait(browser, 10, lambda d: d.find_elements(_by("CSS_SELECTOR"), "#live svg .pickable"),
          "the board's places are marked")
    width = browser.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide on a 390 px phone"
    corner = browser.find_element(_by("CSS_SELECTOR"), '#live svg .pickable[data-place="14"]')
    from selenium.webdriver.common.action_chains import ActionChains
    ActionChains(browser).move_to_element_with_offset(corner, 6, 5).click().perform()
    assert page.checked("settle 14").startswith("Legal: settle 14")
    screenshot(browser, "play-phone")
    assert not _csp_violations(browser)
