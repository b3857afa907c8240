"""The pages over Flask's test client: lobby, game page, live updates, sign-in links, errors,
the archive stepper, and guarantee 5 on HTML: no page shows what its reader may not see."""

import json
import re
import secrets

import pytest

from shared.envelope import (
    entry_hash,
    genesis_hash,
    head_message,
    make_envelope,
    move_entropy,
    public_key_hex,
    seed_commitment,
    sign,
    sign_envelope,
)
from shared.games import get_game

from .helpers import browser_for, inline_scripts_or_styles, link_for, sign_in, start_pig, text_of


def finish_pig(players, game_id, seats=("north", "east")):
    """Play Pig (target 1) to its end: roll, and hold as soon as the pot is non-empty."""
    by_seat = dict(zip(seats, players))
    for _ in range(200):
        info = players[0].get(f"/api/games/{game_id}/view").get_json()
        if info["game"]["status"] == "over":
            return info
        seat = info["view"]["to_act"][0]
        move = "hold" if info["view"]["pot"] else "roll"
        assert by_seat[seat].play(game_id, seat, move).status_code == 201
    raise AssertionError("the Pig game did not end")


def peek_both(players, game_id):
    """Each seat peeks once (a secret only it may see); returns {seat: its sentinel text}."""
    ann, bob = players
    by_seat = {"north": ann, "east": bob}
    for seat, player in by_seat.items():
        while ann.get(f"/api/games/{game_id}/view").get_json()["view"]["to_act"] != [seat]:
            other = next(s for s in by_seat if s != seat)
            by_seat[other].play(game_id, other, "roll")
        assert player.play(game_id, seat, "peek").status_code == 201
    return by_seat


def state_of(app, game_id):
    from server.db import db
    from server.db.models import Game
    from server.db.state_cache import load_state
    with app.app_context():
        game = db.session.get(Game, game_id)
        return load_state(game), game.seed


# --- the lobby and the rules ----------------------------------------------------------------

def test_the_lobby_lists_open_playing_and_finished_games_and_the_game_types(client, make_player):
    ann = make_player("ann")
    waiting = ann.post("/api/games", {"type": "pig", "seats": 3}).get_json()["id"]
    playing, _ = start_pig(make_player)
    page = client.get("/")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    open_part = html.split('id="open-games"')[1].split("</ul>")[0]
    playing_part = html.split('id="playing"')[1].split("</ul>")[0]
    assert f"/g/{waiting}" in open_part and f"/g/{playing}" not in open_part
    assert f"/g/{playing}" in playing_part
    for name in ("zarahemla", "stone_age", "title_of_liberty", "pig"):
        assert f'href="/rules/{name}"' in html


def test_rules_pages_show_how_to_play_first_and_the_notes_behind_a_link(client):
    for name in ("zarahemla", "stone_age", "title_of_liberty"):
        html = client.get(f"/rules/{name}").get_data(as_text=True)
        game = get_game(name)
        howto = html.index('id="how-to-play"')
        # How to play (HOWTO.md) first, then a new game's board, then the moves
        assert howto < html.index("<svg") < html.index('id="moves"')
        assert game.how_to_play().splitlines()[0].lstrip("# ") in html
        assert f'href="/rules/{name}/choices"' in html
        # for players: no test names or the notes' file; the board picture is labelled
        assert "test_" not in html and "RULES.md" not in html
        assert "<title>" in html.split("<svg", 1)[1].split("</svg>")[0]
        notes = client.get(f"/rules/{name}/choices").get_data(as_text=True)
        assert "<h1>" in notes and "<table>" in notes   # RULES.md as HTML, tables included
    # Stone Age's picture: the boxes of a new game's map with their requirements, and the
    # guide's table of which crossings connect
    from shared.stone_age import board as sa_board
    html = client.get("/rules/stone_age").get_data(as_text=True)
    for letter, (a, b, clo, con, _) in sa_board.MAPS[sa_board.CURRENT_MAP].boxes.items():
        assert (f"condition box {letter} on path {a}-{b}: Clothing {clo}, Construction {con}"
                in html), letter
        assert f">{clo}/{con}</text>" in html
    assert "Which crossings connect" in html
    pig = client.get("/rules/pig").get_data(as_text=True)
    assert "roll (a 1 ends your turn with nothing)" in pig
    assert "Pig to 20" in pig                           # its text board: it draws no SVG
    assert client.get("/rules/pig/choices").status_code == 404
    assert client.get("/rules/chess").status_code == 404
    assert client.get("/rules/chess/choices").status_code == 404


