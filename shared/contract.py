"""The contract every game keeps, shipped with the library (``python -m shared.contract``).

A game that keeps it can be served, played from the command line, archived and replayed.
:func:`check_game` plays short random games of every seat count the game allows and checks
each property of :data:`PROPERTIES` at sampled states; the first that does not hold raises
:class:`ContractFailure`, which names it and says how to reproduce it (the seed, the seats and
the moves).  From a shell, for any installed game (built in or a plug-in)::

    python -m shared.contract pig --games 2 --seed 7

prints each property it checked and exits 0 when all hold, 1 naming the first that failed.

The leak check (``leaks``) is the one a dealt secret needs.  At every move that drew
randomness (and at sampled states, a few more listed moves) the move is played again under
other entropies.  Whenever two outcomes agree on everything a viewer may know (the state
without its events, every hidden field masked except the viewer's own and those the move's
events declare revealed), that viewer's view, log and facts must be identical: a roll that
tells every seat all the new dice fails it, whatever the sentinels say.  A move declares what
it shows on purpose in its events: ``"reveals": [[seat, [key, ...]], ...]`` names hidden
fields (as :meth:`shared.base.Game.hidden_fields` does) whose values every seat now sees
(``shared.events.add_event(..., reveals=...)``).  Only those may differ.  The sentinel check
(``sentinels``) stays: a number planted in one seat's hidden fields must never reach another
seat, before or after a move, except through a field the move declares revealed.

Pure like the rest of ``shared``: :func:`check_game` returns its findings; only :func:`main`
prints.
"""

import argparse
import hashlib
import json
import marshal
import random
import sys
import traceback
import xml.etree.ElementTree as ET

from . import IllegalMove, InvalidMove
from .base import Game

#: (name, what holds), in the order they are checked and printed
PROPERTIES = (
    ("template", "a shared.base.Game: a check and an apply for every kind, the abstract "
                 "methods written, its rules version among those it replays"),
    ("notation", "every listed move survives the round trip format_move(parse_move(m)) == m"),
    ("bad_text", "text that does not parse raises InvalidMove and leaves the state as it was"),
    ("check_play", "check agrees with play, for listed moves and others; a refused move "
                   "leaves the state as it was"),
    ("views", "every view is plain JSON with the view keys, shows neither the seed nor "
              "changes the state"),
    ("board", "the text board fits 80 columns and the SVG (where drawn) parses"),
    ("replay", "the same seed and moves give the same state"),
    ("open_ended", "an example of every open-ended kind is listed whenever one is legal"),
    ("timeouts", "every timeout move is accepted"),
    ("sentinels", "a sentinel in one seat's hidden fields never reaches another seat's view, "
                  "log or facts, before or after a move (except a declared reveal)"),
    ("leaks", "a move played under other entropies shows each viewer the same view, log and "
              "facts wherever the outcomes differ only in fields hidden from that viewer"),
)

#: texts that are no move in any game
BAD_TEXTS = ("", " ", "\x00", "роль", "🎲 roll", "x" * 5000, "1e9", "\u202eroll", "roll\nroll")

#: how many entropies each move is played under by the leak check
ENTROPIES = 12


class ContractFailure(AssertionError):
    """A property that does not hold: ``prop`` (a name of :data:`PROPERTIES`), ``message`` and
    ``reproduction`` (the seed, the seats, the options and the moves, as text)."""

    def __init__(self, prop, message, reproduction=""):
        super().__init__(f"{prop}: {message}")
        self.prop = prop
        self.message = message
        self.reproduction = reproduction


def kind_of(text):
    """The kind a move's text shows: its first word, or "play CARD" for a card."""
    words = text.split()
    if not words:
        return ""
    return " ".join(words[:2]) if words[0] == "play" and len(words) > 1 else words[0]


def clone(state):
    """A deep copy of a plain-data state (marshal: many times faster than copy.deepcopy)."""
    return marshal.loads(marshal.dumps(state))


