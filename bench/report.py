"""The printed table, docs/PERFORMANCE.md (the summary) and bench/LAST-RUN.md (everything).

docs/PERFORMANCE.md is what a reader takes in: the run's facts, one row per target with its
figure and verdict, and one line of reason per miss (``MISS_REASONS``, written by hand from the
profiles in bench/ANALYSIS.md).  bench/LAST-RUN.md keeps every row the run measured and the
profiles it took.
"""

from pathlib import Path

HERE = Path(__file__).parent
ANALYSIS = HERE / "ANALYSIS.md"
LAST_RUN = HERE / "LAST-RUN.md"

#: one line of reason for a missed target: (words of its measurement's name, words of its
#: section or "" for any, the reason); each is the summary of a section of bench/ANALYSIS.md,
#: where the profile it was read from is
MISS_REASONS = [
    ("move rate / hello rate", "", "the first run with wrk: hello reaches ~6,400/s where the "
                                   "Python client capped it near 350-600/s, while a move costs "
                                   "a signature check, the rules and a commit (~0.8 ms of CPU "
                                   "in process, the in-process row) on the same two cores"),
    ("worker RSS", "", "on PostgreSQL the driver: `import psycopg` adds 9.1 MB to a worker "
                       "(8.5 MB with its pure-Python build on the system's libpq: its 77 "
                       "modules, not the wheel's libraries) where SQLite's costs under 1 MB; "
                       "psycopg2 built on the system's libpq adds 4.4 MB, which would still "
                       "leave ~81 MB beside a second driver for the push process's LISTEN "
                       "(bench/ANALYSIS.md, Web worker memory)"),
    ("move POST throughput with / without", "",
     "the web workers are CPU-bound on SQLite (1.5-2.3 ms of CPU a move by run, most often "
     "more while the waiters are held) and share the two cores with the push process "
     "(0.15-0.20 ms a move since its renewals park on the watcher's heads, 0.23-0.30 before) "
     "and the bench's own waiters client (0.03-0.04 ms): 0.80-0.94 over this code's runs, by "
     "the machine's load (the CPU row; bench/ANALYSIS.md)"),
    ("due notices drained", "", "smtplib's four round trips a mail (no pipelining) and the "
                                "sink's own CPU on the same two cores"),
    ("bytes stored per move", "", "a signed entry's text is ~600 B before the row, index and "
                                  "page overhead of the database"),
    ("archive bytes per move", "", "the archive repeats each entry's envelope, signature and "
                                   "hashes as JSON"),
    ("in-process move POST, ms of CPU", "", "Flask's request handling ~32%, the session's "
                                            "connection and commit ~20-25% (cProfile)"),
    ("1000 games / 8 games", "", "one snapshot SELECT per game out of the worker's state cache; "
                                 "no consistent direction over runs"),
    ("pbem play /", "", "what play imports beyond --help: 21 ms (importtime) in 65 modules, "
                        "http.client 13.6 ms of it (the email package and ssl's enums, both "
                        "imported by http.client itself) and _hashlib 2.2; then the home's two "
                        "fsyncs ~2 ms (cProfile); under the target would take an HTTP client "
                        "other than the standard library's (h11 alone imports in 13 ms) "
                        "(bench/ANALYSIS.md)"),
    ("pbem show", "", "a loaded machine; see the importtime note of this run"),
    ("zarahemla / stone_age", "", "Stone Age lists every legal move as text at each ply "
                                  "(legal_texts ~13% and the figure moves ~8% of its random "
                                  "play, pyinstrument in bench/LAST-RUN.md), where Zarahemla "
                                  "keeps its lists short; the template's play ~12% on both"),
    ("move p99 latency", "", "queueing on a saturated machine, not the move: p99 grows with "
                             "the connections (1, 2, 4, 8 games: about 5, 7, 12 ms, then "
                             "60-90 ms with the workers 1.1-1.5 of 2 cores busy beside the load "
                             "generator and the database; the rows above)"),
    ("first load signed in as blue, stone_age", "", "the seat's own page of a Stone Age turn: "
                                                    "HTML 69.7 KB (its panel and legal moves) "
                                                    "and scripts 31.8 KB, 4.3 KB more than "
                                                    "the 27.5 KB of the run before"),
]


def _reason(row):
    for words, section, reason in MISS_REASONS:
        if words in row.name and section in row.section:
            return reason
    return "not yet profiled: see bench/ANALYSIS.md"


