"""The interface every game in the rules library offers.

A game is one object (a subclass of :class:`Game`) registered in
``shared.games``.  States are plain JSON-serialisable data (dicts, lists,
str, int, bool, None; never floats, tuples or sets) so the server can
snapshot them and anyone can replay a log.  The same seed, options and moves
give the same state on any machine.

Conventions every state keeps:

* ``state["seed"]``: the secret seed as hex.  Never shown in a view.
* ``state["ply"]``: how many moves have been applied; ``play`` adds one.
* ``state["events"]``: what the last move caused, as a list of
  ``{"public": text, "private": {seat: text}}`` (``private`` optional).  A
  viewer sees ``private[seat]`` when present, else ``public``.  This is how
  the log says "red stole a card from blue" to everyone but red and blue.
  From rules version 2 on an event also carries its facts as fields
  (``kind``, ``data``, ``private_data``): see ``shared.events``.

Move texts are public: whatever a player types is shown to every seat, so a
move's notation never contains another seat's secrets.  Secrets that a move
reveals to some seats only (a stolen card, a drawn development card) go into
``events``.
"""

import copy

from . import IllegalMove


FIRST_RULES_VERSION = "1"


def rules_version_of(state):
    """The rules version a state is played under.

    States of version "1" predate the key and do not carry it, so that their
    snapshots and recorded hashes stay byte-identical; later versions store it
    as ``state["rules_version"]`` (see :func:`set_rules_version`).
    """
    return state.get("rules_version", FIRST_RULES_VERSION)


def set_rules_version(state, version):
    """Record ``version`` in a fresh ``state`` (nothing for version "1"); returns the state."""
    if str(version) != FIRST_RULES_VERSION:
        state["rules_version"] = str(version)
    return state


