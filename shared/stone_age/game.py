"""The Settlers of the Stone Age behind the rules-library interface."""

from ..base import Game
from ..rng import Rng
from . import legal
from .notation import HELP, SEAT_ORDER, format_move, parse_move
from .state import costs_lines, is_v1


class StoneAgeGame(Game):
    """The Settlers of the Stone Age: spread your tribes out of Africa.

    Roll for everyone, trade with the player on turn (bank 3:1), then create
    and move nomads, found tribes on people chips and develop progress.
    First to 10 victory points on their own turn wins.
    """

    name = "stone_age"
    title = "The Settlers of the Stone Age"
    score_key = "points"
    #: "3": the rules of "2", the open offer kept by ``shared.trade`` in ``state["offer"]``
    #: like Zarahemla's (versions 1 and 2 keep it in ``state["turn"]``; RULES.md);
    #: "4": map 2 (the designed numbers and boxes), a lone producer's short stack logged,
    #: the youngest (first) seat takes the first turn after the advanced set-up
    rules_version = "4"
    rules_versions = ("1", "2", "3", "4")
    open_ended_kinds = frozenset({"move", "offer", "counter"})
    min_seats = 3
    max_seats = 4
    options_schema = {
        "setup": {"type": "str", "default": "fixed", "choices": ["fixed", "advanced"],
                  "help": "fixed starting layout, or the advanced 3-round snake placement"},
    }

    seats = SEAT_ORDER
    #: the bots of this game (``shared.bots``)
    bots_module = "shared.bots.stone_age"
    #: version 1 states predate facts (``shared.events``): their events keep none
    versions_without_facts = ("1",)
    score_label = "VP"
    seats_in_order = True
    #: the notation, then what everything costs (the book's overview tile)
    help_text = HELP + "\n" + "\n".join(costs_lines())
    #: rules (the tables, check_duty, after_move, to_act, owes), notation (parse_move,
    #: format_move, HELP), legal (legal_texts), view (make_view), render, svg and
    #: state.new_state: see ``Game.package``
    package = __package__

    # --- play --------------------------------------------------------------------

    def timeout_choice(self, state, seat):
        """The move played for ``seat`` at its deadline (policy in RULES.md)."""
        moves = legal.legal(state, seat)
        kinds = {m.kind for m in moves}
        for kind in ("roll", "decline", "end"):
            if kind in kinds:
                return kind
        if "take" in kinds and not is_v1(state):
            return "take none"  # the take is optional: the timeout makes no choice for you
        if "discard" in kinds:
            rng = Rng(state["seed"], b"timeout|%d" % state["ply"])
            out = rng.draw_many(state["hands"][seat], state["discards"][seat])
            return format_move(parse_move("discard " + "+".join(
                f"{n}{r}" for n, r in zip(out, ("meat", "bone", "flint", "hide")) if n)))
        return format_move(moves[0])

    # --- what people see ---------------------------------------------------------

    def hidden_fields(self, state):
        """A player's resource cards: the others see only how many."""
        return [(seat, ("hands", seat, i)) for seat in state["seats"] for i in range(4)]
