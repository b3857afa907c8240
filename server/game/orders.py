"""Standing orders in the service: stored secret, carried out by the server, cancelled.

An order (``shared/orders.py``) is signed by its seat's player and kept here, apart from the
log and secret from the other seats while the game runs: only its own player lists it
(:func:`own_orders`), and the archive carries a seat's orders to that seat's player only,
until the game is over (then every order, so that anyone can verify the entries they made).

The server carries an order out by appending its reply as a server-signed forced entry whose
envelope names the order (``"order": <hash>``), through the one append path.  That happens

* right after any entry is appended (``server/game/append.py`` calls :func:`after_append`): the
  move that makes the situation is answered at once;
* when the order is written (the situation may already hold);
* in the notice worker's pass (``server/workers/notify.py`` ``tick``, a
  ``server/workers/loop.py`` loop):
  :func:`sweep`, the fallback for anything the two above missed (a lost race, a crash).

Several processes may try at once: each builds its entry on the head it read, and the log's
seq/prev check lets one of them append it.  Reading the head *before* the orders keeps a
cancellation safe: a cancellation written at log length ``c`` (checked under the head's row
lock) lets the order make entry ``c`` at most, and a worker that read a head past ``c`` reads
the cancellation too.
"""

import logging
import secrets

from sqlalchemy import bindparam, update
from sqlalchemy.exc import IntegrityError

from shared import IllegalMove
from shared.envelope import EnvelopeError, canonical_json, make_envelope, sign_envelope
from shared.games import get_game
from shared.messages import DocumentError, document_hash
from shared.orders import (
    OrderError,
    conditional,
    describe,
    format_order,
    parse_order,
    read_order_document,
    reply,
    revocable,
)

from ..clock import now_ts
from ..db import db
from ..db.keys import server_key
from ..db.models import Game, Move, StandingOrder
from ..db.prepared import Prepared
from ..db.writelock import write_lock
from . import hooks
from .domain import Conflict, DomainError, Forbidden, Malformed, NotFound, Refused

log = logging.getLogger("pbem.orders")

#: orders one seat may have in force in one game
MAX_ACTIVE = 20
#: entries one call plays for orders before it stops (orders answering orders)
MAX_CHAIN = 50
#: entries of the log before the newest that a reply looks at (``roll`` needs the last one)
_RECENT = 20


# --- writing ---------------------------------------------------------------------------------

def _read(game, player, doc, kind):
    """The checked body of a signed order document of ``kind`` for ``player``'s seat."""
    if game.status == "open":
        raise Conflict("not_started", f"game {game.id} has not started yet")
    if game.status == "over":
        raise Conflict("game_over", f"game {game.id} is over")
    from .talk import FORBIDDEN_FAULTS, device_in_force, table_keys
    try:
        body = read_order_document(doc, table_keys(game), game.id)
    except DocumentError as exc:
        forbidden = exc.code in FORBIDDEN_FAULTS
        raise (Forbidden if forbidden else Malformed)(exc.code, exc.message) from None
    except (EnvelopeError, RecursionError, ValueError) as exc:
        raise Malformed("bad_document", "the order cannot be read as canonical JSON "
                        f"({getattr(exc, 'message', 'bad value')})") from None
    if body["kind"] != kind:
        raise Malformed("bad_document", f"this endpoint takes a document of kind {kind!r}")
    if not any(s.seat == body["seat"] and s.player_id == player.id for s in game.seats):
        raise Forbidden("not_your_seat", f"you do not hold seat {body['seat']!r} in game "
                        f"{game.id}")
    length = game.head_seq + 1
    if body["at"] != length:
        raise Conflict("stale_seq", f"the game has moved on: write it at seq {length}",
                       {"seq": length})
    device_in_force(body)
    return body