def state_hash(state):
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()


def seat_counts(game):
    """The seat counts checked: the fewest, one more, the most."""
    return sorted({game.min_seats, game.max_seats, min(game.max_seats, game.min_seats + 1)})


def state_seats(game, state):
    """The seats of a state, read through the view of a spectator (``scores`` has them all)."""
    return list(game.view(state, None)["scores"])


def plant(state, path, value):
    """Write ``value`` at ``path`` (a sequence of keys) in ``state``."""
    where = state
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value


def revealed_fields(events):
    """{(seat, path)} that ``events`` declare shown to every seat (``"reveals"``)."""
    out = set()
    for ev in events or ():
        for seat, path in ev.get("reveals") or ():
            out.add((seat, tuple(path)))
    return out


def _drawing(game, view):
    try:
        return game.svg(view)
    except NotImplementedError:
        return ""


def observation(game, state, viewer):
    """What ``viewer`` (None: a spectator) is shown of ``state``: view, log and facts."""
    view = game.view(state, viewer)
    return {"view": view, "log": game.events_for(state.get("events"), viewer),
            "facts": game.facts_for(state.get("events"), viewer)}


class _Trial:
    """One random game under check: what reproduces it (seed, seats, moves so far)."""

    def __init__(self, game, n, seed):
        self.game = game
        self.seats = game.seat_names(n)
        self.seed = b"contract-%d" % seed
        self.moves = []

    def new(self):
        return self.game.new_game(self.seats, {}, self.seed)

    def reproduction(self, then=None):
        lines = ["import shared.games",
                 f"game = shared.games.get_game({self.game.name!r})",
                 f"state = game.new_game({self.seats!r}, {{}}, {self.seed!r})"]
        for seat, move, entropy in self.moves:
            lines.append(f"state = game.play(state, {seat!r}, {move!r}, {entropy!r})")
        if then:
            lines.append(then)
        return "\n".join(lines)