def test_the_score_column_is_named_by_the_game(client, make_player):
    game_id, _ = start_pig(make_player)
    html = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "<th>points</th>" in html                    # Pig keeps the default
    assert get_game("zarahemla").score_label == "VP"


def test_a_plug_in_games_own_score_name_heads_its_column(client, make_player, monkeypatch):
    """Liar's Dice (a plug-in as docs/ADDING-A-GAME.md builds it) counts dice, and says so."""
    from shared import games
    from tests.fixtures.liars_dice import GAME as LIARS
    monkeypatch.setitem(games._extra, LIARS.name, LIARS)
    monkeypatch.setitem(games._loaded, LIARS.name, LIARS)
    ann, bob = make_player("anndice"), make_player("bobdice")
    r = ann.post("/api/games", {"type": "liars_dice", "seats": 2})
    assert r.status_code == 201, r.get_json()
    game_id = r.get_json()["id"]
    assert bob.post(f"/api/games/{game_id}/join", {}).get_json()["status"] == "playing"
    html = client.get(f"/g/{game_id}").get_data(as_text=True)
    head = html.split("<thead>")[1].split("</thead>")[0]
    assert "<th>dice</th>" in head and "points" not in head


def test_html_in_a_rules_file_is_shown_as_text(tmp_path, monkeypatch):
    from server.web import pages
    md = "# Rules\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n"
    (tmp_path / "RULES.md").write_text(md)
    game_cls = type("Fake", (), {"name": "fake_rules"})
    game = game_cls()
    html = pages._markdown(game, "notes", lambda: md)
    assert "<script>" not in html and "<img" not in html and "&lt;script&gt;" in html
    monkeypatch.setattr(pages, "_RULES_CACHE", {})
    html = pages._markdown(game, "howto", lambda: md)   # How to play is read the same way
    assert "<script>" not in html and "&lt;script&gt;" in html


# --- one game: the page, the private view, live updates -------------------------------------

