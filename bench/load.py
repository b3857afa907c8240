"""Load generators: wrk (when on PATH) or a Python thread pool, same interface.

``run_streams(url, streams, seconds)``: one connection per stream, each replaying its list of
(method, path, body) strictly in order (one request in flight per connection).  Returns a
``LoadResult`` with requests per second, latency percentiles and a count of every status.
"""

import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .common import percentile

LUA = Path(__file__).with_name("streams.lua")


@dataclass
class LoadResult:
    tool: str
    requests: int
    seconds: float
    p50: float          # seconds
    p90: float
    p99: float
    statuses: Counter = field(default_factory=Counter)
    errors: int = 0     # socket errors / timeouts
    exhausted: int = 0  # filler requests sent after a stream ran out (should be 0)

    @property
    def rps(self):
        return (self.requests - self.exhausted) / self.seconds if self.seconds else 0.0

    def status_text(self):
        parts = [f"{k}: {v}" for k, v in sorted(self.statuses.items())]
        if self.errors:
            parts.append(f"socket errors: {self.errors}")
        return ", ".join(parts) or "none"

    def non2xx(self, allowed=()):
        return sum(v for k, v in self.statuses.items()
                   if not (200 <= int(k) < 300) and int(k) not in allowed) + self.errors


def tool_name(prefer=None):
    prefer = prefer or os.environ.get("PBEM_BENCH_LOAD", "auto")
    if prefer in ("auto", "wrk") and shutil.which("wrk"):
        return "wrk"
    return "python"


def run_streams(url, streams, seconds, cycle=False, tool=None):
    tool = tool_name(tool)
    if tool == "wrk":
        return _wrk(url, streams, seconds, cycle)
    return _python(url, streams, seconds, cycle)


def _wrk(url, streams, seconds, cycle):
    with tempfile.TemporaryDirectory(prefix="pbem-wrk-") as tmp:
        for i, stream in enumerate(streams, 1):
            with open(os.path.join(tmp, f"{i}.txt"), "w") as fh:
                for method, path, body in stream:
                    fh.write(f"{method} {path} {body or ''}\n")
        n = len(streams)
        cmd = ["wrk", "-t", str(n), "-c", str(n), "-d", f"{seconds:.0f}s", "--timeout", "10s",
               "-s", str(LUA), url, "--", tmp, "cycle" if cycle else "once"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60)
    if os.environ.get("PBEM_BENCH_DEBUG"):
        print(proc.stdout[-3000:])
    if proc.returncode != 0 or "BENCH" not in proc.stdout:
        raise RuntimeError(f"wrk failed ({proc.returncode}): {proc.stderr[-300:]}")
    statuses, exhausted, info = Counter(), 0, {}
    for line in proc.stdout.splitlines():
        if line.startswith("BENCH "):
            info = dict(kv.split("=") for kv in line.split()[1:])
        elif line.startswith("STATUS "):
            _, code, count = line.split()
            statuses[int(code)] += int(count)
        elif line.startswith("EXHAUSTED "):
            exhausted += int(line.split()[1])
    errors = sum(int(info[k]) for k in ("connect", "read", "write", "timeout"))
    return LoadResult("wrk", int(info["requests"]), int(info["duration_us"]) / 1e6,
                      int(info["p50"]) / 1e6, int(info["p90"]) / 1e6, int(info["p99"]) / 1e6,
                      statuses, errors, exhausted)


def _python(url, streams, seconds, cycle):
    import requests
    lat_all, statuses, lock = [], Counter(), threading.Lock()
    errors = [0]
    exhausted = [0]
    start = threading.Barrier(len(streams) + 1)
    stop_at = [0.0]

    def worker(stream):
        s = requests.Session()
        lats, codes = [], Counter()
        start.wait()
        i = 0
        while time.perf_counter() < stop_at[0]:
            if i >= len(stream):
                if not cycle:
                    exhausted[0] += 1
                    break
                i = 0
            method, path, body = stream[i]
            i += 1
            t0 = time.perf_counter()
            try:
                r = s.request(method, url + path, data=body,
                              headers={"Content-Type": "application/json"}, timeout=10)
                codes[r.status_code] += 1
            except Exception:  # noqa: BLE001
                with lock:
                    errors[0] += 1
                continue
            lats.append(time.perf_counter() - t0)
        with lock:
            lat_all.extend(lats)
            statuses.update(codes)

    threads = [threading.Thread(target=worker, args=(st,), daemon=True) for st in streams]
    for t in threads:
        t.start()
    stop_at[0] = time.perf_counter() + seconds
    t0 = time.perf_counter()
    start.wait()
    for t in threads:
        t.join(seconds + 30)
    elapsed = time.perf_counter() - t0
    return LoadResult("python", len(lat_all), elapsed, percentile(lat_all, 50),
                      percentile(lat_all, 90), percentile(lat_all, 99), statuses, errors[0],
                      0 if not exhausted[0] else exhausted[0])