class Checker:
    """The checks of one game; ``counts`` says how often each property was checked."""

    def __init__(self, game, entropies=ENTROPIES):
        self.game = game
        self.entropies = entropies
        self.counts = {name: 0 for name, _ in PROPERTIES}
        self.seen = {}          # every listed move by kind, across states
        self.trial = None
        self.prop = "template"

    # --- plumbing ---------------------------------------------------------------------

    def fail(self, message, then=None):
        repro = self.trial.reproduction(then) if self.trial is not None else ""
        return ContractFailure(self.prop, message, repro)

    def require(self, condition, message, then=None):
        if not condition:
            raise self.fail(message, then)

    def at(self, prop):
        self.prop = prop
        self.counts[prop] += 1

    # --- once per game ------------------------------------------------------------------

    def template(self):
        self.at("template")
        game = self.game
        self.require(isinstance(game, Game), f"{game!r} is not a shared.base.Game")
        self.require(game.rules_version in game.rules_versions,
                     f"rules version {game.rules_version!r} is not in rules_versions")
        for kind in game.checks:
            self.require(kind in game.applies, f"{kind} has a check and no apply")
        self.require(set(game.applies) == set(game.checks),
                     f"{sorted(set(game.applies) - set(game.checks))} have an apply and no check")
        for name in ("parse_move", "format_move", "to_act", "owes", "legal_moves", "new_state"):
            self.require(getattr(type(game), name) is not getattr(Game, name),
                         f"{name} is not written")
        self.require(game.view_module is not None or type(game).view is not Game.view,
                     "view is not written (nor a view_module named)")
        self.require(game.render_module is not None or type(game).render is not Game.render,
                     "render is not written (nor a render_module named)")

    def bad_text(self, state):
        game = self.game
        seat = game.to_act(state)[0]
        before = state_hash(state)
        for text in BAD_TEXTS:
            self.at("bad_text")
            try:
                game.parse_move(text)
            except InvalidMove as exc:
                self.require(bool(exc.message), f"InvalidMove for {text[:20]!r} says nothing")
            try:
                game.play(state, seat, text)
            except IllegalMove:   # InvalidMove is an IllegalMove
                self.require(state_hash(state) == before,
                             f"the refused text {text[:20]!r} changed the state")
                continue
            raise self.fail(f"{text[:20]!r} was played as a move")

    # --- per state ----------------------------------------------------------------------

    def state(self, state):
        game = self.game
        before = state_hash(state)
        seats = state_seats(game, state)
        listed = {}
        self.at("notation")
        for seat in seats:
            listed[seat] = game.legal_moves(state, seat)
            for text in listed[seat]:
                move = game.parse_move(text)
                self.require(game.format_move(move) == text,
                             f"{text!r} does not round-trip: {game.format_move(move)!r}")
                self.require(game.parse_move(game.format_move(move)) == move,
                             f"{text!r} parses to another move once formatted")
                self.seen.setdefault(kind_of(text), set()).add(text)
        self.check_agrees_with_play(state, seats, listed)
        self.views(state, seats)
        self.open_ended(state, seats, listed)
        self.timeouts(state)
        self.prop = "views"
        self.require(state_hash(state) == before, "checking, listing or viewing changed the state")
        return listed

    def check_agrees_with_play(self, state, seats, listed):
        game = self.game
        self.at("check_play")
        digest = state_hash(state)
        for seat in seats:
            for text in listed[seat][:12]:
                game.check(state, seat, text)
                game.play(clone(state), seat, text, b"agree")
            # another seat's moves, and moves of other states: refused by both or neither
            others = [t for s in seats if s != seat for t in listed[s][:4]]
            others += [t for texts in self.seen.values() for t in sorted(texts)[:2]]
            for text in others[:24]:
                copy_ = clone(state)
                try:
                    game.check(state, seat, text)
                except IllegalMove:
                    try:
                        game.play(copy_, seat, text, b"agree")
                    except IllegalMove:
                        self.require(state_hash(copy_) == digest,
                                     f"{seat}'s refused {text!r} changed the state")
                        continue
                    raise self.fail(f"check refuses {seat}'s {text!r} and play accepts it",
                                    f"game.play(state, {seat!r}, {text!r}, b'agree')") \
                        from None
                else:
                    game.play(copy_, seat, text, b"agree")

    def views(self, state, seats):
        game = self.game
        drawn = {None, seats[0] if seats else None}   # the SVG is slow: two viewers a state
        for seat in list(seats) + [None]:
            self.at("views")
            view = game.view(state, seat)
            missing = set(game.view_keys) - set(view)
            self.require(not missing, f"the view of {seat} lacks {sorted(missing)}")
            self.require(json.loads(json.dumps(view)) == view,
                         f"the view of {seat} is not plain JSON")
            self.require(view["you"] == seat, f"the view of {seat} says you={view['you']!r}")
            self.require("seed" not in view and state["seed"] not in json.dumps(view),
                         f"the view of {seat} shows the seed")
            self.at("board")
            board = game.render(view)
            self.require(max((len(line) for line in board.splitlines()), default=0) <= 80,
                         f"the board of {seat}'s view is wider than 80 columns")
            drawing = _drawing(game, view) if seat in drawn else ""
            if drawing:
                try:
                    tag = ET.fromstring(drawing).tag
                except ET.ParseError as exc:
                    raise self.fail(f"the SVG of {seat}'s view does not parse: {exc}") from None
                self.require(tag == "{http://www.w3.org/2000/svg}svg",
                             f"the SVG of {seat}'s view is a {tag}, not an svg")

    def open_ended(self, state, seats, listed):
        game = self.game
        self.at("open_ended")
        for seat in seats:
            shown = {kind_of(t) for t in listed[seat]}
            for kind in game.open_ended_kinds:
                if kind in shown:
                    continue
                for text in sorted(self.seen.get(kind, ()))[:30]:
                    try:
                        game.check(state, seat, text)
                    except IllegalMove:
                        continue
                    raise self.fail(f"{seat} may play {text!r} but no {kind} move is listed")

    def timeouts(self, state):
        game = self.game
        owing = game.to_act(state)
        for seat in owing:
            self.at("timeouts")
            move = game.timeout_move(state, seat)
            if move is None:  # it waits for another seat's move: one must owe one
                self.require([s for s in owing if s != seat], f"{seat}'s timeout waits for nobody")
                continue
            try:
                game.check(state, seat, move)
            except IllegalMove as exc:
                raise self.fail(f"{seat}'s timeout move {move!r} is refused: {exc}") from None

    # --- hidden information -----------------------------------------------------------

    def sentinels(self, state, listed):
        """Plant a sentinel in every hidden field; no other seat sees one, now or after one
        of a few listed moves (a field that move declares revealed excepted)."""
        game = self.game
        fields = game.hidden_fields(state)
        if not fields:
            return
        self.at("sentinels")
        state = clone(state)
        planted = {}
        for i, (seat, path) in enumerate(fields):
            value = 7_300_001 + 7919 * i   # no sum of a few of them contains one of them
            plant(state, path, value)
            planted[(seat, tuple(path))] = str(value)
        seats = state_seats(game, state)
        self._no_sentinel(state, seats, planted, set(), None, drawing=True)
        for seat in game.to_act(state):
            for text in (listed.get(seat) or [])[:3]:
                after = clone(state)
                try:
                    after = game.play(after, seat, text, b"sentinel")
                except IllegalMove:
                    continue   # the move depended on a value the sentinel replaced
                if game.result(after) is None:   # a finished game shows everything
                    self._no_sentinel(after, seats, planted, revealed_fields(after["events"]),
                                      (seat, text))

    def _no_sentinel(self, state, seats, planted, revealed, move, drawing=False):
        game = self.game
        then = None if move is None else \
            f"# hidden fields set to sentinels, then game.play(state, {move[0]!r}, {move[1]!r})"
        for viewer in seats + [None]:
            view = game.view(state, viewer)
            shown = json.dumps([view, game.events_for(state["events"], viewer),
                                game.facts_for(state["events"], viewer),
                                game.render(view),
                                # the SVG is drawn from the view alone (slow: once a state)
                                _drawing(game, view) if drawing else ""])
            for (owner, path), value in planted.items():
                if owner == viewer or (owner, path) in revealed:
                    continue
                who = viewer or "a spectator"
                after = "" if move is None else f" after {move[0]}'s {move[1]!r}"
                self.require(value not in shown,
                             f"{owner}'s hidden {'/'.join(map(str, path))} reached {who}{after}",
                             then)

    def leaks(self, state, seat, text):
        """Play ``text`` under several entropies; each viewer must be shown the same wherever
        two outcomes agree on all it may know."""
        game = self.game
        self.prop = "leaks"
        outcomes = []
        told = []   # whether the first play drew randomness or told a seat a secret
        for i in range(self.entropies):
            entropy = b"leak-%d" % i
            try:
                after = game.play(clone(state), seat, text, entropy,
                                  reveals=told if i == 0 else None)
            except IllegalMove:
                return
            outcomes.append((entropy, after))
            if i == 1 and not any(game.hidden_fields(st) for _, st in outcomes):
                return   # there is no secret to leak
            if i == 1 and not told[0] and state_hash(outcomes[0][1]) == state_hash(after):
                # the move drew nothing: the entropy changes nothing.  A move that drew is
                # played under every entropy even when two agree (a steal from a hand of
                # two cards gives the same card half the time)
                return
        seats = state_seats(game, state)
        for viewer in seats + [None]:
            groups = {}
            for entropy, after in outcomes:
                key = self._knowable(after, viewer)
                seen = observation(game, after, viewer)
                if key not in groups:
                    groups[key] = (entropy, after, seen)
                    continue
                first_entropy, first, first_seen = groups[key]
                if not self._owners(first, after):
                    # the same state: what differs is public randomness its events tell
                    # (a duel's dice), no secret; only a hidden difference is checked
                    continue
                # a pair to compare: counted, so that "checked N times" says how many
                # comparisons were made, not how many moves were replayed
                self.counts["leaks"] += 1
                for part in ("log", "facts", "view"):
                    if json.dumps(seen[part], sort_keys=True) != \
                            json.dumps(first_seen[part], sort_keys=True):
                        owners = self._owners(first, after)
                        who = viewer or "a spectator"
                        raise self.fail(
                            f"{seat}'s {text!r} under entropies {first_entropy!r} and "
                            f"{entropy!r} gives outcomes that differ only in what is hidden "
                            f"from {who} (the hidden fields of {', '.join(owners) or 'nobody'})"
                            f", yet {who}'s {part} differs: the move leaks a secret",
                            f"# then game.play(copy, {seat!r}, {text!r}, E) for E = "
                            f"{first_entropy!r} and {entropy!r}; compare "
                            f"{part} of game.view/events_for/facts_for(..., {viewer!r})")

    def _knowable(self, state, viewer):
        """``state`` as far as ``viewer`` may know it, as text: no events, every hidden field
        masked except the viewer's own and those the events declare revealed."""
        game = self.game
        masked = json.loads(json.dumps(state))
        masked.pop("events", None)
        revealed = revealed_fields(state.get("events"))
        for owner, path in game.hidden_fields(state):
            if owner != viewer and (owner, tuple(path)) not in revealed:
                plant(masked, path, None)
        return json.dumps(masked, sort_keys=True)

    def _owners(self, one, other):
        out = []
        for owner, path in self.game.hidden_fields(one):
            a, b = one, other
            for key in path:
                a = a[key] if a is not None else None
                try:
                    b = b[key]
                except (KeyError, IndexError, TypeError):
                    b = None
            if a != b and owner not in out:
                out.append(owner)
        return out

    # --- a random game ------------------------------------------------------------------

    def play_random(self, n, seed, plies, every=7):
        """A game of ``n`` seats played at random for up to ``plies`` moves, checked at every
        ``every``-th state and at the last; every move that drew is leak-checked.  Returns
        the final state."""
        game = self.game
        self.trial = trial = _Trial(game, n, seed)
        rnd = random.Random(seed)
        self.prop = "replay"
        state = trial.new()
        if not self.counts["bad_text"]:
            self.bad_text(clone(state))
        for ply in range(plies):
            owing = game.to_act(state)
            if not owing:
                break
            if ply % every == 0:
                listed = self.state(state)
                self.sentinels(state, listed)
                for seat in owing:   # a few more moves, one of each kind
                    kinds = {}
                    for text in listed.get(seat) or ():
                        kinds.setdefault(kind_of(text), text)
                    for text in list(kinds.values())[:4]:
                        self.leaks(state, seat, text)
            seat = rnd.choice(owing)
            listed = game.legal_moves(state, seat)
            self.prop = "check_play"
            self.require(listed, f"{seat} owes a move and has none listed")
            move = rnd.choice(listed)
            entropy = b"e%d" % ply
            before = clone(state)
            drew = []
            state = game.play(state, seat, move, entropy, reveals=drew)
            if drew and drew[0]:
                self.leaks(before, seat, move)
            trial.moves.append((seat, move, entropy))
        listed = self.state(state)
        self.sentinels(state, listed)
        self.at("replay")
        again = trial.new()
        for seat, move, entropy in trial.moves:
            again = game.play(again, seat, move, entropy)
        self.require(state_hash(again) == state_hash(state),
                     "the same seed and moves gave another state")
        return state