def test_a_game_page_shows_board_panel_and_log_from_the_view(app, client, make_player):
    game_id, (ann, bob) = start_pig(make_player)
    ann.play(game_id, "north", "roll")
    api = client.get(f"/api/games/{game_id}/view").get_json()
    page = client.get(f"/g/{game_id}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    game = get_game("pig")
    # the text board is the API's, in a <details> (the text alternative of a drawing)
    from markupsafe import escape
    assert str(escape(api["board"])) in html
    assert re.search(r'<details id="text-board"[^>]*>\s*<summary>', html)
    try:
        svg = game.svg(api["view"])
    except NotImplementedError:
        svg = None
    if svg is not None:
        assert svg in html
    assert "You are watching as a spectator" in html
    assert ann.name in html and bob.name in html
    assert "north rolled" in html  # the log, as a spectator may read it
    assert not inline_scripts_or_styles(html)


def test_pages_carry_a_strict_content_security_policy(client, make_player):
    game_id, _ = start_pig(make_player)
    for path in ("/", f"/g/{game_id}", f"/g/{game_id}/live", "/archive", "/rules/pig",
                 "/g/nosuchgame", "/no/such/page"):
        r = client.get(path)
        csp = r.headers.get("Content-Security-Policy", "")
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
        assert "unsafe-inline" not in csp and "script-src 'self'" in csp
        assert "style-src 'self'" in csp
        assert r.headers.get("X-Content-Type-Options") == "nosniff"
        assert not inline_scripts_or_styles(r.get_data(as_text=True)), path


def test_errors_are_pages_on_pages_and_json_on_the_api(client):
    page = client.get("/g/nosuchgame")
    assert page.status_code == 404 and page.mimetype == "text/html"
    assert "there is no game" in page.get_data(as_text=True)
    assert "Traceback" not in page.get_data(as_text=True)
    assert client.get("/nowhere").status_code == 404
    assert client.get("/nowhere").mimetype == "text/html"
    api = client.get("/api/games/nosuchgame")
    assert api.status_code == 404 and api.get_json()["error"]["code"] == "unknown_game"
    assert client.get("/api/nowhere").get_json()["error"]["code"] == "not_found"
    assert client.post("/").status_code == 405
    assert client.get("/g/" + "x" * 300).status_code == 404


def test_a_hostile_game_id_in_the_address_shows_as_text(client):
    r = client.get("/g/%3Cscript%3Ealert(1)")
    body = r.get_data(as_text=True)
    assert r.status_code == 404 and "<script>alert" not in body and "&lt;script&gt;" in body


def test_live_part_answers_304_until_something_changes(client, make_player):
    game_id, (ann, bob) = start_pig(make_player)
    first = client.get(f"/g/{game_id}/live")
    assert first.status_code == 200 and first.headers["ETag"]
    assert 'id="live"' in first.get_data(as_text=True)
    etag = first.headers["ETag"]
    same = client.get(f"/g/{game_id}/live", headers={"If-None-Match": etag})
    assert same.status_code == 304 and same.get_data() == b""
    ann.play(game_id, "north", "roll")
    moved = client.get(f"/g/{game_id}/live", headers={"If-None-Match": etag})
    assert moved.status_code == 200 and moved.headers["ETag"] != etag
    assert "north rolled" in moved.get_data(as_text=True)
    # the full page carries the same etag for its script to start from
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert f'data-etag="{moved.headers["ETag"].strip(chr(34))}"' in page


def test_an_open_game_page_waits_for_players_and_updates_on_join(client, make_player):
    ann, bob = make_player("ann"), make_player("bob")
    game_id = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"]
    first = client.get(f"/g/{game_id}/live")
    assert "Waiting for players: 1 of 2" in first.get_data(as_text=True)
    assert bob.post(f"/api/games/{game_id}/join", {}).status_code == 200
    after = client.get(f"/g/{game_id}/live", headers={"If-None-Match": first.headers["ETag"]})
    assert after.status_code == 200 and "Waiting for players" not in after.get_data(as_text=True)


# --- hidden information: the sentinel tests, on HTML -----------------------------------------

def test_sentinels_never_reach_a_spectator_or_another_seat_in_html(app, client, make_player):
    game_id, (ann, bob) = start_pig(make_player)
    by_seat = peek_both((ann, bob), game_id)
    state, seed = state_of(app, game_id)
    sentinels = {s: re.compile(rf"\b{s} peeked at {state['secret'][s]}\b") for s in by_seat}
    browsers = {None: browser_for(app)}
    for seat, player in by_seat.items():
        browsers[seat] = sign_in(app, player, game_id)
    for reader, browser in browsers.items():
        for path in ("/", f"/g/{game_id}", f"/g/{game_id}/live", f"/archive/{game_id}"):
            html = browser.get(path).get_data(as_text=True)
            assert seed not in html, f"the seed reached {reader} via {path}"
            for seat, sentinel in sentinels.items():
                if seat != reader:
                    assert not sentinel.search(html), f"{seat}'s secret reached {reader} via {path}"
    # and each player does see their own secret, in the log and in the private panel
    for seat in by_seat:
        html = browsers[seat].get(f"/g/{game_id}").get_data(as_text=True)
        assert sentinels[seat].search(html)
        assert "Only you see this" in html and "You see the game as" in html
    spectator = browsers[None].get(f"/g/{game_id}").get_data(as_text=True)
    assert "Only you see this" not in spectator


def test_the_private_panel_shows_the_viewers_hand_in_a_real_game(app, make_player):
    players = [make_player(f"z{i}") for i in range(3)]
    game = players[0].post("/api/games", {"type": "zarahemla", "seats": 3,
                                          "options": {"board": "beginner"}}).get_json()
    for p in players[1:]:
        assert p.post(f"/api/games/{game['id']}/join", {}).status_code == 200
    spectator = browser_for(app).get(f"/g/{game['id']}").get_data(as_text=True)
    assert "Your hand" not in spectator
    html = sign_in(app, players[0], game["id"]).get(f"/g/{game['id']}").get_data(as_text=True)
    assert "Your hand" in html and "Only you see this" in html


# --- one-time links and the session -----------------------------------------------------------

def test_a_link_signs_in_once_with_a_strict_cookie(app, make_player):
    game_id, (ann, _) = start_pig(make_player)
    link = link_for(ann, game_id)
    assert link["path"].startswith("/login/") and link["url"].endswith(link["path"])
    assert link["seat"] == "north" and link["game"] == game_id
    browser = browser_for(app)
    first = browser.get(link["path"])
    assert first.status_code == 200
    cookie = first.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    assert "Max-Age=" in cookie and "Expires=" in cookie
    assert "Secure" not in cookie  # plain HTTP here; see the HTTPS test
    assert first.headers["Referrer-Policy"] == "no-referrer"
    assert f'url=/g/{game_id}' in first.get_data(as_text=True)
    assert "You see the game as" in browser.get(f"/g/{game_id}").get_data(as_text=True)
    again = browser_for(app).get(link["path"])
    assert again.status_code == 410 and again.mimetype == "text/html"
    assert "already used" in again.get_data(as_text=True)
    assert "Set-Cookie" not in again.headers


def test_over_https_the_cookie_is_secure_and_host_only(app, make_player):
    game_id, (ann, _) = start_pig(make_player)
    browser = app.test_client()
    r = browser.get(link_for(ann, game_id)["path"], base_url="https://pbem.example")
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith("__Host-pbem_session=") and "Secure" in cookie
    page = browser.get(f"/g/{game_id}", base_url="https://pbem.example")
    assert "You see the game as" in page.get_data(as_text=True)


def test_expired_unknown_and_malformed_links_are_refused_with_a_page(app, clock, make_player):
    game_id, (ann, _) = start_pig(make_player)
    path = link_for(ann, game_id)["path"]
    clock.advance(11 * 60)
    late = browser_for(app).get(path)
    assert late.status_code == 410 and "expired" in late.get_data(as_text=True)
    for bad in ("/login/" + secrets.token_urlsafe(32), "/login/short", "/login/" + "é" * 30,
                "/login/" + "a" * 300):
        r = browser_for(app).get(bad)
        assert r.status_code == 404 and r.mimetype == "text/html", bad
        assert "not valid" in r.get_data(as_text=True)


def test_the_session_expires_and_a_forged_cookie_is_a_spectator(app, clock, make_player):
    game_id, (ann, _) = start_pig(make_player)
    browser = sign_in(app, ann, game_id)
    assert "You see the game as" in browser.get(f"/g/{game_id}").get_data(as_text=True)
    clock.advance(13 * 3600)
    assert "spectator" in browser.get(f"/g/{game_id}").get_data(as_text=True)
    forged = browser_for(app)
    forged.set_cookie("pbem_session", "eyJwIjoxLCJ0IjoxODAwMDAwMDAwfQ.AAAA.BBBB")
    assert "spectator" in forged.get(f"/g/{game_id}").get_data(as_text=True)


def test_sign_out_forgets_the_session(app, make_player):
    game_id, (ann, _) = start_pig(make_player)
    browser = sign_in(app, ann, game_id)
    r = browser.post("/logout")
    assert r.status_code == 303
    assert "spectator" in browser.get(f"/g/{game_id}").get_data(as_text=True)


def test_the_link_endpoint_needs_a_signed_seated_player(client, make_player):
    game_id, _ = start_pig(make_player)
    carl = make_player("carl")
    assert client.post(f"/api/games/{game_id}/link").status_code == 401
    r = carl.post(f"/api/games/{game_id}/link")
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "not_seated"
    assert carl.post("/api/games/nosuchgame/link").status_code == 404


def test_a_player_with_a_session_sees_other_games_as_a_spectator(app, make_player):
    game_id, (ann, _) = start_pig(make_player)
    other, _ = start_pig(make_player)
    browser = sign_in(app, ann, game_id)
    assert "spectator" in browser.get(f"/g/{other}").get_data(as_text=True)


# --- the archive stepper -------------------------------------------------------------------------

def test_the_archive_of_a_finished_game_steps_and_verifies(client, make_player):
    ann, bob = make_player("ann"), make_player("bob")
    game_id = ann.post("/api/games", {"type": "pig", "seats": 2,
                                      "options": {"target": 1}}).get_json()["id"]
    bob.post(f"/api/games/{game_id}/join", {})
    finish_pig((ann, bob), game_id)
    total = len(client.get(f"/api/games/{game_id}/log").get_json()["entries"])
    last = client.get(f"/archive/{game_id}")
    html = last.get_data(as_text=True)
    assert last.status_code == 200 and "outcome-refused" not in html
    assert "Verified" in html and f"Move {total} of {total}" in html
    first = client.get(f"/archive/{game_id}?step=0").get_data(as_text=True)
    assert f"The start (move 0 of {total})" in first
    one = client.get(f"/archive/{game_id}?step=1").get_data(as_text=True)
    assert f"Move 1 of {total}" in one and "rolled" in one
    assert f"Move {total} of {total}" in client.get(f"/archive/{game_id}?step=99999") \
        .get_data(as_text=True)
    assert client.get(f"/archive/{game_id}?step=x").status_code == 400
    # other scripts' digits are not a move number either (int() would read "\u0661" as 1)
    for odd in ("%D9%A1", "%EF%BC%91", "1_0", "%201"):
        refused = client.get(f"/archive/{game_id}?step={odd}")
        assert refused.status_code == 400, odd
        assert "whole number" in refused.get_data(as_text=True)
    listing = client.get("/archive").get_data(as_text=True)
    assert f"/archive/{game_id}" in listing


def test_an_uploaded_archive_verifies_steps_and_a_tampered_one_is_refused(client, make_player):
    ann, bob = make_player("ann"), make_player("bob")
    game_id = ann.post("/api/games", {"type": "pig", "seats": 2,
                                      "options": {"target": 1}}).get_json()["id"]
    bob.post(f"/api/games/{game_id}/join", {})
    finish_pig((ann, bob), game_id)
    doc = client.get(f"/api/games/{game_id}/archive").get_json()
    text = json.dumps(doc)
    from io import BytesIO
    r = client.post("/archive", data={"file": (BytesIO(text.encode()), "game.json")},
                    content_type="multipart/form-data")
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and "Verified" in html and "outcome-refused" not in html
    # the stepper's own form posts the text back with the move wanted
    r = client.post("/archive", data={"archive": text, "step": "1"})
    assert "Move 1 of" in r.get_data(as_text=True)
    r = client.post("/archive", data={"archive": text, "step": "goto", "goto": "0"})
    assert "The start" in r.get_data(as_text=True)
    doc["entries"][0]["envelope"] = doc["entries"][0]["envelope"].replace('"roll"', '"hold"')
    bad = client.post("/archive", data={"archive": json.dumps(doc)})
    assert bad.status_code == 422 and "Refused" in bad.get_data(as_text=True)
    junk = client.post("/archive", data={"file": (BytesIO(b"\xff\xfe not json"), "x.json")},
                       content_type="multipart/form-data")
    assert junk.status_code == 400 and junk.mimetype == "text/html"
    assert client.post("/archive", data={}).status_code == 400
    assert client.post("/archive", data={"archive": "[" * 100000}).status_code in (400, 422)


def test_a_running_game_is_a_verified_prefix_without_boards(client, make_player):
    game_id, (ann, _) = start_pig(make_player)
    ann.play(game_id, "north", "roll")
    html = client.get(f"/archive/{game_id}").get_data(as_text=True)
    assert "outcome-refused" not in html and "seed is revealed when the game ends" in html
    ann2 = make_player("solo")
    open_id = ann2.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"]
    r = client.get(f"/archive/{open_id}")
    assert r.status_code == 409 and r.mimetype == "text/html"


def _hostile_archive():
    """A well-signed Pig archive whose header names players with markup (anyone can make one)."""
    game = get_game("pig")
    keys = {"north": secrets.token_bytes(32), "east": secrets.token_bytes(32)}
    server = secrets.token_bytes(32)
    seed = secrets.token_bytes(32)
    header = {"game": "hostile1", "type": "pig", "rules_version": "1", "options": {"target": 20},
              "seats": [{"seat": "north", "player": "<script>alert(1)</script>",
                         "public_key": public_key_hex(keys["north"])},
                        {"seat": "east", "player": '"><img src=x onerror=alert(2)>',
                         "public_key": public_key_hex(keys["east"])}],
              "seed_commitment": seed_commitment(seed), "server_key": public_key_hex(server),
              "created": "2026-12-01T00:00:00+00:00"}
    prev = genesis_hash(header)
    state = game.new_game(["north", "east"], {"target": 20}, seed)
    entries = []
    for seq in range(3):
        seat = game.to_act(state)[0]
        env = make_envelope("hostile1", seq, prev, seat, "roll", secrets.token_hex(8),
                            1_800_000_000 + seq)
        raw, sig = sign_envelope(keys[seat], env)
        state = game.play(state, seat, "roll", move_entropy("hostile1", seq, prev))
        prev = entry_hash(raw.encode(), sig)
        entries.append({"seq": seq, "envelope": raw, "signature": sig, "hash": prev})
    head = {"game": "hostile1", "length": 3, "hash": prev,
            "signature": sign(server, head_message("hostile1", 3, prev))}
    return {"format": "pbem-archive-v1", "header": header, "genesis": genesis_hash(header),
            "entries": entries, "head": head, "seed": seed.hex(), "result": None}


def test_player_names_from_an_uploaded_archive_show_as_text(client):
    r = client.post("/archive", data={"archive": json.dumps(_hostile_archive())})
    html = r.get_data(as_text=True)
    assert "<script>alert" not in html and "<img src=x" not in html
    assert not inline_scripts_or_styles(html)
    if r.status_code == 200:  # a verified (prefix) archive names its players
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


# --- the command: pbem open ----------------------------------------------------------------------

class FlaskSession:
    """A requests.Session stand-in over Flask's test client (for the CLI, without a server)."""

    def __init__(self, client):
        self.client = client

    def request(self, method, url, data=None, headers=None, timeout=None):
        path = url.split("://", 1)[1].split("/", 1)[1]
        r = self.client.open("/" + path, method=method, data=data, headers=headers or {})

        class Response:
            status_code = r.status_code
            reason = r.status
            headers_ = r.headers

            def json(self):
                return json.loads(r.get_data(as_text=True))
        resp = Response()
        resp.headers = r.headers
        return resp


def test_pbem_open_prints_a_link_that_signs_in_once(app, client, clock, make_player, tmp_path,
                                                    monkeypatch):
    import time

    from click.testing import CliRunner
    clock.t = int(time.time())  # the CLI signs with the real clock

    from client.cli import cli
    from client.home import Home, atomic_write
    game_id, (ann, _) = start_pig(make_player)
    # the test player's key and name in a home, as `pbem register` would have written them
    home = Home(str(tmp_path / "home"))
    atomic_write(home.file(Home.KEY), ann.key.hex() + "\n")
    home.save_config({"name": ann.name})
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url, new=0: opened.append(url) or True)
    result = CliRunner().invoke(cli, ["--server", "http://localhost", "--home",
                                      str(tmp_path / "home"), "open", game_id],
                                obj={"session": FlaskSession(client)})
    assert result.exit_code == 0, result.output
    url = result.stdout.strip()
    assert url.startswith("http://localhost/login/")
    assert opened == []  # not a terminal: the link is printed, no browser is started
    assert "works once" in result.stderr
    browser = browser_for(app)
    assert browser.get(url[len("http://localhost"):]).status_code == 200
    assert "You see the game as" in browser.get(f"/g/{game_id}").get_data(as_text=True)
    # a game the player does not sit in: one sentence, exit 1
    other, _ = start_pig(make_player)
    result = CliRunner().invoke(cli, ["--server", "http://localhost", "--home",
                                      str(tmp_path / "home"), "open", other],
                                obj={"session": FlaskSession(client)})
    assert result.exit_code == 1 and "you hold no seat" in result.stderr
    assert "Traceback" not in result.output


