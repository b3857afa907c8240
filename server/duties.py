"""Who owes a move, since when, and until when (deadlines in UTC).

Maintained inside the append transaction: a seat that newly owes a move
gets a duty (and, through the notifier, a notice); a seat that moved and
still owes gets a fresh deadline; a seat that no longer owes loses its duty.
Core statements only: this runs on every move.
"""

from datetime import timedelta

from sqlalchemy import delete, insert, update

from .clock import now
from .extensions import db
from .models import Duty, Player

DUTIES = Duty.__table__


def _vacations(player_ids):
    t = Player.__table__
    rows = db.session.execute(db.select(t.c.id, t.c.vacation_until)
                              .where(t.c.id.in_(player_ids)))
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


def deadlines(game_id, seats):
    """{seat: due_at or None} for the given seats that owe a move."""
    rows = db.session.execute(db.select(Duty).filter(Duty.game_id == game_id,
                                                     Duty.seat.in_(seats))).scalars()
    return {d.seat: d.due_at for d in rows}
