"""5. CLI start-up: ``pbem --help`` against a bare click command; ``pbem show`` and ``pbem play``
on a live server (``play`` against ``--help`` plus one round trip of its move POST).

Both commands are launched the way the console script launches them (a fresh interpreter
importing the entry point), interleaved run by run so load from others hits both alike.
"""

import json
import subprocess
import sys
import tempfile
import time

from .common import ROOT, child_env, fmt_ms, median
from .servers import Player

SECTION = "5. CLI"
PBEM = "import sys; from client.cli import main; sys.exit(main())"
HELLO = "import sys; from bench.clihello import main; sys.exit(main())"


def _time(cmd, env, check=True):
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    dt = time.perf_counter() - t0
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[2:])[:80]} exited {proc.returncode}: "
                           f"{proc.stderr.strip()[-200:]}")
    return dt, proc


def bench_help(run):
    env = child_env()
    reps = 7 if run.settings.quick else 21
    pbem, hello = [], []
    for i in range(reps + 1):
        a, _ = _time([sys.executable, "-c", PBEM, "--help"], env)
        b, _ = _time([sys.executable, "-c", HELLO, "--help"], env)
        if i:   # the first pair warms the OS file cache
            pbem.append(a)
            hello.append(b)
    mp, mh = median(pbem), median(hello)
    HELP["pbem"] = mp
    run.add(SECTION, "bare click hello --help", f"{fmt_ms(mh)} median of {reps}")
    run.add(SECTION, "pbem --help", f"{fmt_ms(mp)} median of {reps}")
    run.add(SECTION, "pbem --help / click hello --help", f"{mp / mh:.2f}x", "<= 1.2x",
            mp / mh <= 1.2)
    if mp / mh > 1.2 and run.settings.profile:
        _importtime(run, [sys.executable, "-X", "importtime", "-c", PBEM, "--help"], env,
                    "pbem --help")


HELP = {}  # the pbem --help median of this run (bench_play compares with it)


def _imports(cmd, env):
    """{module: (self us, cumulative us, depth)} from ``python -X importtime``."""
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    out = {}
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        self_us, cum_us, name = line[len("import time:"):].split("|", 2)
        name = name.rstrip()[1:]
        depth = (len(name) - len(name.lstrip())) // 2
        out[name.strip()] = (int(self_us), int(cum_us), depth)
    return out


def _importtime(run, cmd, env, label, top=12):
    """The modules ``cmd`` imports that a bare click command does not, by own import time."""
    mine = _imports(cmd, env)
    base = _imports([sys.executable, "-X", "importtime", "-c", HELLO, "--help"], env)
    extra = {m: v for m, v in mine.items() if m not in base}
    total_extra = sum(v[0] for v in extra.values())
    total = sum(v[1] for v in mine.values() if v[2] == 0)
    lines = [f"python -X importtime, {label}: {total / 1000:.0f} ms of imports, of which "
             f"{total_extra / 1000:.1f} ms in {len(extra)} modules a bare click command does "
             "not import; the heaviest of those (own time, cumulative):"]
    for name, (own, cum, _) in sorted(extra.items(), key=lambda kv: -kv[1][0])[:top]:
        lines.append(f"  {own / 1000:6.1f} ms  {cum / 1000:6.1f} ms  {name}")
    run.note(SECTION, "\n".join(lines))


def bench_show(run):
    """Register through the CLI, start a game with a second player, time ``pbem show``."""
    from .servers import Database, Setup, pbem_server
    workdir = run.settings.workdir
    reps = 5 if run.settings.quick else 15
    with Database("sqlite", workdir) as db:
        server = pbem_server(db.url, workdir, str(workdir / "pbem-cli.log"))
        try:
            home = tempfile.mkdtemp(prefix="pbem-home-", dir=workdir)
            env = child_env({"PBEM_SERVER": server.url, "PBEM_HOME": home, "NO_COLOR": "1"})
            base = [sys.executable, "-c", PBEM]
            _time(base + ["register", "benchcli"], env)
            game_type = _pick_type()
            _, proc = _time(base + ["--json", "new", game_type, "--seats", "2"], env)
            game_id = json.loads(proc.stdout)["id"]
            other = Player("benchcli2")
            setup = Setup(server.url)
            setup.register(other)
            setup.signed(other, "POST", f"/api/games/{game_id}/join", {})
            times = []
            for i in range(reps + 1):
                dt, proc = _time(base + ["show", game_id], env)
                if i:
                    times.append(dt)
            m = median(times)
            run.add(SECTION, f"pbem show ({game_type}, local gunicorn, SQLite)",
                    f"{fmt_ms(m)} median of {reps}", "<= 400 ms", m <= 0.4)
            if m > 0.4 and run.settings.profile:
                _importtime(run, [sys.executable, "-X", "importtime", "-c", PBEM, "show",
                                  game_id], env, "pbem show")
            bench_play(run, server, env, base, other, reps)
        finally:
            server.stop()