def test_pbem_open_never_fails_when_there_is_no_browser(monkeypatch):
    import webbrowser

    from client.commands import web as commands_web

    def no_browser(url, new=0):
        raise webbrowser.Error("could not locate runnable browser")
    monkeypatch.setattr(webbrowser, "open", no_browser)
    assert commands_web._open_browser("http://localhost/login/x") is False
    monkeypatch.setattr(webbrowser, "open", lambda url, new=0: False)
    assert commands_web._open_browser("http://localhost/login/x") is False


def test_a_player_name_never_carries_markup(client):
    """Names are letters, digits, '.', '_' and '-' (the API refuses others), so a name cannot
    inject markup; every other player-provided string is escaped (see the archive test)."""
    from tests.conftest import FakeClock
    from tests.conftest import Player as SignedPlayer
    p = SignedPlayer(client, FakeClock(), "<script>x")
    assert p.register().status_code == 400


@pytest.mark.parametrize("path", ["/", "/archive", "/rules/zarahemla"])
def test_pages_are_light(client, path):
    assert len(client.get(path).get_data()) < 100_000


def test_the_text_of_a_page_reads_plainly(client, make_player):
    game_id, (ann, bob) = start_pig(make_player)
    text = text_of(client.get(f"/g/{game_id}").get_data(as_text=True))
    assert "To move: north" in text


