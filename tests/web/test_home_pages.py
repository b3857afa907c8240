"""The pages that make a browser a player's home, over Flask's test client: /signup, /signin,
/new, /settings, the join form, the session from a signed request, private games with their
invite token, and the lobby's own games first.  Each hostile attempt is kept as a test: a
forged session request, a private game joined without its token, settings changed with
another player's signature, markup in the fields a player writes."""

import json
import re
import secrets
from html.parser import HTMLParser

from client.signing import request_headers
from shared.envelope import public_key_hex
from shared.games import get_game

from .helpers import inline_scripts_or_styles, sign_in, start_pig, text_of


def _session_cookie(response):
    cookies = response.headers.getlist("Set-Cookie")
    return [c for c in cookies if c.startswith("pbem_session=")]


# --- the pages -------------------------------------------------------------------------------

def test_the_signup_page_has_its_form_and_says_what_a_key_is(client):
    r = client.get("/signup")
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and 'id="signup-form"' in html
    for field in ("name", "email", "tz"):
        assert re.search(rf'<input[^>]*name="{field}"', html), field
    assert "data-browser-tz" in html  # account.js fills in the browser's own time zone
    text = text_of(html)
    assert "server only ever sees its public half" in text
    assert "If you lose both" in text  # the recovery kit says what losing it all means
    assert not inline_scripts_or_styles(html)
    assert "/assets/account.js" in html and "/assets/keys.js" in html


def test_the_new_game_page_offers_every_option_with_its_help(client):
    html = client.get("/new").get_data(as_text=True)
    assert 'id="new-game-form"' in html
    for field in ("type", "seats", "move_hours", "on_timeout", "bots", "bot_level", "private"):
        assert f'name="{field}"' in html, field
    for type_ in ("zarahemla", "stone_age", "title_of_liberty"):
        game = get_game(type_)
        for key, spec in game.options_schema.items():
            assert f'name="option:{key}"' in html
            assert spec["help"].replace("'", "&#39;") in html, (type_, key)
    # nobody signed in: the page says how to start, and the button waits
    assert "sign up" in text_of(html).lower() and 'id="new-submit" disabled' in html
    assert not inline_scripts_or_styles(html)


