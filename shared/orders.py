"""Standing orders: signed instructions the server carries out when their situation comes.

A player leaves an order for their seat, in a small language over the game's own notation:

==============================  ===============================================================
order (canonical text)          what the server plays for the seat, and when
==============================  ===============================================================
``decline offers``              ``decline``: whenever the seat owes an answer to a trade offer
``decline greedy offers``       ``decline``: when the offer asks for more cards than it gives
``roll``                        ``roll``: at the start of the seat's turn (the seat may roll
                                and the move before is another seat's)
``discard R1,R2,...``           when the seat must discard N cards: N cards taken from R1 first,
                                then R2 ..., then the resources not named, in the game's order
``accept takeback``             ``@accept takeback``, once: when a takeback request
                                (``shared.table``) is pending and the seat owes it an answer;
                                the first request it answers spends it
``if MOVE then REPLY``          ``REPLY``, once: when the next move by another seat after the
                                order was written *that stands* is ``MOVE``, right after it;
                                any other next move that stands spends the order
==============================  ===============================================================

**Orders and takebacks.**  "Moves" above are rules moves: table entries (``@...``) are never
watched, and a move that was taken back (``table["taken_back"]``) is as if it had never been
played.  So an ``if`` order's *next move* is the first rules move of another seat, at or after
the order's ``at``, that has not been taken back.  While that move may still be taken back (it
is in its seat's takeback window, or a pending request names it) it does not spend the order:
when it is ``MOVE`` and is the last move that stands, the reply is due (and once played, a
forced entry, it closes the window); when it is another move, the order waits, and is spent
only once that move can no longer be taken back (another seat moved, something was revealed).
If it is taken back, the order waits for the move played instead.  ``roll``'s "the move
before" is likewise the last move that stands.  While a takeback request is pending no rules
move may be played, so only ``accept takeback`` replies then.

Which of these a game supports, and what counts as a trade offer or a discard there, is the
game's business: :class:`OrderHooks` reads both from the seat's *view* (a trading game's
view has ``offer`` with the seats that owe an answer, ``discard``/``discards`` and ``hand``),
and a game with other ideas gives its Game object an ``order_hooks`` attribute (an
OrderHooks).  A kind a game has no move for (``decline`` in a game without trading) is refused
when the order is written.  Every reply must also be a legal move at that point.

An order travels as a signed side document (``shared.messages``)::

    {"body": {"kind": "order", "game", "seat", "at", "text", "nonce", "ts"}, "signature"}

signed under :data:`ORDER_DOMAIN` (with the key the table holds for the seat at ``at``, or a
device's key with its delegation in the body: ``shared.messages.read_signed``), and is
withdrawn by a cancellation::

    {"body": {"kind": "cancel", "game", "seat", "at", "order": <order hash>, "nonce", "ts"},
     "signature"}

signed under :data:`CANCEL_DOMAIN`.  An order written at log length ``at`` may produce the
entries ``at``, ``at + 1`` ...; a cancellation written at length ``c`` stops it after entry
``c`` (the entry being played when the player cancelled may still come from it).  The server
plays an order's reply as a server-signed forced entry whose envelope carries ``"order":
<order hash>``; :func:`check_entry` is what the archive verifier asks of each such entry.

Pure: the state and the log before the entry come in; nothing reads a clock.
"""

from collections import namedtuple

from . import IllegalMove
from .messages import (
    DocumentError,
    check_common,
    check_text,
    document_hash,
    read_signed,
    with_delegation,
)

ORDER_DOMAIN = b"pbem-order-v1\n"
CANCEL_DOMAIN = b"pbem-order-cancel-v1\n"
ORDER_FIELDS = ("kind", "game", "seat", "at", "text", "nonce", "ts")
CANCEL_FIELDS = ("kind", "game", "seat", "at", "order", "nonce", "ts")
MAX_ORDER_LENGTH = 300
#: the kinds, in the order ``pbem order --help`` lists them
KINDS = ("decline_offers", "decline_greedy", "roll", "discard", "accept_takeback", "if")
#: the entry an ``accept takeback`` order plays (a table entry: shared/table.py)
TAKEBACK_YES = "@accept takeback"


class OrderError(DocumentError):
    """An order that does not parse, that this game cannot carry out, or an entry that does
    not follow from its order."""

    def __init__(self, message, code="bad_order"):
        super().__init__(message, code)


Order = namedtuple("Order", ("kind", "args"))


# --- the game's side -------------------------------------------------------------------------