def test_a_failure_inside_a_page_is_a_plain_500_page(tmp_path, monkeypatch):
    from server import create_app
    from server.web import pages
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/x.sqlite",
                      "RATELIMIT_ENABLED": False})
    with app.app_context():
        from flask_migrate import upgrade
        upgrade()

    def broken():
        raise RuntimeError("secret detail /etc/passwd")
    monkeypatch.setattr(pages, "session_player", broken)
    r = app.test_client().get("/")
    body = r.get_data(as_text=True)
    assert r.status_code == 500 and r.mimetype == "text/html"
    assert "secret detail" not in body and "Traceback" not in body
    assert "Something went wrong" in body


def test_a_broken_drawing_falls_back_to_the_text_board(client, make_player, monkeypatch):
    game_id, _ = start_pig(make_player)
    pig = get_game("pig")

    def broken(view):
        raise KeyError("oops")
    monkeypatch.setattr(pig, "svg", broken, raising=False)
    r = client.get(f"/g/{game_id}")
    assert r.status_code == 200 and 'id="text-board"' in r.get_data(as_text=True)


def test_a_large_archive_upload_is_accepted_and_an_oversized_one_refused(client, make_player):
    from io import BytesIO
    game_id, (ann, bob) = start_pig(make_player)
    finish_pig((ann, bob), game_id)
    text = json.dumps(client.get(f"/api/games/{game_id}/archive").get_json(), indent=1)
    padded = text + " " * (300 * 1024)  # bigger than the API's 64 KB body limit
    r = client.post("/archive", data={"file": (BytesIO(padded.encode()), "big.json")},
                    content_type="multipart/form-data")
    assert r.status_code == 200 and "Verified" in r.get_data(as_text=True)
    r = client.post("/archive", data={"archive": padded, "step": "1"})
    assert r.status_code == 200 and "Move 1 of" in r.get_data(as_text=True)
    huge = BytesIO(b" " * (9 * 1024 * 1024))
    r = client.post("/archive", data={"file": (huge, "huge.json")},
                    content_type="multipart/form-data")
    assert r.status_code == 413 and r.mimetype == "text/html"
    # the API keeps its own limit, and its JSON errors
    r = client.post("/api/games", data=b"x" * (100 * 1024), content_type="application/json")
    assert r.status_code == 413 and r.get_json()["error"]["code"] == "too_large"


