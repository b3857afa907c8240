"""Table entries of the log, and the one replay of a log that has them.

A log entry whose move text begins with ``@`` is a *table entry*: it is about the table, not
the board, and it is never given to the rules library (no game's notation begins with ``@``:
every game's parser refuses it).  Table entries are signed, numbered and hash-linked like
moves, so an archive carries them and the offline verifier checks them.  The kinds (this module
owns their text grammar; one space between words, lowercase hex)::

    @takeback SEQ            ask to take back my own moves from entry SEQ on
    @accept takeback         consent to the pending request
    @refuse takeback         refuse it (the server signs this one for a seat whose answer is
                             late)
    @accept takeback         the server signs this one, too, for a seat's standing order
                             ``accept takeback`` (shared/orders.py): only with ``"order"`` in
                             the envelope, which the archive verifier checks against the
                             signed order; these two are the only table entries the server
                             may sign
    @revoke DEVICEKEY        a device key (shared/delegation.py) may sign no later entry
                             for the revoking seat's player: a seat revokes only the keys its
                             own player delegated (a key the log shows delegated by another
                             player is refused), and a revocation binds only the delegations
                             of the player who made it (see :func:`revoked_for`); the
                             standing orders the device signed end with it
    @rotate NEWKEY           from this entry on the seat's main key is NEWKEY; signed by the
                             current main key, or
    @rotate NEWKEY recovery RECOVERYKEY CERT
                             signed by the player's recovery key RECOVERYKEY, where CERT is the
                             seat's current main key's signature of
                             ``recovery_message(player, RECOVERYKEY)`` (made at registration,
                             kept by the server; so the server cannot invent a recovery key)
    @handover NAME KEY       from this entry on the seat is played by the bot account NAME
                             (``bot-random``, ``bot-greedy`` or ``bot-strong``) whose main key
                             is KEY; signed by the seat's current main key (never a device
                             key), or by the server (a *forced* handover) when the seat owes
                             an entry and the game's header option ``on_timeout`` is
                             ``bot:LEVEL`` (NAME's level at most LEVEL): a missed deadline
                             hands the seat to a bot instead of the timeout move.  Every later
                             entry of the seat is checked under KEY; a bot account has one key,
                             so a NAME already seated in the game must come with its key.
                             NAME may also be a human player's (a *substitute*, who claimed
                             the seat; see "Substitutes" below)
    @resign                  the seat gives up (see the decisions below)
    @draw offer              offer a draw; @draw accept consents, @draw refuse refuses (or, by
                             the offerer, withdraws)
    @abort                   abort the game, or ask the table to; @abort accept, @abort refuse
    @pause DAYS              ask the table to stop the clocks for DAYS days (1 to 14); every
                             other seat agrees by signing the same @pause DAYS
    @resume                  end the pause in force (or refuse a pause asked)

No table entry may be signed by a *mail key* (a delegation labelled ``"mail"``: a key the
server holds, which signs only the moves a player sends in plain words by mail;
``shared/delegation.py``): such an entry is refused (``mail_scope``), on the server and in the
archive verifier, where a device key may ask or answer a takeback.

:class:`LogReplay` walks a whole log (the header and the envelopes in order) and keeps the
rules' state and a *table state*: the current main key of each seat, the revoked device keys,
the pending takeback request and its answers, the seqs taken back.  The server's append path
and state loading, the archive verifier and the client all use it; :func:`verify_logged` checks
an entry's signature against the keys the table state holds *at that point of the log*.

Handovers (the policy, checked from the log alone): a seat is handed over to a bot account
(its name says so: ``bot-LEVEL``) or to a substitute (below), never while the game is over,
never to the player who holds it, and never from a bot's seat to a bot (a bot does not
leave).  The table state's ``players`` and ``keys`` then name the new holder,
``handovers`` (absent before the first) counts them, and ``handed`` ({seat: seq}) says
where each seat changed hands: a standing order written before that point is its old
player's and may make no entry after it.  That NAME's key really is
the bot account's is the server's check (it holds the bot keys); the verifier checks that
one game never gives one bot account two keys.

Substitutes (a ``@handover`` to a human player, NAME not a bot account's; the policy, checked
from the log alone):

- never to a player who holds a seat of the game already, nor to a key that is a seat's, nor
  while the game is over, nor to a name kept for bots (``bot``, ``bot-...``);
- a human's seat is handed over by its player: signed by the seat's current main key, never
  forced (the server hands a human's seat only to a bot);
- a seat its player handed to a bot (a handover signed by the player's key: ``pbem leave``)
  is handed on only by that player: the entry is signed by the main key that made the
  handover to the bot (the table state's ``left``, {seat: key}), never by the bot's key
  (a bot does not leave of itself);
- a seat a bot took at a missed deadline (a forced handover: the table state's
  ``forced_bot``, the list of such seats) is handed on by the server (a forced entry), and
  only in a game whose signed header option ``on_timeout`` names a bot, as the forced
  handover to the bot was.

That the substitute opened the one-time link the seat was offered with (and that NAME's key
really is theirs) is the server's check: the log cannot hold the link's secret.

Takebacks (the policy; the verifier enforces all of it from the log alone):

- a seat may ask to take back its own last moves from SEQ on when every rules move from SEQ to
  the end of the log is its own, none was forced (a timeout move the server played), none
  revealed anything hidden (``Game.reveals``: a roll, a draw, a steal, a card or chip turned),
  none was taken back already, and no request is pending;
- every other seat owes an answer (``to_act`` is the seats that have not answered, and rules
  moves wait until the request is settled); all must accept; one refusal ends the request;
- rate limit: after a refusal, the seat may not ask again until another seat has played a rules
  move (so never twice about the same moves), and a seat asks at most
  :data:`MAX_REQUESTS` times in a game;
- when the last seat accepts, the moves are taken back: the state is the replay of the log
  without them.

The table's decisions (the policy; the verifier enforces all of it from the log alone, and
the server signs none of these entries):

- ``@resign``: in a game of two seats the other seat wins at once (the result's ``reason``
  says who resigned).  With more seats the resigning seat *leaves the race*: its pieces stay
  on the board, it makes no entry of its own any more (the server plays its turns with the
  game's timeout move, as for a late seat), it takes no part in the table's decisions, and
  its points no longer win: when the rules end the game naming only resigned seats, the
  winners are the best placed of the seats still racing (``Game.standings``).  When one seat
  alone is left in the race, it wins.  A cooperative game (``Game.cooperative``: Title of
  Liberty) has no resignation: the team concedes with its own move.
- ``@draw offer``: every other seat still in the race accepts with ``@draw accept``; the last
  acceptance ends the game with no winner, "drawn by agreement".  ``@draw refuse`` by any
  seat ends the offer, and so does any rules move by the offerer.  No cooperative draw.
- ``@abort``: while some seat has made fewer than :data:`ABORT_MOVES` rules moves of its own
  (not forced, not taken back), one seat aborts the game alone; later it asks, and the game is
  aborted when every other seat in the race signs ``@abort accept`` (``@abort refuse`` ends the
  request).  An aborted game has no winner and its result says ``"rated": false``.
- ``@pause DAYS``: a request; every other seat in the race signs the same ``@pause DAYS``, the
  last from the moment of its envelope's ``ts`` on the game is paused for DAYS days: the clocks
  stop (the server moves the deadlines by the pause) until the time ends or a seat signs
  ``@resume``.  The first entry whose ``ts`` is past the pause's end ends it in the table
  state too.  ``@resume`` also refuses a pause asked.  Moves may still be played during a
  pause.  At most :data:`MAX_PAUSES` pauses per game, of at most :data:`MAX_PAUSE_DAYS` days.
- Rate limit: a seat offers a draw, asks to abort or asks to pause at most :data:`MAX_ASKS`
  times each in a game.  Requests never block rules moves and are owed by nobody (they are not
  in ``to_act``): the other seats are told by notices.
- Once a table decision ended the game, no entry follows.

Why the randomness stays sound: a move's randomness is drawn from the secret seed with the label
(ply, game id, seq, hash of the entry before it) (``shared.rng``, ``move_entropy``).  The moves
taken back drew nothing (a move that drew cannot be taken back, nor any move before it), so no
outcome was seen and thrown away: a takeback is never a re-roll.  The move played after a
takeback has the same ply as the first move taken back, but a seq (and a previous hash) that no
earlier entry had, so its label is new and its outcome as unpredictable as any other; and every
label of the kept moves is unchanged, so the replay without the taken-back moves reaches exactly
the state the game had before them.  (The server's timeout choices use ``timeout|ply`` labels;
a forced move cannot be taken back, so no ply with a timeout choice comes back.)

Pure: no clock, no I/O, no global randomness.
"""

