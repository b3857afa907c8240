"""Table talk in the service: signed messages, who may read them, mutes, their notices.

A message (``shared/messages.py``) is signed by the sending seat's player and stored here,
apart from the move log.  The one rule of reading: a message to the whole table is public
(every seat, spectators, the archive); a private one (``to`` a seat) is read only by the
players of its sending and receiving seats, in every answer: the message list, the page,
notices, webhooks and the archive.  :func:`readable` is the only query that picks messages
for a reader; everything that shows messages goes through it.

A player may mute another player (:func:`set_mute`): the muted player's messages are left
out of what the muting player reads (the list, the page, notices), never out of the record.
"""


from sqlalchemy import or_
from sqlalchemy.exc import IntegrityError

from shared.envelope import EnvelopeError, canonical_json
from shared.messages import DocumentError, document_hash, printable, read_message

from ..db import db
from ..db.models import Game, Message, Mute, Player
from .domain import Conflict, Forbidden, Malformed, NotFound, Refused

#: messages one seat may write in one game (the archive carries them all)
MAX_PER_SEAT = 1000
#: messages a turn notice repeats (the newest the reader has not seen in a notice)
IN_NOTICE = 5


# --- reading -----------------------------------------------------------------------------------

def seats_of(game, player):
    """The seats ``player`` holds in ``game`` ([] for None or a spectator)."""
    if player is None:
        return []
    return [s.seat for s in game.seats if s.player_id == player.id]


def muted_ids(player):
    if player is None:
        return set()
    return set(db.session.execute(db.select(Mute.muted_id)
                                  .filter_by(player_id=player.id)).scalars())


def last_readable(game, player):
    """The id of the newest message ``player`` (None: a spectator) reads on the game's page
    (0 when none): part of the page's ETag, so that its talk follows (server/web/pages.py)."""
    if game.status == "open":
        return 0
    return db.session.execute(_readable_query(game, player, db.func.max(Message.id)))\
        .scalar_one() or 0


def _readable_query(game, player, what, muting=True):
    seats = seats_of(game, player)
    what = what if isinstance(what, tuple) else (what,)
    query = db.select(*what).filter(Message.game_id == game.id)
    if seats:
        query = query.filter(or_(Message.to_seat.is_(None), Message.seat.in_(seats),
                                 Message.to_seat.in_(seats)))
    else:
        query = query.filter(Message.to_seat.is_(None))
    muted = muted_ids(player) if muting else set()
    if muted:
        query = query.filter(or_(Message.player_id.not_in(muted),
                                 Message.player_id == player.id))
    return query


def readable(game, player, since=0, muting=True, limit=None):
    """The messages of ``game`` that ``player`` (None: a spectator) may read, oldest first,
    each with its ``number`` for this reader; ``since``: only those numbered above it.

    Public messages, and private ones to or from a seat the player holds; with ``muting``
    (not for the archive), without the messages of players they muted (their own always).

    A message's number is its place among the messages of the game this reader may read
    (mutes aside: muting leaves numbers as they are), 1 for the first.  The table's own ids
    count every message of the game, in every audience: a third seat saw a gap in them where
    two others wrote privately, and when.  Numbers count only what the reader reads, and grow
    as messages come, so ``since`` is a cursor as the ids were.  (A player who gives up a
    seat, to a bot, stops reading its private messages, and their numbers move down.)
    """
    numbered = _readable_query(game, player, (Message.id.label("mid"), db.func.row_number()
                                              .over(order_by=Message.id).label("number")),
                               muting=False).subquery()
    query = db.select(Message, numbered.c.number).join(numbered, Message.id == numbered.c.mid)\
        .filter(numbered.c.number > since).order_by(Message.id)
    muted = muted_ids(player) if muting else set()
    if muted:
        query = query.filter(or_(Message.player_id.not_in(muted),
                                 Message.player_id == player.id))
    if limit:
        query = query.limit(limit)
    rows = []
    for message, number in db.session.execute(query).all():
        message.number = number
        rows.append(message)
    return rows


