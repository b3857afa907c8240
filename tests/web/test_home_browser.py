"""A browser is a home, in real Chromium against a real server, with no ``pbem`` command
anywhere: two players sign up in two browser profiles (each makes its own main key), one
starts a Zarahemla game on /new, the other joins it on /g/ID, they play from the pages (a
trade and a table-talk message among the moves), one changes her time zone on /settings, the
second player is restored on a third profile from the recovery file (his key rotated by
recovery, the game told by an ``@rotate`` entry), and the archive the page offers verifies
offline.  Screenshots of each page at desktop and phone size go to ``$PBEM_SCREENSHOTS``.

The module shares one server and its browsers across its tests (they run in order: each
builds on the one before)."""

import json
import os

import pytest
import requests

from shared.archive import load_archive, verify_archive
from tests.helpers.browser import _by, by_id, csp_violations, sign_up, status_text, submit, wait

SUFFIX = str(os.getpid() % 1000)
ANN, BOB = "hana" + SUFFIX, "ravi" + SUFFIX
state = {}

KEY_RECORD = """
const [player, done] = arguments;
const req = indexedDB.open('pbem-keys', 1);
req.onsuccess = () => {
  const get = req.result.transaction('keys').objectStore('keys').get('player:' + player);
  get.onsuccess = async () => {
    const rec = get.result;
    if (!rec) { return done(null); }
    let exported = 'exported';
    try { await crypto.subtle.exportKey('pkcs8', rec.privateKey); }
    catch (e) { exported = e.name; }
    done({kind: rec.kind, extractable: rec.privateKey.extractable, public_key: rec.public_key,
          exported: exported});
  };
};
req.onerror = () => done({error: String(req.error)});
"""

FETCH_TEXT = """
const [url, done] = arguments;
fetch(url, {cache: 'no-store'}).then(r => r.text()).then(done, e => done('error: ' + e));
"""


def run_async(driver, script, *args):
    driver.set_script_timeout(60)
    return driver.execute_async_script(script, *args)


@pytest.fixture(scope="module")
def profiles(launch_chromium, tmp_path_factory):
    """``profiles(n)``: the n-th browser profile (its own user-data-dir: its own IndexedDB
    and cookies), started on first use; all are closed at the end of the module."""
    root = tmp_path_factory.mktemp("profiles")
    drivers = {}

    def get(n):
        if n not in drivers:
            drivers[n] = launch_chromium(root / f"profile{n}")
        return drivers[n]
    try:
        yield get
    finally:
        for driver in drivers.values():
            driver.quit()


def api(live, path):
    return requests.get(live.url + path, timeout=10).json()


# --- 1. a browser is a home ------------------------------------------------------------------

def test_two_players_sign_up_in_two_browsers(profiles, live, shots):
    a, b = profiles(1), profiles(2)
    a.get(live.url + "/signup")
    shots(a, "home-signup")
    code_a, _ = sign_up(a, live, ANN, "America/Denver")
    shots(a, "home-signup-kit")
    code_b, kit_b = sign_up(b, live, BOB, "Europe/Berlin")
    assert code_a != code_b
    # registered with the browser's time zone and email, and the recovery key on file
    for name, tz in ((ANN, "America/Denver"), (BOB, "Europe/Berlin")):
        profile = api(live, f"/api/players/{name}")
        assert profile["tz"] == tz and profile["recovery_key"]
        assert list(profile["recovery_certs"]) == [profile["public_key"]]
    # the main key: made in the browser, not extractable, its public half the registered one
    record = run_async(a, KEY_RECORD, ANN)
    assert record["kind"] == "main" and record["extractable"] is False
    assert record["exported"] == "InvalidAccessError"
    assert record["public_key"] == api(live, f"/api/players/{ANN}")["public_key"]
    # each browser is signed in (the session came from its key)
    for driver, name in ((a, ANN), (b, BOB)):
        driver.get(live.url + "/")
        assert by_id(driver, "signed-in-as").text == name
    state.update(code_b=code_b, kit_b=kit_b)
    assert not csp_violations(a) and not csp_violations(b)