import inspect
import re
from collections import namedtuple

from . import IllegalMove
from .delegation import is_mail_key
from .envelope import (
    EntryError,
    canonical_json,
    move_entropy,
    read_envelope,
    valid_public_key,
    verify,
    verify_entry,
)

MARK = "@"
#: the most takeback requests one seat may make in one game
MAX_REQUESTS = 10
#: the most pauses one game may take, and the most days one pause lasts
MAX_PAUSES = 3
MAX_PAUSE_DAYS = 14
#: the most draw offers, abort requests or pause requests one seat makes in one game (each)
MAX_ASKS = 5
#: the rules moves of its own each seat has made before one seat may no longer abort alone
ABORT_MOVES = 2
RECOVERY_DOMAIN = b"pbem-recovery-v1\n"
KEY_ROTATION_DOMAIN = b"pbem-key-rotation-v2\n"
ANSWERS = ("@accept takeback", "@refuse takeback")
#: the header option (in ``options``) that says what a missed deadline does: ``move`` (the
#: game's timeout move, the default, never written in the options) or ``bot:LEVEL``
ON_TIMEOUT = "on_timeout"
BOT_PREFIX = "bot-"

_HEX64 = re.compile(r"[0-9a-f]{64}\Z")
_HEX128 = re.compile(r"[0-9a-f]{128}\Z")
_SEQ = re.compile(r"(0|[1-9][0-9]{0,8})\Z")
# a player's name, as the server registers them
_PLAYER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{1,31}\Z")
# verify_entry takes ``revoked`` once device keys exist (shared/delegation.py); until then no
# envelope can be signed by a device key, so there is nothing to pass
_TAKES_REVOKED = "revoked" in inspect.signature(verify_entry).parameters

TableMove = namedtuple("TableMove", ("kind", "seq", "key", "recovery_key", "cert", "player",
                                     "word"),
                       defaults=(None, None, None, None, None, None))

#: the verbs of the table's decisions (resign, draw, abort, pause; see the module docstring)
DECISIONS = ("@resign", "@draw", "@abort", "@pause", "@resume")


class TableError(IllegalMove):
    """A table entry that does not parse, or may not be made now (``code`` says why)."""

    default_code = "bad_table_entry"


def is_table_move(text):
    """True when ``text`` is a table entry's (it begins with ``@``, spaces before allowed)."""
    return isinstance(text, str) and text.lstrip().startswith(MARK)


def _bad(message, code="bad_table_entry"):
    raise TableError(message, code=code)


def _key(word, what):
    if not _HEX64.match(word) or not valid_public_key(word):
        _bad(f"{what} must be a public key: 64 lowercase hex digits")
    return word


def parse_table_move(text):
    """The :class:`TableMove` that ``text`` names; raises TableError (code bad_table_entry).

    Only the canonical text is accepted (one space between words), since it is signed and shown
    as it is.

    >>> parse_table_move("@takeback 12").seq
    12
    >>> parse_table_move("@accept takeback").kind
    'accept'
    """
    if not is_table_move(text):
        _bad(f"{str(text)[:40]!r} is not a table entry (those begin with @)")
    words = text.split(" ")
    verb, args = words[0], words[1:]
    if verb == "@takeback":
        if len(args) != 1 or not _SEQ.match(args[0]):
            _bad("write @takeback and the seq of your first move to take back, like: "
                 "@takeback 12")
        return TableMove("takeback", seq=int(args[0]))
    if verb in ("@accept", "@refuse"):
        if args != ["takeback"]:
            _bad(f"write {verb} takeback")
        return TableMove(verb[1:])
    if verb == "@revoke":
        if len(args) != 1:
            _bad("write @revoke and the device's public key (64 hex digits)")
        return TableMove("revoke", key=_key(args[0], "the revoked device key"))
    if verb == "@rotate":
        if len(args) == 1:
            return TableMove("rotate", key=_key(args[0], "the new key"))
        if len(args) == 4 and args[1] == "recovery":
            if not _HEX128.match(args[3]):
                _bad("the recovery certificate must be 128 lowercase hex digits")
            return TableMove("rotate", key=_key(args[0], "the new key"),
                             recovery_key=_key(args[2], "the recovery key"), cert=args[3])
        _bad("write @rotate NEWKEY, or @rotate NEWKEY recovery RECOVERYKEY CERTIFICATE")
    if verb == "@handover":
        if len(args) != 2:
            _bad("write @handover and the bot account's name and public key, like: "
                 "@handover bot-greedy KEY")
        if bot_level(args[0]) is None and (reserved_for_bots(args[0])
                                           or not _PLAYER.match(args[0])):
            _bad(f"a seat is handed over only to a bot account ({_bot_names()}) or to a "
                 f"player, not to {args[0][:40]!r}", "not_a_bot")
        return TableMove("handover", player=args[0], key=_key(args[1], "the new key"))
    if verb in DECISIONS:
        return _parse_decision(verb, args)
    _bad(f"{verb[:30]!r} is not a table entry: @takeback SEQ, @accept takeback, "
         "@refuse takeback, @revoke KEY, @rotate KEY, @handover BOT KEY, @resign, "
         "@draw offer|accept|refuse, @abort [accept|refuse], @pause DAYS or @resume")