def number_for(message, player):
    """``message``'s number for ``player``, its writer (see :func:`readable`)."""
    game = db.session.get(Game, message.game_id)
    message.number = db.session.execute(_readable_query(
        game, player, db.func.count(Message.id), muting=False)
        .filter(Message.id <= message.id)).scalar_one()
    return message


def message_json(m, names=None):
    """A message as the API, the page and ``pbem log`` show it (``names``: {player id: name})."""
    return {"id": m.number, "at": m.at, "seat": m.seat, "to": m.to_seat, "text": m.text,
            "player": (names or {}).get(m.player_id), "hash": m.hash,
            "document": {"body": _body(m), "signature": m.signature},
            "created_at": m.created_at}


def _body(m):
    import json
    return json.loads(m.body)


def names_for(messages):
    ids = {m.player_id for m in messages}
    if not ids:
        return {}
    return dict(db.session.execute(db.select(Player.id, Player.name)
                                   .where(Player.id.in_(ids))).all())


def documents(game, player):
    """The signed messages of ``game``'s archive for ``player``: what they may read (mutes
    do not apply to the record)."""
    return [{"body": _body(m), "signature": m.signature}
            for m in readable(game, player, muting=False)]


# --- writing -------------------------------------------------------------------------------------

#: side-document faults that are about who signed (403), not about the document's shape (422)
FORBIDDEN_FAULTS = ("bad_signature", "unknown_seat", "bad_delegation", "delegation_expired",
                    "device_revoked")


def table_keys(game):
    """The keys a side document of ``game`` written now is checked with: the table state's at
    the head (seat keys after ``@rotate`` entries, device keys revoked by ``@revoke``), as a
    ``shared.messages.KeyHistory``."""
    from shared.messages import KeyHistory

    from ..db.state_cache import load_log
    return KeyHistory.of_table(load_log(game).table)


def device_in_force(body):
    """The server's own checks of a document a device key signed (as for a device's moves):
    its delegation has not ended by the server's clock and the device is not revoked in the
    registry.  Raises Forbidden."""
    if "delegation" in body:
        from .devicekeys import check_in_force
        check_in_force(body)


def post_message(game, player, doc):
    """Store a signed message of ``player`` in ``game``; returns the Message.

    ``player`` None (an unsigned request, as the game page sends: its browser key signs the
    document, not the request): the document's signature is the proof, as a move's is, and
    the author is the player holding its seat.

    Refuses (DomainError) a game not being played, a document that does not verify under the
    seat's key (Malformed/Forbidden), a seat the player does not hold, a stale ``at``
    (Conflict ``stale_seq``, with the current length), a repeat, and a seat past its cap.
    """
    if game.status == "open":
        raise Conflict("not_started", f"game {game.id} has not started: there is no table yet")
    if game.status == "over":
        raise Conflict("game_over", f"game {game.id} is over: its table talk is closed")
    length = game.head_seq + 1
    try:
        body = read_message(doc, table_keys(game), game.id)
    except DocumentError as exc:
        kind = Forbidden if exc.code in FORBIDDEN_FAULTS else Malformed
        raise kind(exc.code, exc.message) from None
    except (EnvelopeError, RecursionError, ValueError) as exc:
        raise Malformed("bad_document", "the message cannot be read as canonical JSON "
                        f"({getattr(exc, 'message', 'bad value')})") from None
    if player is None:  # the seat's key (or its player's device) signed: its player writes
        holder = next((s.player_id for s in game.seats if s.seat == body["seat"]), None)
        player = db.session.get(Player, holder) if holder is not None else None
    if player is None or body["seat"] not in seats_of(game, player):
        raise Forbidden("not_your_seat", f"you do not hold seat {body['seat']!r} in game "
                        f"{game.id}")
    if body["at"] != length:
        raise Conflict("stale_seq", f"the game has moved on: write the message at seq {length}",
                       {"seq": length})
    device_in_force(body)
    count = db.session.execute(db.select(db.func.count(Message.id)).filter_by(
        game_id=game.id, seat=body["seat"])).scalar_one()
    if count >= MAX_PER_SEAT:
        raise Refused("too_many_messages", f"seat {body['seat']} has written {MAX_PER_SEAT} "
                      f"messages in game {game.id}, the most one seat may write")
    digest = document_hash(body)
    message = Message(game_id=game.id, seat=body["seat"], player_id=player.id,
                      to_seat=body["to"], at=body["at"], text=body["text"],
                      body=canonical_json(body).decode("utf-8"), signature=doc["signature"],
                      hash=digest)
    db.session.add(message)
    try:
        db.session.flush()
    except IntegrityError:
        db.session.rollback()
        raise Conflict("duplicate_message", "this message was already posted") from None
    _notify(game, player, message)
    db.session.commit()
    return number_for(message, player)