def test_a_browser_with_a_key_but_no_session_signs_in_from_it(profiles, live, shots):
    a = profiles(1)
    a.delete_all_cookies()
    # every page offers it: the banner names the player whose key this browser holds
    a.get(live.url + "/")
    banner = wait(a, 10, lambda d: d.find_element(_by("ID"), "key-signin").is_displayed()
                  and d.find_element(_by("ID"), "key-signin"), "no sign-in banner")
    assert f"Sign in as {ANN}" in banner.text
    a.get(live.url + "/signin")
    assert not a.find_elements(_by("ID"), "signed-in-as")
    button = wait(a, 10, lambda d: d.find_element(
        _by("CSS_SELECTOR"), f'#held-list button[data-name="{ANN}"]'), "no held key shown")
    shots(a, "home-signin-held")
    button.click()
    wait(a, 15, lambda d: d.find_elements(_by("ID"), "signed-in-as"), "not signed in")
    assert by_id(a, "signed-in-as").text == ANN


# --- 2. the lobby as a place to start ----------------------------------------------------------

def test_a_game_is_started_on_new_and_joined_on_its_page(profiles, live, shots):
    from selenium.webdriver.support.ui import Select
    a, b = profiles(1), profiles(2)
    a.get(live.url + "/new")
    Select(by_id(a, "new-type")).select_by_value("zarahemla")
    board = Select(by_id(a, "opt-zarahemla-board"))
    board.select_by_value("beginner")
    assert by_id(a, "help-zarahemla-board").text.startswith("variable board from the seed")
    seats = by_id(a, "new-seats")
    seats.clear()
    seats.send_keys("2")
    by_id(a, "new-hours").send_keys("72")
    shots(a, "home-new")
    submit(a, "new-game-form")
    wait(a, 20, lambda d: "/g/" in d.current_url, "the page did not go to the new game")
    game_id = a.current_url.rsplit("/g/", 1)[1].split("?")[0]
    game = api(live, f"/api/games/{game_id}")
    assert game["type"] == "zarahemla" and game["options"]["board"] == "beginner"
    assert game["move_hours"] == 72 and game["seats"][0]["player"] == ANN
    assert game["status"] == "open" and game["private"] is False
    state["game"] = game_id
    # bob finds it in the lobby and joins it from its page
    b.get(live.url + "/")
    b.find_element(_by("CSS_SELECTOR"), f'#open-games a[href="/g/{game_id}"]').click()
    wait(b, 10, lambda d: d.find_element(_by("ID"), "join-form"), "no join form")
    shots(b, "home-game-join")
    submit(b, "join-form")
    wait(b, 20, lambda d: api(live, f"/api/games/{game_id}")["status"] == "playing",
         "the game did not start")
    wait(b, 20, lambda d: d.find_elements(_by("ID"), "play"), "bob's page shows no play panel")
    seats = {s["player"]: s["seat"] for s in api(live, f"/api/games/{game_id}")["seats"]}
    state["seats"] = seats
    # the lobby lists their own games first
    a.get(live.url + "/")
    mine = by_id(a, "mine")
    assert mine.find_element(_by("CSS_SELECTOR"), f'a[href="/g/{game_id}"]')
    shots(a, "home-lobby")
    assert not csp_violations(a) and not csp_violations(b)


def test_a_signed_in_player_enters_a_tournament_from_its_page(profiles, live, cli_player,
                                                              shots):
    org = cli_player("org")
    tid = org.run("tournament", "new", "pig", "--rounds", "1", "--option", "target=6",
                  "--title", "Page cup").stdout.strip()
    b = profiles(2)
    b.get(live.url + "/")
    b.find_element(_by("CSS_SELECTOR"), f'#open-tournaments a[href="/t/{tid}"]').click()
    wait(b, 10, lambda d: d.find_element(_by("ID"), "enter-form"), "no entry form")
    shots(b, "tournament-enter")
    submit(b, "enter-form")
    wait(b, 20, lambda d: api(live, f"/api/tournaments/{tid}")["entries"], "not entered")
    assert [e["player"] for e in api(live, f"/api/tournaments/{tid}")["entries"]] == [BOB]
    # the entry is signed by the key this browser holds: bob's main key
    entry = api(live, f"/api/tournaments/{tid}/export")["entries"][0]
    assert entry["public_key"] == api(live, f"/api/players/{BOB}")["public_key"]
    wait(b, 20, lambda d: d.find_elements(_by("ID"), "entered"), "the page does not say so")
    shots(b, "tournament-entered")
    # (not started here: a game in progress would change what the later tests count of
    # bob's games; the page of a running tournament is tests/web/test_tournament_pages.py's)
    assert not csp_violations(b)