def test_the_lobby_marks_the_signed_in_players_games_and_turns(app, make_player):
    game_id, (ann, bob) = start_pig(make_player)
    html = sign_in(app, ann, game_id).get("/").get_data(as_text=True)
    mine = html.split('id="mine"')[1].split("</ul>")[0]
    assert f"/g/{game_id}" in mine and "your move" in mine  # north (ann) starts at Pig
    html = sign_in(app, bob, game_id).get("/").get_data(as_text=True)
    assert "your move" not in html.split('id="mine"')[1].split("</ul>")[0]


def _mutations(doc, rng, n):
    """``n`` damaged copies of an archive: a value somewhere replaced by one of another kind."""
    odd = [None, 0, -1, 10 ** 30, "", "x" * 300, "<b>", [], {}, [1], {"a": 1}, True, "00" * 32]

    def paths(obj, prefix=()):
        yield prefix
        if isinstance(obj, dict):
            for k, v in obj.items():
                yield from paths(v, prefix + (k,))
        elif isinstance(obj, list):
            for i, v in enumerate(obj[:3]):
                yield from paths(v, prefix + (i,))
    every = list(paths(doc))
    for _ in range(n):
        copy = json.loads(json.dumps(doc))
        path = rng.choice(every)
        if not path:
            yield rng.choice(odd)
            continue
        target = copy
        for key in path[:-1]:
            target = target[key]
        if rng.random() < 0.2 and isinstance(target, dict):
            del target[path[-1]]
        else:
            target[path[-1]] = rng.choice(odd)
        yield copy


