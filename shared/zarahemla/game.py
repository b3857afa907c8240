"""The Game object for The Settlers of Zarahemla (registry name ``zarahemla``)."""

from .. import IllegalMove
from ..base import Game
from . import rules
from .moves import legal_moves, timeout_move
from .notation import EXAMPLE_PATH, EXAMPLES, format_move, parse_move
from .state import SEATS, new_state
from .svg import draw as draw_svg
from .view import make_view

#: notes printed under a group of examples in the help
_HELP_NOTES = {
    "set-up": "start N: the settlement whose hexes give your starting resources",
    "7/warrior": "robber HEX [PLAYER]: without a player, no card is stolen",
    "bank": "4:1, 3:1 at a 3:1 post, 2:1 at that resource's post",
    "offers": "without to ..., the offer goes to everyone",
    "answers": "a counter is written from your side: you give, you get",
}


def _help_text():
    """The notation help, built from ``notation.EXAMPLES`` so every example is a real move."""
    lines = [
        "The Settlers of Zarahemla - move notation",
        "",
        "Corners are the numbers 1-54 on the board, paths are two corners "
        f"({EXAMPLE_PATH}),",
        "hexes are the letters A-S.  Resources: wood brick water wheat stone, written",
        "count+name joined by + (2wood+1brick).",
        "",
    ]
    for group, examples in EXAMPLES:
        row = f"  {group:<11}"
        for ex in examples:
            if len(row) + len(ex) + 3 > 78 and row.strip() != group:
                lines.append(row.rstrip())
                row = " " * 13
            row += ex + "   "
        lines.append(row.rstrip())
        if group in _HELP_NOTES:
            lines.append(" " * 13 + "(" + _HELP_NOTES[group] + ")")
    lines += [
        "",
        "Costs: road wood+brick; settlement wood+brick+water+wheat; city 3stone+2wheat;",
        "temple stone brick+stone; development card stone+water+wheat.",
    ]
    return "\n".join(lines) + "\n"


HELP = _help_text()


class Zarahemla(Game):
    """The Settlers of Zarahemla: a Catan variant with Water, a Temple and 12 VP."""

    name = "zarahemla"
    title = "The Settlers of Zarahemla"
    #: "2" records every event's facts as fields (RULES.md, "Facts"); "1" states replay as
    #: they were recorded, without facts
    rules_version = "2"
    rules_versions = ("1", "2")
    open_ended_kinds = frozenset({"offer", "counter", "bank", "discard"})
    min_seats = 2
    max_seats = 4
    options_schema = {
        "vp_to_win": {"type": "int", "default": 12, "choices": [10, 11, 12],
                      "help": "victory points needed to win (the book's variant: 10 or 11)"},
        "board": {"type": "str", "default": "variable", "choices": ["variable", "beginner"],
                  "help": "variable board from the seed, or the fixed beginner board"},
    }

    def seat_names(self, n, options=None):
        if not self.min_seats <= n <= self.max_seats:
            raise IllegalMove(f"Zarahemla is played by 2 to 4 players, not {n}",
                              code="bad_seats")
        return list(SEATS[:n])

    def new_game(self, seats, options, seed, rules_version=None):
        seats = list(seats)
        if not self.min_seats <= len(seats) <= self.max_seats:
            raise IllegalMove(f"Zarahemla is played by 2 to 4 players, not {len(seats)}",
                              code="bad_seats")
        for s in seats:
            if s not in SEATS:
                raise IllegalMove(f"{s!r} is not a Zarahemla colour", code="bad_seats")
        if len(set(seats)) != len(seats):
            raise IllegalMove("each colour can be taken only once", code="bad_seats")
        version = self.resolve_rules_version(rules_version)
        options = self.normalize_options(options, len(seats))
        return new_state(seats, options, seed, version)

    # --- play -----------------------------------------------------------------

    def to_act(self, state):
        return rules.to_act(state)

    def owes(self, state):
        return rules.owes(state)

    def legal_moves(self, state, seat):
        return legal_moves(state, seat)

    def parse_move(self, text):
        return parse_move(text)

    def format_move(self, move):
        return format_move(move)

    def play(self, state, seat, move_text, entropy=b""):
        mv = parse_move(move_text)
        rules.check(state, seat, mv)
        return rules.apply(state, seat, mv, entropy)

    def check(self, state, seat, move_text):
        rules.check(state, seat, parse_move(move_text))

    def timeout_move(self, state, seat):
        mv = timeout_move(state, seat)
        if mv is None:
            raise IllegalMove(f"{seat} owes nothing now", code="not_your_turn")
        return mv

    def result(self, state):
        return state["result"]

    # --- what people see ----------------------------------------------------------

    def view(self, state, seat):
        return make_view(self, state, seat)

    def render(self, view, color=False):
        from .render import render
        return render(view, color=color)

    def svg(self, view):
        return draw_svg(view)

    def rules_help(self):
        return HELP


GAME = Zarahemla()
