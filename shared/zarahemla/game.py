"""The Game object for The Settlers of Zarahemla (registry name ``zarahemla``)."""

from ..base import Game
from .cards import CARD_INDEX
from .legal import timeout_move
from .notation import EXAMPLE_PATH, EXAMPLES
from .state import SEATS

#: notes printed under a group of examples in the help
_HELP_NOTES = {
    "set-up": "start CORNER: the settlement whose hexes give your starting resources",
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
        "Costs: road 1wood+1brick; settlement 1wood+1brick+1water+1wheat;",
        "city 2wheat+3stone; a Temple Stone (temple) 1brick+1stone;",
        "a development card (buy) 1water+1wheat+1stone.",
    ]
    return "\n".join(lines) + "\n"


HELP = _help_text()


class Zarahemla(Game):
    """The Settlers of Zarahemla: a Catan variant with Water, a Temple and 12 VP."""

    name = "zarahemla"
    title = "The Settlers of Zarahemla"
    score_key = "vp"
    #: "2" records every event's facts as fields (RULES.md, "Facts"); "1" states replay as
    #: they were recorded, without facts; "3": Temple Stones before the roll, and the
    #: Trading Posts fixed on the board's frame (RULES.md, "Rules versions")
    rules_version = "3"
    rules_versions = ("1", "2", "3")
    open_ended_kinds = frozenset({"offer", "counter", "bank", "discard"})
    min_seats = 2
    max_seats = 4
    options_schema = {
        "vp_to_win": {"type": "int", "default": 12, "choices": [10, 11, 12],
                      "help": "victory points needed to win (the book's variant: 10 or 11)"},
        "board": {"type": "str", "default": "variable", "choices": ["variable", "beginner"],
                  "help": "variable board from the seed, or the fixed beginner board"},
    }

    seats = SEATS
    #: the bots of this game (``shared.bots``)
    bots_module = "shared.bots.zarahemla"
    #: version 1 states predate facts (``shared.events``): their events keep none
    versions_without_facts = ("1",)
    score_label = "VP"
    #: versions 1 and 2 read a seed given as hex digits as hex (``shared.seats.seed_bytes``)
    seed_hex_text = True
    #: rules (the tables, check_duty, after_move, to_act, owes), notation (parse_move,
    #: format_move), legal (legal_texts), view (make_view), render, svg and state.new_state:
    #: see ``Game.package``
    package = __package__
    help_text = HELP

    # --- play -----------------------------------------------------------------

    def timeout_choice(self, state, seat):
        return timeout_move(state, seat)

    # --- what people see ----------------------------------------------------------

    def reveals(self, state, seat, move, rng):
        """Besides rolls, draws and steals: a development card played was face down in its
        player's hand (and prosperity shows how many cards of a kind every hand held)."""
        return move.kind in CARD_INDEX or super().reveals(state, seat, move, rng)

    def hidden_fields(self, state):
        """A player's resource cards and development cards (RULES.md, "Hidden information")."""
        return [(seat, ("players", seat, part, i)) for seat in state["order"]
                for part, n in (("hand", 5), ("dev", 7)) for i in range(n)]


GAME = Zarahemla()
