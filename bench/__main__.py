"""``python -m bench [--quick] [--only engines,http,...] [--no-profile] [--no-write]``

``--only`` takes some of engines, http, cli, archive, pages, bots, push, notices.

Runs every measurement, prints a table, writes docs/PERFORMANCE.md and exits 0 whatever the
figures (benchmarks inform; they never fail CI because a machine is slow).
"""

import argparse
import datetime
import os
import platform
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

from .common import ROOT, Run, Settings

SECTIONS = ("engines", "http", "cli", "archive", "pages", "bots", "push", "notices")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[1])
    parser.add_argument("--quick", action="store_true",
                        help="short runs (CI smoke test, about 3 minutes)")
    parser.add_argument("--only", default="", help="comma-separated: " + ",".join(SECTIONS))
    parser.add_argument("--no-profile", action="store_true",
                        help="skip the profiles taken when a target is missed")
    parser.add_argument("--no-write", action="store_true", help="do not write docs/PERFORMANCE.md")
    parser.add_argument("--output", default=str(ROOT / "docs" / "PERFORMANCE.md"))
    args = parser.parse_args(argv)
    only = [s.strip() for s in args.only.split(",") if s.strip()] or list(SECTIONS)
    for s in only:
        if s not in SECTIONS:
            parser.error(f"unknown section {s!r}; choose from {', '.join(SECTIONS)}")

    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("PBEM_EXTRA_GAMES", "tests.fixtures.pig:GAME")
    try:
        from shared.games import register_path
        register_path("tests.fixtures.pig:GAME")
    except Exception:  # noqa: BLE001
        traceback.print_exc()

    workdir = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    settings = Settings(quick=args.quick, only=only, profile=not args.no_profile,
                        workdir=workdir)
    run = Run(settings)
    run.facts.update(_facts(args))
    run.load("start")
    t0 = time.perf_counter()
    print(f"pbem benchmarks ({'quick' if args.quick else 'full'}) on {os.cpu_count()} cores, "
          f"load {_fmt_load(os.getloadavg())}; work dir {workdir}", flush=True)
    for name in only:
        print(f"\n== {name}", flush=True)
        try:
            module = __import__(f"bench.{name}", fromlist=["main"])
            module.main(run)
        except Exception as exc:  # noqa: BLE001 - never let one section stop the others
            traceback.print_exc()
            run.unavailable(name, f"{name} section", f"{exc.__class__.__name__}: {exc}")
    run.load("end")
    run.facts["duration"] = f"{time.perf_counter() - t0:.0f} s"

    from .report import table, write_markdown
    print("\n" + table(run.rows))
    if not args.no_write:
        try:
            write_markdown(run, Path(args.output))
            print(f"\nwrote {args.output}")
        except Exception:  # noqa: BLE001
            traceback.print_exc()
    shutil.rmtree(workdir, ignore_errors=True)
    return 0


def _fmt_load(avg):
    return " / ".join(f"{x:.2f}" for x in avg)


def _facts(args):
    from .load import tool_name
    cmd = "python -m bench" + (" --quick" if args.quick else "")
    if args.only:
        cmd += f" --only {args.only}"
    facts = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
             "command": cmd, "cores": str(os.cpu_count()),
             "cpu": _cpu_model(), "python": platform.python_version(),
             "load generator": tool_name() + (" (Debian wrk, C)" if tool_name() == "wrk" else
                                              " (thread pool; install wrk for real figures)")}
    try:
        import subprocess
        facts["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                         capture_output=True, text=True).stdout.strip()
    except Exception:  # noqa: BLE001
        pass
    return facts


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


if __name__ == "__main__":
    sys.exit(main())
