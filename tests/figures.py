"""Figures the reliability tests measure, printed at the end of a run under "reliability
figures" (tests/conftest.py) and quoted in docs/RELIABILITY.md, "Figures from the last run".

A test calls ``record(name, text)`` once it has checked what the figure says; ``count(name)``
adds one to a tally kept across a parametrized test's cases.  Only tests that ran (and got
that far) print a figure, so a line in the doc always comes from a run that passed it.
"""

FIGURES = {}


def record(name, text):
    FIGURES[name] = text


def count(name, label, by=1):
    """Add ``by`` to the tally ``name`` (printed as "<n> <label>")."""
    n, _ = FIGURES.get(name, (0, label))
    FIGURES[name] = (n + by, label)


def lines():
    out = []
    for name in sorted(FIGURES):
        value = FIGURES[name]
        text = f"{value[0]} {value[1]}" if isinstance(value, tuple) else value
        out.append(f"{name}: {text}")
    return out