def test_damaged_archives_are_refused_with_a_page_never_a_500(client, make_player):
    import random
    game_id, (ann, bob) = start_pig(make_player, target=1)
    finish_pig((ann, bob), game_id)
    doc = client.get(f"/api/games/{game_id}/archive").get_json()
    for damaged in _mutations(doc, random.Random(5), 150):
        r = client.post("/archive", data={"archive": json.dumps(damaged), "step": "1"})
        assert r.status_code in (200, 400, 422), (damaged, r.status_code)
        assert r.mimetype == "text/html"


def test_every_reader_sees_each_owing_seats_deadline(client, make_player):
    """the panel shows what each seat owes and its deadline, to spectators too (as a
    <time> the page's script turns into the reader's own time zone)."""
    ann, bob = make_player("annd"), make_player("bobd")
    r = ann.post("/api/games", {"type": "pig", "seats": 2, "options": {}, "move_hours": 24})
    game_id = r.get_json()["id"]
    assert bob.post(f"/api/games/{game_id}/join", {}).status_code == 200
    html = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "You are watching as a spectator" in html
    assert re.search(r'owes: [^<]*; by <time datetime="[0-9T:+-]+', html), html


def test_a_finished_game_says_how_it_ended_on_its_page_and_in_its_archive(client, make_player):
    """a Title of Liberty game the Lamanites won (no winners) showed only "Game
    over." on its page and the players alone in its archive; the reason was only in the log.
    Both now say who won, or that no seat did, and the rules' reason."""
    import random
    ann = make_player("ann")
    game_id = ann.post("/api/games", {"type": "title_of_liberty", "seats": 1}).get_json()["id"]
    rng = random.Random(5)
    for _ in range(3000):
        info = ann.get(f"/api/games/{game_id}/view").get_json()
        if info["game"]["status"] == "over":
            break
        seat = info["view"]["to_act"][0]
        moves = ann.get(f"/api/games/{game_id}/legal?seat={seat}").get_json()["moves"]
        assert ann.play(game_id, seat, rng.choice(moves)).status_code == 201
    else:
        raise AssertionError("the game did not end")
    result = info["view"]["result"]
    reason = result["reason"]
    sentence = reason[:1].upper() + reason[1:] + ("" if reason.endswith(".") else ".")
    won = "Winner: " if result["winners"] else "No seat won."
    page = text_of(client.get(f"/g/{game_id}").get_data(as_text=True))
    assert "Game over." in page and won in page and sentence in page
    archive = text_of(client.get(f"/archive/{game_id}").get_data(as_text=True))
    assert ("winner:" if result["winners"] else "no seat won") in archive
    assert sentence in archive


def test_the_reason_filter_takes_only_a_text_reason():
    from server.web.pages import reason_filter
    assert reason_filter({"reason": "no Nephite army is left."}) == "No Nephite army is left."
    assert reason_filter({"reason": "red reached 12 victory points"}) == \
        "Red reached 12 victory points."
    for result in (None, {}, {"reason": None}, {"reason": ["x"]}, {"reason": "  "}, "text"):
        assert reason_filter(result) == ""
