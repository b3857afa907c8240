"""Shared pieces: the result table, run settings, small statistics helpers."""

import os
import statistics
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIG = "tests.fixtures.pig:GAME"


@dataclass
class Row:
    section: str
    name: str
    value: str
    target: str = ""
    verdict: str = "info"   # "met", "MISSED", "info", "unavailable"


@dataclass
class Settings:
    quick: bool = False
    only: list = field(default_factory=list)
    profile: bool = True
    workdir: Path = None


@dataclass
class Run:
    settings: Settings
    rows: list = field(default_factory=list)
    notes: list = field(default_factory=list)       # (section, text) profile evidence etc.
    loads: list = field(default_factory=list)       # (label, os.getloadavg())
    facts: dict = field(default_factory=dict)       # machine and tool facts for the header

    def add(self, section, name, value, target="", met=None):
        verdict = "info" if met is None else ("met" if met else "MISSED")
        row = Row(section, name, value, target, verdict)
        self.rows.append(row)
        mark = {"met": "ok ", "MISSED": "MISS", "info": "   "}[verdict]
        print(f"  [{mark}] {name}: {value}" + (f"   (target {target})" if target else ""),
              flush=True)
        return row

    def unavailable(self, section, name, reason, target=""):
        reason = " ".join(str(reason).split())[:300]
        self.rows.append(Row(section, name, f"unavailable: {reason}", target, "unavailable"))
        print(f"  [n/a ] {name}: unavailable: {reason}", flush=True)

    def note(self, section, text):
        self.notes.append((section, text))
        print("  note: " + text.replace("\n", "\n        "), flush=True)

    def load(self, label):
        self.loads.append((label, os.getloadavg()))


def guarded(run, section, name, fn, *args, target="", **kw):
    """Call ``fn``; on any failure record one 'unavailable' row and go on."""
    try:
        return fn(*args, **kw)
    except Exception as exc:  # noqa: BLE001 - a broken part must not stop the suite
        print(f"  ! {section}: {name} failed:", file=sys.stderr)
        traceback.print_exc(limit=6)
        run.unavailable(section, name, f"{exc.__class__.__name__}: {exc}", target)
        return None


def percentile(values, q):
    if not values:
        return float("nan")
    values = sorted(values)
    k = (len(values) - 1) * q / 100
    lo = int(k)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def median(values):
    return statistics.median(values) if values else float("nan")


def fmt_rate(x):
    return f"{x:,.0f}/s"


def fmt_ms(seconds):
    return f"{seconds * 1000:.2f} ms"


def fmt_us(seconds):
    return f"{seconds * 1e6:.1f} us"


class Timer:
    def __enter__(self):
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.elapsed = time.perf_counter() - self.t0


def child_env(extra=None):
    """Environment for child processes: the repo on PYTHONPATH, Pig registered, no rate limits."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"]
                                     if env.get("PYTHONPATH") else "")
    env.setdefault("PBEM_EXTRA_GAMES", PIG)
    env["PBEM_RATELIMIT"] = "off"
    env.update(extra or {})
    return env