class Game:
    """Base class; subclasses override everything marked abstract."""

    #: registry name, e.g. "zarahemla"
    name = None
    #: human title, e.g. "The Settlers of Zarahemla"
    title = None
    #: the rules version new games are played under; bumped whenever replaying an old log
    #: could give another result
    rules_version = "1"
    #: every rules version this library can still replay, oldest first.  A game's version is
    #: fixed when it is created (it is in the archive header) and its state carries it (see
    #: :func:`rules_version_of`), so old games and archives keep the rules they were played under.
    rules_versions = ("1",)
    min_seats = 1
    max_seats = 1
    #: {option name: {"type": "int"|"bool"|"str", "default": v, "choices": [...], "help": str}}
    options_schema = {}
    #: kinds of move (the first word of the notation, or "play CARD") that
    #: :meth:`legal_moves` lists only by representative examples (trade offers, paths):
    #: a move of such a kind may be legal although the list does not show it
    open_ended_kinds = frozenset()

    # --- set-up -----------------------------------------------------------

    def seat_names(self, n, options=None):
        """The seat ids for an ``n``-seat game: short lowercase words."""
        raise NotImplementedError

    def normalize_options(self, options, n):
        """Options with defaults filled in; raises IllegalMove(code="bad_option")."""
        options = dict(options or {})
        out = {}
        for key, spec in self.options_schema.items():
            value = options.pop(key, spec.get("default"))
            kind = spec.get("type", "str")
            if kind == "int" and isinstance(value, str) and value.lstrip("-").isdigit():
                value = int(value)
            if kind == "bool" and isinstance(value, str):
                if value.lower() not in ("true", "false", "yes", "no", "1", "0", "on", "off"):
                    raise IllegalMove(f"option {key} takes true or false, not {value!r}",
                                      code="bad_option")
                value = value.lower() in ("true", "yes", "1", "on")
            expected = {"int": int, "bool": bool, "str": str}[kind]
            if not isinstance(value, expected) or (kind == "int" and isinstance(value, bool)):
                raise IllegalMove(f"option {key} takes a {kind}, not {value!r}", code="bad_option")
            if "choices" in spec and value not in spec["choices"]:
                allowed = ", ".join(str(c) for c in spec["choices"])
                raise IllegalMove(f"option {key} must be one of {allowed}, not {value!r}",
                                  code="bad_option")
            out[key] = value
        if options:
            raise IllegalMove(f"unknown option {sorted(options)[0]!r} for {self.name}",
                              code="bad_option")
        return out

    def new_game(self, seats, options, seed, rules_version=None):
        """A fresh state.  ``seats``: seat ids; ``seed``: bytes (secret).

        ``rules_version`` (default: :attr:`rules_version`) selects the rules the game is
        played under; subclasses pass it through :meth:`resolve_rules_version` and record
        it with :func:`set_rules_version`.
        """
        raise NotImplementedError

    def resolve_rules_version(self, rules_version=None):
        """``rules_version`` as a string (None: the current one).

        Raises IllegalMove(code="bad_rules_version") when this library cannot play it.
        """
        version = self.rules_version if rules_version is None else str(rules_version)
        if version not in self.rules_versions:
            known = ", ".join(self.rules_versions)
            raise IllegalMove(f"{self.name} has no rules version {version!r} here "
                              f"(this library plays {known})", code="bad_rules_version")
        return version

    # --- play -------------------------------------------------------------

    def to_act(self, state):
        """Seats that owe a move now (several at once is normal); [] when over."""
        raise NotImplementedError

    def legal_moves(self, state, seat):
        """Every move ``seat`` may play now, as notation strings.

        Every listed move is accepted by :meth:`play`.  Open-ended moves
        (trade offers) may be listed by a finite representative subset.
        """
        raise NotImplementedError

    def play(self, state, seat, move_text, entropy=b""):
        """Apply one move and return the new state.

        May update ``state`` in place.  Raises :class:`shared.InvalidMove`
        when the text does not parse and :class:`shared.IllegalMove` when it
        is not allowed now; in both cases ``state`` is left unchanged.
        ``entropy`` is mixed into this move's randomness
        (see ``shared.rng.Rng.for_move``).
        """
        raise NotImplementedError

    def check(self, state, seat, move_text):
        """Raise IllegalMove/InvalidMove if the move would be refused; never mutates."""
        self.play(copy.deepcopy(state), seat, move_text)

    def timeout_move(self, state, seat):
        """The move the server plays for ``seat`` when its deadline passes.

        Deterministic from the state.  Each game documents its policy in its
        RULES.md (a missed roll is rolled, a missed discard discards at random
        via the seeded generator, a missed answer declines, an idle turn ends).
        """
        moves = self.legal_moves(state, seat)
        if not moves:
            raise IllegalMove(f"{seat} owes nothing now", code="not_your_turn")
        return moves[0]

    def wall_clock_limit(self, options):
        """Hours after the start when the game ends by the clock, or None (the default).

        When it passes, the server appends ``time_up_move(state)`` as a forced
        move for the first seat in ``to_act``.
        """
        return None

    def time_up_move(self, state):
        """The move that ends the game when its wall-clock limit passes."""
        raise NotImplementedError

    def result(self, state):
        """None while playing; else a dict with at least ``winners`` (list of seats)."""
        raise NotImplementedError

    # --- what people see --------------------------------------------------

    def view(self, state, seat):
        """A JSON-serialisable dict for ``seat`` (None = spectator).

        At least: ``game``, ``status`` ("playing" or "over"), ``to_act``,
        ``owes`` ({seat: short text of what they owe}), ``scores``
        ({seat: public victory points}), ``you`` (the viewer's seat or None)
        and, when over, ``result``.  Never changes the state and never
        contains another seat's hidden information or the seed.
        """
        raise NotImplementedError

    def render(self, view, color=False):
        """The ASCII board and panel for a view, at most 80 columns wide."""
        raise NotImplementedError

    def svg(self, view):
        """The board drawn as one SVG document (a string) from a view, for the web pages.

        Drawn from the view only (never the state), with the notation's own place names on
        the pieces (``data-place``) and a ``<title>`` on each; see ``shared.svg``.  Raises
        NotImplementedError for a game that has no drawing (the page shows the text board).
        """
        raise NotImplementedError

    def events_for(self, events, seat):
        """The texts of ``events`` as ``seat`` (None = spectator) may see them."""
        out = []
        for ev in events or ():
            private = ev.get("private") or {}
            out.append(private.get(seat, ev["public"]) if seat is not None else ev["public"])
        return out

    def facts_for(self, events, seat):
        """The facts of ``events`` as ``seat`` may see them (see ``shared.events.facts_for``)."""
        from .events import facts_for
        return facts_for(events, seat)

    def rules_help(self):
        """A short help text for the notation, with examples."""
        return self.__doc__ or ""