class _Commands(HTMLParser):
    """Every ``<code>pbem ...</code>`` of a page, and whether it sits in a "shell" aside."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
            "source", "track", "wbr"}

    def __init__(self):
        super().__init__()
        self.stack, self.found, self.code = [], [], None

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        classes = (dict(attrs).get("class") or "").split()
        self.stack.append((tag, "shell" in classes))
        if tag == "code":
            self.code = ""

    def handle_endtag(self, tag):
        while self.stack:
            top, _ = self.stack.pop()
            if top == "code" and self.code is not None:
                if self.code.startswith("pbem "):
                    self.found.append((self.code, any(s for _, s in self.stack)))
                self.code = None
            if top == tag:
                break

    def handle_data(self, data):
        if self.code is not None:
            self.code += data


def commands_outside_asides(html):
    parser = _Commands()
    parser.feed(html)
    assert parser.found or "pbem " not in text_of(html)
    return [code for code, aside in parser.found if not aside]


def test_pages_speak_to_players_and_keep_the_shell_in_an_aside(app, client, make_player):
    lobby = app.test_client().get("/").get_data(as_text=True)
    assert 'href="/signup"' in lobby and 'href="/new"' in lobby
    assert commands_outside_asides(lobby) == []
    game_id, (ann, bob) = start_pig(make_player)
    cyd = make_player("cyd")
    open_id = cyd.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"]
    ann_browser = sign_in(app, ann, game_id)
    pages = {path: app.test_client().get(path).get_data(as_text=True)
             for path in ("/", "/signin", "/signup", "/new", "/settings", "/archive",
                          f"/g/{game_id}", f"/g/{open_id}", "/login/" + "x" * 40)}
    for path in ("/", "/settings", "/new", f"/g/{game_id}", f"/g/{open_id}"):
        pages["signed in " + path] = ann_browser.get(path).get_data(as_text=True)
    for path, html in pages.items():
        # a command is never the only way: each sits in a "from your shell" aside
        assert commands_outside_asides(html) == [], path
    assert "From your shell" in pages[f"signed in /g/{game_id}"]
    assert "Sign in" in pages["/login/" + "x" * 40]


def test_settings_read_back_what_was_saved(app, make_player):
    game_id, (ann, bob) = start_pig(make_player)
    r = ann.request("PATCH", "/api/players/me", {"tz": "Asia/Tokyo", "quiet_start": 22,
                                                 "quiet_end": 7, "notify": "digest",
                                                 "email": "ann@example.org"})
    assert r.status_code == 200, r.get_json()
    html = sign_in(app, ann, game_id).get("/settings").get_data(as_text=True)
    assert 'id="settings-form"' in html and f'data-player="{ann.name}"' in html
    assert 'value="Asia/Tokyo"' in html and 'value="ann@example.org"' in html
    assert '<option value="digest" selected>' in html
    assert '<option value="22" selected>' in html and '<option value="7" selected>' in html
    assert 'name="vacation_days"' in html and 'name="webhook_url"' in html
    # the push switch is off until the page's script finds this browser can show notices;
    # the chat channels are listed and added by the script (static/notices.js)
    assert re.search(r'id="set-push"[^>]*disabled', html) and 'id="push-status"' in html
    assert 'id="channel-form"' in html and 'id="channels-list"' in html
    assert "not available yet on this server" not in text_of(html)
    # moves by mail: a working switch, off until the player's main key delegates a mail key
    mail_box = re.search(r'<input id="set-mail-moves"[^>]*>', html).group(0)
    assert "disabled" not in mail_box and "checked" not in mail_box
    from shared.delegation import make_delegation
    made = ann.post("/api/mail/key").get_json()
    assert ann.post("/api/mail/key/delegation", {"delegation": make_delegation(
        ann.key, ann.name, made["device_key"], "mail", ann.clock() + 86400)}).status_code == 200
    html = sign_in(app, ann, game_id).get("/settings").get_data(as_text=True)
    assert " checked" in re.search(r'<input id="set-mail-moves"[^>]*>', html).group(0)
    # nobody signed in: no form, a way to sign in
    anon = app.test_client().get("/settings").get_data(as_text=True)
    assert 'id="settings-form"' not in anon and 'href="/signin"' in anon


def test_the_service_worker_is_served_at_the_top_of_the_site(app, make_player):
    """/sw.js: at the site's top (its scope is every page), always revalidated, under the
    pages' CSP; the settings page loads the script that registers it, from a file."""
    r = app.test_client().get("/sw.js")
    assert r.status_code == 200 and r.mimetype == "text/javascript"
    assert r.headers["Cache-Control"] == "no-cache"
    assert "script-src 'self'" in r.headers["Content-Security-Policy"]
    text = r.get_data(as_text=True)
    assert "showNotification" in text and "notificationclick" in text
    game_id, (ann, bob) = start_pig(make_player)
    html = sign_in(app, ann, game_id).get("/settings").get_data(as_text=True)
    assert '<script src="/assets/notices.js" defer></script>' in html
    assert inline_scripts_or_styles(html) == []


# --- the session from the browser's key --------------------------------------------------------

def test_a_signed_session_request_signs_the_browser_in(app, make_player):
    ann = make_player("ann")
    r = ann.post("/api/session")
    assert r.status_code == 200 and r.get_json()["player"] == "ann"
    cookie = _session_cookie(r)
    assert cookie and "HttpOnly" in cookie[0] and "SameSite=Strict" in cookie[0]
    assert r.headers["Cache-Control"] == "no-store"
    page = ann.client.get("/").get_data(as_text=True)  # the client kept the cookie
    assert 'id="signed-in-as">ann<' in page


def test_a_forged_or_replayed_session_request_is_refused(app, client, clock, make_player):
    ann, mallory = make_player("ann"), make_player("mallory")
    # mallory signs with her own key but names ann
    headers = request_headers(mallory.key, "ann", "POST", "/api/session", b"", ts=clock())
    r = app.test_client().post("/api/session", headers=headers)
    assert r.status_code == 401 and r.get_json()["error"]["code"] == "bad_signature"
    assert not _session_cookie(r)
    # a key nobody registered
    stranger = secrets.token_bytes(32)
    headers = request_headers(stranger, "ann", "POST", "/api/session", b"", ts=clock())
    r = app.test_client().post("/api/session", headers=headers)
    assert r.status_code == 401 and not _session_cookie(r)
    # a real request, replayed
    headers = request_headers(ann.key, "ann", "POST", "/api/session", b"", ts=clock())
    first = app.test_client().post("/api/session", headers=headers)
    again = app.test_client().post("/api/session", headers=headers)
    assert first.status_code == 200
    assert again.status_code == 401 and again.get_json()["error"]["code"] == "replayed_request"
    assert not _session_cookie(again)
    # a body (the request takes none): refused before anything is signed in
    body = b'{"player": "mallory"}'
    headers = request_headers(ann.key, "ann", "POST", "/api/session", body, ts=clock())
    r = app.test_client().post("/api/session", data=body, headers=headers,
                               content_type="application/json")
    assert r.status_code == 400 and not _session_cookie(r)
    # unsigned, and a forged cookie: refused, and the page reads as nobody's
    r = app.test_client().post("/api/session")
    assert r.status_code == 401 and r.mimetype == "application/json"
    other = app.test_client()
    other.set_cookie("pbem_session", _session_cookie(first)[0].split(";")[0].split("=", 1)[1]
                     [:-4] + "AAAA")
    assert "signed-in-as" not in other.get("/").get_data(as_text=True)