class OrderHooks:
    """How the order language sees a game: its moves and situations, read from the seat's view.

    The defaults fit the trading games (Zarahemla, Stone Age); a game overrides what differs
    by setting ``order_hooks`` on its Game object.
    """

    decline_move = "decline"
    roll_move = "roll"

    def offer_terms(self, game, view, seat):
        """(cards the offer gives, cards it asks) of an offer ``seat`` owes an answer to, or
        None when it owes none."""
        offer = view.get("offer")
        if not isinstance(offer, dict):
            return None
        waiting = offer.get("owed", offer.get("waiting")) or []
        if seat not in waiting:
            return None
        return sum((offer.get("give") or {}).values()), sum((offer.get("get") or {}).values())

    def discard_owed(self, game, view, seat):
        """(how many cards ``seat`` must discard, its hand {resource: count}) or None."""
        owed = view.get("discard", view.get("discards"))
        hand = view.get("hand")
        if not isinstance(owed, dict) or not isinstance(hand, dict) or not owed.get(seat):
            return None
        return owed[seat], hand

    def discard_move(self, game, bundle):
        """The discard of ``bundle`` ([(resource, count)] in order) in the game's notation."""
        return "discard " + "+".join(f"{n}{res}" for res, n in bundle if n)

    def resource(self, game, word):
        """The canonical name of resource ``word`` (raises OrderError when it is none)."""
        try:
            text = game.format_move(game.parse_move(f"discard 1{word}"))
        except IllegalMove:
            raise OrderError(f"{word[:20]!r} is not a resource {game.name} players discard") \
                from None
        return text[len("discard 1"):]

    def supports(self, game, kind):
        """True when ``game`` has the move an order of ``kind`` plays."""
        probe = {"decline_offers": self.decline_move, "decline_greedy": self.decline_move,
                 "roll": self.roll_move}.get(kind)
        if probe is None:
            return True
        try:
            game.parse_move(probe)
        except IllegalMove:
            return False
        return True


DEFAULT_HOOKS = OrderHooks()


def hooks_for(game):
    return getattr(game, "order_hooks", None) or DEFAULT_HOOKS


# --- the language ----------------------------------------------------------------------------

def _canonical_move(game, text, what):
    text = text.strip()
    if not text or text.startswith("@"):
        raise OrderError(f"{what} is not a move in {game.name}'s notation")
    try:
        return game.format_move(game.parse_move(text))
    except IllegalMove as exc:
        raise OrderError(f"{what} {text[:40]!r} is not a move: {exc.message}") from None


def parse_order(game, text):
    """The :class:`Order` that ``text`` writes for ``game``; raises OrderError.

    >>> from shared.games import get_game
    >>> parse_order(get_game("zarahemla"), "discard stones, wheat")
    Order(kind='discard', args=('stone', 'wheat'))
    """
    if not isinstance(text, str):
        raise OrderError("an order is text")
    words = text.split()
    low = [w.lower() for w in words]
    hooks = hooks_for(game)
    if low == ["decline", "offers"]:
        order = Order("decline_offers", ())
    elif low == ["decline", "greedy", "offers"]:
        order = Order("decline_greedy", ())
    elif low == ["roll"]:
        order = Order("roll", ())
    elif low[:1] == ["discard"] and len(words) > 1:
        names = [w for w in " ".join(words[1:]).replace(",", " ").split() if w]
        order = Order("discard", tuple(hooks.resource(game, w) for w in names))
        if len(set(order.args)) != len(order.args):
            raise OrderError("a discard order names each resource once")
    elif low in (["accept", "takeback"], ["accept", "takebacks"],
                 ["accept", "next", "takeback"], ["accept", "the", "next", "takeback"]):
        order = Order("accept_takeback", ())
    elif low[:1] == ["if"] and "then" in low[1:]:
        cut = low.index("then", 1)
        move = _canonical_move(game, " ".join(words[1:cut]), "the move after if")
        reply = _canonical_move(game, " ".join(words[cut + 1:]), "the reply after then")
        order = Order("if", (move, reply))
    else:
        raise OrderError(f"{text[:60]!r} is not an order: write decline offers, decline greedy "
                         "offers, roll, discard R1,R2,..., accept takeback or if MOVE then REPLY")
    if not hooks.supports(game, order.kind):
        what = {"roll": "roll", "decline_offers": "trade offers",
                "decline_greedy": "trade offers"}[order.kind]
        raise OrderError(f"{game.name} has no {what}: this order cannot apply to it",
                         "unsupported_order")
    return order


def format_order(order):
    """The canonical text of an Order (``parse_order`` reads it back)."""
    if order.kind == "decline_offers":
        return "decline offers"
    if order.kind == "decline_greedy":
        return "decline greedy offers"
    if order.kind == "roll":
        return "roll"
    if order.kind == "discard":
        return "discard " + ",".join(order.args)
    if order.kind == "accept_takeback":
        return "accept takeback"
    return f"if {order.args[0]} then {order.args[1]}"


