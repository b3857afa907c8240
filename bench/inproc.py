"""In-process cost of one signed move POST: Flask test client, one thread, no HTTP, no rivals.

``python -m bench.inproc DATABASE_URL N`` prints one JSON line: milliseconds per move (wall and
CPU), SQL statements and commits per move, and the top functions by own time (cProfile).  It
tells the intrinsic cost of the append path apart from waits for locks under concurrency.

CPU per move is timed in blocks of 50 moves: the median block is the figure (the fastest
block beside it), so that a burst of other work on a shared machine moves it less.  A
``GET /api/health`` through the same test client, timed the same way, is the floor of any
request here.
"""

import cProfile
import io
import json
import os
import pstats
import secrets
import sys
import time


def main(url, n):
    os.environ["PBEM_RATELIMIT"] = "off"
    from client.signing import request_headers
    from server import create_app
    from server.db import db
    from shared.envelope import public_key_hex
    from shared.games import register_path
    register_path("tests.fixtures.pig:GAME")
    from sqlalchemy import event

    from .servers import hold_chain

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "RATELIMIT_ENABLED": False})
    with app.app_context():
        from flask_migrate import upgrade
        upgrade()
        counts = {"sql": 0, "commit": 0}
        capture = []

        def on_sql(conn, cursor, statement, *args, **kw):
            counts["sql"] += 1
            if capture and capture[0] is None:
                capture.append((" ".join(statement.split())[:80], _caller()))
        event.listen(db.engine, "before_cursor_execute", on_sql)
        from server.db import prepared  # the append path's statements on the driver's cursor
        prepared.TRACE.append(lambda sql: on_sql(None, None, sql))
        event.listen(db.engine, "commit",
                     lambda *a, **k: counts.__setitem__("commit", counts["commit"] + 1))
    client = app.test_client()
    keys = {}

    def signed(name, key, method, path, body):
        data = json.dumps(body).encode()
        h = request_headers(key, name, method, path, data)
        r = client.open(path, method=method, data=data, headers=h,
                        content_type="application/json")
        assert r.status_code < 300, r.get_json()
        return r.get_json()

    names = []
    for seat in ("north", "east"):
        key = secrets.token_bytes(32)
        name = f"{seat[0]}{secrets.token_hex(3)}"
        signed(name, key, "POST", "/api/players", {"name": name,
                                                   "public_key": public_key_hex(key)})
        keys[seat] = key
        names.append(name)
    game = signed(names[0], keys["north"], "POST", "/api/games", {"type": "pig", "seats": 2})
    game = signed(names[1], keys["east"], "POST", f"/api/games/{game['id']}/join", {})
    chain, _ = hold_chain(game["id"], game["head"], 0, n + 50 + 20, keys)

    def post(item):
        _, path, body = item
        r = client.post(path, data=body, content_type="application/json")
        assert r.status_code == 201, r.get_json()

    for item in chain[:49]:        # warm-up
        post(item)
    capture.append(None)           # record the statements of one move, with their callers
    post(chain[49])
    statements = capture[1:]
    capture.clear()
    counts.update(sql=0, commit=0)
    half = n // 2
    blocks = []
    w0 = time.perf_counter()
    for start in range(50, 50 + half, 50):
        c0 = time.process_time()
        for item in chain[start:min(start + 50, 50 + half)]:
            post(item)
        blocks.append((time.process_time() - c0) / (min(start + 50, 50 + half) - start))
    wall = time.perf_counter() - w0
    sql, commits = counts["sql"] / half, counts["commit"] / half
    health = []
    for _ in range(max(4, len(blocks))):
        c0 = time.process_time()
        for _ in range(50):
            client.get("/api/health")
        health.append((time.process_time() - c0) / 50)
    prof = cProfile.Profile()
    prof.enable()
    for item in chain[50 + half:50 + n]:
        post(item)
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    total = stats.total_tt
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:10]
    top = [f"{tt / total:6.1%}  {func[2]} ({'/'.join(func[0].split('/')[-2:])}:{func[1]})"
           for func, (cc, nc, tt, ct, callers) in rows]
    renders = _renders(client, chain[50 + n:], names, keys, game["id"])
    stages = {}
    per = n - half
    for func, (_cc, _nc, _tt, ct, _callers) in stats.stats.items():
        fname, _, name = func
        for label, (suffix, want) in STAGES.items():
            if name == want and fname.endswith(suffix):
                stages[label] = stages.get(label, 0) + ct / per * 1000
    print(json.dumps({"wall_ms": wall / half * 1000, "cpu_ms": _median(blocks) * 1000,
                      "cpu_ms_min": min(blocks) * 1000,
                      "health_cpu_ms": _median(health) * 1000,
                      "sql": sql, "commits": commits, "top": top,
                      "profiled_ms": total / per * 1000, "statements": statements,
                      "stages": {k: round(v, 3) for k, v in stages.items()},
                      "renders": renders}))