# --- private games --------------------------------------------------------------------------------

def test_a_private_game_is_never_listed_and_joined_only_with_its_token(app, client,
                                                                       make_player):
    ann, bob, cyd = make_player("ann"), make_player("bob"), make_player("cyd")
    r = ann.post("/api/games", {"type": "pig", "seats": 3, "private": True})
    assert r.status_code == 201
    game = r.get_json()
    game_id, token = game["id"], game["invite"]
    assert game["private"] is True and isinstance(token, str) and len(token) >= 24
    public = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()
    assert public["private"] is False and public["invite"] is None
    # never listed: the open games, the lobby; a stranger reading it by id gets no token
    listed = [g["id"] for g in client.get("/api/games").get_json()["games"]]
    assert public["id"] in listed and game_id not in listed
    assert f"/g/{game_id}" not in app.test_client().get("/").get_data(as_text=True)
    assert bob.get(f"/api/games/{game_id}").get_json()["invite"] is None
    # a join without the token, or with a wrong one: 403, JSON, nobody seated
    for body in ({}, {"invite": "x" * 32}, {"invite": token[:-1]}, {"invite": ""}):
        r = bob.post(f"/api/games/{game_id}/join", body)
        assert r.status_code == 403 and r.get_json()["error"]["code"] == "invite_needed", body
    assert client.get(f"/api/games/{game_id}").get_json()["seats"][1]["player"] is None
    # the page: a signed-in stranger sees why there is no form; the invite link shows one
    bob_page = sign_in(app, ann, game_id)  # ann's own page shows the invite link
    html = bob_page.get(f"/g/{game_id}").get_data(as_text=True)
    assert 'id="invite-link"' in html and token in html and 'id="join-form"' not in html
    bob_browser = app.test_client()
    bob_browser.set_cookie("pbem_session", _cookie_for(bob))
    html = bob_browser.get(f"/g/{game_id}").get_data(as_text=True)
    assert 'id="join-form"' not in html and "This game is private" in html
    assert token not in html
    html = bob_browser.get(f"/g/{game_id}?invite=nope").get_data(as_text=True)
    assert 'id="join-form"' not in html
    html = bob_browser.get(f"/g/{game_id}?invite={token}").get_data(as_text=True)
    assert 'id="join-form"' in html and f'data-invite="{token}"' in html
    # with the token: seated; once seated the player may share the link too
    r = bob.post(f"/api/games/{game_id}/join", {"invite": token})
    assert r.status_code == 200 and r.get_json()["invite"] == token
    assert cyd.post(f"/api/games/{game_id}/join", {"invite": token}).status_code == 200
    # started, still unlisted
    for status in ("playing", "open"):
        listed = [g["id"] for g in client.get(f"/api/games?status={status}").get_json()["games"]]
        assert game_id not in listed
    assert f"/g/{game_id}" not in app.test_client().get("/").get_data(as_text=True)
    assert f"/g/{game_id}" in sign_in(app, cyd, game_id).get("/").get_data(as_text=True)


def _cookie_for(player):
    r = player.post("/api/session")
    assert r.status_code == 200
    return _session_cookie(r)[0].split(";")[0].split("=", 1)[1]


def test_the_join_form_shows_for_a_signed_in_player_without_a_seat(app, make_player):
    ann, bob = make_player("ann"), make_player("bob")
    game_id = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"]
    browser = app.test_client()
    browser.set_cookie("pbem_session", _cookie_for(bob))
    html = browser.get(f"/g/{game_id}").get_data(as_text=True)
    assert 'id="join-form"' in html and f'data-player="{bob.name}"' in html
    assert f'data-join="/api/games/{game_id}/join"' in html
    # the creator holds a seat: no form; a spectator: a way to sign up
    ann_browser = app.test_client()
    ann_browser.set_cookie("pbem_session", _cookie_for(ann))
    assert 'id="join-form"' not in ann_browser.get(f"/g/{game_id}").get_data(as_text=True)
    anon = app.test_client().get(f"/g/{game_id}").get_data(as_text=True)
    assert 'id="join-form"' not in anon and 'href="/signup"' in anon


# --- settings and another player's signature ------------------------------------------------------