def set_mute(player, name, mute=True):
    """Mute (or unmute) the player called ``name`` for ``player``; returns the other Player."""
    other = db.session.execute(db.select(Player).filter_by(name=name)).scalar_one_or_none()
    if other is None:
        raise NotFound("unknown_player", f"no player is registered as {name[:40]!r}")
    if other.id == player.id:
        raise Refused("mute_self", "you cannot mute yourself")
    row = db.session.execute(db.select(Mute).filter_by(player_id=player.id, muted_id=other.id)) \
        .scalar_one_or_none()
    if mute and row is None:
        db.session.add(Mute(player_id=player.id, muted_id=other.id))
    elif not mute and row is not None:
        db.session.delete(row)
    try:
        db.session.commit()
    except IntegrityError:  # the same mute, twice at once
        db.session.rollback()
    return other


def muted_names(player):
    ids = muted_ids(player)
    if not ids:
        return []
    return sorted(db.session.execute(db.select(Player.name).where(Player.id.in_(ids)))
                  .scalars())


# --- notices ------------------------------------------------------------------------------

def _readers(game, message):
    """{player id: [seats]} of the players who may read ``message``, but its sender."""
    out = {}
    for s in game.seats:
        if s.player_id is None or s.player_id == message.player_id:
            continue
        if message.to_seat is None or s.seat == message.to_seat:
            out.setdefault(s.player_id, []).append(s.seat)
    return out


def message_line(m, sender=None):
    """One escaped line: ``red (ann) to blue: text`` (newlines shown as \\n)."""
    who = f"{m.seat} ({sender})" if sender else m.seat
    to = f" to {m.to_seat} only" if m.to_seat else ""
    return printable(f"[at {m.at}] {who}{to}: ") + printable(m.text)


def _notify(game, sender, message):
    """A "talk" notice to every player who may read ``message`` and has not muted its
    sender (a digest player reads it in the digest)."""
    from shared.games import get_game

    from ..workers.outbox import enqueue
    readers = _readers(game, message)
    if not readers:
        return
    muting = set(db.session.execute(db.select(Mute.player_id).filter(
        Mute.muted_id == sender.id, Mute.player_id.in_(list(readers)))).scalars())
    title = get_game(game.type).title
    line = message_line(message, sender.name)
    private = " (only you)" if message.to_seat else ""
    for pid in readers:
        if pid in muting:
            continue
        player = db.session.get(Player, pid)
        subject = f"[pbem] {title} {game.id}: a message from {message.seat}{private}"
        body = "\n".join([f"{title} - game {game.id}: table talk", "", line, "",
                          f"Answer with: pbem say {game.id} 'TEXT'"
                          + (f" --to {message.seat}" if message.to_seat else ""), ""])
        enqueue(player, game.id, "talk", printable(subject)[:200], body,
                {"event": "talk", "game": game.id, "from": message.seat,
                 "to": message.to_seat, "at": message.at, "text": message.text})


def notice_lines(game, player, limit=IN_NOTICE):
    """The last ``limit`` messages ``player`` may read in ``game``, as escaped lines (for the
    turn notices); [] when there are none."""
    rows = readable(game, player)
    rows = rows[-limit:]
    names = names_for(rows)
    return [message_line(m, names.get(m.player_id)) for m in rows]

