"""Time banks: extra hours each seat may spend in the whole game (the header option
``time_bank``, shared/table.py), once a deadline has passed and before the timeout rule acts.

When a seat's deadline passes and its bank is not empty, the notice worker
(server/workers/notify.py) does not force anything: it marks the seat as spending
(``Seat.bank_since``: the deadline that passed) and moves the duty's deadline by what is left
of the bank.  The time spent is charged later, off the append path: a *spell* ends with the
seat's next entry (or, should its duty go otherwise, the game's next entry), and
:func:`settle` adds the spell's length, never more than the bank held, to ``Seat.bank_used``.
A spell that runs until the moved deadline empties the bank, and the timeout rule acts as
without a bank.  :func:`bank_left` reads the same rows, so the bank shown between an entry and
the worker's next pass is already the one :func:`settle` will write.

A spell runs while the seat's duty still has the deadline the bank gave it (``bank_since``
plus what the bank held).  Whatever moves the deadline of a seat that spends (an outage's
grace, server/workers/notify.py; a vacation, server/api/players.py; the table's pause,
server/game/duties.py) moves ``bank_since`` by as much (:func:`shift`), so that the time given
back is not charged to the bank.
"""

from datetime import timedelta

from shared.table import time_bank_hours

from ..clock import now
from ..db import db
from ..db.models import Duty, Move, Seat


def total_seconds(game):
    """The bank each seat of ``game`` starts with, in seconds (0: the game has none)."""
    options = (game.header or {}).get("options") if game.header else game.options
    return time_bank_hours(options) * 3600


def _spell_end(game, seat_row, total):
    """When the seat's running spell ended (a datetime), or None while it runs."""
    since = seat_row.bank_since
    banked_due = since + timedelta(seconds=total - seat_row.bank_used)
    duty = db.session.execute(db.select(Duty.due_at).filter_by(
        game_id=game.id, seat=seat_row.seat)).first()
    if duty is not None and duty.due_at == banked_due and game.status == "playing":
        return None
    first = db.session.execute(
        db.select(Move.received_at).filter(Move.game_id == game.id, Move.seat == seat_row.seat,
                                           Move.received_at >= since)
        .order_by(Move.seq).limit(1)).scalar_one_or_none()
    if first is None:
        first = db.session.execute(
            db.select(Move.received_at).filter(Move.game_id == game.id,
                                               Move.received_at >= since)
            .order_by(Move.seq).limit(1)).scalar_one_or_none()
    return first or game.finished_at or now()


def _spent(seat_row, total, until):
    """Seconds of bank used by ``seat_row`` when its spell is counted ``until``."""
    if seat_row.bank_since is None:
        return seat_row.bank_used
    spell = max(0, int((until - seat_row.bank_since).total_seconds()))
    return min(total, seat_row.bank_used + spell)


def bank_left(game):
    """{seat: seconds of bank left} of ``game`` now, or None for a game without a bank."""
    total = total_seconds(game)
    if not total:
        return None
    current = now()
    out = {}
    for s in game.seats:
        until = current
        if s.bank_since is not None:
            until = _spell_end(game, s, total) or current
        out[s.seat] = max(0, total - _spent(s, total, until))
    return out


def settle(game):
    """Charge every spell of ``game`` that has ended (see the module's docstring)."""
    total = total_seconds(game)
    rows = db.session.execute(db.select(Seat).filter(Seat.game_id == game.id,
                                                     Seat.bank_since.is_not(None))).scalars()
    for row in rows:
        end = _spell_end(game, row, total) if total else now()
        if end is not None:
            row.bank_used, row.bank_since = _spent(row, total, end), None


def draw(game, duty):
    """A deadline of ``game`` passed for ``duty``'s seat: spend from its bank instead of the
    timeout rule when the bank holds time.  True when the deadline was moved (nothing is
    forced now): then the seconds of bank the seat holds, from the deadline that passed.
    0 when the timeout rule acts (no bank, or the bank is spent: a spell that ran to its
    end empties it)."""
    total = total_seconds(game)
    if not total:
        return 0
    row = db.session.execute(db.select(Seat).filter_by(game_id=game.id, seat=duty.seat)) \
        .scalar_one_or_none()
    if row is None:
        return 0
    settle(game)
    if row.bank_since is not None:  # the moved deadline passed: the bank is empty
        row.bank_used, row.bank_since = total, None
        return 0
    left = total - row.bank_used
    if left <= 0:
        return 0
    row.bank_since = duty.due_at
    db.session.execute(db.update(Duty).where(Duty.id == duty.id)
                       .values(due_at=duty.due_at + timedelta(seconds=left)))
    return left


def shown(seconds):
    """A bank left as people read it: ``5h 30m``."""
    minutes = int(seconds) // 60
    return f"{minutes // 60}h {minutes % 60:02d}m"


def shift(game_id, seat, delta):
    """A seat's deadline moved by ``delta`` (a timedelta): its running spell moves with it."""
    row = db.session.execute(db.select(Seat).filter_by(game_id=game_id, seat=seat)) \
        .scalar_one_or_none()
    if row is not None and row.bank_since is not None:
        row.bank_since = row.bank_since + delta
