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
  An event also carries its facts as fields (``kind``, ``data``, ``private_data``), at
  every rules version except those a game lists in ``versions_without_facts``: see
  ``shared.events``.

Move texts are public: whatever a player types is shown to every seat, so a
move's notation never contains another seat's secrets.  Secrets that a move
reveals to some seats only (a stolen card, a drawn development card) go into
``events``.
"""

import functools
import importlib
import importlib.resources
import importlib.util
import inspect
import re

from . import IllegalMove
from .rng import Rng
from .seats import check_count, check_seats, seed_bytes

#: an integer option written as text: an optional minus and ASCII digits (the JSON form of a
#: whole number, as ``pbem new --option K=V`` sends it)
_INT_TEXT = re.compile(r"-?[0-9]{1,30}")


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


def remembered_parse(parse, size=20000, longest=80):
    """``parse`` (text -> Move) that remembers the texts it read (a game's ``parse_move``).

    Moves are immutable values and a notation is a pure function of the text, so the same
    text always gives the same Move: a replay, a bot or random play reads the same few hundred
    texts again and again.  Only texts of at most ``longest`` characters are kept, ``size`` of
    them at the most; a text that does not parse raises every time and is not kept.
    """
    memo = {}

    @functools.wraps(parse)
    def remembered(text):
        move = memo.get(text) if type(text) is str else None
        if move is None:
            move = parse(text)
            if len(memo) < size and len(text) <= longest:
                memo[text] = move
        return move
    return remembered


#: the keys every view has (see :meth:`Game.view`); a game adds its own
VIEW_KEYS = ("game", "status", "to_act", "owes", "scores", "you", "log")


class Game:
    """The template every game fills in.

    :meth:`play` does the same steps for every game, once:

    1. parse the text into a :class:`shared.move.Move` (:meth:`parse_move`; InvalidMove),
    2. check that the seat owes this kind of move now (:meth:`check_duty`),
    3. run the game's check for that kind (``checks[move.kind]``; IllegalMove), which may
       return a *plan* (whatever it worked out, handed to the apply),
    4. draw the move's randomness (:meth:`move_rng`),
    5. apply it (``applies[move.kind]``), which appends to ``state["events"]``,
    6. count the move (``state["ply"] += 1``),
    7. the game's after-move hook (:meth:`after_move`: a win, a phase that follows).

    A game supplies its tables (``checks``/``applies``: move kind -> function, written out in
    its ``rules`` module, never found by scanning names), its notation (``parse_move`` /
    ``format_move``), who owes what (``to_act``/``owes``), ``new_state``, the view and the
    board.  ``docs/ADDING-A-GAME.md`` walks through a small game.
    """

    #: registry name, e.g. "zarahemla"
    name = None
    #: human title, e.g. "The Settlers of Zarahemla"
    title = None
    #: what a seat and seats are called in messages
    seat_words = ("player", "players")
    #: the rules version new games are played under; bumped whenever replaying an old log
    #: could give another result
    rules_version = "1"
    #: every rules version this library can still replay, oldest first.  A game's version is
    #: fixed when it is created (it is in the archive header) and its state carries it (see
    #: :func:`rules_version_of`), so old games and archives keep the rules they were played under.
    rules_versions = ("1",)
    min_seats = 1
    max_seats = 1
    #: every seat id, in order; ``seat_names(n)`` is the first n
    seats = ()
    #: True: the seats of an n-seat game are exactly ``seat_names(n)``, in that order
    seats_in_order = False
    #: True: any distinct seat ids are accepted (``seat_names`` only proposes some)
    any_seat_names = False
    #: True: a seed given as text of hex digits is read as hex (one game's older versions)
    seed_hex_text = False
    #: {option name: {"type": "int"|"bool"|"str", "default": v, "choices": [...], "help": str}}
    options_schema = {}
    #: kinds of move (the first word of the notation, or "play CARD") that
    #: :meth:`legal_moves` lists only by representative examples (trade offers, paths):
    #: a move of such a kind may be legal although the list does not show it
    open_ended_kinds = frozenset()
    #: the game's tables: move kind -> check(state, seat, move) -> plan (raises IllegalMove,
    #: never mutates) and move kind -> apply(state, seat, move, plan, rng) (mutates, appends
    #: to state["events"], never raises)
    checks = {}
    applies = {}
    #: the keys every view of this game has
    view_keys = VIEW_KEYS
    #: a game's ``rules`` module, if it has one: its ``CHECKS`` and ``APPLIES`` become the
    #: tables, and its ``check_duty``, ``after_move``, ``to_act`` and ``owes`` (those it has)
    #: the methods, unless the class writes them itself (see :meth:`__init_subclass__`)
    rules_module = None
    #: a game's ``notation`` module: its ``parse_move`` and ``format_move``, likewise
    notation_module = None
    #: a game's ``render`` module (``render(view, color)``) and ``svg`` module (``draw(view)``)
    render_module = None
    svg_module = None
    #: a game's ``legal`` module: its ``legal_texts(state, seat)`` (notation strings) becomes
    #: :meth:`legal_moves`; and its ``view`` module: its ``make_view(game, state, seat)``
    #: becomes :meth:`view` (each unless the class writes the method itself)
    legal_module = None
    view_module = None
    #: the notation help with examples (:meth:`rules_help`; default: the class docstring)
    help_text = None
    #: True: the seats play together against the game (no seat beats another), so the game
    #: is never rated; the server keeps a record of wins per team size instead
    cooperative = False
    #: the key of ``result`` holding {seat: final score}, which ranks the seats that did not
    #: win (see :meth:`standings`); None: only winners and the others
    score_key = None
    #: what the view's ``scores`` count, as the heading of their column on the page and in
    #: the command line ("VP", "dice")
    score_label = "points"
    #: rules versions whose states keep no facts in their events (``shared.events``): the
    #: template strips them after each move, so that old logs replay byte-identical.  Only the
    #: built-in games' first versions, recorded before facts existed, list one; a new game
    #: keeps its facts from version "1" on
    versions_without_facts = ()
    #: the module (dotted path, imported when a bot is asked for) of the game's bots: its
    #: ``LEVELS`` ({level: chooser}, levels of ``shared.bots.LEVELS``) over the random level
    #: every game has, and its ``confirms(view, seat)`` if its legal list depends on hidden
    #: cards; None: random bots only.  See :meth:`bot_levels` and ``shared.bots``
    bots_module = None
    #: a game written as a package of the usual modules (e.g. ``"shared.stone_age"``): its
    #: ``rules``, ``notation``, ``legal``, ``view``, ``render`` and ``svg`` modules become the
    #: ``*_module`` settings above (``legal`` and ``view`` when the package has them), its
    #: ``state`` module's ``new_state`` the :meth:`new_state` and its notation's ``HELP`` the
    #: :attr:`help_text`, unless the class names them itself
    package = None
    _PACKAGE_MODULES = ("rules", "notation", "render", "svg")
    _OPTIONAL_PACKAGE_MODULES = ("legal", "view")

    _FROM_RULES = ("check_duty", "after_move", "to_act", "owes")
    _FROM_NOTATION = ("parse_move", "format_move")

    def __init_subclass__(cls, **kwargs):
        """Take the tables and the functions a game's modules define (written out there)."""
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("package"):
            cls._take_package(cls.__dict__["package"])
        rules, notation = cls.__dict__.get("rules_module"), cls.__dict__.get("notation_module")
        if rules is not None:
            cls.checks, cls.applies = rules.CHECKS, rules.APPLIES
        for module, names in ((rules, cls._FROM_RULES), (notation, cls._FROM_NOTATION)):
            for name in names if module is not None else ():
                if name not in cls.__dict__ and hasattr(module, name):
                    setattr(cls, name, staticmethod(getattr(module, name)))
        legal = cls.__dict__.get("legal_module")
        if legal is not None and "legal_moves" not in cls.__dict__:
            cls.legal_moves = staticmethod(legal.legal_texts)

    @classmethod
    def _take_package(cls, package):
        """The settings :attr:`package` gives (what the class does not name itself)."""
        for name in cls._PACKAGE_MODULES + cls._OPTIONAL_PACKAGE_MODULES:
            if name + "_module" in cls.__dict__:
                continue
            if name in cls._OPTIONAL_PACKAGE_MODULES and \
                    importlib.util.find_spec(f"{package}.{name}") is None:
                continue
            setattr(cls, name + "_module", importlib.import_module(f"{package}.{name}"))
        if "new_state" not in cls.__dict__:
            cls.new_state = staticmethod(importlib.import_module(f"{package}.state").new_state)
        if "help_text" not in cls.__dict__:
            cls.help_text = getattr(cls.notation_module, "HELP", None)

    # --- set-up -----------------------------------------------------------

    def seat_names(self, n, options=None):
        """The seat ids for an ``n``-seat game: short lowercase words."""
        check_count(self, n)
        return list(self.seats[:n])

    def normalize_options(self, options, n, rules_version=None):
        """Options with defaults filled in; raises IllegalMove(code="bad_option").

        ``rules_version``: a game whose options changed between versions reads the schema of
        that version (the base class has one schema).
        """
        options = dict(options or {})
        out = {}
        # the table's own option (shared/table.py): what a missed deadline does; written only
        # when it is not the default, so the options of every other game are unchanged
        from .table import ON_TIMEOUT, TableError, normalize_on_timeout
        if ON_TIMEOUT in options and ON_TIMEOUT not in self.options_schema:
            raw = options.pop(ON_TIMEOUT)
            try:
                policy = normalize_on_timeout(raw)
            except TableError as exc:
                raise IllegalMove(exc.message, code="bad_option") from None
            # a level asked for by name must be one the game has bots for; ``bot`` alone is
            # the strongest the game has, greedy at most (``bot:greedy`` for the built-in
            # games), so that the stored option is accepted again when a game is replayed
            if raw == "bot" and isinstance(self, Game) and "greedy" not in self.bot_levels():
                policy = "bot:random"   # every game has the random level
            if policy.startswith("bot:") and isinstance(self, Game) \
                    and policy[4:] not in self.bot_levels():
                raise IllegalMove(f"{self.name} has no {policy[4:]} bot: its levels are "
                                  f"{', '.join(self.bot_levels())}", code="bad_option")
            if policy != "move":
                out[ON_TIMEOUT] = policy
        from .table import TIME_BANK, normalize_time_bank  # a seat's extra hours, likewise
        if TIME_BANK in options and TIME_BANK not in self.options_schema:
            try:
                bank = normalize_time_bank(options.pop(TIME_BANK))
            except TableError as exc:
                raise IllegalMove(exc.message, code="bad_option") from None
            if bank:
                out[TIME_BANK] = bank
        # a tournament's game names its tournament, round and table (shared/tournament.py):
        # kept beside the game's options like on_timeout, and read by no rule
        from .tournament import OPTION as TOURNAMENT
        from .tournament import TournamentError, check_game_option
        if TOURNAMENT in options and TOURNAMENT not in self.options_schema:
            try:
                out[TOURNAMENT] = check_game_option(options.pop(TOURNAMENT))
            except TournamentError as exc:
                raise IllegalMove(exc.message, code="bad_option") from None
        for key, spec in self.options_schema.items():
            value = options.pop(key, spec.get("default"))
            kind = spec.get("type", "str")
            if kind == "int" and isinstance(value, str) and _INT_TEXT.fullmatch(value):
                # ASCII digits only: str.isdigit() also takes "²", which int() refuses
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
        """A fresh state.  ``seats``: seat ids; ``seed``: bytes (secret; text is encoded).

        ``rules_version`` (default: :attr:`rules_version`) selects the rules the game is
        played under.  The seats, version, options and seed are checked here, once for every
        game; :meth:`new_state` builds the game's own state.
        """
        seats = check_seats(self, seats, in_order=self.seats_in_order)
        version = self.resolve_rules_version(rules_version)
        options = self.normalize_options(options, len(seats), version)
        options.pop("on_timeout", None)  # the table's option (shared/table.py), not the rules'
        options.pop("time_bank", None)
        options.pop("tournament", None)  # the tournament's (shared/tournament.py), not the rules'
        seed = seed_bytes(seed, self.seed_hex_text)
        if self._new_state_takes_rng():
            state = self.new_state(seats, options, seed, version, rng=self.setup_rng(seed))
        else:
            state = self.new_state(seats, options, seed, version)
        if version in self.versions_without_facts:
            from .events import strip_facts
            strip_facts(state.get("events"))
        return set_rules_version(state, version)

    def new_state(self, seats, options, seed, rules_version, rng=None):
        """The game's fresh state (abstract): checked seats and options, the seed as bytes.

        It keeps ``seed`` (hex), ``ply`` (0) and ``events`` ([]), see the module docstring.
        A ``new_state`` that names an ``rng`` parameter is handed :meth:`setup_rng` for its
        set-up's randomness (a shuffled deck, a board, the dice dealt before the first move).
        """
        raise NotImplementedError

    def setup_rng(self, seed):
        """The set-up's randomness: ``Rng(seed, b"setup")``, from the secret seed alone.

        The set-up is drawn before any move, so it depends on the seed only (not on the moves'
        entropy, as every later draw does); the seed is committed to when the game is created
        and revealed when it ends, so the set-up can be checked against it then.
        """
        return Rng(seed.hex() if isinstance(seed, bytes) else seed, b"setup")

    def _new_state_takes_rng(self):
        try:
            return "rng" in inspect.signature(self.new_state).parameters
        except (TypeError, ValueError):
            return False

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

    # --- notation ---------------------------------------------------------

    def parse_move(self, text):
        """The :class:`shared.move.Move` that ``text`` names; raises InvalidMove (abstract)."""
        raise NotImplementedError

    def format_move(self, move):
        """The notation of ``move``: ``parse_move(format_move(m)) == m`` (abstract)."""
        raise NotImplementedError

    # --- play -------------------------------------------------------------

    def to_act(self, state):
        """Seats that owe a move now (several at once is normal); [] when over (abstract)."""
        raise NotImplementedError

    def owes(self, state):
        """{seat: short text of what it owes now}, for every seat in :meth:`to_act` (abstract)."""
        raise NotImplementedError

    def legal_moves(self, state, seat):
        """Every move ``seat`` may play now, as notation strings (abstract).

        Every listed move is accepted by :meth:`play`.  Open-ended moves
        (trade offers) may be listed by a finite representative subset.  A game that names
        its :attr:`legal_module` gets that module's ``legal_texts``.
        """
        raise NotImplementedError

    def check_duty(self, state, seat, move):
        """Raise IllegalMove unless ``seat`` owes a move of ``move.kind`` now.

        The default: the seat must be in :meth:`to_act`.  A game with phases overrides it to
        say in its own words what is owed instead.
        """
        if seat not in self.to_act(state):
            raise IllegalMove(f"{seat} owes no move now", code="not_your_turn")

    def check_move(self, state, seat, move):
        """Steps 2 and 3 of :meth:`play`: the duty, then the kind's own check; the plan."""
        self.check_duty(state, seat, move)
        return self.checks[move.kind](state, seat, move)

    def check(self, state, seat, move_text):
        """Raise IllegalMove/InvalidMove if the move would be refused; never mutates."""
        move = self.parse_move(move_text)
        self.check_duty(state, seat, move)  # check_move, written out: the client checks often
        self.checks[move.kind](state, seat, move)

    def move_rng(self, state, entropy=b""):
        """The move's randomness (``shared.rng.Rng.for_move``), drawn before it is applied."""
        return Rng(state["seed"], (state["ply"], entropy))   # Rng.for_move, written out

    def play(self, state, seat, move_text, entropy=b"", reveals=None):
        """Apply one move and return the new state (the steps in the class docstring).

        Updates ``state`` in place.  Raises :class:`shared.InvalidMove` when the text does
        not parse and :class:`shared.IllegalMove` when it is not allowed now; in both cases
        ``state`` is left unchanged.  ``entropy`` is mixed into this move's randomness
        (see ``shared.rng.Rng.for_move``).  ``reveals``, a list, gets one bool appended:
        whether the move revealed anything hidden (:meth:`reveals`; the takebacks of
        ``shared.table`` ask it).
        """
        move = self.parse_move(move_text)
        kind = move[0]
        self.check_duty(state, seat, move)  # check_move, written out: play is hot
        plan = self.checks[kind](state, seat, move)
        rng = self.move_rng(state, entropy)
        state["events"] = []
        self.applies[kind](state, seat, move, plan, rng)
        state["ply"] += 1
        self.after_move(state, seat, move)
        if self.versions_without_facts and \
                state.get("rules_version", FIRST_RULES_VERSION) in self.versions_without_facts:
            from .events import strip_facts  # rules_version_of(state), written out: play is hot
            strip_facts(state["events"])
        if reveals is not None:
            reveals.append(bool(self.reveals(state, seat, move, rng)))
        return state

    def reveals(self, state, seat, move, rng):
        """True when ``move`` (just applied to ``state``) revealed something hidden: a roll,
        a draw, a steal, a face-down chip turned.  A move that revealed nothing may be taken
        back (``shared.table``); one that did may not, nor any move before it.

        The default: the move drew from its randomness (``rng.used``: every roll, draw and
        steal of the three games does), or one of its events tells a seat something only
        that seat sees (a ``private`` text or fact).  A game that reveals hidden things
        without the randomness (a card face down in a hand, played) says so here.
        """
        if rng.used:
            return True
        return any(e.get("private") or e.get("private_data") for e in state.get("events") or ())

    def after_move(self, state, seat, move):
        """Step 7 of :meth:`play`: what follows any move (a win check); nothing by default."""

    def timeout_move(self, state, seat):
        """The move the server plays for ``seat`` when its deadline passes.

        Deterministic from the state.  Refuses a seat that owes nothing (or has no legal
        move), then asks
        :meth:`timeout_choice`.  Each game documents its policy in its RULES.md (a missed
        roll is rolled, a missed discard discards at random via the seeded generator, a
        missed answer declines, an idle turn ends).

        None: the seat's timeout must wait for other seats' moves (a game documents when, in
        its RULES.md); the server plays nothing for it then, and tries again after the next
        move.  Every other answer is a legal move.
        """
        if seat not in self.to_act(state) or not self.legal_moves(state, seat):
            raise IllegalMove(f"{seat} owes nothing now", code="not_your_turn")
        return self.timeout_choice(state, seat)

    def timeout_choice(self, state, seat):
        """The timeout move of a seat that owes one; the default is the first legal move."""
        return self.legal_moves(state, seat)[0]

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
        """None while playing; else a dict with at least ``winners`` (list of seats).

        Every game keeps it as ``state["result"]``.
        """
        return state["result"]

    def standings(self, result, seats):
        """{seat: place} of a finished competitive game, 1 the best; equal places tie.

        The winners share place 1; the other seats follow by their final score
        (``result[score_key]``), higher first, equal scores sharing a place.  Ratings are made
        from these places (the server's ``ratings`` module).
        """
        winners = [s for s in seats if s in result.get("winners", ())]
        scores = result.get(self.score_key) or {} if self.score_key else {}
        others = sorted((s for s in seats if s not in winners),
                        key=lambda s: -scores.get(s, 0))
        places = {s: 1 for s in winners}
        for i, seat in enumerate(others):
            if i and scores.get(seat, 0) == scores.get(others[i - 1], 0):
                places[seat] = places[others[i - 1]]
            else:
                places[seat] = len(winners) + i + 1
        return places

    # --- what people see --------------------------------------------------

    def view(self, state, seat):
        """A JSON-serialisable dict for ``seat`` (None = spectator) (abstract).

        At least the :attr:`view_keys`: ``game``, ``status`` ("playing" or "over"),
        ``to_act``, ``owes`` ({seat: short text of what they owe}), ``scores``
        ({seat: public victory points}), ``you`` (the viewer's seat or None), ``log`` (the
        last move's events as the viewer may read them, :meth:`events_for`) and, when over,
        ``result``.  Never changes the state and never contains another seat's hidden
        information or the seed.

        Abstract, unless the game names its :attr:`view_module`.
        """
        if self.view_module is None:
            raise NotImplementedError
        return self.view_module.make_view(self, state, seat)

    def render(self, view, color=False):
        """The ASCII board and panel for a view, at most 80 columns wide.

        Abstract, unless the game names its :attr:`render_module`.
        """
        if self.render_module is None:
            raise NotImplementedError
        return self.render_module.render(view, color=color)

    def svg(self, view):
        """The board drawn as one SVG document (a string) from a view, for the web pages.

        Drawn from the view only (never the state), with the notation's own place names on
        the pieces (``data-place``) and a ``<title>`` on each; see ``shared.svg``.  Raises
        NotImplementedError for a game that has no drawing (the page shows the text board).
        """
        if self.svg_module is None:
            raise NotImplementedError
        return self.svg_module.draw(view)

    def events_for(self, events, seat):
        """The texts of ``events`` as ``seat`` (None = spectator) may see them."""
        from .events import texts_for
        return texts_for(events, seat)

    def facts_for(self, events, seat):
        """The facts of ``events`` as ``seat`` may see them (see ``shared.events.facts_for``)."""
        from .events import facts_for
        return facts_for(events, seat)

    def hidden_fields(self, state):
        """Where ``state`` keeps what only one seat may know: ``[(seat, path), ...]``.

        A path is a tuple of keys into the state (``("hands", "red", "wood")``) to an int.
        The contract test writes a sentinel number there and checks that no other seat's
        view, log or facts shows it.  Default: none.
        """
        return []

    def rules_help(self):
        """A short help text for the notation, with examples."""
        return self.help_text or self.__doc__ or ""

    def _package_text(self, filename):
        """The text of ``filename`` shipped beside the game's module (package data), or None."""
        module = type(self).__module__
        package = module if self.package is None else self.package
        for name in dict.fromkeys((package, module.rpartition(".")[0] or module)):
            try:
                return importlib.resources.files(name).joinpath(filename).read_text("utf-8")
            except (FileNotFoundError, IsADirectoryError, ModuleNotFoundError, TypeError,
                    NotADirectoryError):
                continue
        return None

    def how_to_play(self):
        """The players' guide: ``HOWTO.md`` beside the game's module (Markdown), or None.

        A plug-in ships it as package data, like ``RULES.md`` (docs/ADDING-A-GAME.md).
        """
        return self._package_text("HOWTO.md")

    def rules_notes(self):
        """The developers' notes: ``RULES.md`` beside the game's module (the rules as played
        and every documented choice), or None."""
        return self._package_text("RULES.md")

    def bot_levels(self):
        """The bot levels this game plays, weakest first (``random`` always; ``shared.bots``)."""
        from .bots import levels
        return levels(self)
