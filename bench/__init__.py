"""pbem benchmark suite: ``python -m bench`` (full) or ``python -m bench --quick`` (CI smoke).

Benchmarks are not tests: they print figures and ratios measured in the same run, write
docs/PERFORMANCE.md and always exit 0.  Kept import-free so ``python -m bench.clihello``
measures a bare click start-up.
"""
