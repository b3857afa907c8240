"""7. Pages: the first load of a game's page (``/g/ID``): bytes transferred and server time.

For each real game, a game is played for a number of random legal moves through the API (in
process, Flask's test client, SQLite), then its page is fetched as a first visit would fetch
it: the HTML and the files it links (CSS, scripts; no images: the board is inline), asked
with the ``Accept-Encoding`` Chromium sends over plain HTTP (gzip, deflate; over HTTPS it also
offers br and zstd, which compress better).  Targets: at most 100 KB transferred
(as the app itself sends it: public pages and every page's CSS and scripts compressed by
server/web/__init__.py, a signed-in reader's page not, against BREACH; the rendered size is
shown beside it) and at most
50 ms of server time (median of repeated requests, each a full render; the first, cold request
is shown beside it).  The 304 answer of the live part, which every open page asks for every
second, is measured too.
"""

import json
import random
import secrets
import statistics
import time

from .common import fmt_ms, guarded

SECTION = "7. pages"
GAMES = (("zarahemla", 3, {"board": "beginner"}), ("stone_age", 3, {}),
         ("title_of_liberty", 2, {}))
KB = 1024


def _app(workdir):
    from server import create_app
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{workdir}/pages.sqlite",
                      "RATELIMIT_ENABLED": False})
    with app.app_context():
        from flask_migrate import upgrade
        upgrade()
    return app


class _Signed:
    def __init__(self, client, name):
        from shared.envelope import public_key_hex
        self.client, self.name = client, name
        self.key = secrets.token_bytes(32)
        self.public_key = public_key_hex(self.key)

    def call(self, method, path, body=None):
        from client.signing import request_headers
        data = json.dumps(body).encode() if body is not None else b""
        r = self.client.open(path, method=method, data=data,
                             headers=request_headers(self.key, self.name, method, path, data),
                             content_type="application/json" if body is not None else None)
        assert r.status_code < 300, (path, r.get_json())
        return r.get_json()


def _played_game(client, type_, seats, options, moves, rng):
    from client.signing import signed_move
    players = [_Signed(client, f"p{secrets.token_hex(4)}") for _ in range(seats)]
    for p in players:
        p.call("POST", "/api/players", {"name": p.name, "public_key": p.public_key})
    game = players[0].call("POST", "/api/games", {"type": type_, "seats": seats,
                                                  "options": options})
    for p in players[1:]:
        p.call("POST", f"/api/games/{game['id']}/join", {})
    info = players[0].call("GET", f"/api/games/{game['id']}")
    by_seat = {s["seat"]: next(p for p in players if p.name == s["player"])
               for s in info["seats"]}
    played = 0
    for _ in range(moves):
        view = client.get(f"/api/games/{game['id']}/view").get_json()
        if view["game"]["status"] != "playing":
            break
        seat = rng.choice(view["view"]["to_act"])
        player = by_seat[seat]
        legal = player.call("GET", f"/api/games/{game['id']}/legal?seat={seat}")["moves"]
        body = signed_move(player.key, game["id"], view["next_seq"], view["prev"], seat,
                           rng.choice(legal))
        player.call("POST", f"/api/games/{game['id']}/moves", body)
        played += 1
    return game["id"], played, by_seat


BROWSER = {"Accept-Encoding": "gzip, deflate"}


def _size(response):
    """(bytes on the wire, bytes rendered) of a test-client response."""
    import zlib
    wire = response.get_data()
    encoding = response.headers.get("Content-Encoding")
    if encoding == "gzip":
        return len(wire), len(zlib.decompress(wire, 16 + zlib.MAX_WBITS))
    if encoding == "deflate":
        return len(wire), len(zlib.decompress(wire))
    assert encoding is None, encoding
    return len(wire), len(wire)


def _first_load(client, path):
    """((wire, rendered) of the page, (wire, rendered) of the CSS and scripts it links), as a
    first visit loads them."""
    import re
    import zlib
    page = client.get(path, headers=BROWSER)
    html = page.get_data()
    if page.headers.get("Content-Encoding") == "gzip":
        html = zlib.decompress(html, 16 + zlib.MAX_WBITS)
    linked = [_size(client.get(ref.decode(), headers=BROWSER))
              for ref in set(re.findall(rb'(?:href|src)="(/assets/[^"]+)"', html))]
    return _size(page), (sum(w for w, _ in linked), sum(r for _, r in linked))


def _row(run, what, page, linked):
    wire = page[0] + linked[0]
    run.add(SECTION, f"{what}: bytes transferred (HTML {page[0] / KB:.1f} KB + CSS and scripts "
            f"{linked[0] / KB:.1f} KB; rendered {page[1] / KB:.1f} KB + {linked[1] / KB:.1f} KB)",
            f"{wire / KB:.1f} KB", "<= 100 KB", met=wire <= 100 * KB)


def measure(run, app, type_, seats, options, moves, reps):
    client = app.test_client()
    game_id, played, by_seat = _played_game(client, type_, seats, options, moves,
                                            random.Random(17))
    client.get(f"/g/{game_id}")  # templates compiled once per process
    with app.app_context():
        app.extensions.pop("pbem_state_cache", None)  # a cold state: from the snapshot
    t0 = time.perf_counter()
    page = client.get(f"/g/{game_id}", headers=BROWSER)  # rendered and compressed
    cold = time.perf_counter() - t0
    assert page.status_code == 200
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        client.get(f"/g/{game_id}", headers=BROWSER)
        times.append(time.perf_counter() - t0)
    live = client.get(f"/g/{game_id}/live")
    etag = live.headers["ETag"]
    t304 = []
    for _ in range(reps):
        t0 = time.perf_counter()
        r = client.get(f"/g/{game_id}/live", headers={"If-None-Match": etag})
        t304.append(time.perf_counter() - t0)
        assert r.status_code == 304
    label = f"{type_}, {seats} seats, after {played} moves"
    _row(run, f"/g/ID first load, {label}", *_first_load(app.test_client(), f"/g/{game_id}"))
    median = statistics.median(times)
    run.add(SECTION, f"/g/ID server time, {label} (median of {reps}; first with a cold state "
            f"cache {fmt_ms(cold)})",
            fmt_ms(median), "<= 50 ms", met=median <= 0.050)
    run.add(SECTION, f"/g/ID/live unchanged (304), {label}", fmt_ms(statistics.median(t304)))
    # the same page as a seated player sees it after pbem open: the private panel and the play
    # panel, with the scripts that sign moves in the page
    to_act = (client.get(f"/api/games/{game_id}/view").get_json()["view"] or {}).get("to_act")
    seat = (to_act or list(by_seat))[0]  # the seat to move: its play panel lists its moves
    player = by_seat[seat]
    link = player.call("POST", f"/api/games/{game_id}/link")
    browser = app.test_client()
    assert browser.get(link["path"]).status_code == 200
    _row(run, f"/g/ID first load signed in as {seat}, {label}",
         *_first_load(browser, f"/g/{game_id}"))


def main(run):
    import os
    os.environ["PBEM_RATELIMIT"] = "off"
    app = guarded(run, SECTION, "pages app", _app, run.settings.workdir)
    if app is None:
        return
    moves = 40 if run.settings.quick else 150
    reps = 10 if run.settings.quick else 40
    from shared.games import game_types
    for type_, seats, options in GAMES:
        if type_ not in game_types():
            run.unavailable(SECTION, f"/g/ID first load, {type_}", "the game does not load")
            continue
        guarded(run, SECTION, f"/g/ID first load, {type_}", measure, run, app, type_, seats,
                options, moves, reps)
