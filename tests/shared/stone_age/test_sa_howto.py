"""The player's guide (HOWTO.md): every example is a move the notation reads, and its
tables are the board's and the costs' own data."""

import os
import re

import shared.stone_age as pkg
from shared.stone_age import board
from shared.stone_age.notation import format_move, parse_move
from shared.stone_age.state import NOMAD_COST, TRACK_COSTS, TRIBE_COST, cost_text


def _doc():
    with open(os.path.join(os.path.dirname(pkg.__file__), "HOWTO.md"), encoding="utf-8") as f:
        return f.read()


def _section(doc, title):
    start = doc.index("## " + title)
    end = doc.find("\n## ", start + 1)
    return doc[start:end if end > 0 else len(doc)]


def _rows(section):
    """The cells of each row of the section's tables (header and rule lines left out)."""
    out = []
    for line in section.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            out.append([c.strip() for c in line.strip("|").split("|")])
    return out[1:] if out else out


def test_every_example_move_in_the_guide_is_read_by_the_notation():
    doc = _doc()
    rows = _rows(_section(doc, "Writing moves"))
    assert len(rows) >= 20
    kinds = set()
    for kind, example, _what in rows:
        text = example.strip("`")
        move = parse_move(text)
        assert text.split()[0] == kind and format_move(move) == text, example
        kinds.add(kind)
    assert kinds >= {"roll", "bank", "offer", "accept", "decline", "counter", "confirm",
                     "withdraw", "nomad", "move", "tribe", "develop", "neanderthal",
                     "predator", "desert", "take", "discard", "place", "end"}
    # the moves named in the text read too
    for code in re.findall(r"`([a-z][a-z0-9 +,-]*)`", _section(doc, "Your turn")):
        if code.split()[0] in kinds:
            parse_move(code)


def test_the_guides_boxes_and_crossings_are_the_boards():
    doc = _doc()
    world = board.MAPS[board.CURRENT_MAP]
    boxes = {r[0]: r[1:5] for r in _rows(_section(doc, "The condition boxes"))}
    assert boxes == {k: [f"{a}-{b}", str(clo), str(con), num]
                     for k, (a, b, clo, con, num) in world.boxes.items()}
    neighbours = {}
    for row in _rows(_section(doc, "Which crossings connect")):
        for x, ys in zip(row[::2], row[1::2]):
            if x:
                neighbours[int(x)] = ys
    assert sorted(neighbours) == list(board.CROSSINGS)
    for x, text in neighbours.items():
        want = [f"{y} [{world.box_on[(x, y)]}]" if (x, y) in world.box_on else str(y)
                for y in board.ADJ[x]]
        assert text == ", ".join(want), x


def test_the_guides_costs_are_the_rules_costs():
    doc = _doc()
    costs = _section(doc, "What things cost")
    assert f"| {cost_text(NOMAD_COST)} |" in costs and f"| {cost_text(TRIBE_COST)} |" in costs
    steps = [r for r in _rows(costs) if r[0].isdigit()]
    assert [r[0] for r in steps] == ["1", "2", "3", "4", "5"]
    for i, row in enumerate(steps):
        assert row[1:] == [cost_text(TRACK_COSTS[t][i])
                           for t in ("food", "hunting", "construction", "clothing")]


def test_the_guide_is_for_players():
    """No test names, file paths or code names in a guide for players."""
    doc = _doc()
    for bad in ("test_", ".py", "RULES.md", "shared", "/", "state[", "def "):
        assert bad not in doc, bad


def _examples(doc):
    return [example.strip("`") for _kind, example, _what in _rows(_section(doc, "Writing moves"))]


def _prepared():
    """Positions for the moves random play seldom reaches, each as the guide describes it."""
    from .helpers import GAME, give, main_phase, new, roll_to, second_to_spread
    out = []
    st = new(4, setup="advanced", seed=b"guide")                # "advanced set-up"
    out.append((st, GAME.to_act(st)[0]))
    st = main_phase()                                            # a nomad on the chip at 59
    st["nomads"]["red"] = [59]
    give(st, "red", hide=1, bone=1, flint=1)
    out.append((st, "red"))
    st = main_phase()                                            # "when all 5 tribes stand"
    st["nomads"]["red"] = [59]
    st["tribes"]["red"] = [92, 107, 125, 2, 3]
    give(st, "red", hide=1, bone=1, flint=1)
    out.append((st, "red"))
    out.append((second_to_spread(), "blue"))                    # "the second player to own"
    st = new(4)                                                  # blue holds 8 on a 7
    give(st, "blue", meat=2, bone=1, flint=3)
    roll_to(st, "red", 7)
    assert st["discards"] == {"blue": 4}
    out.append((st, "blue"))
    return out


def test_every_example_move_in_the_guide_is_accepted_by_the_game():
    """Examples that work: each move the guide shows is one the engine accepts in a position
    a player meets (random games with fixed seeds, and prepared positions for the set-up
    option, a tribe on a chip, the sixth tribe, the free chip and the discard).  "Every
    player who owns more than 7 raw material cards selects half of their raw material cards
    and discards them": a discard is at least 4 cards, so the example discards 4."""
    from ..howto_checks import not_accepted
    from .helpers import GAME
    examples = _examples(_doc())
    assert not_accepted(GAME, examples, _prepared(), seeds=range(2)) == []
    assert "discard 2meat+1bone" not in examples
