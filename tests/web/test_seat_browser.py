"""Claiming an offered seat from its link's page in a real browser (headless Chromium against
the live server): the player's browser key (``pbem device add --browser``) signs in from the
page's banner and signs the claim; the leaving player then signs the hand-over with
``pbem offer-seat``, and the seat is the browser player's."""

import requests

from tests.helpers.browser import _by, add_browser, csp_violations, wait


def _claim_answer(driver):
    text = driver.find_element(_by("ID"), "claim-status").text
    return text if text and not text.endswith("…") else None


def test_a_seat_is_claimed_from_its_page(browser, live, cli_player, screenshot):
    ann, bob, carol = cli_player("ann"), cli_player("bob"), cli_player("carol")
    game = ann.run("new", "pig", "--seats", 2, "--option", "target=100").stdout.strip()
    bob.run("join", game)
    ann.run("leave", game, "--to-bot", "--yes")
    url = bob.run("offer-seat", game, "north").stdout.strip()
    path = url[url.index("/seat/"):]
    add_browser(browser, live, carol, "laptop")
    browser.get(live.url + path)
    # signed in already by the device link, or from the page's banner with the browser's key
    first = wait(browser, 20, lambda d: next(iter(d.find_elements(
        _by("CSS_SELECTOR"), "#claim-submit, #key-signin button")), None),
        "neither a claim button nor a sign-in button on the page")
    if first.get_attribute("id") != "claim-submit":
        first.click()
    submit = wait(browser, 20, lambda d: next(iter(d.find_elements(_by("ID"), "claim-submit")),
                                              None), "the page shows no claim button")
    screenshot(browser, "seat-claim")
    submit.click()
    status = wait(browser, 20, _claim_answer, "the claim never answered")
    assert status.startswith("Claimed: the seat is yours once " + ann.name), status
    assert not csp_violations(browser)
    ann.run("offer-seat", game, "north")  # ann's key signs the hand-over
    seats = requests.get(f"{live.url}/api/games/{game}", timeout=10).json()["seats"]
    assert [s["player"] for s in seats] == [carol.name, bob.name]
    browser.get(live.url + path)  # the link is used up
    assert browser.find_element(_by("ID"), "seat-used").is_displayed()
