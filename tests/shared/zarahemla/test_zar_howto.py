"""The player's guide (HOWTO.md): every example is a move the notation reads, and its
costs are the rules' own."""

import os
import re

import shared.zarahemla as pkg
from shared.bundles import notation
from shared.zarahemla.board import RESOURCES
from shared.zarahemla.notation import EXAMPLES, format_move, parse_move
from shared.zarahemla.state import COST


def _doc():
    with open(os.path.join(os.path.dirname(pkg.__file__), "HOWTO.md"), encoding="utf-8") as f:
        return f.read()


def _section(doc, title):
    start = doc.index("## " + title)
    end = doc.find("\n## ", start + 1)
    return doc[start:end if end > 0 else len(doc)]


def _rows(section):
    out = [[c.strip() for c in line.strip("|").split("|")] for line in section.splitlines()
           if line.startswith("|") and not line.startswith("|---")]
    return out[1:]


def test_every_example_move_in_the_guide_is_read_by_the_notation():
    doc = _doc()
    rows = _rows(_section(doc, "Writing moves"))
    examples = []
    for kind, example, _what in rows:
        text = example.strip("`")
        assert text.split()[0] == kind
        assert format_move(parse_move(text)) == text, text
        examples.append(text)
    # the guide shows every move the rules help shows
    shown = {ex for _group, exs in EXAMPLES for ex in exs}
    assert shown - set(examples) <= {"bank 4water for 2stone"}
    for section in ("Setting up", "Your turn", "What things cost"):
        for code in re.findall(r"`([a-z][a-z0-9 +-]*)`", _section(doc, section)):
            if " " in code or code in ("roll", "end", "temple", "buy"):
                parse_move(code)


def test_the_guides_costs_are_the_rules_costs():
    rows = _rows(_section(_doc(), "What things cost"))
    got = {re.search(r"`(\w+)", what).group(1): cost for what, cost in rows}
    assert got == {k: notation(v, RESOURCES) for k, v in COST.items()}


def test_the_guide_is_for_players():
    doc = _doc()
    for bad in ("test_", ".py", "RULES.md", "shared", "/", "def "):
        assert bad not in doc, bad


def _prepared():
    """Positions for the moves random play seldom reaches, each as the guide describes it."""
    from shared.zarahemla.board import EDGES, POST_EDGES
    from shared.zarahemla.turn import resolve_roll

    from .helpers import GAME, empty_play_state, put_building, set_hand
    out = []
    st = empty_play_state()                                    # a settlement on 14
    put_building(st, "red", 14)
    set_hand(st, "red", wheat=2, stone=3)
    out.append((st, "red"))
    st = empty_play_state()                                    # "at a water post"
    water = st["posts"].index("water")
    put_building(st, "red", EDGES[POST_EDGES[water]][0] + 1)
    set_hand(st, "red", water=2)
    out.append((st, "red"))
    st = empty_play_state(rolled=False)                        # blue holds 8 on a 7
    set_hand(st, "blue", wood=2, brick=4, stone=2)
    resolve_roll(st, "red", 7, "Red rolled 7")
    assert st["discard"] == {"blue": 4}
    out.append((st, "blue"))
    assert GAME.to_act(out[-1][0]) == ["blue"]
    return out


def test_every_example_move_in_the_guide_is_accepted_by_the_game():
    """Examples that work: each move the guide shows is one the engine accepts in a position
    a player meets (random games with fixed seeds, and prepared positions for a city, a
    water post and the discard).  "Each player who holds more than seven Resource Cards must
    select half (round down) of his Resource Cards and discard them": a discard is at least
    4 cards, so the example discards 4."""
    from shared.zarahemla import GAME

    from ..howto_checks import not_accepted
    examples = [example.strip("`") for _kind, example, _what
                in _rows(_section(_doc(), "Writing moves"))]
    assert not_accepted(GAME, examples, _prepared(), seeds=range(3)) == []
    assert "discard 2wood+1stone" not in examples