def bench_play(run, server, env, base, other, reps):
    """``pbem play`` when the home's view is current (one POST), against ``pbem --help`` plus
    one round trip: the same signed move POST (answer=view) from a warm Python client."""
    import requests

    from client.signing import request_headers, signed_move

    from .servers import Setup
    setup = Setup(server.url)
    # a Pig game: ``peek`` keeps the turn, so every play finds the view it left current
    _, proc = _time(base + ["--json", "new", "pig", "--seats", "2"], env)
    game_id = json.loads(proc.stdout)["id"]
    setup.signed(other, "POST", f"/api/games/{game_id}/join", {})
    _time(base + ["show", game_id], env)
    times, posts = [], []
    for i in range(reps + 1):
        dt, proc = _time(base + ["play", game_id, "peek"], env)
        if i:
            times.append(dt)
    # one round trip: a second game, the other player peeking over a kept-alive session
    g2 = setup.signed(other, "POST", "/api/games", {"type": "pig", "seats": 2})
    s = requests.Session()
    player = Player("benchcli3")
    setup.register(player)
    g2 = setup.signed(player, "POST", f"/api/games/{g2['id']}/join", {})
    seq, prev = 0, g2["head"]
    path = f"/api/games/{g2['id']}/moves?answer=view"
    for i in range(reps + 1):
        body = json.dumps(signed_move(other.key, g2["id"], seq, prev, "north", "peek")).encode()
        headers = request_headers(other.key, other.name, "POST", path, body)
        headers["Content-Type"] = "application/json"
        t0 = time.perf_counter()
        r = s.post(server.url + path, data=body, headers=headers, timeout=30)
        dt = time.perf_counter() - t0
        r.raise_for_status()
        seq, prev = seq + 1, r.json()["hash"]
        if i:
            posts.append(dt)
    mp, rtt = median(times), median(posts)
    help_ = HELP.get("pbem")
    run.add(SECTION, "pbem play, view current (pig peek, local gunicorn, SQLite)",
            f"{fmt_ms(mp)} median of {reps}; one round trip (the same signed POST from a warm "
            f"client) {fmt_ms(rtt)}")
    if help_:
        limit = 1.2 * help_ + rtt
        run.add(SECTION, "pbem play / (1.2 x pbem --help + one round trip)",
                f"{mp / limit:.2f} ({fmt_ms(mp)} vs {fmt_ms(limit)})", "<= 1.0", mp <= limit)
        if mp > limit and run.settings.profile:
            _importtime(run, [sys.executable, "-X", "importtime", "-c", PBEM, "play", game_id,
                              "peek"], env, "pbem play")


def _pick_type():
    """Zarahemla (a real board to draw) when its engine loads here, else the Pig fixture."""
    try:
        from shared.games import get_game
        if get_game("zarahemla").render:
            return "zarahemla"
    except Exception:  # noqa: BLE001
        return "pig"


def _compiled():
    """Byte-compile the repository's modules first: an installed pbem has its .pyc files,
    and PYTHONDONTWRITEBYTECODE (set on some machines) would otherwise have every launch
    compile client/ and shared/ from source."""
    import compileall
    for folder in ("client", "shared", "bench"):
        compileall.compile_dir(str(ROOT / folder), quiet=1)


def main(run):
    from .common import guarded
    _compiled()
    guarded(run, SECTION, "pbem --help start-up", bench_help, run, target="<= 1.2x")
    guarded(run, SECTION, "pbem show", bench_show, run, target="<= 400 ms")