def test_settings_signed_by_another_player_are_refused(app, clock, make_player):
    ann, bob = make_player("ann", tz="Europe/Paris"), make_player("bob")
    body = json.dumps({"tz": "Asia/Tokyo"}).encode()
    # bob's key, ann's name: refused; ann's settings unchanged
    for path in ("/api/players/me", "/api/players/me/vacation"):
        method = "PATCH" if path.endswith("me") else "POST"
        data = body if method == "PATCH" else json.dumps({"days": 3}).encode()
        headers = request_headers(bob.key, "ann", method, path, data, ts=clock())
        r = app.test_client().open(path, method=method, data=data, headers=headers,
                                   content_type="application/json")
        assert r.status_code == 401 and r.get_json()["error"]["code"] == "bad_signature"
    # a signature of one body on another: refused
    headers = request_headers(ann.key, "ann", "PATCH", "/api/players/me",
                              json.dumps({"tz": "UTC"}).encode(), ts=clock())
    r = app.test_client().patch("/api/players/me", data=body, headers=headers,
                                content_type="application/json")
    assert r.status_code == 401
    me = ann.get("/api/players/me").get_json()
    assert me["tz"] == "Europe/Paris" and me["vacation_until"] is None
    # a session cookie is no signature: the settings API ignores it
    browser = app.test_client()
    browser.set_cookie("pbem_session", _cookie_for(ann))
    r = browser.patch("/api/players/me", json={"tz": "Asia/Tokyo"})
    assert r.status_code == 401 and r.mimetype == "application/json"
    assert ann.get("/api/players/me").get_json()["tz"] == "Europe/Paris"


# --- markup in what a player writes ---------------------------------------------------------------

def test_markup_in_a_name_or_email_is_refused_or_shown_as_text(app, client, clock, make_player):
    key = secrets.token_bytes(32)
    for name in ("<script>alert(1)</script>", "ann\"><img src=x>", "a<b"):
        body = json.dumps({"name": name, "public_key": public_key_hex(key)}).encode()
        headers = request_headers(key, name, "POST", "/api/players", body, ts=clock())
        r = client.post("/api/players", data=body, headers=headers,
                        content_type="application/json")
        assert 400 <= r.status_code < 500 and r.mimetype == "application/json", name
    ann = make_player("ann")
    for email in ("<script>@example.org", "a@<b>.org", "javascript:alert(1)"):
        r = ann.request("PATCH", "/api/players/me", {"email": email})
        assert r.status_code == 400 and "email" in r.get_json()["error"]["message"], email
    for tz in ("<b>Paris</b>", "Europe/Paris\"><"):
        assert ann.request("PATCH", "/api/players/me", {"tz": tz}).status_code == 400
    r = ann.request("PATCH", "/api/players/me", {"webhook_url": "javascript:alert(1)"})
    assert r.status_code == 400
    # a quoted local part (which a mail standard allows) is outside the one email rule of the
    # schema and the service: refused in a sentence, so no markup reaches a page through it
    tricky = '"<script>alert(1)</script>"@example.org'
    r = ann.request("PATCH", "/api/players/me", {"email": tricky})
    assert r.status_code == 400 and "email address" in r.get_json()["error"]["message"]
    browser = app.test_client()
    browser.set_cookie("pbem_session", _cookie_for(ann))
    html = browser.get("/settings").get_data(as_text=True)
    assert "<script>alert(1)" not in html


# --- the lobby: your games first, where you owe a move, soonest deadline first --------------------

def test_the_lobby_lists_your_games_first_by_time_left(app, clock, make_player):
    ann, bob = make_player("ann"), make_player("bob")
    ids = {}
    for hours in (48, 2, None):
        r = ann.post("/api/games", {"type": "pig", "seats": 2, "move_hours": hours})
        ids[hours] = r.get_json()["id"]
        assert bob.post(f"/api/games/{ids[hours]}/join", {}).status_code == 200
    # a game where bob is to move (ann owes nothing there)
    waiting = ann.post("/api/games", {"type": "pig", "seats": 2, "move_hours": 1}).get_json()["id"]
    bob.post(f"/api/games/{waiting}/join", {})
    ann.play(waiting, "north", "hold")
    open_one = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"]
    browser = app.test_client()
    browser.set_cookie("pbem_session", _cookie_for(ann))
    html = browser.get("/").get_data(as_text=True)
    mine = html.split('id="mine"')[1].split("</ul>")[0]
    order = re.findall(r'href="/g/([a-z0-9]+)"', mine)
    assert order[:3] == [ids[2], ids[48], ids[None]], order
    assert set(order[3:]) == {waiting, open_one}
    rows = mine.split("<li")[1:]
    assert all("your move" in row for row in rows[:3])
    assert not any("your move" in row for row in rows[3:])
    # "your games" comes before the public lists
    assert html.index('id="mine"') < html.index("Open for joining")
