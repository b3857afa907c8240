"""RULES.md keeps its promises: every numbered choice of "Every choice
against the book" says whether the book states it, is silent or contradicts itself; what it
puts in double quotes is the rulebook's own words; and the tests it names exist."""

import os
import re

HERE = os.path.dirname(__file__)
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
RULES_MD = os.path.join(ROOT, "shared", "title_of_liberty", "RULES.md")
BOOK = os.path.join(ROOT, "docs", "rulebooks", "nephite-war-rules.txt")


def _norm(text):
    return re.sub(r"\s+", " ", text).strip()


def _rules():
    with open(RULES_MD, encoding="utf-8") as f:
        return f.read()


def _choices():
    text = _rules()
    return text[text.index("## Every choice against the book"):text.index("## Difficulty")]


def _book():
    with open(BOOK, encoding="utf-8") as f:
        return _norm(f.read())


def _quotes(text):
    return re.findall(r'"([^"]+)"', _norm(text))


def _parts(quote):
    for part in re.split(r"\s*\.\.\.\s*", quote):
        part = part.strip().strip(".").strip()
        if len(part) > 3:
            yield part


def test_every_choice_is_marked_book_silent_or_contradicts():
    """Each numbered choice is marked [book], [silent] or [contradicts] (or [book, v2],
    [book, v3]; [book, departure] where the default game departs from a stated rule and
    says why)."""
    items = re.split(r"\n(?=\d+(?:-\d+)?\. \*\*)", _choices())[1:]
    numbers = [int(item.split(".")[0]) for item in items]
    assert numbers == list(range(1, 34))
    for item in items:
        assert re.search(r"\[(book|silent|contradicts)(, v2|, v3|, departure)?\]", item), \
            item[:70]
        assert re.search(r"`test_[a-z0-9_]+", item), f"choice {item[:40]!r} names no test"


def test_every_quote_of_the_choices_and_the_version_list_is_in_the_book():
    """What the choices and the list of version-2 changes put in double quotes is in the
    rulebook word for word (" ... " marks a cut)."""
    book = _book()
    text = _rules()
    changes = text[text.index("Version 2 changes"):text.index("## The main board")]
    assert "Version 3 changes" in changes
    headings = set(re.findall(r"^## (.+)$", text, re.M))
    quotes = _quotes(_choices()) + _quotes(changes)
    assert len(quotes) > 60
    for quote in quotes:
        if any(h.startswith(quote) for h in headings):
            continue  # (see "Difficulty"): a section of RULES.md, not a passage
        for part in _parts(quote):
            assert part in book, part


def test_every_test_the_choices_name_exists():
    source = ""
    for name in os.listdir(HERE):
        if name.endswith(".py"):
            with open(os.path.join(HERE, name), encoding="utf-8") as f:
                source += f.read()
    text = _rules()
    names = set(re.findall(r"`(test_[a-z0-9_]+)(\.\.\.)?`", text))
    assert len(names) > 20
    for name, dots in names:
        assert ("def " + name) in source if dots else ("def " + name + "(") in source, name


def test_the_round_budget_is_called_a_departure_with_its_reason_and_the_hour_beside_it():
    """SETTING UP THE GAME: "... before the ONE HOUR time limit expires."  The book states the
    limit, so the 12-round budget is a departure: note 2 says so, gives the reason (a game by
    mail) and names `deadline_hours=1`, the book's hour; the options table says it too."""
    items = re.split(r"\n(?=\d+(?:-\d+)?\. \*\*)", _choices())[1:]
    two = _norm(items[1])
    assert two.startswith("2. **The ONE HOUR limit. [book, departure]**")
    assert "ONE HOUR time limit expires" in two and "**departure**" in two
    assert "because it cannot be followed literally in a game played by mail" in two
    assert "`deadline_hours=1`" in two and "option `rounds`" in two and "**12**" in two
    table = _norm(_rules().split("## Rules versions")[0])
    assert "| `rounds` | int >= 0 | 0 | round budget, a departure for slow play (note 2)" in table
    assert "`1` is the book's ONE HOUR (note 2)" in table
