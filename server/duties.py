"""Who owes a move, since when, and until when (deadlines in UTC).

Maintained inside the append transaction: a seat that newly owes a move
gets a duty (and, through the notifier, a notice); a seat that moved and
still owes gets a fresh deadline; a seat that no longer owes loses its duty.
"""

from datetime import timedelta

from .clock import now
from .extensions import db
from .models import Duty, Player


def deadline_for(game, player_id, start):
    if not game.move_hours:
        return None
    due = start + timedelta(hours=game.move_hours)
    player = db.session.get(Player, player_id)
    if player is not None and player.vacation_until and player.vacation_until > start:
        due += player.vacation_until - start
    return due


def refresh(game, to_act, mover, seq, over=False):
    """Bring the game's duties in line with ``to_act`` after move ``seq`` by ``mover``."""
    owners = {s.seat: s.player_id for s in game.seats}
    existing = {d.seat: d for d in db.session.execute(
        db.select(Duty).filter_by(game_id=game.id)).scalars()}
    current = now()
    for seat, duty in existing.items():
        if over or seat not in to_act:
            db.session.delete(duty)
    if over:
        return
    for seat in to_act:
        duty = existing.get(seat)
        if duty is None:
            db.session.add(Duty(game_id=game.id, seat=seat, player_id=owners[seat],
                                since_seq=seq, due_at=deadline_for(game, owners[seat], current),
                                reminded=False, notified=False))
        elif seat == mover:
            duty.due_at = deadline_for(game, owners[seat], current)
            duty.reminded = False


def deadlines(game_id, seats):
    """{seat: due_at or None} for the given seats that owe a move."""
    rows = db.session.execute(db.select(Duty).filter(Duty.game_id == game_id,
                                                     Duty.seat.in_(seats))).scalars()
    return {d.seat: d.due_at for d in rows}