def post_order(game, player, doc):
    """Store a signed standing order; carry it out at once if its situation holds.

    Returns (StandingOrder, entries played for orders now).  Raises a DomainError: the game
    not running, a bad or foreign document, a stale ``at``, an order the game cannot carry
    out (Refused ``bad_order``/``unsupported_order``), too many orders in force.
    """
    body = _read(game, player, doc, "order")
    try:
        order = parse_order(get_game(game.type), body["text"])
    except OrderError as exc:
        raise Refused(exc.code, exc.message) from None
    active = db.session.execute(db.select(db.func.count(StandingOrder.id)).filter_by(
        game_id=game.id, seat=body["seat"], done=False)).scalar_one()
    if active >= MAX_ACTIVE:
        raise Refused("too_many_orders", f"seat {body['seat']} has {MAX_ACTIVE} orders in "
                      "force, the most it may have: cancel one first")
    row = StandingOrder(game_id=game.id, seat=body["seat"], player_id=player.id,
                        at=body["at"], text=format_order(order),
                        body=canonical_json(body).decode("utf-8"),
                        signature=doc["signature"], hash=document_hash(body))
    db.session.add(row)
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        raise Conflict("duplicate_order", "this order was already written") from None
    return row, play_due(game.id)


def cancel_order(game, player, doc):
    """Store a signed cancellation of one of the caller's orders; returns the order row.

    The cancellation's ``at`` must be the log's length while its row is written: the head's
    row is held (a conditional update that changes nothing) so that no entry is appended
    between the check and the write.
    """
    body = _read(game, player, doc, "cancel")
    row = db.session.execute(db.select(StandingOrder).filter_by(
        game_id=game.id, hash=body["order"])).scalar_one_or_none()
    if row is None or row.seat != body["seat"]:
        raise NotFound("unknown_order", f"seat {body['seat']} has no order {body['order'][:12]}"
                       f"... in game {game.id}")
    if row.cancelled_at is not None:
        raise Conflict("already_cancelled", "that order is already cancelled")
    with write_lock():
        held = db.session.execute(update(Game).where(Game.id == game.id,
                                                     Game.head_seq == body["at"] - 1)
                                  .values(head_seq=Game.head_seq))
        if held.rowcount != 1:
            db.session.rollback()
            raise Conflict("stale_seq", "the game moved on while the order was cancelled; "
                           "fetch it and retry", {"seq": None})
        done = db.session.execute(update(StandingOrder).where(
            StandingOrder.id == row.id, StandingOrder.cancelled_at.is_(None)).values(
            cancel_body=canonical_json(body).decode("utf-8"),
            cancel_signature=doc["signature"], cancelled_at=body["at"], done=True))
        if done.rowcount != 1:
            db.session.rollback()
            raise Conflict("already_cancelled", "that order is already cancelled")
        db.session.commit()
    db.session.refresh(row)
    return row


# --- reading ---------------------------------------------------------------------------------

def order_json(row, game_def):
    """An order as its own player reads it (``pbem orders``)."""
    try:
        meaning = describe(parse_order(game_def, row.text))
    except OrderError:
        meaning = None
    return {"id": row.id, "hash": row.hash, "seat": row.seat, "at": row.at, "text": row.text,
            "meaning": meaning,
            "status": "cancelled" if row.cancelled_at is not None else
            ("done" if row.done else "in force"),
            "cancelled_at": row.cancelled_at, "played": row.played,
            "created_at": row.created_at}


def own_orders(game, player):
    """The orders of the seats ``player`` holds in ``game`` (nobody else's), oldest first."""
    seats = [s.seat for s in game.seats if player is not None and s.player_id == player.id]
    if not seats:
        return []
    return list(db.session.execute(db.select(StandingOrder).filter(
        StandingOrder.game_id == game.id, StandingOrder.seat.in_(seats))
        .order_by(StandingOrder.id)).scalars())


def documents(game, player):
    """The signed orders and cancellations an archive of ``game`` carries for ``player``:
    every seat's once the game is over, else the player's own seats' only (orders are
    secret while the game runs).  Each cancellation follows the orders, as OrderBook reads."""
    if game.status == "over":
        rows = list(db.session.execute(db.select(StandingOrder).filter_by(game_id=game.id)
                                       .order_by(StandingOrder.id)).scalars())
    else:
        rows = own_orders(game, player)
    import json
    out = [{"body": json.loads(r.body), "signature": r.signature} for r in rows]
    out += [{"body": json.loads(r.cancel_body), "signature": r.cancel_signature}
            for r in rows if r.cancel_body is not None]
    return out