def format_table_move(tm):
    """The canonical text of a :class:`TableMove` (``parse_table_move`` reads it back)."""
    if tm.kind == "takeback":
        return f"@takeback {tm.seq}"
    if tm.kind in ("accept", "refuse"):
        return f"@{tm.kind} takeback"
    if tm.kind == "revoke":
        return f"@revoke {tm.key}"
    if tm.kind == "handover":
        return f"@handover {tm.player} {tm.key}"
    if tm.kind in ("resign", "draw", "abort", "pause", "resume"):
        return _format_decision(tm)
    if tm.recovery_key:
        return f"@rotate {tm.key} recovery {tm.recovery_key} {tm.cert}"
    return f"@rotate {tm.key}"


def _parse_decision(verb, args):
    """A table decision's :class:`TableMove` (``@resign``, ``@draw ...``, ``@abort ...``,
    ``@pause DAYS``, ``@resume``)."""
    if verb in ("@resign", "@resume"):
        if args:
            _bad(f"write {verb} alone")
        return TableMove(verb[1:])
    if verb == "@draw":
        if len(args) != 1 or args[0] not in ("offer", "accept", "refuse"):
            _bad("write @draw offer, @draw accept or @draw refuse")
        return TableMove("draw", word=args[0])
    if verb == "@abort":
        if args not in ([], ["accept"], ["refuse"]):
            _bad("write @abort (to abort, or ask the table to), @abort accept or @abort refuse")
        return TableMove("abort", word=args[0] if args else None)
    if len(args) != 1 or not _SEQ.match(args[0]) \
            or not 1 <= int(args[0]) <= MAX_PAUSE_DAYS:
        _bad(f"write @pause and the days the clocks stop (1 to {MAX_PAUSE_DAYS}), like: "
             "@pause 7", "pause_limit" if args and _SEQ.match(args[0]) else "bad_table_entry")
    return TableMove("pause", seq=int(args[0]))


def _format_decision(tm):
    if tm.kind == "pause":
        return f"@pause {tm.seq}"
    return f"@{tm.kind}" + (f" {tm.word}" if tm.word else "")


def _levels():
    from .bots import LEVELS  # the levels only (shared/bots/__init__.py loads no bot)
    return LEVELS


def _bot_names():
    return ", ".join(BOT_PREFIX + level for level in _levels())


def bot_level(name):
    """The level of bot account ``name`` (``bot-greedy``: ``greedy``), or None for a name
    that is not a bot account's."""
    if isinstance(name, str) and name.startswith(BOT_PREFIX) \
            and name[len(BOT_PREFIX):] in _levels():
        return name[len(BOT_PREFIX):]
    return None


def reserved_for_bots(name):
    """Whether a player name is kept for bots: ``bot``, and ``bot-...`` in any case, with
    ``_`` or ``.`` for the dash (``Bot_Greedy`` would pass for ``bot-greedy`` on a page)."""
    folded = str(name).lower().replace("_", "-").replace(".", "-")
    return folded == "bot" or folded.startswith(BOT_PREFIX)


def normalize_on_timeout(value):
    """The canonical value of the ``on_timeout`` option (``move``, or ``bot:LEVEL``; ``bot``
    alone is ``bot:greedy``); raises TableError (code bad_option)."""
    if value is None or value == "move":
        return "move"
    if isinstance(value, str) and (value == "bot" or value.startswith("bot:")):
        level = value[4:] or "greedy"
        if level in _levels():
            return f"bot:{level}"
    raise TableError(f"option {ON_TIMEOUT} takes move (the timeout move, the default), bot or "
                     f"bot:LEVEL with LEVEL one of {', '.join(_levels())}; not {value!r}",
                     code="bad_option")


#: the header option (in ``options``) that gives every seat a time bank: extra hours it may
#: spend in the whole game once a deadline has passed, before the timeout rule acts (never
#: written when 0, the default)
TIME_BANK = "time_bank"
#: the largest time bank, in hours (30 days)
MAX_TIME_BANK = 720


def normalize_time_bank(value):
    """The ``time_bank`` option as whole hours (0: none); raises TableError (code bad_option).

    >>> normalize_time_bank("12"), normalize_time_bank(None)
    (12, 0)
    """
    if value is None:
        return 0
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,4}", value.strip()):
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TIME_BANK:
        raise TableError(f"option {TIME_BANK} takes whole hours from 0 to {MAX_TIME_BANK} (the "
                         f"extra time each seat may spend in the whole game); not {value!r}",
                         code="bad_option")
    return value


def time_bank_hours(options):
    """The hours of time bank each seat has under ``options`` (a game's header options)."""
    try:
        return normalize_time_bank((options or {}).get(TIME_BANK))
    except TableError:
        return 0


def timeout_bot(options):
    """The bot level a missed deadline hands a seat to under ``options`` (a game's header
    options), or None when a missed deadline plays the timeout move."""
    try:
        policy = normalize_on_timeout((options or {}).get(ON_TIMEOUT))
    except TableError:
        return None
    return policy[4:] if policy != "move" else None


def recovery_message(player, recovery_key):
    """What a player's main key signs to make ``recovery_key`` able to rotate it away."""
    return RECOVERY_DOMAIN + canonical_json({"player": player, "recovery_key": recovery_key})


def key_rotation_message(player, old_key, new_key, rotation):
    """What the current main key (or the recovery key) signs to tell the server of a new key.

    The proof is bound to the key it replaces (``old_key``, the account's main key now) and to
    the account's count of rotations so far (``rotation``, 0 before the first; the server's
    profile shows it as ``key_rotations``), so it is good exactly once: after the rotation the
    account has another key and a higher count, and the same proof no longer verifies.
    (Version 1 signed only the player and the new key, and a proof could be posted again to
    bring back a key the player had rotated away from.)

    >>> key_rotation_message("ann", "a" * 64, "b" * 64, 0)[:21]
    b'pbem-key-rotation-v2\\n'
    """
    return KEY_ROTATION_DOMAIN + canonical_json({"player": player, "old_key": old_key,
                                                 "public_key": new_key, "rotation": rotation})