def test_a_private_game_is_joined_only_through_its_invite_link(profiles, live):
    from selenium.webdriver.support.ui import Select
    a, b = profiles(1), profiles(2)
    a.get(live.url + "/new?type=zarahemla")
    seats = by_id(a, "new-seats")
    seats.clear()
    seats.send_keys("2")
    by_id(a, "new-private").click()
    Select(by_id(a, "new-timeout")).select_by_value("bot:random")
    submit(a, "new-game-form")
    wait(a, 20, lambda d: "/g/" in d.current_url, "the page did not go to the new game")
    game_id = a.current_url.rsplit("/g/", 1)[1].split("?")[0]
    state["private"] = game_id
    game = api(live, f"/api/games/{game_id}")
    assert game["private"] is True and game["invite"] is None  # not told to strangers
    assert game["options"]["on_timeout"] == "bot:random"
    invite = by_id(a, "invite-link").text
    assert invite.startswith(live.url + f"/g/{game_id}?invite=")
    b.get(live.url + "/")
    assert not b.find_elements(_by("CSS_SELECTOR"), f'a[href="/g/{game_id}"]')
    b.get(live.url + f"/g/{game_id}")
    assert not b.find_elements(_by("ID"), "join-form")
    assert "This game is private" in by_id(b, "join-info").text
    b.get(invite)
    submit(b, "join-form")
    wait(b, 20, lambda d: api(live, f"/api/games/{game_id}")["status"] == "playing",
         "the invited player could not join")


# --- moves, a trade and table talk from the pages -------------------------------------------------

def _page_for(seat):
    return {state["seats"][ANN]: 1, state["seats"][BOB]: 2}[seat]


def _moves_on_page(driver):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#play button.move-choice'))"
        ".map(b => b.getAttribute('data-move'));")


def _again(fn, tries=20):
    """``fn()``, again when the page replaced its live part meanwhile (a stale element)."""
    from selenium.common.exceptions import (
        ElementClickInterceptedException,
        StaleElementReferenceException,
    )
    for attempt in range(tries):
        try:
            return fn()
        except (StaleElementReferenceException, ElementClickInterceptedException):
            if attempt == tries - 1:
                raise


def _click_move(driver, move):
    def click():
        button = driver.find_element(_by("CSS_SELECTOR"),
                                     f'#play button.move-choice[data-move="{move}"]')
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
        button.click()
    _again(click)


def _text(driver, id_):
    """An element's text, read in one step (the live part may be replaced at any time)."""
    return driver.execute_script(
        "const e = document.getElementById(arguments[0]); return e ? e.textContent : '';", id_)


def _send_checked(driver, move):
    wait(driver, 60, lambda d: _text(d, "move-result").startswith("Legal: " + move),
         f"{move} was not checked legal")
    wait(driver, 10, lambda d: by_id(d, "send-move").is_enabled(), "Sign and send stays disabled")
    _again(lambda: by_id(driver, "send-move").click())
    # a loaded machine (CI runs the suites one after the other, a contributor beside other
    # work) can take a while to check, sign and answer: generous waits, never a sleep
    try:
        wait(driver, 60, lambda d: _text(d, "move-result").startswith("Sent: " + move),
             f"{move} was not sent")
    except Exception as exc:   # say what the page said instead
        raise AssertionError(f"{move} was not sent; the page says: "
                             f"{_text(driver, 'move-result')!r}") from exc


def _play_one(profiles, live, traded):
    game_id = state["game"]
    info = api(live, f"/api/games/{game_id}")
    seat = info["to_act"][0]
    driver = profiles(_page_for(seat))
    seq = info["seq"]
    wait(driver, 30, lambda d: by_id(d, "play").get_attribute("data-next-seq") == str(seq + 1)
         and _moves_on_page(d), f"the page of {seat} never showed its moves")
    moves = _moves_on_page(driver)
    offers = [m for m in moves if m.startswith("offer ")]
    if not traded and offers:
        give, get = offers[0].split()[1], offers[0].split()[3]
        def build():
            summary = by_id(driver, "trade-form-box").find_element(_by("TAG_NAME"), "summary")
            if not by_id(driver, "trade-form-box").get_attribute("open"):
                summary.click()
            form = by_id(driver, "trade-form")
            for side, bundle in (("give", give), ("get", get)):
                count, res = int(bundle[0]), bundle[1:]
                box = form.find_element(_by("CSS_SELECTOR"), f'input[name="{side}-{res}"]')
                box.clear()
                box.send_keys(str(count))
            form.find_element(_by("CSS_SELECTOR"), "button[type=submit]").click()
        _again(build)
        move = f"offer {give} for {get}"
        assert by_id(driver, "move-text").get_attribute("value") == move
    else:
        move = next((m for m in moves if m in ("roll", "end")), moves[0])
        _click_move(driver, move)
    _send_checked(driver, move)
    wait(driver, 20, lambda d: api(live, f"/api/games/{game_id}")["seq"] == seq + 1,
         "the move did not reach the log")
    return seat, move


