"""The game's own notice channel from the game page, in real Chromium against a real server:
a seated player sets the game's Discord channel and removes it, each request signed by the
browser's key (a device key of the player's, with its delegation); what the page lists is
what ``pbem notify GAME`` lists; a refused address gets the server's sentence; a reader
holding no seat sees no such form; no inline script or style is needed (the CSP holds)."""

import requests

from tests.helpers.browser import _by, add_browser, by_id, csp_violations, status_text, wait

HOOK = "https://discord.com/api/webhooks/123456789012345678/"
TOKEN = "Sec" + "r" * 60  # the webhook's token: never shown again once set


def _items(driver):
    return driver.find_elements(_by("CSS_SELECTOR"), "#game-channel-list li[data-channel]")


def _set(driver, kind, url):
    from selenium.webdriver.support.ui import Select
    Select(by_id(driver, "game-channel-kind")).select_by_value(kind)
    field = by_id(driver, "game-channel-url")
    field.clear()
    field.send_keys(url)
    by_id(driver, "game-channel-submit").click()
    return status_text(driver, "game-channel-status")


def test_a_seated_player_sets_and_removes_the_games_channel_from_the_page(
        browser, live, cli_player):
    ann, bob = cli_player("ann"), cli_player("bob")
    game_id = ann.run("new", "pig", "--seats", 2).stdout.strip()
    bob.run("join", game_id)
    add_browser(browser, live, ann, "page")          # ann's browser key: a device of hers
    browser.get(ann.run("open", game_id, "--no-browser").stdout.strip())
    box = wait(browser, 15, lambda d: d.find_element(_by("ID"), "game-channels")
               if d.find_element(_by("ID"), "game-channels").is_displayed() else None,
               "the game's channel section is shown")
    wait(browser, 15, lambda d: box.get_attribute("data-loaded") == "0", "never listed")
    assert "No channel yet" in by_id(browser, "game-channel-list").text

    # an address that is not Discord's is refused with the server's sentence; nothing set
    kind, text = _set(browser, "discord", "https://evil.example/api/webhooks/1/x")
    assert "bad" in kind and text.startswith("Not set: ") and "Discord" in text, text
    assert bob.json("notify", game_id)["channels"] == []

    kind, text = _set(browser, "discord", HOOK + TOKEN)
    assert "ok" in kind and "(discord) set" in text, text
    wait(browser, 10, lambda d: len(_items(d)) == 1, "the channel is not listed")
    shown = _items(browser)[0].text
    assert shown.startswith("discord https://discord.com/api/webhooks/") and TOKEN not in shown
    # the CLI sees the same channel: set for the game, by ann (her own list holds it)
    listed = bob.json("notify", game_id)["channels"]
    assert [(c["kind"], c["game"]) for c in listed] == [("discord", game_id)]
    assert _items(browser)[0].get_attribute("data-channel") == str(listed[0]["id"])
    assert [c["id"] for c in ann.json("notify")["channels"] if c["game"] == game_id] == \
        [listed[0]["id"]]

    # removed from the page: gone for the CLI too
    _items(browser)[0].find_element(_by("CSS_SELECTOR"), "button.channel-remove").click()
    kind, text = status_text(browser, "game-channel-status")
    assert "ok" in kind and "removed" in text, text
    wait(browser, 10, lambda d: not _items(d), "the removed channel is still listed")
    assert bob.json("notify", game_id)["channels"] == []
    assert not csp_violations(browser)

    # a reader without a seat (here: nobody signed in) gets no channel form
    page = requests.get(f"{live.url}/g/{game_id}", timeout=10).text
    assert 'id="game-channels"' not in page


def test_the_games_channels_route_refuses_strangers_and_other_games(live, cli_player):
    """DELETE /api/games/ID/channels/CID: a player of another game, or a channel of another
    game, is refused with a sentence and the channel stays; any of the game's players may
    remove it, whoever set it."""
    ann, bob, eve = cli_player("ann"), cli_player("bob"), cli_player("eve")
    game_id = ann.run("new", "pig", "--seats", 2).stdout.strip()
    bob.run("join", game_id)
    other = eve.run("new", "pig", "--seats", 2).stdout.strip()
    channel = ann.json("notify", game_id, "--channel", "slack",
                       "https://hooks.slack.com/services/T0/B0/" + "x" * 24)["id"]
    for who, game, words in ((eve, game_id, "only the players"), (eve, other, "no channel")):
        r = _signed_delete(who, f"/api/games/{game}/channels/{channel}")
        assert r.status_code in (403, 404) and words in r.json()["error"]["message"], r.text
    assert [c["id"] for c in bob.json("notify", game_id)["channels"]] == [channel]
    r = _signed_delete(bob, f"/api/games/{game_id}/channels/{channel}")  # any seated player
    assert r.status_code == 204 and ann.json("notify", game_id)["channels"] == []


def _signed_delete(player, path):
    """A DELETE signed by ``player``'s CLI key."""
    from client.home import Home
    from client.signing import request_headers
    home = Home(player.home)
    key = home.private_key()
    headers = request_headers(key, player.name, "DELETE", path, b"")
    return requests.delete(player.server + path, headers=headers, timeout=10)
