"""The Settlers of the Stone Age behind the rules-library interface."""

from .. import IllegalMove
from ..base import Game
from ..rng import Rng
from . import develop, legal, rules, trade
from .notation import HELP, format_move, parse_move
from .state import WIN_POINTS, event, is_v1, new_state, points, seats_of
from .svg import draw as draw_svg
from .view import make_view, owes

_HANDLERS = {}
for _mod in (rules, trade, develop):
    for _name in dir(_mod):
        if _name.startswith("_check_"):
            _kind = _name[len("_check_"):]
            _HANDLERS[_kind] = (getattr(_mod, _name), getattr(_mod, "_apply_" + _kind))


class StoneAgeGame(Game):
    """The Settlers of the Stone Age: spread your tribes out of Africa.

    Roll for everyone, trade with the player on turn (bank 3:1), then create
    and move nomads, found tribes on people chips and develop progress.
    First to 10 victory points on their own turn wins.
    """

    name = "stone_age"
    title = "The Settlers of the Stone Age"
    rules_version = "2"
    rules_versions = ("1", "2")
    open_ended_kinds = frozenset({"move", "offer", "counter"})
    min_seats = 3
    max_seats = 4
    options_schema = {
        "setup": {"type": "str", "default": "fixed", "choices": ["fixed", "advanced"],
                  "help": "fixed starting layout, or the advanced 3-round snake placement"},
    }

    # --- set-up ----------------------------------------------------------------

    def seat_names(self, n, options=None):
        if not self.min_seats <= n <= self.max_seats:
            raise IllegalMove(f"Stone Age is for 3 or 4 players, not {n}", code="bad_seats")
        return seats_of(n)

    def new_game(self, seats, options, seed, rules_version=None):
        seats = list(seats)
        if seats != self.seat_names(len(seats)):
            raise IllegalMove(f"the seats for {len(seats)} players are "
                              f"{', '.join(self.seat_names(len(seats)))}", code="bad_seats")
        version = self.resolve_rules_version(rules_version)
        options = self.normalize_options(options, len(seats))
        if isinstance(seed, str):
            seed = seed.encode()
        return new_state(seats, options, seed, version)

    # --- play --------------------------------------------------------------------

    parse_move = staticmethod(parse_move)
    format_move = staticmethod(format_move)

    def to_act(self, state):
        phase = state["phase"]
        if phase == "over":
            return []
        if phase == "discard":
            return [s for s in state["seats"] if s in state["discards"]]
        out = [state["current"]]
        if phase == "main":
            out += [s for s in state["seats"] if rules.owes_answer(state, s)]
        return out

    def legal_moves(self, state, seat):
        return legal.legal_texts(state, seat)

    def _validate(self, state, seat, move_text):
        move = parse_move(move_text)
        rules.gate(state, seat, move)
        check, apply = _HANDLERS[move.kind]
        return move, check(state, seat, move), apply

    def check(self, state, seat, move_text):
        """Raise IllegalMove/InvalidMove if the move would be refused; never copies or mutates."""
        self._validate(state, seat, move_text)

    def play(self, state, seat, move_text, entropy=b""):
        """Apply one move in place and return the state (unchanged if refused)."""
        move, plan, apply = self._validate(state, seat, move_text)
        rng = Rng.for_move(state, entropy)
        events = []
        apply(state, seat, move, plan, rng, events)
        rules.settle_pending(state, events)
        if not is_v1(state):
            develop.update_exploration(state, events)
        state["ply"] += 1
        if seat == state["current"] and state["phase"] == "main" and \
                points(state, seat) >= WIN_POINTS:
            state["phase"] = "over"
            state["pending"], state["discards"] = [], {}
            state["turn"]["offer"] = None
            state["result"] = {"winners": [seat], "reason": f"{seat} has "
                               f"{points(state, seat)} victory points on their turn",
                               "points": {s: points(state, s) for s in state["seats"]}}
            events.append(event(state, f"{seat} wins with {points(state, seat)} victory points",
                                kind="win", data={"seat": seat, "points": points(state, seat)}))
        state["events"] = events
        return state

    def timeout_move(self, state, seat):
        """The move played for ``seat`` at its deadline (policy in RULES.md)."""
        moves = legal.legal(state, seat)
        if not moves:
            raise IllegalMove(f"{seat} owes nothing now", code="not_your_turn")
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

    def result(self, state):
        return state["result"]

    # --- what people see ---------------------------------------------------------

    def view(self, state, seat):
        return make_view(state, seat, self.to_act(state))

    def owes(self, state):
        """{seat: short text of what it owes now} (the same as ``view()["owes"]``)."""
        return owes(state, self.to_act(state))

    def render(self, view, color=False):
        from .render import render
        return render(view, color=color)

    def svg(self, view):
        return draw_svg(view)

    def rules_help(self):
        return HELP