def test_a_dozen_moves_with_a_trade_and_table_talk_from_the_pages(profiles, live, shots):
    a, b = profiles(1), profiles(2)
    game_id = state["game"]
    for driver in (a, b):
        driver.get(live.url + f"/g/{game_id}")
    played = []
    traded = False
    while len(played) < 16 or not traded:
        seat, move = _play_one(profiles, live, traded)
        played.append((seat, move))
        traded = traded or move.startswith("offer ")
        assert len(played) < 30, played
    log = api(live, f"/api/games/{game_id}/log")["entries"]
    assert [(e["seat"], e["move"]) for e in log] == played
    assert any(m.startswith("offer ") for _, m in played)
    # table talk: hana writes, ravi's page shows it (as text)
    text = "Good luck <b>ravi</b> & all"
    talk = by_id(a, "talk-text")
    a.execute_script("arguments[0].scrollIntoView({block: 'center'});", talk)
    talk.send_keys(text)
    by_id(a, "talk-send").click()
    wait(a, 20, lambda d: "ok" in by_id(d, "talk-status").get_attribute("class"),
         "the message was not sent")
    wait(b, 40, lambda d: text in d.find_element(_by("ID"), "talk").text,
         "ravi's page never showed the message")
    assert not b.find_elements(_by("CSS_SELECTOR"), "#talk b")
    state["played"] = played
    shots(a, "home-game-playing")
    assert not csp_violations(a) and not csp_violations(b)


# --- 3. settings -----------------------------------------------------------------------------

def test_the_time_zone_is_changed_on_settings_and_read_back(profiles, live, shots):
    from selenium.webdriver.support.ui import Select
    a = profiles(1)
    a.get(live.url + "/settings")
    tz = by_id(a, "set-tz")
    assert tz.get_attribute("value") == "America/Denver"
    assert by_id(a, "set-email").get_attribute("value") == f"{ANN}@example.org"
    tz.clear()
    tz.send_keys("Mars/Olympus")
    submit(a, "settings-form")
    kind, text = status_text(a, "settings-status")
    assert "bad" in kind and "Mars/Olympus" in text and "time zone" in text  # in words
    tz.clear()
    tz.send_keys("Asia/Tokyo")
    Select(by_id(a, "set-quiet-start")).select_by_value("22")
    Select(by_id(a, "set-quiet-end")).select_by_value("7")
    submit(a, "settings-form")
    kind, text = status_text(a, "settings-status")
    assert "ok" in kind, text
    a.get(live.url + "/settings")
    assert by_id(a, "set-tz").get_attribute("value") == "Asia/Tokyo"
    assert Select(by_id(a, "set-quiet-start")).first_selected_option.get_attribute("value") \
        == "22"
    assert api(live, f"/api/players/{ANN}")["tz"] == "Asia/Tokyo"
    shots(a, "home-settings")


def _mail_switch(driver, live, want):
    driver.get(live.url + "/settings")
    box = by_id(driver, "set-mail-moves")
    assert box.is_enabled() and box.is_selected() is not want
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", box)
    box.click()
    return status_text(driver, "mail-status")


def test_moves_by_mail_are_switched_on_and_off_on_settings(profiles, live, shots):
    """The switch delegates a mail key with the browser's main key; off, it wipes it and
    the running game's log records its revocation, signed by that main key."""
    a = profiles(1)
    kind, text = _mail_switch(a, live, True)
    assert "ok" in kind and "Moves by mail are on until" in text, text
    a.get(live.url + "/settings")
    assert by_id(a, "set-mail-moves").is_selected()
    assert by_id(a, "mail-until").text
    shots(a, "settings-mail-on")
    kind, text = _mail_switch(a, live, False)
    assert "ok" in kind and "Moves by mail are off" in text and "Not recorded" not in text, text
    a.get(live.url + "/settings")
    assert not by_id(a, "set-mail-moves").is_selected()
    entries = api(live, f"/api/games/{state['game']}/log")["entries"]
    revokes = [e for e in entries if e["move"].startswith("@revoke ")]
    assert len(revokes) == 1 and revokes[0]["seat"] == state["seats"][ANN]
    assert csp_violations(a) == []


