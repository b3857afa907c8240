"""2-4. The server over HTTP: views at any log length, signed move submissions, many games.

Per backend (SQLite, then PostgreSQL): the pbem server runs as the Procfile deploys it
(bench/servers.py ``procfile_options``); the hello app is measured right before it with the
same gunicorn options, the same load generator, the same number of connections and the same
duration, so the ratio compares like with like on a machine whose load moves.  The 8-game
load is measured once more on tests/liveserver.py's 2 workers x 4 threads, for comparison.
"""

import json
import secrets
import subprocess
import sys
import threading
import time
from collections import Counter

import requests

from . import load as loadgen
from .common import fmt_ms, fmt_rate, median, percentile
from .servers import (
    Database,
    HelloServer,
    Player,
    Setup,
    cpu_seconds,
    hold_chain,
    pbem_server,
    pids_named,
    procfile_options,
    rss_mb,
    threaded_options,
    worker_pids,
)

CONNECTIONS = 8
RATIO_TARGET = {"sqlite": 0.2, "postgres": 0.15}
P99_TARGET = 0.025
INPROC_TARGET = {"sqlite": 0.6, "postgres": 1.0}   # ms of CPU per in-process move POST


def _players(setup, tag):
    a, b = Player(f"a{tag}{secrets.token_hex(3)}"), Player(f"b{tag}{secrets.token_hex(3)}")
    setup.register(a)
    setup.register(b)
    return a, b, {"north": a.key, "east": b.key}