# --- the table state ------------------------------------------------------------------------

def new_table(header):
    """The table state of a game that has just started (a JSON-serialisable dict).

    ``revoked`` lists every device key a ``@revoke`` named; ``revoked_by`` ({key: [player
    names]}) says whose revocation each is, and ``devices`` ({key: player name}) which player
    the log shows delegated each device key that signed an entry.
    """
    return {"keys": {s["seat"]: s["public_key"] for s in header["seats"]},
            "players": {s["seat"]: s["player"] for s in header["seats"]},
            "revoked": [], "revoked_by": {}, "devices": {}, "pending": None,
            "taken_back": [], "window": {"seat": None, "seqs": []}, "blocked": [],
            "asked": {}}


def revoked_for(table, seat):
    """The device keys revoked for ``seat``'s delegations at this point of the log: those its
    player revoked.  (One player's ``@revoke`` never binds another's devices: a seat that
    names another player's key, or a bot's, revokes nothing of theirs.)  A table state from
    before ``revoked_by`` was kept counts every revoked key, as it did then."""
    revoked = table["revoked"]
    by = table.get("revoked_by")
    if not revoked or by is None:
        return frozenset(revoked)
    player = table["players"].get(seat)
    return frozenset(k for k in revoked if k not in by or player in by[k])


def verify_logged(table, envelope_text, signature, *, server_key=None, subject="the entry",
                  **checks):
    """Verify one log entry with the keys ``table`` holds at that point; (envelope, hash).

    ``checks`` are verify_entry's (``game_id``, ``seq``, ``prev``, ``forced``,
    ``expected_hash``).  A ``@rotate ... recovery`` entry is checked against its recovery key,
    once its certificate verifies under the seat's current key.  Raises EnvelopeError /
    EntryError as verify_entry does.
    """
    seat_keys = table["keys"]
    # only a rotation by a recovery key is checked against another key: read the envelope
    # twice for it alone (canonical text names the move as "move":"...")
    env = read_envelope(envelope_text) if isinstance(envelope_text, str) \
        and '"move":"@rotate ' in envelope_text else None
    text = env["move"] if env is not None else ""
    if text.startswith("@rotate ") and " recovery " in text and env["seat"] in seat_keys \
            and not env.get("forced"):
        try:
            tm = parse_table_move(text)
        except TableError as exc:
            raise EntryError(f"{subject}: {exc.message}", "bad_table_entry") from None
        player = table["players"][env["seat"]]
        if not verify(seat_keys[env["seat"]], recovery_message(player, tm.recovery_key),
                      tm.cert):
            raise EntryError(f"{subject}'s recovery certificate is not signed by seat "
                             f"{env['seat']}'s key", "bad_signature")
        seat_keys = dict(seat_keys, **{env["seat"]: tm.recovery_key})
    left = table.get("left") or {}
    if left and isinstance(envelope_text, str) and '"move":"@handover ' in envelope_text:
        seat_keys = _leaving_keys(table, envelope_text, seat_keys)
    extra = {}
    if _TAKES_REVOKED and table["revoked"]:
        # the revocations that bind an entry are its seat's player's: read the seat (only
        # for a delegated entry, in a game with revocations: nothing else checks them)
        seat = None
        if isinstance(envelope_text, str) and '"delegation":' in envelope_text:
            env = env if env is not None else read_envelope(envelope_text)
            seat = env["seat"]
        extra = {"revoked": revoked_for(table, seat) if seat in seat_keys
                 else frozenset(table["revoked"])}
    return verify_entry(envelope_text, signature, seat_keys=seat_keys, server_key=server_key,
                        subject=subject, **checks, **extra)


def _leaving_keys(table, envelope_text, seat_keys):
    """The keys a ``@handover`` to a human is checked under: for a seat its player handed to
    a bot, the main key that made that handover (the bot's key never hands a seat on)."""
    env = read_envelope(envelope_text)
    seat, words = env["seat"], env["move"].split(" ")
    leaving = (table.get("left") or {}).get(seat)
    if env.get("forced") or leaving is None or len(words) != 3 \
            or bot_level(words[1]) is not None \
            or bot_level(table["players"].get(seat)) is None:
        return seat_keys
    return dict(seat_keys, **{seat: leaving})


_DECISION_KINDS = ("resign", "draw", "abort", "pause", "resume")
DAY = 86400  # seconds: a pause's days, on the clock of the envelopes' ``ts``


def _moves_text(seqs):
    n = len(seqs)
    where = f"move {seqs[0]}" if n == 1 else f"moves {seqs[0]}-{seqs[-1]}"
    return f"{n} move{'s' if n != 1 else ''} ({where})"


def _event(text):
    return {"public": text, "kind": "table"}


