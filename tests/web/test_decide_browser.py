"""The table's decisions from the game page, in a real browser: the buttons ask for a
confirmation, sign with the browser's key (linked with the real CLI) and send like a move;
the other seat answers from the CLI and the page says how the game ended."""

import json

import requests


def _wait(driver, condition, message, seconds=10):
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, seconds, poll_frequency=0.1, ignored_exceptions=(
        NoSuchElementException, StaleElementReferenceException)).until(condition, message)


def _log(live, game_id):
    return requests.get(f"{live.url}/api/games/{game_id}/log", timeout=10).json()["entries"]


def _button(driver, move):
    from selenium.webdriver.common.by import By
    return _wait(driver, lambda d: d.find_element(
        By.CSS_SELECTOR, f'#decide button.table-decision[data-entry="{move}"]'),
        f"a button for {move}")


def test_a_draw_offered_from_the_page_and_accepted_from_the_cli(browser, live, cli_player,
                                                                 screenshot):
    from selenium.webdriver.common.by import By

    from tests.helpers.browser import add_browser
    ann, bob = cli_player("ann"), cli_player("bob")
    game_id = ann.run("new", "pig", "--seats", 2).stdout.strip()
    bob.run("join", game_id)
    add_browser(browser, live, ann, "page", screenshot)
    browser.get(ann.run("open", game_id, "--no-browser").stdout.strip())
    _wait(browser, lambda d: d.find_elements(By.ID, "decide"), "the table's buttons")
    browser.find_element(By.CSS_SELECTOR, "#decide summary").click()
    _wait(browser, lambda d: d.find_element(By.ID, "key-status").get_attribute("class")
          and "no-key" not in d.find_element(By.ID, "key-status").get_attribute("class")
          and _button(d, "@draw offer").is_displayed(), "the key is ready")
    # a confirmation dismissed sends nothing
    _button(browser, "@draw offer").click()
    _wait(browser, lambda d: d.switch_to.alert, "the confirmation").dismiss()
    assert _log(live, game_id) == []
    _button(browser, "@draw offer").click()
    _wait(browser, lambda d: d.switch_to.alert, "the confirmation").accept()
    _wait(browser, lambda d: _log(live, game_id), "the offer was appended")
    entry = _log(live, game_id)[-1]
    assert entry["move"] == "@draw offer"
    assert json.loads(entry["envelope"])["delegation"]["label"] == "page"
    # every reader sees the offer; the offerer's own button withdraws it
    _wait(browser, lambda d: "offers a draw" in d.find_element(By.ID, "live").text,
          "the page shows the offer")
    _button(browser, "@draw refuse")
    screenshot(browser, "decide-draw-offered")
    bob.run("draw", game_id)
    _wait(browser, lambda d: "drawn by agreement" in d.find_element(By.ID, "live").text.lower(),
          "the page says how the game ended")
    assert not browser.find_elements(By.ID, "decide")