# --- carrying out ----------------------------------------------------------------------------

def _history(game_id, start, end):
    """The log's entries ``start`` .. ``end`` - 1 as light envelopes (seq, seat, move)."""
    t = Move.__table__
    rows = db.session.execute(db.select(t.c.seq, t.c.seat, t.c.move).where(
        t.c.game_id == game_id, t.c.seq >= start, t.c.seq < end).order_by(t.c.seq)).all()
    return [{"seq": r.seq, "seat": r.seat, "move": r.move} for r in rows]


def _in_force(game_id, length):
    """Orders that may make entry ``length`` (not done; written at or before it)."""
    return list(db.session.execute(db.select(StandingOrder).filter(
        StandingOrder.game_id == game_id, StandingOrder.done.is_(False),
        StandingOrder.at <= length).order_by(StandingOrder.id)).scalars())


def _next(game, game_def, log, rows, length):
    """(order row, move, Order) of the first order whose reply holds now, or None; marks
    one-shot orders whose moment passed as done.  ``log``: the game's LogReplay at the head
    (the rules' state and the table state: a pending takeback, the moves taken back)."""
    state, table = log.state, log.table
    to_act = log.to_act() or []
    start = min([length - _RECENT] + [r.at for r in rows if r.text.startswith("if ")])
    history = _history(game.id, max(0, start), length)
    from shared.table import revoked_for

    from .revocation import signed_by
    for row in rows:
        if table["revoked"] and signed_by(row, revoked_for(table, row.seat)):
            row.done = True  # its device was revoked (@revoke): the orders it signed end
            continue
        try:
            order = parse_order(game_def, row.text)
        except OrderError:
            row.done = True  # a rules change made it unreadable: it can never be carried out
            continue
        where = None
        if order.kind == "if":
            # its next move that stands (shared/orders.py, "Orders and takebacks")
            where = conditional(game_def, row.seat, order, row.at, history, table)
            if where == "spent":
                row.done = True  # its next move came, was another one, and stands for good
                continue
        move = reply(game_def, state, row.seat, order, row.at, history, table) \
            if row.seat in to_act else None
        if move is not None:
            return row, move, order
        if where == "due" and not table["pending"] and not _still_revocable(table, history,
                                                                             row):
            row.done = True  # its move came and stands, and the reply cannot be played: spent
    return None


def _still_revocable(table, history, row):
    """True when the move an ``if`` order of ``row`` answers may still be taken back (then
    the order waits: that move may not stand)."""
    after = [e for e in history if e["seq"] >= row.at and e["seat"] != row.seat
             and not e["move"].startswith("@") and e["seq"] not in table["taken_back"]]
    return bool(after) and revocable(table, after[0]["seq"])


#: the orders that make one entry at most (shared/orders.py)
ONE_SHOT = ("if", "accept_takeback")


def _carried_out(game_id, digest):
    """True when an entry of ``game_id``'s log already names order ``digest``."""
    return db.session.execute(db.select(Move.seq).where(
        Move.game_id == game_id, Move.forced.is_(True),
        Move.envelope.contains(f'"order":"{digest}"')).limit(1)).first() is not None