def table(rows):
    heads = ("section", "measurement", "value", "target", "verdict")
    data = [(r.section, r.name, r.value, r.target, r.verdict) for r in rows]
    widths = [min(max([len(h)] + [len(d[i]) for d in data]), cap)
              for i, (h, cap) in enumerate(zip(heads, (16, 58, 90, 14, 11), strict=True))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(heads, widths, strict=True)),
             "  ".join("-" * w for w in widths)]
    for d in data:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(d, widths, strict=True)))
    return "\n".join(lines)


def _md(text):
    return str(text).replace("|", "\\|")


_VERDICT = {"met": "met", "MISSED": "**missed**", "info": "", "unavailable": "unavailable"}


def _facts(run):
    f = run.facts
    return [f"- Date: {f.get('date')}; commit {f.get('commit', '?')}; command "
            f"`{f.get('command')}` ({f.get('duration', '?')})",
            f"- Machine: {f.get('cores')} cores ({f.get('cpu')}), Python {f.get('python')}",
            "- Load average (1/5/15 min), shared machine: " + "; ".join(
                f"{label} {' / '.join(f'{x:.2f}' for x in avg)}" for label, avg in run.loads),
            f"- HTTP load generator: {f.get('load generator')}; servers on loopback, "
            f"PBEM_RATELIMIT=off, {f.get('deployment', 'gunicorn 2 workers x 4 threads')}"]


HOW_TO_RUN = [
    "## How to run", "", "```",
    "pip install -e .[postgres] -r bench/requirements.txt",
    "apt-get install wrk            # optional, strongly advised: a C load generator",
    "python -m bench                # full run, ~10 minutes, writes this file",
    "python -m bench --quick        # CI smoke run, under ~3 minutes",
    "python -m bench --only engines,cli --no-write",
    "```", "",
    "PostgreSQL: `PBEM_BENCH_PG` (default `postgresql://postgres@127.0.0.1:5432/test`) names a "
    "server where throw-away databases are created and dropped.  A part that cannot run (an "
    "engine mid-edit, no PostgreSQL, no wrk) is reported as `unavailable: <reason>`; the suite "
    "always exits 0.", ""]


def summary(run):
    """docs/PERFORMANCE.md: the targets, their figures and verdicts, a reason per miss."""
    targeted = [r for r in run.rows if r.target]
    met = sum(r.verdict == "met" for r in targeted)
    missed = [r for r in targeted if r.verdict == "MISSED"]
    na = [r for r in targeted if r.verdict == "unavailable"]
    out = ["# Performance", "",
           "Written by `python -m bench` (the benchmark suite in `bench/`).  Do not edit the "
           "figures by hand: run the suite.  Benchmarks never fail: ratios are measured in the "
           "same run.  Every row the run measured, and its profiles, are in "
           "[bench/LAST-RUN.md](../bench/LAST-RUN.md); the analysis of each miss is in "
           "[bench/ANALYSIS.md](../bench/ANALYSIS.md).", "", *_facts(run),
           f"- Targets met: {met}; missed: {len(missed)}; unavailable: {len(na)}", "",
           "| section | target | figure | verdict |", "|---|---|---|---|"]
    for r in targeted:
        out.append(f"| {_md(r.section)} | {_md(r.name)} {_md(r.target)} | {_md(r.value)} | "
                   f"{_VERDICT[r.verdict]} |")
    if missed:
        out += ["", "## Why each miss", ""]
        out += [f"- {_md(r.section)}, {_md(r.name)}: {_reason(r)}." for r in missed]
    return "\n".join(out + [""] + HOW_TO_RUN)


def full(run):
    """bench/LAST-RUN.md: every row and every profile of the run."""
    out = ["# The last full run of `python -m bench`", "",
           "Written by the run; the summary is docs/PERFORMANCE.md.", "", *_facts(run), "",
           "| section | measurement | value | target | verdict |", "|---|---|---|---|---|"]
    for r in run.rows:
        out.append(f"| {_md(r.section)} | {_md(r.name)} | {_md(r.value)} | {_md(r.target)} | "
                   f"{_VERDICT[r.verdict]} |")
    if run.notes:
        out += ["", "## Profiles and notes from this run", ""]
        for section, text in run.notes:
            out += [f"**{section}**", "", "```", text, "```", ""]
    return "\n".join(out + [""])


def write_markdown(run, path, last_run=LAST_RUN):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(summary(run))
    last_run.write_text(full(run))