def describe(order):
    """One sentence on what an order does."""
    return {"decline_offers": "decline every trade offer made to this seat",
            "decline_greedy": "decline every trade offer that asks for more cards than it gives",
            "roll": "roll at the start of this seat's turn",
            "accept_takeback": "once: accept the next takeback request this seat must answer",
            }.get(order.kind) or (
        f"when this seat must discard, discard {', '.join(order.args)} first"
        if order.kind == "discard" else
        f"once: if the next move of another seat is '{order.args[0]}', reply "
        f"'{order.args[1]}'")


# --- documents -------------------------------------------------------------------------------

def validate_order(body):
    """Check an order body's shape (not its text against a game: see :func:`parse_order`)."""
    check_common(body, ORDER_FIELDS, "the order")
    if body["kind"] != "order":
        raise DocumentError("the order's kind must be \"order\"")
    check_text(body["text"], MAX_ORDER_LENGTH, "the order", newlines=False)
    return body


def validate_cancel(body):
    check_common(body, CANCEL_FIELDS, "the cancellation")
    if body["kind"] != "cancel":
        raise DocumentError("the cancellation's kind must be \"cancel\"")
    if not isinstance(body["order"], str) or len(body["order"]) != 64:
        raise DocumentError("the cancellation's order must be an order's hash (64 hex digits)")
    return body


ORDER_VALIDATORS = {"order": (validate_order, ORDER_DOMAIN),
                    "cancel": (validate_cancel, CANCEL_DOMAIN)}


def make_order(game, seat, at, text, nonce, ts, delegation=None):
    """A checked order body; ``delegation`` when a device key signs it."""
    return validate_order(with_delegation({"kind": "order", "game": game, "seat": seat,
                                           "at": at, "text": text, "nonce": nonce, "ts": ts},
                                          delegation))


def make_cancel(game, seat, at, order_hash, nonce, ts, delegation=None):
    """A checked cancellation body; ``delegation`` when a device key signs it."""
    return validate_cancel(with_delegation({"kind": "cancel", "game": game, "seat": seat,
                                            "at": at, "order": order_hash, "nonce": nonce,
                                            "ts": ts}, delegation))


def read_order_document(doc, seat_keys, game_id=None, length=None, what="the order"):
    """:func:`shared.messages.read_signed` for an order or a cancellation."""
    return read_signed(doc, ORDER_VALIDATORS, seat_keys, game_id, length, what)


class OrderBook:
    """The orders of one game (checked signed documents) and their cancellations.

    ``OrderBook(documents, seat_keys, game, game_id, length)`` reads every document (an order,
    or a cancellation naming an order of the same seat given before it in the list) and
    raises OrderError/DocumentError naming the first bad one.
    """

    def __init__(self, documents, seat_keys, game, game_id=None, length=None):
        if not isinstance(documents, list):
            raise OrderError("the orders are not a list")
        self.orders = {}      # hash -> (body, Order)
        self.cancelled = {}   # hash -> at of its cancellation
        for i, doc in enumerate(documents):
            what = f"order document {i}"
            body = read_order_document(doc, seat_keys, game_id, length, what)
            digest = document_hash(body)
            if body["kind"] == "order":
                if digest in self.orders:
                    raise OrderError(f"{what} appears twice")
                try:
                    order = parse_order(game, body["text"])
                except OrderError as exc:
                    raise OrderError(f"{what}: {exc.message}", exc.code) from None
                self.orders[digest] = (body, order)
            else:
                target = self.orders.get(body["order"])
                if target is None or target[0]["seat"] != body["seat"]:
                    raise OrderError(f"{what} cancels an order of its seat that is not before "
                                     "it in the archive")
                if body["order"] in self.cancelled or body["at"] < target[0]["at"]:
                    raise OrderError(f"{what} cancels its order twice, or before it was written")
                self.cancelled[body["order"]] = body["at"]

    def active(self, digest, seq):
        """True when order ``digest`` may produce entry ``seq``."""
        body = self.orders[digest][0]
        stop = self.cancelled.get(digest)
        return body["at"] <= seq and (stop is None or seq <= stop)


# --- carrying out ----------------------------------------------------------------------------

def _past(history):
    """The log before this point without table entries (``@...``), which no order watches."""
    return [env for env in history if not str(env.get("move", "")).startswith("@")]


def _standing(history, table):
    """The rules moves of ``history`` that stand: not table entries, not taken back."""
    gone = set((table or {}).get("taken_back") or ())
    return [env for env in _past(history) if env["seq"] not in gone]