def _new_games(url, a, b, count, threads=4):
    """``count`` started Pig games between a and b, created over HTTP by a few threads."""
    out, lock, errors = [], threading.Lock(), []

    def work(n):
        setup = Setup(url)
        for _ in range(n):
            try:
                game = setup.new_game(a, b)
            except Exception as exc:  # noqa: BLE001
                errors.append(exc)
                return
            with lock:
                out.append(game)

    per = [count // threads + (1 if i < count % threads else 0) for i in range(threads)]
    ts = [threading.Thread(target=work, args=(n,)) for n in per if n]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        raise errors[0]
    return out


def _streams(games, per_game, keys, connections=CONNECTIONS):
    """One stream per connection; a connection's games interleave round-robin."""
    streams = [[] for _ in range(connections)]
    for i, chunk in enumerate(_chunks(games, connections)):
        chains = [hold_chain(g["id"], g["head"], g["seq"] + 1, per_game, keys)[0]
                  for g in chunk]
        for step in range(per_game):
            for chain in chains:
                streams[i].append(chain[step])
    return streams


def _chunks(items, n):
    return [items[i::n] for i in range(n)]


def _hello(run, section, workdir, seconds, options):
    with HelloServer(str(workdir / "hello.log"), options) as hello:
        loadgen.run_streams(hello.url, [[("GET", "/hello", None)]] * CONNECTIONS, 1,
                            cycle=True)  # warm-up
        res = loadgen.run_streams(hello.url, [[("GET", "/hello", None)]] * CONNECTIONS,
                                  seconds, cycle=True)
    return res


def _moves_text(res):
    cores = f"; workers busy {res.cores:.2f} of 2 cores" if getattr(res, "cores", None) else ""
    if getattr(res, "pg_cores", None):
        cores += f", postgres {res.pg_cores:.2f}"
    return (f"{fmt_rate(res.rps)} (p50 {fmt_ms(res.p50)}, p99 {fmt_ms(res.p99)}; "
            f"statuses {res.status_text()}{cores})")


def _measured(server, streams, seconds):
    """run_streams plus how many cores the gunicorn workers kept busy meanwhile."""
    pids = worker_pids(server.proc.pid)
    pg = pids_named("postgres") if "postgres" in server.env["PBEM_DATABASE_URL"] else []
    c0, p0, t0 = cpu_seconds(pids), cpu_seconds(pg), time.perf_counter()
    res = loadgen.run_streams(server.url, streams, seconds)
    elapsed = time.perf_counter() - t0
    res.cores = (cpu_seconds(pids) - c0) / elapsed
    res.pg_cores = (cpu_seconds(pg) - p0) / elapsed if pg else None
    return res


def bench_backend(run, backend):
    quick = run.settings.quick
    section = f"3-4. HTTP {backend}"
    seconds = 3 if quick else 10
    workdir = run.settings.workdir
    tool = loadgen.tool_name()
    run.load(f"before {backend}")
    options, deployment = procfile_options()
    run.facts["deployment"] = f"the Procfile's: {deployment}"

    hello = _hello(run, section, workdir, seconds, options)
    run.add(section, f"hello, {deployment} ({tool}, {CONNECTIONS} conns)",
            f"{fmt_rate(hello.rps)} (p50 {fmt_ms(hello.p50)}, p99 {fmt_ms(hello.p99)})")
    # pre-signed chains are sized for moves at up to half the hello rate (a run that goes
    # faster exhausts them, which is reported, and the rate is then a lower bound)
    move_cap = max(hello.rps, 500) * 0.5

    with Database(backend, workdir) as db:
        server = pbem_server(db.url, workdir, str(workdir / f"pbem-{backend}.log"), options)
        try:
            setup = Setup(server.url)
            a, b, keys = _players(setup, backend[0])

            # 3. one game per connection, all moves expected to be 201
            games = _new_games(server.url, a, b, CONNECTIONS)
            per_game = per_game_single = int(move_cap * seconds / CONNECTIONS) + 200
            warm = _new_games(server.url, a, b, CONNECTIONS)
            loadgen.run_streams(server.url, _streams(warm, 40, keys), 1)  # warm-up, discarded
            streams = _streams(games, per_game, keys)
            base_rss = [rss_mb(p) for p in worker_pids(server.proc.pid)]
            res = _measured(server, streams, seconds)
            ratio = res.rps / hello.rps if hello.rps else 0
            run.add(section, f"signed move POST, {CONNECTIONS} games x 1 client "
                             "(the Procfile's deployment)", _moves_text(res))
            target = RATIO_TARGET[backend]
            run.add(section, "move rate / hello rate", f"{ratio:.2f}", f">= {target}",
                    ratio >= target)
            run.add(section, "move p99 latency", fmt_ms(res.p99), "< 25 ms", res.p99 < P99_TARGET)
            bad = res.non2xx()
            run.add(section, "non-2xx without races", f"{bad}", "0", bad == 0)
            if res.exhausted:
                run.note(section, f"{res.exhausted} filler requests: the pre-signed chains ran "
                                  "out; the move rate is a lower bound")
            single = res

            # fewer connections: how latency grows with concurrency
            for conns in (1, 2, 4):
                few = _new_games(server.url, a, b, conns, threads=1)
                r = _measured(server, _streams(few, int(move_cap * seconds / conns / 4) + 100,
                                               keys, conns), max(2, seconds // 2))
                run.add(section, f"signed move POST, {conns} game(s) x 1 client (fewer "
                                 "connections, for comparison)", _moves_text(r))

            # racing clients: 409s expected, nothing else
            race = _race(server.url, a, b, keys, games=4, clients=4, seconds=2 if quick else 5)
            other = sum(v for k, v in race["posts"].items() if k not in (201, 409))
            run.add(section, "racing: 4 games x 4 clients",
                    f"POST statuses {_counter(race['posts'])}; {race['rate']:.0f} POST/s "
                    f"(Python client)", "only 201/409", other == 0)

            # 4. many games at once
            n_games = 300 if quick else 1000
            t0 = time.perf_counter()
            many = _new_games(server.url, a, b, n_games)
            created = time.perf_counter() - t0
            per_game = max(2, int(move_cap * seconds / n_games) + 2)
            streams = _streams(many, per_game, keys)
            res_many = _measured(server, streams, seconds)
            # the 8-game figure again, so load drift on a shared machine hits both sides
            again = _measured(server, _streams(_fresh(server, games), per_game_single, keys),
                              seconds)
            baseline = (single.rps + again.rps) / 2
            ratio_many = res_many.rps / baseline if baseline else 0
            run.add(section, f"signed move POST, {n_games} games in progress "
                             f"(created in {created:.0f} s)", _moves_text(res_many))
            run.add(section, f"signed move POST, {CONNECTIONS} games again after that",
                    _moves_text(again))
            run.add(section, f"{n_games} games / {CONNECTIONS} games throughput",
                    f"{ratio_many:.2f} (vs the mean of both {CONNECTIONS}-game runs)",
                    ">= 0.90", ratio_many >= 0.9)
            pids = worker_pids(server.proc.pid)
            mems = [rss_mb(p) for p in pids]
            run.add(section, "gunicorn worker RSS after the many-games run",
                    ", ".join(f"{m:.0f} MB" for m in mems) + " (after start-up and warm-up: "
                    + ", ".join(f"{m:.0f} MB" for m in base_rss) + ")", "< 80 MB",
                    bool(mems) and max(mems) < 80)

            if run.settings.profile and not (bool(mems) and max(mems) < 80):
                _memory(run, section, db.url, server)
            if run.settings.profile and (ratio < RATIO_TARGET[backend] or
                                         res.p99 >= P99_TARGET):
                _profile_moves(run, section, server, games, keys, move_cap,
                               3 if quick else 8, f"{len(games)} games")
            if run.settings.profile and ratio_many < 0.9:
                _profile_moves(run, section, server, many, keys, move_cap,
                               3 if quick else 8, f"{len(many)} games")

            _inprocess(run, section, db.url, 200 if quick else 600, single.rps)

            # 2. views at any log length (on this backend)
            bench_views(run, backend, server, setup, a, b, keys)
        finally:
            server.stop()
        if not quick:
            _threaded(run, section, db.url, workdir, a, b, keys, move_cap, seconds)
    run.load(f"after {backend}")


def _inprocess(run, section, url, n, http_rps):
    """The intrinsic cost of one move POST, without HTTP or rivals (bench/inproc.py)."""
    from .common import ROOT, child_env
    proc = subprocess.run([sys.executable, "-m", "bench.inproc", url, str(n)], cwd=ROOT,
                          env=child_env(), capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        run.unavailable(section, "in-process move POST", (proc.stderr.strip().splitlines()
                                                          or ["?"])[-1])
        return
    d = json.loads(proc.stdout.strip().splitlines()[-1])
    ceiling = 2000 / d["cpu_ms"]
    backend = section.split()[-1]
    run.add(section, "in-process move POST (Flask test client, 1 thread, no HTTP)",
            f"{d['wall_ms']:.2f} ms wall, {d['sql']:.0f} SQL statements and "
            f"{d['commits']:.0f} commit per move; CPU ceiling on 2 cores ~{ceiling:,.0f}/s vs "
            f"{http_rps:,.0f}/s over HTTP; GET /api/health in the same process "
            f"{d['health_cpu_ms']:.2f} ms CPU")
    run.add(section, "in-process move POST, ms of CPU (median of blocks of 50; fastest "
                     "block)", f"{d['cpu_ms']:.2f} ms ({d['cpu_ms_min']:.2f} ms)",
            f"<= {INPROC_TARGET[backend]} ms", d["cpu_ms"] <= INPROC_TARGET[backend])
    r = d["renders"]
    if r["per_view"] > 0:   # the control: GET /view renders its board, and the count sees it
        run.add(section, "text boards rendered per move answer (POST ?answer=view, signed "
                         "as pbem play signs)",
                f"{r['per_move']:.2f} per move over {r['moves']} moves (GET /view, which "
                f"shows the board: {r['per_view']:.0f} each)", "0", r["per_move"] == 0)
    else:
        run.unavailable(section, "text boards rendered per move answer",
                        "the count saw no render in GET /view either")
    run.note(section, f"The {len(d['statements'])} SQL statements of one move POST on "
             f"{section.split()[-1]}, with the server function that issued each:\n"
             + "\n".join(f"  {i:2d}. {stmt}\n      <- {caller}"
                         for i, (stmt, caller) in enumerate(d["statements"], 1)))
    stages = sorted(d["stages"].items(), key=lambda kv: -kv[1])
    run.note(section, f"cProfile of {n - n // 2} in-process move POSTs on {section.split()[-1]} "
             f"({d['profiled_ms']:.1f} ms per move under the profiler); cumulative ms per move "
             "of each stage:\n" + "\n".join(f"  {v:7.3f} ms  {k}" for k, v in stages)
             + "\nTop functions by own time:\n" + "\n".join(d["top"]))


def _memory(run, section, url, server):
    """RSS after each import step of a worker (bench/memory.py), in a fresh interpreter."""
    from .common import ROOT, child_env
    env = child_env({"PBEM_INSTANCE_PATH": server.env["PBEM_INSTANCE_PATH"]})
    proc = subprocess.run([sys.executable, "-m", "bench.memory", url], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        run.note(section, "memory breakdown failed: " + proc.stderr.strip()[-200:])
        return
    d = json.loads(proc.stdout.strip().splitlines()[-1])
    run.note(section, "RSS of a fresh interpreter after each step a worker takes (MB, total "
             "and added):\n" + "\n".join(f"  {tot:6.1f}  +{add:5.1f}  {label}"
                                          for label, (tot, add) in d.items()))


def _fresh(server, games):
    """The games' current heads (seq, head) as the server has them."""
    s = requests.Session()
    return [s.get(f"{server.url}/api/games/{g['id']}", timeout=10).json() for g in games]


def _threaded(run, section, url, workdir, a, b, keys, move_cap, seconds):
    """The same 8-connection move load on tests/liveserver.py's 2 workers x 4 threads (threads
    of a worker queue on the SQLite write lock), with its own hello figure."""
    options = threaded_options()
    hello = _hello(run, section, workdir, seconds, options)
    server = pbem_server(url, workdir, str(workdir / "pbem-threads.log"), options)
    try:
        games = _new_games(server.url, a, b, CONNECTIONS)
        res = _measured(server, _streams(games, int(move_cap * seconds / CONNECTIONS) + 200,
                                         keys), seconds)
        run.add(section, f"signed move POST, {CONNECTIONS} games, gunicorn 2 workers x 4 "
                         "threads (tests/liveserver.py, for comparison)", _moves_text(res)
                + f"; hello on these workers {fmt_rate(hello.rps)}, ratio "
                  f"{res.rps / hello.rps:.2f}")
    finally:
        server.stop()


def _counter(c):
    return ", ".join(f"{k}: {v}" for k, v in sorted(c.items(), key=lambda kv: str(kv[0])))


def _race(url, a, b, keys, games, clients, seconds):
    """Several clients per game post the next move at once; count every status."""
    from client.signing import signed_move
    started = _new_games(url, a, b, games, threads=2)
    posts, gets, lock = Counter(), Counter(), threading.Lock()
    seats = ("north", "east")
    stop_at = time.perf_counter() + seconds

    def client(game):
        s = requests.Session()
        seq, prev = game["seq"] + 1, game["head"]
        mine_p, mine_g = Counter(), Counter()
        while time.perf_counter() < stop_at:
            seat = seats[seq % 2]
            body = signed_move(keys[seat], game["id"], seq, prev, seat, "hold")
            r = s.post(f"{url}/api/games/{game['id']}/moves", json=body, timeout=30)
            mine_p[r.status_code] += 1
            details = {}
            if r.status_code == 201:
                entry = r.json()
                seq, prev = entry["seq"] + 1, entry["hash"]
                continue
            if r.status_code == 409:
                details = (r.json().get("error") or {}).get("details") or {}
            if "seq" in details and "prev" in details:
                seq, prev = details["seq"], details["prev"]
            else:
                g = s.get(f"{url}/api/games/{game['id']}", timeout=30)
                mine_g[g.status_code] += 1
                if g.ok:
                    seq, prev = g.json()["seq"] + 1, g.json()["head"]
        with lock:
            posts.update(mine_p)
            gets.update(mine_g)

    threads = [threading.Thread(target=client, args=(g,)) for g in started
               for _ in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    return {"posts": posts, "gets": gets, "rate": sum(posts.values()) / elapsed}


def _profile_moves(run, section, server, games, keys, move_cap, seconds, label):
    """py-spy on both workers while the move load runs again; own-time and inclusive shares."""
    import shutil
    if not shutil.which("py-spy"):
        run.note(section, "py-spy is not installed: no server profile")
        return
    fresh = _fresh(server, games)
    per_game = int(move_cap * (seconds + 2) / len(games)) + 2
    streams = _streams(fresh, per_game, keys)
    outs, procs = [], []
    workdir = run.settings.workdir
    for pid in worker_pids(server.proc.pid):
        out = workdir / f"pyspy-{pid}.txt"
        outs.append(out)
        procs.append(subprocess.Popen(
            ["py-spy", "record", "--pid", str(pid), "--duration", str(seconds), "--rate", "200",
             "--format", "raw", "--output", str(out), "--nonblocking", "--idle"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    loadgen.run_streams(server.url, streams, seconds + 1)
    for p in procs:
        p.wait(60)
    stacks = Counter()
    for out in outs:
        if out.exists():
            for line in out.read_text().splitlines():
                stack, _, count = line.rpartition(" ")
                if count.isdigit():
                    stacks[stack] += int(count)
    if not stacks:
        run.note(section, "py-spy produced no samples (ptrace not permitted?)")
        return
    run.note(section, summarize_stacks(stacks, f"py-spy, both gunicorn workers, {seconds} s "
                                                f"of move load on {section.split()[-1]}, "
                                                f"{label}"))


_INTEREST = [
    ("append_move (append.py)", ("append_move (server/game/append.py",)),
    ("  envelope parse + Ed25519 verify", ("verify (shared/envelope.py", "parse_canonical (")),
    ("  load_state (cache / snapshot)", ("load_state (server/db/state_cache.py",)),
    ("  rules engine play()", ("play (tests/fixtures/pig.py", "play (shared/")),
    ("  duties.refresh", ("refresh (server/game/duties.py",)),
    ("  session.commit (incl. SQLite/PG write + lock waits)",
     ("commit (sqlalchemy/orm/session.py",)),
    ("  UPDATE game head (execute)", ("execute (sqlalchemy/orm/session.py",)),
    ("get_or_404 (game row SELECT)", ("get_or_404 (server/api/games.py",)),
    ("request body parsing (marshmallow/webargs)", ("_parser (webargs", "parse (webargs")),
    ("response serialisation (marshmallow dump)", ("dump (marshmallow/schema.py",)),
    ("sqlite3/psycopg execute, wall time (incl. busy waits)", ("do_execute (sqlalchemy",
                                                              "do_commit (sqlalchemy")),
]


def summarize_stacks(stacks, title, top=12):
    """Wall-time shares of request handling (py-spy --idle), from raw collapsed stacks."""
    stacks = Counter({k: v for k, v in stacks.items() if "full_dispatch_request" in k})
    total = sum(stacks.values()) or 1
    own, incl = Counter(), Counter()
    for stack, n in stacks.items():
        frames = stack.split(";")
        own[_short(frames[-1])] += n
        for label, needles in _INTEREST:
            if any(any(nd in f for nd in needles) for f in frames):
                incl[label] += n
    lines = [f"{title}: {total} samples inside Flask request handling (wall time, idle "
             "included).", "Inclusive share of request handling time:"]
    for label, _ in _INTEREST:
        lines.append(f"  {incl[label] / total:6.1%}  {label}")
    lines.append("Top functions by own (leaf) time:")
    for fn, n in own.most_common(top):
        lines.append(f"  {n / total:6.1%}  {fn}")
    return "\n".join(lines)


def _short(frame):
    # "name (path/to/file.py:123)" -> "name (file.py:123)" keeping the package dir
    name, _, rest = frame.partition(" (")
    path = rest.rstrip(")")
    parts = path.split("/")
    return f"{name} ({'/'.join(parts[-2:])})" if parts else frame


# --- 2. views --------------------------------------------------------------------------

def bench_views(run, backend, server, setup, a, b, keys):
    section = f"2. views {backend}"
    quick = run.settings.quick
    long_n = 2000 if quick else 10000
    short_g, long_g = setup.new_game(a, b), setup.new_game(a, b)
    t0 = time.perf_counter()
    for game, n in ((short_g, 10), (long_g, long_n)):
        chain, _ = hold_chain(game["id"], game["head"], 0, n, keys)
        s = requests.Session()
        for start in range(0, n, 500):   # sequential, one game: posting in order
            for _method, path, body in chain[start:start + 500]:
                r = s.post(server.url + path, data=body,
                           headers={"Content-Type": "application/json"}, timeout=30)
                if r.status_code != 201:
                    raise RuntimeError(f"building the {n}-move game: {r.status_code} "
                                       f"{r.text[:200]}")
    built = time.perf_counter() - t0
    s = requests.Session()
    reps = 60 if quick else 200
    times = {10: [], long_n: []}
    for i in range(reps + 10):
        for game, n in ((short_g, 10), (long_g, long_n)):
            path = f"/api/games/{game['id']}/view"
            headers = a.headers("GET", path)
            t = time.perf_counter()
            r = s.get(server.url + path, headers=headers, timeout=30)
            dt = time.perf_counter() - t
            if r.status_code != 200:
                raise RuntimeError(f"view: {r.status_code} {r.text[:200]}")
            if i >= 10:
                times[n].append(dt)
    m10, mlong = median(times[10]), median(times[long_n])
    ratio = mlong / m10
    run.add(section, "player's view, 10-move game",
            f"{fmt_ms(m10)} median (p90 {fmt_ms(percentile(times[10], 90))})")
    run.add(section, f"player's view, {long_n:,}-move game (built in {built:.0f} s)",
            f"{fmt_ms(mlong)} median (p90 {fmt_ms(percentile(times[long_n], 90))})")
    run.add(section, f"view time ratio {long_n:,} / 10 moves", f"{ratio:.2f}", "<= 1.1",
            ratio <= 1.1)
    if quick:
        run.note(section, f"--quick builds a {long_n:,}-move game; the full run uses 10,000")
    _views_in_process(run, section, server, short_g, long_g, long_n)
    guarded_bytes(run, backend, server, a, short_g, long_g, long_n)


# --- bytes: what a move costs in storage ------------------------------------------------------

#: bytes stored per move (the log's table with its indexes, and the snapshots): a signed entry
#: is ~560 bytes of text (envelope, 128-hex signature, two 64-hex hashes); with the row and
#: index overhead of either database 1 KB is what a lean log costs.  At 100,000 live games x 5
#: moves a day that is ~180 GB a year: a disk, not a cluster
BYTES_TARGET = 1024
#: bytes per move in an archive (JSON, uncompressed): a Pig entry measured ~450 B (its
#: envelope, signature and hashes as JSON; ~150 B gzipped); 512 B keeps the archive to the
#: entries themselves, with no per-move copy of state or views
ARCHIVE_TARGET = 512


def _stored(backend, url, game_ids):
    """(bytes of the moves table and its indexes, bytes of the snapshots, moves, snapshot
    rows, {game: snapshot bytes}) on ``url``."""
    if backend == "sqlite":
        import sqlite3
        conn = sqlite3.connect(url.split("sqlite:///", 1)[1])
        try:
            def size(table):
                names = [table] + [r[0] for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?",
                    (table,))]
                return conn.execute(f"SELECT SUM(pgsize) FROM dbstat WHERE name IN "
                                    f"({','.join('?' * len(names))})", names).fetchone()[0]
            moves_b, snaps_b = size("moves"), size("snapshots")
            moves = conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0]
            snaps = conn.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0]
            per_game = {g: conn.execute("SELECT LENGTH(state) FROM snapshots WHERE game_id = ?",
                                        (g,)).fetchone()[0] for g in game_ids}
        finally:
            conn.close()
    else:
        import psycopg
        with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"),
                             autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE moves")
            conn.execute("VACUUM ANALYZE snapshots")
            moves_b, snaps_b, moves, snaps = conn.execute(
                "SELECT pg_total_relation_size('moves'), pg_total_relation_size('snapshots'), "
                "(SELECT COUNT(*) FROM moves), (SELECT COUNT(*) FROM snapshots)").fetchone()
            per_game = {g: conn.execute("SELECT pg_column_size(state) FROM snapshots "
                                        "WHERE game_id = %s", (g,)).fetchone()[0]
                        for g in game_ids}
    return moves_b, snaps_b, moves, snaps, per_game


def guarded_bytes(run, backend, server, a, short_g, long_g, long_n):
    from .common import guarded
    guarded(run, f"2. views {backend}", "bytes per move", _bytes, run, backend, server, a,
            short_g, long_g, long_n)


def _bytes(run, backend, server, a, short_g, long_g, long_n):
    import gzip
    section = f"2. views {backend}"
    url = server.env["PBEM_DATABASE_URL"]
    moves_b, snaps_b, moves, snaps, per_game = _stored(backend, url,
                                                       [short_g["id"], long_g["id"]])
    per_move = (moves_b + snaps_b) / max(1, moves)
    run.add(section, f"bytes stored per move ({moves:,} moves in the log: the moves table "
            f"with its indexes {moves_b / max(1, moves):,.0f} B/move; {snaps} snapshot rows, "
            f"{snaps_b / 1024:,.0f} KB in all)", f"{per_move:,.0f} B",
            f"<= {BYTES_TARGET} B", per_move <= BYTES_TARGET)
    short_s, long_s = per_game[short_g["id"]], per_game[long_g["id"]]
    run.add(section, f"snapshot of a 10-move vs a {long_n:,}-move game (one row a game, "
            "overwritten at each move)", f"{short_s:,} B vs {long_s:,} B",
            "no growth with the log", long_s <= short_s * 1.1 + 16)
    path = f"/api/games/{long_g['id']}/archive"
    r = requests.get(server.url + path, headers=a.headers("GET", path), timeout=120)
    if r.status_code != 200:
        raise RuntimeError(f"archive: {r.status_code} {r.text[:200]}")
    raw = r.content
    per = len(raw) / long_n
    run.add(section, f"archive bytes per move ({long_n:,}-move game, JSON; gzip "
            f"{len(gzip.compress(raw)) / long_n:,.0f} B/move)", f"{per:,.0f} B",
            f"<= {ARCHIVE_TARGET} B", per <= ARCHIVE_TARGET)


def _views_in_process(run, section, server, short_g, long_g, long_n):
    """Cold path in a separate process: snapshot load vs a replay of the whole log."""
    code = f"""
import json, time, os
from server import create_app
from server.db.state_cache import load_state, rebuild_state
from server.db import db
from server.db.models import Game
app = create_app({{"SQLALCHEMY_DATABASE_URI": os.environ["PBEM_DATABASE_URL"]}})
out = {{}}
with app.app_context():
    for gid, n in (({short_g['id']!r}, 10), ({long_g['id']!r}, {long_n})):
        game = db.session.get(Game, gid)
        ts = []
        for _ in range(20):
            app.extensions.pop("pbem_state_cache", None)
            t = time.perf_counter(); load_state(game); ts.append(time.perf_counter() - t)
        t = time.perf_counter(); rebuild_state(game); rb = time.perf_counter() - t
        out[n] = (sorted(ts)[len(ts) // 2], rb)
print(json.dumps(out))
"""
    from .common import ROOT, child_env
    env = child_env({"PBEM_DATABASE_URL": server.env["PBEM_DATABASE_URL"],
                     "PBEM_INSTANCE_PATH": server.env["PBEM_INSTANCE_PATH"]})
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    if proc.returncode != 0:
        run.unavailable(section, "cold load_state", proc.stderr.strip().splitlines()[-1])
        return
    data = {int(k): v for k, v in json.loads(proc.stdout.strip().splitlines()[-1]).items()}
    (s10, _r10), (sl, rl) = data[10], data[long_n]
    run.add(section, "cold load_state (no cache: snapshot row), 10 vs "
                     f"{long_n:,} moves", f"{fmt_ms(s10)} vs {fmt_ms(sl)} ({sl / s10:.2f}x)")
    run.add(section, f"replaying the {long_n:,}-move log instead (what snapshots avoid)",
            f"{fmt_ms(rl)} ({rl / max(sl, 1e-9):,.0f}x the snapshot load)")


def main(run):
    import os

    from .common import guarded
    for backend in os.environ.get("PBEM_BENCH_BACKENDS", "sqlite,postgres").split(","):
        guarded(run, f"3-4. HTTP {backend}", f"HTTP benchmarks on {backend}", bench_backend,
                run, backend)
