"""RULES.md quotes the rulebook verbatim and names tests that exist."""

import os
import re

HERE = os.path.dirname(__file__)
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
RULES_MD = os.path.join(ROOT, "shared", "zarahemla", "RULES.md")
BOOK = os.path.join(ROOT, "docs", "rulebooks", "zarahemla-rulebook.txt")


def _norm(text):
    return re.sub(r"\s+", " ", text).strip()


def _choices():
    with open(RULES_MD) as f:
        text = f.read()
    return text.split("## Rule choices")[1].split("## Rules versions")[0]


def test_every_quote_in_the_rule_choices_is_in_the_book():
    """A choice "quotes the passage it reads": every double-quoted text of the Rule choices
    section (split at "...") is a passage of the rulebook, word for word."""
    with open(BOOK, encoding="utf-8") as f:
        book = _norm(f.read()).replace('"', "")
    section = re.sub(r'"(\d+)"', r"\1", _norm(_choices()))     # "7" inside a quote
    quotes = re.findall(r'"([^"]+)"', section)
    assert len(quotes) > 60
    for quote in quotes:
        for part in re.split(r"\s*\.\.\.\s*", quote.replace("*", "")):
            part = part.strip().rstrip(".").strip()
            if len(part) > 3:
                assert part in book, part


def test_every_test_the_rule_choices_name_exists():
    names = set(re.findall(r"`(test_[a-z0-9_]+\*?)`", _choices()))
    assert len(names) > 25
    source = ""
    for name in os.listdir(HERE):
        if name.endswith(".py"):
            with open(os.path.join(HERE, name)) as f:
                source += f.read()
    for name in names:
        if name.endswith("*"):
            assert "def " + name[:-1] in source, name
        else:
            assert "def " + name + "(" in source, name


def test_every_rule_choice_says_what_the_book_gives_it():
    """each item is marked states it / silent / contradicts itself."""
    items = re.split(r"\n(?=\d+\. \*\*)", _choices())[1:]
    assert len(items) == 26
    for item in items:
        assert re.search(r"\*(States it|Silent|Contradicts itself|States|states it|silent|"
                         r"contradicts itself)", item), item[:60]