def _renders(client, chain, names, keys, game_id):
    """Text boards rendered (calls of the game's ``render``, counted by cProfile) per move
    POST with ``?answer=view``, signed by the mover as ``pbem play`` signs it, and per
    ``GET /view`` (which renders one: the control that shows the count sees a render)."""
    from client.signing import request_headers
    seat_name = {"north": names[0], "east": names[1]}
    prof = cProfile.Profile()
    moves = 0
    for _, path, body in chain:
        seat = json.loads(json.loads(body)["envelope"])["seat"]
        target = path + "?answer=view"
        h = request_headers(keys[seat], seat_name[seat], "POST", target, body.encode())
        prof.enable()
        r = client.post(target, data=body, headers=h, content_type="application/json")
        prof.disable()
        assert r.status_code == 201 and "view" in r.get_json(), r.get_json()
        moves += 1
    posted = _calls(prof, "render")
    prof = cProfile.Profile()
    gets = 5
    for _ in range(gets):
        h = request_headers(keys["north"], names[0], "GET", f"/api/games/{game_id}/view", b"")
        prof.enable()
        r = client.get(f"/api/games/{game_id}/view", headers=h)
        prof.disable()
        assert r.status_code == 200 and r.get_json().get("board"), r.get_json()
    return {"moves": moves, "per_move": posted / moves, "per_view": _calls(prof, "render") / gets}


def _calls(prof, name):
    """Calls of the rules' functions called ``name`` (shared/, the test fixtures' games)."""
    stats = pstats.Stats(prof)
    return sum(nc for (f, _l, fn), (_cc, nc, _tt, _ct, _c) in stats.stats.items()
               if fn == name and ("/shared/" in f or "/fixtures/" in f))


def _median(values):
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def _caller():
    """The innermost project frame (server/, shared/) that led to this SQL statement."""
    import traceback
    for frame in reversed(traceback.extract_stack()[:-2]):
        path = frame.filename.replace("\\", "/")
        if ("/server/" in path or "/shared/" in path) and not path.endswith("/prepared.py"):
            return f"{'/'.join(path.split('/')[-2:])} {frame.name}:{frame.lineno}"
    return "?"


# cumulative time of the stages of a move POST (under cProfile, so inflated alike)
STAGES = {
    "whole request (werkzeug test client)": ("flask/app.py", "wsgi_app"),
    "view function Moves.post": ("server/api/games.py", "post"),
    "get_or_404 (SELECT game)": ("server/api/games.py", "get_or_404"),
    "append_move": ("server/game/append.py", "append_move"),
    "parse_canonical + validate_envelope": ("shared/envelope.py", "parse_canonical"),
    "Ed25519 verify": ("shared/envelope.py", "verify"),
    "load_state": ("server/db/state_cache.py", "load_state"),
    "engine play": ("tests/fixtures/pig.py", "play"),
    "duties.after_move": ("server/game/duties.py", "after_move"),
    "prepared statements (driver cursor)": ("server/db/prepared.py", "execute"),
    "session.connection (begin)": ("sqlalchemy/orm/scoping.py", "connection"),
    "store_snapshot": ("server/db/state_cache.py", "store_snapshot"),
    "session.commit": ("sqlalchemy/orm/session.py", "commit"),
    "entry_json": ("server/game/views.py", "entry_json"),
    "game.seats lazy load": ("sqlalchemy/orm/strategies.py", "_load_for_state"),
    "webargs parse (request body)": ("webargs/core.py", "parse"),
    "response schema dump": ("marshmallow/schema.py", "dump"),
    "move body parse (server/api/games.py)": ("server/api/games.py", "_move_body"),
    "limiter decorator": ("flask_limiter/_limits.py", "__inner"),
}


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
