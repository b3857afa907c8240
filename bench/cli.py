"""5. CLI start-up: ``pbem --help`` against a bare click command; ``pbem show`` on a live server.

Both commands are launched the way the console script launches them (a fresh interpreter
importing the entry point), interleaved run by run so load from others hits both alike.
"""

import json
import subprocess
import sys
import tempfile
import time

from .common import ROOT, child_env, fmt_ms, median

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
    run.add(SECTION, "bare click hello --help", f"{fmt_ms(mh)} median of {reps}")
    run.add(SECTION, "pbem --help", f"{fmt_ms(mp)} median of {reps}")
    run.add(SECTION, "pbem --help / click hello --help", f"{mp / mh:.2f}x", "<= 1.2x",
            mp / mh <= 1.2)
    if mp / mh > 1.2 and run.settings.profile:
        _importtime(run, [sys.executable, "-X", "importtime", "-c", PBEM, "--help"], env,
                    "pbem --help")


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
    from .servers import Database, Player, Setup, pbem_server
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
        finally:
            server.stop()


def _pick_type():
    """Zarahemla (a real board to draw) when its engine loads here, else the Pig fixture."""
    try:
        from shared.games import get_game
        get_game("zarahemla").render
        return "zarahemla"
    except Exception:  # noqa: BLE001
        return "pig"


def main(run):
    from .common import guarded
    guarded(run, SECTION, "pbem --help start-up", bench_help, run, target="<= 1.2x")
    guarded(run, SECTION, "pbem show", bench_show, run, target="<= 400 ms")