def play_due(game_id, limit=MAX_CHAIN):
    """Carry out every order of ``game_id`` whose situation holds, one entry at a time
    (an entry may make another order's situation).  Returns the number of entries played."""
    from ..db.state_cache import load_log
    from .append import append_move
    played = 0
    for _ in range(limit):
        db.session.expire_all()
        game = db.session.get(Game, game_id)
        if game is None or game.status != "playing":
            break
        length = game.head_seq + 1          # the head first, then the orders (see above)
        rows = _in_force(game.id, length)
        if not rows:
            break
        game_def = get_game(game.type)
        found = _next(game, game_def, load_log(game), rows, length)
        db.session.commit()                 # the orders marked done
        if found is None:
            break
        row, move, order = found
        if order.kind in ONE_SHOT and _carried_out(game.id, row.hash):
            # another process played it and has not marked it yet: once is once
            db.session.execute(update(StandingOrder).where(StandingOrder.id == row.id)
                               .values(done=True))
            db.session.commit()
            continue
        env = make_envelope(game.id, length, game.head_hash, row.seat, move,
                            secrets.token_hex(12), now_ts(), forced=True, order=row.hash)
        text, sig = sign_envelope(server_key()[0], env)
        try:
            append_move(game.id, text, sig, forced=True)
        except DomainError as exc:  # another worker or a player got there first
            db.session.rollback()
            log.info("order %s in %s not carried out: %s", row.hash[:12], game.id, exc.message)
            continue
        values = {"played": StandingOrder.played + 1}
        if order.kind in ONE_SHOT:
            values["done"] = True  # a conditional reply, or the next takeback's yes: once
        db.session.execute(update(StandingOrder).where(StandingOrder.id == row.id)
                           .values(**values))
        db.session.commit()
        played += 1
    return played


def after_append(game_id):
    """Called by the append path after any entry that no order made: carry out the orders
    its move calls for.  Never raises (the move itself is already in the log)."""
    try:
        if db.session.execute(db.select(StandingOrder.id).filter_by(
                game_id=game_id, done=False).limit(1)).first() is None:
            return 0
        return play_due(game_id)
    except Exception:  # noqa: BLE001 - a failing order must not fail the move that came first
        db.session.rollback()
        log.exception("standing orders of %s failed after a move", game_id)
        return 0


def sweep():
    """The worker's pass: every running game with an order in force.  Returns entries played."""
    ids = list(db.session.execute(db.select(StandingOrder.game_id).join(
        Game, Game.id == StandingOrder.game_id).filter(
        StandingOrder.done.is_(False), Game.status == "playing").distinct()).scalars())
    played = 0
    for game_id in ids:
        try:
            played += play_due(game_id)
        except IllegalMove:
            db.session.rollback()
            log.exception("standing orders of %s failed", game_id)
    return played


# --- the after-append hooks (server/game/hooks.py) -------------------------------------------

def init_app(app):
    """Register the standing orders' after-append hooks."""
    hooks.after_append(_ended_by_handover_and_in_force, hooks.IN_TRANSACTION)
    hooks.after_append(_carry_out_after_append, hooks.COMMITTED)


_ORDERS_IN_FORCE = []


def _orders_in_force():
    """A prepared ``SELECT`` of one standing order in force in game ``gid``, run in the
    append's transaction: the orders are looked at after the move only when there is one (a
    second transaction for every move cost ~40% of the append)."""
    if not _ORDERS_IN_FORCE:
        t = StandingOrder.__table__
        _ORDERS_IN_FORCE.append(Prepared(db.select(t.c.id).where(
            t.c.game_id == bindparam("gid"), t.c.done.is_(False)).limit(1)))
    return _ORDERS_IN_FORCE[0]


def _ended_by_handover_and_in_force(appended):
    """In the append's transaction: a ``@handover`` ends the leaving player's standing orders
    of that seat; then note (``appended.notes["orders"]``) whether an order is in force in a
    game the entry did not end."""
    if appended.handed_to is not None:
        db.session.execute(update(StandingOrder).where(
            StandingOrder.game_id == appended.game_id, StandingOrder.seat == appended.seat,
            StandingOrder.done.is_(False)).values(done=True))
    if appended.revoked_key is not None:  # the revoked device's orders in this seat end here
        from .revocation import end_orders
        end_orders([appended.revoked_key], appended.game_id, appended.seat)
    appended.notes["orders"] = not appended.over and appended.writer.first(
        _orders_in_force(), {"gid": appended.game_id}) is not None


def _carry_out_after_append(appended):
    """After the commit: the new entry (one no order made) may be what an order waits for."""
    if "order" not in appended.env and appended.notes.get("orders"):
        after_append(appended.game_id)
