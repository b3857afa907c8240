"""Who owes a move, since when, and until when (deadlines in UTC).

Maintained inside the append transaction: a seat that newly owes a move
gets a duty (and, through the notifier, a notice); a seat that moved and
still owes gets a fresh deadline; a seat that no longer owes loses its duty.
Core statements only: this runs on every move.

The duty rows of a playing game are its seats that owe a move (``to_act`` of its latest
state): the game's start writes them (:func:`refresh`) and every append keeps them so
(:func:`after_move`), in the same transaction as the move.
"""

from datetime import timedelta

from sqlalchemy import bindparam, delete, insert, update

from ..clock import now
from ..db import db
from ..db.models import Duty, Player
from ..db.prepared import Prepared

DUTIES = Duty.__table__
# the statements of every move, built once (building one costs more than running it)
_DELETE_ALL = Prepared(delete(DUTIES).where(DUTIES.c.game_id == bindparam("gid")))
_DELETE_OTHERS = delete(DUTIES).where(DUTIES.c.game_id == bindparam("gid"),
                                      DUTIES.c.seat.not_in(bindparam("keep", expanding=True)))
_INSERT = Prepared(insert(DUTIES).inline(), keys=(
    "game_id", "seat", "player_id", "since_seq", "due_at", "reminded", "notified"))
_RENEW = Prepared(update(DUTIES).where(DUTIES.c.game_id == bindparam("gid"),
                                       DUTIES.c.seat == bindparam("who")).values(
    due_at=bindparam("due"), reminded=False))
_PLAYERS = Player.__table__
_VACATIONS = db.select(_PLAYERS.c.id, _PLAYERS.c.vacation_until).where(
    _PLAYERS.c.id.in_(bindparam("ids", expanding=True)))


def _vacations(player_ids):
    rows = db.session.execute(_VACATIONS, {"ids": list(player_ids)})
    return {r.id: r.vacation_until for r in rows}


def deadline_for(move_hours, vacation_until, start):
    if not move_hours:
        return None
    due = start + timedelta(hours=move_hours)
    if vacation_until and vacation_until > start:
        due += vacation_until - start
    return due


def refresh(game, owners, to_act, mover, seq, over=False, reset=False):
    """Bring ``game``'s duties in line with ``to_act`` after move ``seq`` by ``mover``.

    ``owners`` maps each seat to its player id.  ``reset``: what is owed changed in kind (a
    takeback request asked or settled, shared/table.py): every owing seat gets a fresh duty,
    hence a fresh deadline and a new notice.
    """
    if reset:
        db.session.execute(delete(DUTIES).where(DUTIES.c.game_id == game.id))
    existing = {r.seat: r for r in db.session.execute(
        db.select(DUTIES.c.id, DUTIES.c.seat).where(DUTIES.c.game_id == game.id))}
    gone = [r.id for seat, r in existing.items() if over or seat not in to_act]
    if gone:
        db.session.execute(delete(DUTIES).where(DUTIES.c.id.in_(gone)))
    if over:
        return
    fresh = [seat for seat in to_act if seat not in existing]
    renewed = mover if mover in to_act and mover in existing else None
    if not fresh and renewed is None:
        return
    current = now()
    vacations = _vacations([owners[s] for s in fresh + ([renewed] if renewed else [])]) \
        if game.move_hours else {}
    for seat in fresh:
        db.session.execute(insert(DUTIES).values(
            game_id=game.id, seat=seat, player_id=owners[seat], since_seq=seq,
            due_at=deadline_for(game.move_hours, vacations.get(owners[seat]), current),
            reminded=False, notified=False))
    if renewed is not None and game.move_hours:
        db.session.execute(update(DUTIES).where(DUTIES.c.id == existing[renewed].id).values(
            due_at=deadline_for(game.move_hours, vacations.get(owners[renewed]), current),
            reminded=False))


def after_move(writer, game, owners, before, to_act, mover, seq, over=False, reset=False):
    """The duties after move ``seq`` by ``mover``: two statements at most, with no read.

    ``before`` and ``to_act`` are the seats that owed a move before and after it (the duty
    rows before it are ``before``'s, see the module's docstring).  Every row but those of
    the seats that still owe goes (all of them when the game is over, and a stray row
    with them), the seats that newly owe get one, and the mover who still owes gets a
    fresh deadline.  ``writer`` (server/db/prepared.py) runs in the append's transaction.
    ``reset``: what is owed changed in kind (a takeback request asked or settled,
    shared/table.py): every owing seat gets a fresh duty, a fresh deadline and a new notice.
    """
    keep = [] if over or reset else [seat for seat in before if seat in to_act]
    if keep:
        db.session.execute(_DELETE_OTHERS, {"gid": game.id, "keep": keep})
    else:
        writer.run(_DELETE_ALL, {"gid": game.id})
    if over:
        return
    fresh = [seat for seat in to_act if seat not in keep]
    renewed = mover if mover in keep and game.move_hours else None
    if not fresh and renewed is None:
        return
    current = now()
    vacations = _vacations({owners[s] for s in fresh + ([renewed] if renewed else [])}) \
        if game.move_hours else {}
    for seat in fresh:
        writer.run(_INSERT, {
            "game_id": game.id, "seat": seat, "player_id": owners[seat], "since_seq": seq,
            "due_at": deadline_for(game.move_hours, vacations.get(owners[seat]), current),
            "reminded": False, "notified": False})
    if renewed is not None:
        writer.run(_RENEW, {"gid": game.id, "who": renewed, "due": deadline_for(
            game.move_hours, vacations.get(owners[renewed]), current)})


def deadlines(game_id, seats):
    """{seat: due_at or None} for the given seats that owe a move."""
    rows = db.session.execute(db.select(Duty).filter(Duty.game_id == game_id,
                                                     Duty.seat.in_(seats))).scalars()
    return {d.seat: d.due_at for d in rows}