def revocable(table, seq):
    """True when entry ``seq`` may still be taken back: it is in its seat's takeback window,
    or a pending request names it (``table``: shared.table's state; None: never)."""
    if not table:
        return False
    pending = table.get("pending")
    if pending and seq in pending["moves"]:
        return True
    return seq in ((table.get("window") or {}).get("seqs") or ())


def conditional(game, seat, order, at, history, table=None):
    """Where an ``if MOVE then REPLY`` order of ``seat`` written at ``at`` stands now:
    ``"waiting"`` (its next move that stands has not come, or may still be taken back and is
    not due), ``"due"`` (its next move that stands is ``MOVE`` and the last move that stands:
    the reply follows now) or ``"spent"`` (its next move was another one and stands for good).
    See "Orders and takebacks" above."""
    past = _standing(history, table)
    after = [env for env in past if env["seq"] >= at and env["seat"] != seat]
    if not after:
        return "waiting"
    first = after[0]
    if first is past[-1] and same_move(game, first["move"], order.args[0]):
        return "due"
    return "waiting" if revocable(table, first["seq"]) else "spent"


def reply(game, state, seat, order, at, history, table=None):
    """The move ``order`` (an Order written at log length ``at`` for ``seat``) plays now, in
    canonical notation, or None when its situation does not hold or the move is not legal.

    ``state`` is the rules' state before the entry; ``history`` the log's envelopes before it
    (dicts with ``seq``, ``seat``, ``move``), in order; ``table`` the table state there
    (``shared.table.LogReplay.table``: the pending takeback request, the moves taken back;
    None for a log without table entries).
    """
    pending = (table or {}).get("pending")
    if order.kind == "accept_takeback":
        return TAKEBACK_YES if pending and seat in pending["owed"] else None
    if pending or seat not in game.to_act(state):
        return None
    hooks = hooks_for(game)
    move = None
    if order.kind in ("decline_offers", "decline_greedy"):
        terms = hooks.offer_terms(game, game.view(state, seat), seat)
        if terms is not None and (order.kind == "decline_offers" or terms[1] > terms[0]):
            move = hooks.decline_move
    elif order.kind == "roll":
        past = _standing(history, table)
        if not past or past[-1]["seat"] != seat:
            move = hooks.roll_move
    elif order.kind == "discard":
        owed = hooks.discard_owed(game, game.view(state, seat), seat)
        if owed is not None:
            need, hand = owed
            names = list(order.args) + [r for r in hand if r not in order.args]
            bundle = []
            for res in names:
                take = min(need, max(0, int(hand.get(res, 0))))
                bundle.append((res, take))
                need -= take
            move = hooks.discard_move(game, bundle) if need == 0 else None
    elif order.kind == "if":
        if conditional(game, seat, order, at, history, table) == "due":
            move = order.args[1]
    if move is None:
        return None
    try:
        game.check(state, seat, move)
        return game.format_move(game.parse_move(move))
    except IllegalMove:
        return None


def same_move(game, a, b):
    """True when texts ``a`` and ``b`` write the same move in ``game``'s notation."""
    try:
        return game.format_move(game.parse_move(a)) == game.format_move(game.parse_move(b))
    except IllegalMove:
        return False


def check_entry(game, state, env, book, history, table=None):
    """Raise OrderError unless entry ``env`` (a forced envelope with ``order``) follows from
    its order in ``book`` (an :class:`OrderBook`): the order is there, is the entry's seat's,
    was written before the entry and not cancelled before it, a one-shot order (``if``,
    ``accept takeback``) made no entry before, its situation held in ``state`` and ``table``
    (the rules' and the table state before the entry) and the entry's move is its reply."""
    digest = env.get("order")
    if digest not in book.orders:
        raise OrderError("claims a standing order that is not in the archive", "unknown_order")
    body, order = book.orders[digest]
    if body["seat"] != env["seat"]:
        raise OrderError(f"claims an order of seat {body['seat']}, not of {env['seat']}",
                         "wrong_order_seat")
    if not book.active(digest, env["seq"]):
        raise OrderError("claims an order that was not in force at that point (written after "
                         "it, or cancelled before it)", "order_not_in_force")
    if order.kind in ("if", "accept_takeback") and any(
            e.get("order") == digest for e in history):
        raise OrderError("claims a one-shot order that an earlier entry already carried out",
                         "order_spent")
    expected = reply(game, state, env["seat"], order, body["at"], history, table)
    if expected is None or not (expected == env["move"] if order.kind == "accept_takeback"
                                else same_move(game, expected, env["move"])):
        raise OrderError(f"does not follow from its order ({format_order(order)!r}): "
                         + ("its situation did not hold" if expected is None
                            else f"the order's reply was {expected!r}"), "order_not_followed")
