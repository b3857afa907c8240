"""Helpers for the page tests: sign a player in through a one-time link, read pages."""

import re
from itertools import count

_names = count(1)


def start_pig(make_player, seats=2, target=20):
    """A started Pig game between fresh players (unique names); returns (id, players)."""
    players = [make_player(f"{n}{next(_names)}") for n in ("ann", "bob", "cyd", "dee")[:seats]]
    r = players[0].post("/api/games", {"type": "pig", "seats": seats,
                                       "options": {"target": target}})
    assert r.status_code == 201, r.get_json()
    game_id = r.get_json()["id"]
    for p in players[1:]:
        r = p.post(f"/api/games/{game_id}/join", {})
        assert r.status_code == 200, r.get_json()
    assert r.get_json()["status"] == "playing"
    return game_id, players


def link_for(player, game_id):
    """Ask the API for a one-time link (a signed request); returns the JSON answer."""
    r = player.post(f"/api/games/{game_id}/link")
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def browser_for(app):
    """A fresh test client: a browser of its own, with its own cookies."""
    return app.test_client()


def sign_in(app, player, game_id):
    """A test client signed in as ``player`` through a link, as a browser would be."""
    browser = browser_for(app)
    path = link_for(player, game_id)["path"]
    r = browser.get(path)
    assert r.status_code == 200, r.get_data(as_text=True)
    return browser


def text_of(html):
    """The visible text of a page, roughly (tags removed, entities kept)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def inline_scripts_or_styles(html):
    """Every way a page could carry inline script or style (the CSP forbids them all)."""
    found = []
    for m in re.finditer(r"<script\b[^>]*>", html, re.I):
        if "src=" not in m.group(0):
            found.append(m.group(0))
    found += re.findall(r"<style\b", html, re.I)
    for tag in re.findall(r"<[a-zA-Z][^>]*>", html):
        found += re.findall(r"\s(?:style|on[a-z]+)\s*=", tag, re.I)
        found += re.findall(r"javascript:", tag, re.I)
    return found