# --- restoring a player from the recovery kit -----------------------------------------------------

def test_the_second_player_is_restored_on_a_third_profile(profiles, live, shots, tmp_path):
    b, c = profiles(2), profiles(3)
    game_id = state["game"]
    before = api(live, f"/api/players/{BOB}")
    seat = state["seats"][BOB]
    old_key = api(live, f"/api/games/{game_id}/table")["keys"][seat]
    assert old_key == before["public_key"]
    kit = tmp_path / f"pbem-recovery-{BOB}.txt"
    kit.write_text(state["kit_b"], "utf-8")
    c.get(live.url + "/signin")
    shots(c, "home-signin")
    # a mistyped code is refused by its check letters, in words
    by_id(c, "restore-name").send_keys(BOB)
    code = by_id(c, "restore-code")
    code.send_keys(state["code_b"][:-1] + ("a" if state["code_b"][-1] != "a" else "b"))
    submit(c, "restore-form")
    kind, text = status_text(c, "restore-status")
    assert "bad" in kind and "mistyped" in text
    assert api(live, f"/api/players/{BOB}")["public_key"] == old_key
    # the file restores him
    code.clear()
    by_id(c, "restore-file").send_keys(str(kit))
    submit(c, "restore-form")
    kind, text = status_text(c, "restore-status", 60)
    # both games he plays (this one and the private one) learn the new key
    assert "ok" in kind and "replaced in 2 games" in text, text
    after = api(live, f"/api/players/{BOB}")
    new_key = after["public_key"]
    assert new_key != old_key and after["key_rotations"] == before["key_rotations"] + 1
    assert set(after["recovery_certs"]) == {old_key, new_key}
    table = api(live, f"/api/games/{game_id}/table")
    assert table["keys"][seat] == new_key
    private = api(live, f"/api/games/{state['private']}")
    bob_seat = next(s["seat"] for s in private["seats"] if s["player"] == BOB)
    assert api(live, f"/api/games/{state['private']}/table")["keys"][bob_seat] == new_key
    last = api(live, f"/api/games/{game_id}/log")["entries"][-1]
    assert last["seat"] == seat and last["move"] == (
        f"@rotate {new_key} recovery {after['recovery_key']} "
        f"{before['recovery_certs'][old_key]}")
    # the third profile is ravi's now; the second one's key no longer works
    c.get(live.url + "/")
    assert by_id(c, "signed-in-as").text == BOB
    refused = run_async(b, "const d = arguments[1]; pbemKeys.session(arguments[0])"
                        ".then(() => d('signed in'), e => d(String(e.message)));", BOB)
    assert "signature" in refused
    b.get(live.url + f"/g/{game_id}")
    stale = run_async(b, "const d = arguments[2]; pbemKeys.available(arguments[0], "
                      "arguments[1]).then(d);", game_id, seat)
    assert stale is False  # the page then says how to sign in, instead of failing to send
    # and it plays for him from the page
    if api(live, f"/api/games/{game_id}")["to_act"][0] != seat:
        profiles(1).get(live.url + f"/g/{game_id}")
        _play_one(profiles, live, True)
    c.get(live.url + f"/g/{game_id}")
    wait(c, 20, lambda d: "has-key" in by_id(d, "key-status").get_attribute("class"),
         "the third profile holds no key for the seat")
    seat_moved, move = _play_as(c, live)
    assert seat_moved == seat
    assert not csp_violations(c)


def _play_as(driver, live):
    """One move from ``driver``'s page (the seat to act must be its player's)."""
    game_id = state["game"]
    info = api(live, f"/api/games/{game_id}")
    seq = info["seq"]
    wait(driver, 30, lambda d: by_id(d, "play").get_attribute("data-next-seq") == str(seq + 1)
         and _moves_on_page(d), "the page never showed its moves")
    moves = _moves_on_page(driver)
    move = next((m for m in moves if m in ("roll", "end")), moves[0])
    _click_move(driver, move)
    _send_checked(driver, move)
    wait(driver, 20, lambda d: api(live, f"/api/games/{game_id}")["seq"] == seq + 1,
         "the move did not reach the log")
    return info["to_act"][0], move


# --- the archive the page offers verifies offline --------------------------------------------

