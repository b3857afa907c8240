"""Table talk on the game page in real browsers (two headless Chromiums, two readers)
against a real server and the real ``pbem``: a message signed in the page by its browser key
(keys.js, the delegation in the document) appears on another reader's page by itself,
escaped; a private one only where it may be read; the form keeps what is typed while the
page follows the game; no inline script or style is needed (the CSP holds)."""

import json

import pytest
import requests

from shared.archive import verify_archive
from tests.helpers.browser import _by, csp_violations, wait

HOSTILE = 'Hello <b>east</b> & "all" <script>alert(1)</script>\nsecond line'


@pytest.fixture
def second_browser(launch_chromium):
    """Another Chromium (its own cookies and IndexedDB): the other reader."""
    driver = launch_chromium()
    try:
        yield driver
    finally:
        driver.quit()


def _texts(driver):
    return [li.find_element(_by("CSS_SELECTOR"), ".text").text for li in
            driver.find_elements(_by("CSS_SELECTOR"), "#talk-messages li.message")]


def _open(driver, player, game_id):
    url = player.run("open", game_id, "--no-browser").stdout.strip()
    driver.get(url)
    wait(driver, 10, lambda d: d.current_url.endswith(f"/g/{game_id}")
         and d.find_elements(_by("ID"), "talk"), "the game page with its talk")


def _say(driver, text, to=""):
    from selenium.webdriver.support.ui import Select
    box = driver.find_element(_by("ID"), "talk-text")
    box.clear()
    box.send_keys(text)
    Select(driver.find_element(_by("ID"), "talk-to")).select_by_value(to)
    driver.find_element(_by("ID"), "talk-send").click()
    wait(driver, 15, lambda d: d.find_element(_by("ID"), "talk-status").text.startswith(
        ("Sent", "Not sent")), "the page answered the send")
    return driver.find_element(_by("ID"), "talk-status").text


def test_a_message_sent_from_the_page_reaches_another_readers_page(
        browser, second_browser, live, cli_player, screenshot, tmp_path):
    from tests.helpers.browser import add_browser
    ann, bob = cli_player("ann"), cli_player("bob")
    game_id = ann.run("new", "pig", "--seats", 2).stdout.strip()
    bob.run("join", game_id)

    add_browser(browser, live, ann, "page", None)   # ann's browser key (pbem device add)
    _open(browser, ann, game_id)
    _open(second_browser, bob, game_id)             # bob: signed in, no browser key
    form = wait(browser, 10, lambda d: d.find_element(_by("ID"), "talk-form")
                if d.find_element(_by("ID"), "talk-form").is_displayed() else None,
                "the talk form is shown")
    assert "no-key" not in form.get_attribute("class")
    wait(second_browser, 10, lambda d: "holds no key" in d.find_element(
        _by("ID"), "talk-status").text, "bob's page says it holds no key")
    assert not second_browser.find_element(_by("ID"), "talk-send").is_enabled()

    # ann writes from the page; bob's page shows it by itself, as text
    assert _say(browser, HOSTILE) == "Sent."
    wait(browser, 10, lambda d: any("second line" in t for t in _texts(d)),
         "ann's page shows her message at once")
    wait(second_browser, 30, lambda d: any("second line" in t for t in _texts(d)),
         "bob's page shows ann's message without a reload")
    shown = _texts(second_browser)[-1]
    assert shown == HOSTILE  # white-space: pre-wrap keeps its line break
    inside = second_browser.find_elements(_by("CSS_SELECTOR"), "#talk-messages .text *")
    assert inside == []      # escaped: no <b>, no <script> became an element
    assert browser.find_element(_by("ID"), "talk-text").get_attribute("value") == ""

    # a private message from the page: bob reads it; a spectator's page (the API's unsigned
    # list) never does
    assert _say(browser, "east only: wood for stone?", to="east") == "Sent to east only."
    wait(second_browser, 30, lambda d: "east only: wood for stone?" in _texts(d),
         "bob's page shows the private message")
    public = requests.get(f"{live.url}/api/games/{game_id}/messages", timeout=10).json()
    assert [m["text"] for m in public["messages"]] == [HOSTILE]
    assert public["messages"][0]["document"]["body"]["delegation"]["label"] == "page"
    # the page follows the game: a move and a CLI message while ann types; her text stays
    box = browser.find_element(_by("ID"), "talk-text")
    box.send_keys("half a thought")
    bob.run("say", game_id, "--to", "north", "psst, north")
    ann.run("play", game_id, "hold")
    wait(browser, 30, lambda d: "psst, north" in _texts(d), "ann's page shows bob's message")
    wait(browser, 30, lambda d: d.find_elements(_by("ID"), "move-0"), "the page followed the move")
    assert browser.find_element(_by("ID"), "talk-text").get_attribute("value") == \
        "half a thought"
    screenshot(browser, "talk-ann-page")
    screenshot(second_browser, "talk-bob-page")
    # written after the move: at the log's new length
    assert _say(browser, "after the move") == "Sent."
    message = requests.get(f"{live.url}/api/games/{game_id}/messages", timeout=10).json()[
        "messages"][-1]
    assert message["text"] == "after the move" and message["at"] == 1
    assert not csp_violations(browser) and not csp_violations(second_browser)

    # the archive carries the page's messages (signed by the browser key) and verifies
    path = tmp_path / "game.json"
    ann.run("export", game_id, "-o", str(path))
    report = verify_archive(json.loads(path.read_text()))
    assert len(report["messages"]) == 4