class LogReplay:
    """A log replayed entry by entry: the rules' ``state`` and the ``table`` state.

    ``game`` is the rules library's Game, ``header`` the game's header.  With ``seed`` (bytes)
    the rules moves are played (a full replay); without it (an archive of a running game) only
    the table is kept, and what needs the board (whose turn, what a move revealed) is not
    checked.  ``state``/``table`` resume a replay from a snapshot (the server's); ``history``
    then gives the envelopes of the log so far, needed only when a takeback is granted (the
    state is replayed again without the moves taken back).
    """

    def __init__(self, game, header, seed=None, *, state=None, table=None, history=None):
        self.game, self.header, self.seed = game, header, seed
        self.game_id = header["game"]
        self.seats = [s["seat"] for s in header["seats"]]
        self.table = table if table is not None else new_table(header)
        if state is None and seed is not None:
            state = self.fresh_state()
        self.state = state
        self._history = history
        self._moves = [] if history is None else None  # the envelopes of the rules moves kept

    def fresh_state(self):
        return self.game.new_game(self.seats, self.header["options"], self.seed,
                                  rules_version=self.header.get("rules_version"))

    # --- what is owed ----------------------------------------------------------------

    def pending(self):
        return self.table["pending"]

    def to_act(self):
        """The seats that owe an entry now: the answers a pending request waits for, else the
        rules' ``to_act`` (None in a replay without the seed)."""
        if self.table.get("ended"):
            return []
        pending = self.table["pending"]
        if pending:
            return [s for s in self.seats if s in pending["owed"]]
        return None if self.state is None else self.game.to_act(self.state)

    def owes(self):
        if self.table.get("ended"):
            return {}
        pending = self.table["pending"]
        if pending:
            what = (f"answer {pending['seat']}'s request to take back "
                    f"{_moves_text(pending['moves'])}: @accept takeback or @refuse takeback")
            return {s: what for s in self.to_act()}
        return self.game.owes(self.state)

    def legal_moves(self, seat):
        """``seat``'s legal entries now: the answers while a request waits, else the rules'
        (none for a seat that resigned: the server plays its timeout moves)."""
        if self.table.get("ended") or seat in (self.table.get("resigned") or ()):
            return []
        pending = self.table["pending"]
        if pending:
            return list(ANSWERS) if seat in pending["owed"] else []
        return self.game.legal_moves(self.state, seat)

    def takeback_from(self, seat, moves=1):
        """The seq ``@takeback`` names to take back ``seat``'s last ``moves`` moves; raises
        TableError when it may not take back so many now."""
        window = self.table["window"]
        seqs = window["seqs"] if window["seat"] == seat else []
        if moves < 1 or len(seqs) < moves:
            _bad(f"{seat} may take back {len(seqs) or 'no'} move{'s' if len(seqs) != 1 else ''}"
                 " now: a seat can take back only moves it made itself since another seat "
                 "last moved and since anything hidden was last revealed", "cannot_take_back")
        return seqs[-moves]

    def view(self, seat):
        """The rules' view for ``seat``, with the table's part: while a request waits,
        ``to_act``/``owes`` are the answers owed and the key ``takeback`` describes the
        request (no such key otherwise, so a view without one is the rules' own)."""
        view = self.game.view(self.state, seat)
        result = self.result()
        if result is not None and (self.table.get("ended") or self.table.get("resigned")):
            view.update(status="over", result=result, to_act=[], owes={})
        decisions = self.decisions()
        if decisions:
            view["table"] = decisions
        pending = self.table["pending"]
        if pending and view.get("status") != "over":
            view["to_act"], view["owes"] = self.to_act(), self.owes()
            view["takeback"] = {"seat": pending["seat"], "from": pending["from"],
                                "moves": list(pending["moves"]), "asked": pending["asked"],
                                "owed": list(pending["owed"]),
                                "accepted": list(pending["accepted"])}
        return view

    # --- one entry -----------------------------------------------------------------------

    def step(self, env):
        """Apply one verified envelope; return the events it caused (a table entry's texts).

        Raises TableError for a table entry that may not be made now, IllegalMove (from the
        rules) for a rules move; either way nothing changed.
        """
        ended = self.table.get("ended")
        if ended:
            _bad(f"the game is over: {ended['reason']}", "game_over")
        delegation = env.get("delegation")
        if is_table_move(env["move"]) and is_mail_key(delegation):
            _bad("a mail key signs only the moves its player sends by mail, never a table "
                 "entry: sign it with your main key", "mail_scope")
        events = self._table_step(env) if is_table_move(env["move"]) \
            else self._rules_step(env)
        paused = self.table.get("paused")
        if paused and (env.get("ts") or 0) >= paused["until"]:  # its days ran out
            self.table["paused"] = None
        if delegation is not None:  # whose device this key is, as the log shows it
            devices = self.table.setdefault("devices", {})
            if delegation["device_key"] not in devices:
                devices[delegation["device_key"]] = self.table["players"][env["seat"]]
        return events

    def _rules_step(self, env):
        seat, seq, table = env["seat"], env["seq"], self.table
        pending = table["pending"]
        if pending:
            _bad(f"{pending['seat']} asked to take back moves: no move is played until every "
                 "seat has answered", "takeback_pending")
        if seat in table.get("resigned", ()) and not env.get("forced"):
            _bad(f"{seat} has resigned: the server plays its timeout moves, it plays no move "
                 "of its own", "resigned")
        revealed = False
        if self.state is not None:  # the rules' duty check refuses a seat that owes nothing
            trace = []
            self.state = self.game.play(self.state, seat, env["move"],
                                        move_entropy(self.game_id, seq, env["prev"]),
                                        reveals=trace)
            revealed = trace[0]
        window = table["window"]
        if revealed or env.get("forced"):
            table["window"] = {"seat": None, "seqs": []}
        elif window["seat"] == seat:
            window["seqs"].append(seq)
        else:
            table["window"] = {"seat": seat, "seqs": [seq]}
        table["blocked"] = [s for s in table["blocked"] if s == seat]
        if self._moves is not None:
            self._moves.append(env)
        events = self.state["events"] if self.state is not None else []
        draw = table.get("draw")
        if draw and draw["seat"] == seat:  # a move by the offerer withdraws its offer
            table["draw"] = None
            events = [*events, _event(f"{seat} moved: its draw offer is withdrawn")]
        return events

    def _table_step(self, env):
        seat, seq = env["seat"], env["seq"]
        tm = parse_table_move(env["move"])
        if format_table_move(tm) != env["move"]:
            _bad(f"write the table entry as {format_table_move(tm)!r}")
        if env.get("forced") and tm.kind not in ("refuse", "handover") \
                and not (tm.kind == "accept" and "order" in env):
            _bad("the server may only refuse a takeback for a seat whose answer is late, "
                 "accept one for a seat's standing order (accept takeback), or hand a late "
                 "seat to a bot when the game's options say so", "forced_reserved")
        if env.get("forced") and tm.kind in ("refuse", "handover") and "order" in env:
            _bad("no standing order refuses a takeback or hands a seat over", "forced_reserved")
        if tm.kind == "takeback":
            return self._ask(seat, tm.seq, seq)
        if tm.kind in ("accept", "refuse"):
            return self._answer(seat, tm.kind, bool(env.get("forced")))
        if tm.kind in _DECISION_KINDS:
            return self._decide(seat, tm, env)
        if "delegation" in env:
            _bad(f"@{tm.kind} must be signed by the seat's main key, not a device key",
                 "main_key_only")
        table = self.table
        if tm.kind == "handover":
            return self._handover(seat, tm, bool(env.get("forced")), seq)
        if tm.kind == "revoke":
            return self._revoke(seat, tm.key)
        if tm.key == table["keys"][seat]:
            _bad("the new key is the seat's key already", "same_key")
        if tm.key in revoked_for(table, seat):
            _bad("the new key is a revoked device key", "device_revoked")
        table["keys"][seat] = tm.key
        how = " with its recovery key" if tm.recovery_key else ""
        return [_event(f"{seat} rotated its key{how}: from now on it signs with "
                       f"{tm.key[:16]}...")]

    def _revoke(self, seat, key):
        table = self.table
        player = table["players"][seat]
        owner = (table.get("devices") or {}).get(key)
        if owner is not None and owner != player:
            _bad(f"that device key is {owner}'s: a seat revokes only the keys its own player "
                 "delegated", "not_your_device")
        if key in table["keys"].values():
            _bad("that is a seat's main key: replace it with @rotate", "main_key")
        if key in revoked_for(table, seat):
            _bad("that device key is already revoked", "already_revoked")
        if key not in table["revoked"]:
            table["revoked"].append(key)
        table.setdefault("revoked_by", {}).setdefault(key, []).append(player)
        return [_event(f"{seat} revoked device key {key[:16]}...: it signs nothing more for "
                       f"{player}, and the standing orders it signed end")]

    def _handover(self, seat, tm, forced, seq):
        table = self.table
        if self.state is not None and self.game.result(self.state) is not None:
            _bad("the game is over", "game_over")
        if bot_level(tm.player) is None:
            return self._substitute(seat, tm, forced, seq)
        holder = table["players"][seat]
        if bot_level(holder) is not None:
            _bad(f"{seat} is played by the bot {holder} already: a bot does not leave",
                 "already_a_bot")
        for other, name in table["players"].items():
            if name == tm.player and table["keys"][other] != tm.key:
                _bad(f"{tm.player} plays {other} with another key: one bot account has one "
                     "key", "wrong_bot_key")
        if tm.key in revoked_for(table, seat):
            _bad("the bot's key is a revoked device key", "device_revoked")
        if forced:
            allowed = timeout_bot(self.header.get("options"))
            levels = _levels()
            if allowed is None:
                _bad("the server may hand a seat to a bot only in a game whose option "
                     f"{ON_TIMEOUT} says so", "forced_reserved")
            if levels.index(bot_level(tm.player)) > levels.index(allowed):
                _bad(f"the game's option {ON_TIMEOUT} allows a bot of level {allowed} at most, "
                     f"not {tm.player}", "forced_reserved")
            to_act = self.to_act()
            if to_act is not None and seat not in to_act:
                _bad(f"the server hands {seat} to a bot only when its deadline passed, and "
                     f"{seat} owes nothing now", "forced_reserved")
        if forced:  # the server hands it on to a substitute, under the same option
            if seat not in table.setdefault("forced_bot", []):
                table["forced_bot"].append(seat)
        else:  # its player hands it on to a substitute, with this key
            table.setdefault("left", {})[seat] = table["keys"][seat]
        self._seat_to(seat, tm, seq)
        how = " (its deadline passed)" if forced else ""
        return [_event(f"{seat} is handed over to the bot {tm.player}{how}: from now on "
                       f"{tm.player} plays it")]

    def _seat_to(self, seat, tm, seq):
        table = self.table
        table["players"][seat] = tm.player
        table["keys"][seat] = tm.key
        table["handovers"] = table.get("handovers", 0) + 1
        # the seat's standing orders (shared/orders.py) end here: they were its player's
        table.setdefault("handed", {})[seat] = seq
        if table["window"]["seat"] == seat:  # nobody takes back what another player played
            table["window"] = {"seat": None, "seqs": []}

    def _substitute(self, seat, tm, forced, seq):
        """A ``@handover`` to a human player (see "Substitutes" in the module's docstring)."""
        table = self.table
        holder = table["players"][seat]
        if tm.player in table["players"].values():
            _bad(f"{tm.player} holds a seat of this game already", "seated_already")
        if tm.key in table["keys"].values():
            _bad("that key is a seat's key already", "same_key")
        if tm.key in revoked_for(table, seat):
            _bad("the new key is a revoked device key", "device_revoked")
        by_bot = bot_level(holder) is not None
        if forced:
            if not by_bot or seat not in (table.get("forced_bot") or []):
                _bad("the server hands a seat to a player only when a bot took it at a missed "
                     "deadline", "forced_reserved")
            if timeout_bot(self.header.get("options")) is None:
                _bad("the server may hand a seat on only in a game whose option "
                     f"{ON_TIMEOUT} says so", "forced_reserved")
        elif by_bot and seat not in (table.get("left") or {}):
            _bad(f"{seat} is played by the bot {holder}, which took it at a missed deadline: "
                 "only the server hands it on", "forced_reserved")
        self._seat_to(seat, tm, seq)
        (table.get("left") or {}).pop(seat, None)
        if seat in (table.get("forced_bot") or []):
            table["forced_bot"].remove(seat)
        how = " (by the server: a bot had taken it at a missed deadline)" if forced else ""
        return [_event(f"{seat} is handed over to {tm.player}{how}: from now on "
                       f"{tm.player} plays it")]

    # --- the table's decisions: resign, draw, abort, pause -----------------------------------

    def result(self):
        """The game's result: the table's (a resignation, a draw or an abort ended it), else
        the rules', with the winners among the seats still in the race (see
        :meth:`_race_result`); None while the game goes on (or without the seed)."""
        ended = self.table.get("ended")
        if ended:
            return ended
        if self.state is None:
            return None
        return self._race_result(self.game.result(self.state))

    def _race_result(self, result):
        """A rules result once seats resigned: the resigned seats no longer win; when the
        rules named only resigned seats, the winners are the best placed of the seats still
        in the race (``Game.standings``).  The result names who resigned."""
        resigned = self.table.get("resigned")
        if result is None or not resigned:
            return result
        racing = self.racing()
        winners = [w for w in result.get("winners") or () if w in racing]
        if not winners and result.get("winners") and not self.game.cooperative:
            places = self.game.standings(result, racing)
            winners = [s for s in racing if places[s] == 1]
        reason = result.get("reason")
        said = f"{', '.join(resigned)} resigned"
        return {**result, "winners": winners, "resigned": list(resigned),
                "reason": f"{reason}; {said}" if reason else said}

    def racing(self):
        """The seats still in the race (all but those that resigned), in seat order."""
        resigned = self.table.get("resigned") or ()
        return [s for s in self.seats if s not in resigned]

    def _over(self):
        return self.table.get("ended") is not None or (
            self.state is not None and self.game.result(self.state) is not None)

    def _end(self, winners, reason, how, **more):
        self.table["ended"] = {"winners": list(winners), "reason": reason, "table": how, **more}
        for kind in ("draw", "abort", "pause"):
            if self.table.get(kind):
                self.table[kind] = None
        return [_event(f"Game over: {reason}.")]

    def _count_ask(self, seat, kind):
        asks = self.table.setdefault("asks", {})
        key = f"{kind}:{seat}"
        if asks.get(key, 0) >= MAX_ASKS:
            _bad(f"{seat} has asked for {'a ' if kind != 'abort' else 'an '}{kind} {MAX_ASKS} "
                 "times in this game, the most allowed", "rate_limited")
        asks[key] = asks.get(key, 0) + 1

    def own_moves(self):
        """{seat: the rules moves of its own (not forced, not taken back) in the log}."""
        if self._moves is not None:
            moves = self._moves
        elif self._history is not None:
            moves = self._history()
        else:
            moves = []
        gone = set(self.table["taken_back"])
        counts = {s: 0 for s in self.seats}
        for env in moves:
            if not is_table_move(env["move"]) and env["seq"] not in gone \
                    and not env.get("forced") and env["seat"] in counts:
                counts[env["seat"]] += 1
        return counts

    def _decide(self, seat, tm, env):
        table, kind = self.table, tm.kind
        if self._over():
            _bad("the game is over", "game_over")
        if seat in (table.get("resigned") or ()):
            _bad(f"{seat} has resigned: it takes no part in the table's decisions any more",
                 "resigned")
        if kind == "resign":
            return self._resign(seat)
        if kind == "draw":
            return self._draw(seat, tm.word, env["seq"])
        if kind == "abort":
            return self._abort(seat, tm.word, env["seq"])
        return self._pause(seat, tm, env)

    def _cooperative(self):
        return self.game is not None and getattr(self.game, "cooperative", False)

    def _resign(self, seat):
        table = self.table
        if self._cooperative():
            _bad(f"{self.game.title} is played together, so a seat does not resign alone: "
                 "the team concedes with the move concede", "cooperative")
        table.setdefault("resigned", []).append(seat)
        racing = self.racing()
        events = [_event(f"{seat} resigns")]
        if len(racing) == 1:
            return events + self._end(racing, f"{seat} resigned: {racing[0]} wins", "resign",
                                      resigned=list(table["resigned"]))
        events.append(_event(f"{seat} leaves the race: its pieces stay, the server plays its "
                             "turns with the timeout move, and it can no longer win"))
        for what in ("draw", "abort", "pause"):  # what it asked ends; what it agreed no longer
            asked = table.get(what)              # counts (it decides nothing any more)
            if not asked:
                continue
            if asked["seat"] == seat:
                table[what] = None
                events.append(_event(f"{seat}'s {what} request ends with its resignation"))
                continue
            asked["accepted"] = [s for s in asked["accepted"] if s != seat]
            events += self._settle(what)
        return events

    def _settle(self, what):
        """End the game (a draw, an abort) or start the pause when every seat still in the
        race has agreed to the pending ``what``; [] while some have not."""
        asked = self.table[what]
        if any(s not in asked["accepted"] for s in self.racing()):
            return []
        if what == "draw":
            return self._end([], "drawn by agreement", "draw")
        if what == "abort":
            return self._end([], f"aborted by agreement of every seat (asked by "
                             f"{asked['seat']}): unrated", "abort", rated=False)
        self.table["pause"] = None
        start = asked["ts"]
        self.table["paused"] = {"days": asked["days"], "from": start,
                                "until": start + asked["days"] * DAY, "seq": asked["at"]}
        self.table["pauses"] = self.table.get("pauses", 0) + 1
        return [_event(f"The table pauses the game for {asked['days']} day"
                       f"{'s' if asked['days'] != 1 else ''}: the clocks stop until the time "
                       "ends or a seat resumes (@resume)")]

    def _pending_answer(self, seat, what, word):
        asked = self.table.get(what)
        if not asked:
            _bad(f"there is no {what} request to {word}", f"no_{what}")
        if word == "accept":
            if seat == asked["seat"]:
                _bad(f"{seat} asked for this {what}: the other seats accept it", "own_request")
            if seat in asked["accepted"]:
                _bad(f"{seat} has accepted this {what} already", "answered")
        return asked

    def _draw(self, seat, word, seq):
        table = self.table
        if self._cooperative():
            _bad(f"{self.game.title} is played together against the game: it has no draw",
                 "cooperative")
        asked = table.get("draw")
        if word == "offer":
            if asked:
                _bad(f"{asked['seat']} has offered a draw already: accept it with @draw accept "
                     "or refuse it with @draw refuse", "draw_pending")
            self._count_ask(seat, "draw")
            table["draw"] = {"seat": seat, "asked": seq, "accepted": [seat]}
            return [_event(f"{seat} offers a draw")] + self._settle("draw")
        asked = self._pending_answer(seat, "draw", word)
        if word == "refuse":
            table["draw"] = None
            if seat == asked["seat"]:
                return [_event(f"{seat} withdraws its draw offer")]
            return [_event(f"{seat} refuses {asked['seat']}'s draw offer")]
        asked["accepted"].append(seat)
        return [_event(f"{seat} accepts {asked['seat']}'s draw offer")] + self._settle("draw")

    def _abort(self, seat, word, seq):
        table = self.table
        asked = table.get("abort")
        if word is None:
            if asked:
                _bad(f"{asked['seat']} has asked to abort already: agree with @abort accept or "
                     "refuse with @abort refuse", "abort_pending")
            counts = self.own_moves()
            early = [s for s in self.seats if counts[s] < ABORT_MOVES]
            if early:
                return [_event(f"{seat} aborts the game")] + self._end(
                    [], f"aborted by {seat} before every seat had made {ABORT_MOVES} moves: "
                    "unrated", "abort", rated=False, by=seat)
            self._count_ask(seat, "abort")
            table["abort"] = {"seat": seat, "asked": seq, "accepted": [seat]}
            return [_event(f"{seat} asks the table to abort the game (every seat has made "
                           f"{ABORT_MOVES} moves: all must agree)")] + self._settle("abort")
        asked = self._pending_answer(seat, "abort", word)
        if word == "refuse":
            table["abort"] = None
            if seat == asked["seat"]:
                return [_event(f"{seat} withdraws its request to abort")]
            return [_event(f"{seat} refuses {asked['seat']}'s request to abort")]
        asked["accepted"].append(seat)
        return [_event(f"{seat} agrees to abort")] + self._settle("abort")

    def paused_until(self, at):
        """The ``ts`` (seconds) the pause in force at ``at`` ends, or None."""
        paused = self.table.get("paused")
        if paused and paused["from"] <= at < paused["until"]:
            return paused["until"]
        return None

    def _pause(self, seat, tm, env):
        table, ts = self.table, env.get("ts") or 0
        asked = table.get("pause")
        if tm.kind == "resume":
            if asked:
                table["pause"] = None
                if seat == asked["seat"]:
                    return [_event(f"{seat} withdraws its request to pause")]
                return [_event(f"{seat} refuses {asked['seat']}'s request to pause")]
            if self.paused_until(ts) is None:
                _bad("the game is not paused", "not_paused")
            table["paused"] = None
            return [_event(f"{seat} resumes the game: the clocks run again")]
        days = tm.seq
        if self.paused_until(ts) is not None:
            _bad("the game is paused already: @resume ends the pause", "paused")
        if asked:
            if days != asked["days"]:
                _bad(f"{asked['seat']} asked to pause for {asked['days']} days: agree with "
                     f"@pause {asked['days']}, or refuse with @resume", "pause_pending")
            if seat in asked["accepted"]:
                _bad(f"{seat} has agreed to this pause already", "answered")
            asked["accepted"].append(seat)
            asked["ts"], asked["at"] = max(asked["ts"], ts), env["seq"]
            return [_event(f"{seat} agrees to pause for {days} days")] + self._settle("pause")
        if table.get("pauses", 0) >= MAX_PAUSES:
            _bad(f"this game has taken its {MAX_PAUSES} pauses, the most allowed",
                 "pause_limit")
        self._count_ask(seat, "pause")
        table["pause"] = {"seat": seat, "days": days, "asked": env["seq"], "at": env["seq"],
                          "ts": ts, "accepted": [seat]}
        return [_event(f"{seat} asks to pause the game for {days} day"
                       f"{'s' if days != 1 else ''}")] + self._settle("pause")

    def decisions(self):
        """What the table has pending or in force ({} when nothing): ``draw``, ``abort``,
        ``pause`` (the request, with the seats that agreed), ``paused`` (the pause taken,
        with its ``from``/``until`` in seconds), ``pauses`` (how many were taken),
        ``resigned`` (the seats that left the race)."""
        table = self.table
        out = {k: table[k] for k in ("draw", "abort", "pause", "paused") if table.get(k)}
        if table.get("pauses"):
            out["pauses"] = table["pauses"]
        if table.get("resigned"):
            out["resigned"] = list(table["resigned"])
        for what in ("draw", "abort", "pause"):
            if what in out:
                out[what] = {**out[what], "owed": [s for s in self.racing()
                                                   if s not in out[what]["accepted"]]}
        return out

    def _ask(self, seat, first, seq):
        table = self.table
        if table["pending"]:
            _bad("a takeback request is pending already", "takeback_pending")
        if self.state is not None and self.game.result(self.state) is not None:
            _bad("the game is over", "game_over")
        if seat in table["blocked"]:
            _bad(f"{seat}'s last takeback request was refused: it may ask again once another "
                 "seat has moved", "takeback_rate_limited")
        if table["asked"].get(seat, 0) >= MAX_REQUESTS:
            _bad(f"{seat} has asked for {MAX_REQUESTS} takebacks in this game, the most "
                 "allowed", "takeback_rate_limited")
        window = table["window"]
        mine = window["seqs"] if window["seat"] == seat else []
        if first not in mine:
            can = (f"moves {mine[0]} to {mine[-1]}" if len(mine) > 1 else
                   f"move {mine[0]}" if mine else "none")
            _bad(f"move {first} cannot be taken back by {seat}: a seat can take back only moves "
                 "it made itself since another seat last moved and since anything hidden (a "
                 "roll, a draw, a steal) was last revealed, and none that was forced; it may "
                 f"take back {can} now",
                 "cannot_take_back")
        moves = [s for s in mine if s >= first]
        owed = [s for s in self.seats if s != seat]
        table["pending"] = {"seat": seat, "from": first, "asked": seq, "moves": moves,
                            "owed": owed, "accepted": []}
        table["asked"][seat] = table["asked"].get(seat, 0) + 1
        events = [_event(f"{seat} asks to take back {_moves_text(moves)}")]
        if not owed:
            events += self._grant()
        return events

    def _answer(self, seat, kind, forced):  # forced: the server's (late answer, or an order)
        table = self.table
        pending = table["pending"]
        if not pending:
            _bad("there is no takeback request to answer", "no_takeback")
        if seat == pending["seat"]:
            _bad(f"{seat} asked for this takeback: the other seats answer it", "own_request")
        if seat not in pending["owed"]:
            _bad(f"{seat} has answered this takeback request already", "answered")
        who = f"{pending['seat']}'s request to take back {_moves_text(pending['moves'])}"
        if kind == "refuse":
            table["pending"] = None
            table["blocked"].append(pending["seat"])
            late = " (its answer was late: the server refused for it)" if forced else ""
            return [_event(f"{seat} refuses {who}{late}")]
        pending["owed"].remove(seat)
        pending["accepted"].append(seat)
        events = [_event(f"{seat} accepts {who}" + (" (by its standing order)" if forced
                                                   else ""))]
        if not pending["owed"]:
            events += self._grant()
        return events

    def _grant(self):
        table = self.table
        pending = table["pending"]
        table["pending"] = None
        taken = set(pending["moves"])
        table["taken_back"] = sorted(set(table["taken_back"]) | taken)
        window = table["window"]
        window["seqs"] = [s for s in window["seqs"] if s not in taken]
        if not window["seqs"]:
            window["seat"] = None
        if self.state is not None:
            self._rewind()
        return [_event(f"{pending['seat']} takes back {_moves_text(pending['moves'])}")]

    def _rewind(self):
        """The state replayed from the start without the moves taken back."""
        gone = set(self.table["taken_back"])
        moves = self._moves if self._moves is not None else self._history()
        state = self.fresh_state()
        kept = []
        for env in moves:
            if env["seq"] in gone or is_table_move(env["move"]):
                continue
            state = self.game.play(state, env["seat"], env["move"],
                                   move_entropy(self.game_id, env["seq"], env["prev"]))
            kept.append(env)
        self.state = state
        if self._moves is not None:
            self._moves = kept


def replay_log(game, header, seed, envelopes, upto=None):
    """Replay ``envelopes`` (verified, in order) from a fresh game; return the LogReplay.

    Raises TableError / IllegalMove (with ``seq`` set on the exception) at the first entry
    that may not be made.
    """
    replay = LogReplay(game, header, seed)
    for env in envelopes[:upto]:
        try:
            replay.step(env)
        except IllegalMove as exc:
            exc.seq = env["seq"]
            raise
    return replay