def test_the_archive_from_the_page_verifies(profiles, live):
    c = profiles(3)
    game_id = state["game"]
    c.get(live.url + f"/g/{game_id}")
    link = by_id(c, "archive-download")
    assert link.get_attribute("download") == f"pbem-{game_id}.json"
    text = run_async(c, FETCH_TEXT, link.get_attribute("href"))
    # every entry's signature (the pages' main keys, the recovery key's @rotate) and hash
    # link hold: a verified prefix of a running game (its seed is told once it is over)
    report = verify_archive(load_archive(text.encode("utf-8")))
    assert report["status"] == "playing" and report["complete"] is False
    entries = json.loads(text)["entries"]
    assert report["entries"] == len(entries) >= len(state["played"]) + 2
    assert report["head"]["length"] == len(entries)
    moves = [json.loads(e["envelope"])["move"] for e in entries]
    assert sum(1 for m in moves if m.startswith("@rotate ")) == 1
    assert any(m.startswith("offer ") for m in moves)
    assert "delegation" not in text  # signed by the players' own keys, no device's
    # a byte changed in one signature: refused
    from shared.archive import ArchiveError
    doc = json.loads(text)
    sig = doc["entries"][3]["signature"]
    doc["entries"][3]["signature"] = ("0" if sig[0] != "0" else "1") + sig[1:]
    with pytest.raises(ArchiveError):
        verify_archive(load_archive(json.dumps(doc).encode("utf-8")))


# --- a one-time link from a browser already signed in ------------------------------------------

def test_a_signed_in_browser_lets_another_play_through_a_one_time_link(profiles, live, shots):
    a, b = profiles(1), profiles(2)  # b: ravi's old profile, whose key was rotated away
    game_id = state["game"]
    a.get(live.url + "/settings")
    label = by_id(a, "device-label")
    label.send_keys("tablet")
    submit(a, "device-form")
    url = wait(a, 20, lambda d: _text(d, "device-url"), "no link was shown")
    assert url.startswith(live.url + "/device/")
    b.get(url)
    shown = wait(b, 20, lambda d: _text(d, "device-fingerprint").strip("…"),
                 "the other browser shows no fingerprint")
    wait(a, 20, lambda d: _text(d, "device-fingerprint-here") == shown,
         "this browser never showed the same fingerprint")
    shots(a, "home-settings-device")
    by_id(a, "device-confirm-yes").click()
    kind, text = status_text(a, "device-status")
    assert "ok" in kind and "tablet" in text, text
    wait(b, 20, lambda d: by_id(d, "device-link").get_attribute("data-state") == "done",
         "the other browser never got its permission")
    devices = requests.get(live.url + "/api/players/" + ANN, timeout=10).json()
    assert devices["name"] == ANN
    # the other browser is signed in as hana now, by its own (delegated) key
    b.get(live.url + f"/g/{game_id}")
    assert by_id(b, "signed-in-as").text == ANN
    seat = state["seats"][ANN]
    signer = run_async(b, "const d = arguments[2]; pbemKeys.available(arguments[0], "
                       "arguments[1]).then(d);", game_id, seat)
    assert signer is True
    assert not csp_violations(a) and not csp_violations(b)


def test_the_recovery_code_in_the_browser_is_the_clis(profiles, live):
    """keys.js writes and reads recovery codes exactly as client/recovery.py does."""
    from client.recovery import format_recovery_code, read_recovery_code
    a = profiles(1)
    a.get(live.url + "/")
    for raw in (bytes(32), bytes(range(32)), bytes([255]) * 32, bytes.fromhex("a5" * 32)):
        code = run_async(a, "const [h, d] = arguments; const b = new Uint8Array(32);"
                         "for (let i = 0; i < 32; i++) { b[i] = parseInt(h.substr(2 * i, 2), 16); }"
                         "pbemKeys.formatRecoveryCode(b).then(d);", raw.hex())
        assert code == format_recovery_code(raw)
        back = run_async(a, "const [c, d] = arguments; pbemKeys.readRecoveryCode(c).then("
                         "b => d(Array.from(b)), e => d(String(e.message)));",
                         code.upper().replace("-", " "))
        assert bytes(back) == read_recovery_code(code) == raw
    right = format_recovery_code(bytes(32))
    wrong = right[:-1] + ("a" if right[-1] != "a" else "b")  # one check letter off
    said = run_async(a, "const [c, d] = arguments; pbemKeys.readRecoveryCode(c).then("
                     "b => d('read'), e => d(String(e.message)));", wrong)
    assert "mistyped" in said
    said = run_async(a, "const [c, d] = arguments; pbemKeys.readRecoveryCode(c).then("
                     "b => d('read'), e => d(String(e.message)));", "hello")
    assert "not a recovery code" in said
