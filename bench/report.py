"""The printed table and docs/PERFORMANCE.md."""

from pathlib import Path

ANALYSIS = Path(__file__).with_name("ANALYSIS.md")


def table(rows):
    heads = ("section", "measurement", "value", "target", "verdict")
    data = [(r.section, r.name, r.value, r.target, r.verdict) for r in rows]
    widths = [min(max([len(h)] + [len(d[i]) for d in data]), cap)
              for i, (h, cap) in enumerate(zip(heads, (16, 58, 90, 14, 11)))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(heads, widths)),
             "  ".join("-" * w for w in widths)]
    for d in data:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(d, widths)))
    return "\n".join(lines)


def _md(text):
    return str(text).replace("|", "\\|")


def write_markdown(run, path):
    f = run.facts
    met = sum(r.verdict == "met" for r in run.rows)
    missed = [r for r in run.rows if r.verdict == "MISSED"]
    na = [r for r in run.rows if r.verdict == "unavailable"]
    out = ["# Performance", "",
           "Written by `python -m bench` (the benchmark suite in `bench/`; requirements in "
           "`bench/requirements.txt`).  Do not edit the figures by hand: run the suite.  "
           "Benchmarks never fail: they print ratios measured in the same run.", "",
           f"- Date: {f.get('date')}; commit {f.get('commit', '?')}; command `{f.get('command')}`"
           f" ({f.get('duration', '?')})",
           f"- Machine: {f.get('cores')} cores ({f.get('cpu')}), Python {f.get('python')}",
           "- Load average (1/5/15 min), shared machine: " + "; ".join(
               f"{label} {' / '.join(f'{x:.2f}' for x in avg)}" for label, avg in run.loads),
           f"- HTTP load generator: {f.get('load generator')}; servers on loopback, "
           f"PBEM_RATELIMIT=off, {f.get('deployment', 'gunicorn 2 workers x 4 threads')} "
           "(the comparison rows say theirs)",
           f"- Targets met: {met}; missed: {len(missed)}; unavailable: {len(na)}", "",
           "| section | measurement | value | target | verdict |",
           "|---|---|---|---|---|"]
    for r in run.rows:
        verdict = {"met": "met", "MISSED": "**missed**", "info": "",
                   "unavailable": "unavailable"}[r.verdict]
        out.append(f"| {_md(r.section)} | {_md(r.name)} | {_md(r.value)} | {_md(r.target)} | "
                   f"{verdict} |")
    if missed:
        out += ["", "## Missed targets", ""]
        out += [f"- {_md(r.section)}: {_md(r.name)} = {_md(r.value)} (target {_md(r.target)})"
                for r in missed]
    if run.notes:
        out += ["", "## Profiles and notes from this run", ""]
        for section, text in run.notes:
            out += [f"**{section}**", "", "```", text, "```", ""]
    if ANALYSIS.exists():
        out += ["", ANALYSIS.read_text().strip()]
    out += ["", "## How to run", "",
            "```",
            "pip install -e .[postgres] -r bench/requirements.txt",
            "apt-get install wrk            # optional, strongly advised: a C load generator",
            "python -m bench                # full run, ~10 minutes, writes this file",
            "python -m bench --quick        # CI smoke run, under ~3 minutes",
            "python -m bench --only engines,cli --no-write",
            "```", "",
            "PostgreSQL: `PBEM_BENCH_PG` (default `postgresql://postgres@127.0.0.1:5432/test`) "
            "names a server where throw-away databases are created and dropped.  A part that "
            "cannot run (an engine mid-edit, no PostgreSQL, no wrk) is reported as "
            "`unavailable: <reason>`; the suite always exits 0.", ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out))