def check_game(game, games=1, seed=0, plies=90, entropies=ENTROPIES):
    """Check ``game`` against every property over ``games`` random games per seat count.

    Returns {property: how many times it was checked}; raises :class:`ContractFailure` at the
    first property that does not hold (an exception the game raises is reported as the
    failure of the property being checked).
    """
    checker = Checker(game, entropies)
    try:
        checker.template()
        for n in seat_counts(game):
            for g in range(games):
                checker.play_random(n, seed + 100 * n + g, plies)
    except ContractFailure as failure:
        failure.counts = checker.counts
        raise
    except Exception as exc:  # noqa: BLE001 - a crash of the game is a failed property
        last = traceback.format_exception_only(type(exc), exc)[-1].strip()
        failure = checker.fail(f"the game raised {last}")
        failure.counts = checker.counts
        raise failure from exc
    return checker.counts


#: what a property checked no times means
NOTHING = {None: "nothing to check (no such state or field)",
           "leaks": "nothing to check: no two outcomes of a move differed only in fields "
                    "hidden from a viewer"}


def _times(n):
    return "once" if n == 1 else f"{n} times"


def main(argv=None, out=None, err=None):
    """``python -m shared.contract TYPE [--games N] [--seed S] [--plies P]``; the exit code."""
    from .games import get_game, load_errors
    out = out or sys.stdout
    err = err or sys.stderr
    parser = argparse.ArgumentParser(
        prog="python -m shared.contract",
        description="Check an installed game (built in or a plug-in) against the contract "
                    "every pbem game keeps.")
    parser.add_argument("type", metavar="TYPE", help="the game's registry name")
    parser.add_argument("--games", type=int, default=1,
                        help="random games per seat count (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="the first seed (default 0)")
    parser.add_argument("--plies", type=int, default=90,
                        help="moves per random game at most (default 90)")
    args = parser.parse_args(argv)
    for name in ("games", "plies"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, not {getattr(args, name)}")
    try:
        game = get_game(args.type)
    except KeyError:
        problems = load_errors()
        if args.type in problems:
            print(f"{args.type} cannot load: {problems[args.type]}", file=err)
        else:
            from .games import game_types
            print(f"there is no game called {args.type!r}; installed: "
                  f"{', '.join(game_types()) or 'none'}", file=err)
        return 1
    except Exception as exc:  # noqa: BLE001 - a declared game that cannot load is named
        why = load_errors().get(args.type) or f"{type(exc).__name__}: {exc}"
        print(f"{args.type} cannot load: {why}", file=err)
        return 1
    for name, why in load_errors().items():
        print(f"warning: the game {name} cannot load: {why}", file=err)
    try:
        counts = check_game(game, games=args.games, seed=args.seed, plies=args.plies)
    except ContractFailure as failure:
        counts = getattr(failure, "counts", {})
        for name, what in PROPERTIES:
            if name != failure.prop and counts.get(name):
                print(f"ok    {name}: {what} (held {_times(counts[name])} before the failure)",
                      file=out)
        print(f"FAIL  {failure.prop}: {failure.message}", file=out)
        print("to reproduce:", file=out)
        for line in failure.reproduction.splitlines():
            print(f"    {line}", file=out)
        return 1
    for name, what in PROPERTIES:
        n = counts.get(name, 0)
        # no sentinel planted: the game keeps no hidden field, whatever its moves draw
        why = NOTHING.get(name if counts.get("sentinels") else None, NOTHING[None])
        note = f"checked {_times(n)}" if n else why
        print(f"ok    {name}: {what} ({note})", file=out)
    print(f"{game.name}: every property holds ({args.games} game(s) per seat count, seed "
          f"{args.seed})", file=out)
    return 0


if __name__ == "__main__":   # pragma: no cover - the command line
    sys.exit(main())
