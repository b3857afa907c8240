"""Who owes a move, since when, and until when (deadlines in UTC).

Maintained inside the append transaction: a seat that newly owes a move
gets a duty (and, through the notifier, a notice); a seat that moved and
still owes gets a fresh deadline; a seat that no longer owes loses its duty.
Core statements only: this runs on every move.

The duty rows of a playing game are its seats that owe a move (``to_act`` of its latest
state): the game's start writes them (:func:`refresh`) and every append keeps them so
(:func:`after_move`), in the same transaction as the move.
"""

from datetime import datetime, time, timedelta, timezone
from typing import NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

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
_VACATIONS = db.select(_PLAYERS.c.id, _PLAYERS.c.vacation_until, _PLAYERS.c.weekends_off,
                       _PLAYERS.c.tz).where(_PLAYERS.c.id.in_(bindparam("ids", expanding=True)))


class Clock(NamedTuple):
    """What a player's deadlines depend on besides the move time."""

    vacation_until: datetime | None = None
    weekends_off: bool = False
    tz: str = "UTC"


def _vacations(player_ids):
    rows = db.session.execute(_VACATIONS, {"ids": list(player_ids)})
    return {r.id: Clock(r.vacation_until, bool(r.weekends_off), r.tz or "UTC") for r in rows}


def deadline_for(move_hours, clock, start):
    """When ``move_hours`` of the player's time from ``start`` run out (None: no move time).

    ``clock`` (a :class:`Clock`, or None): a vacation pauses the time until it ends; with
    ``weekends_off`` no hour of a Saturday or a Sunday in the player's own time zone counts.

    >>> from datetime import datetime, timezone
    >>> fri = datetime(2027, 1, 15, 12, tzinfo=timezone.utc)  # a Friday noon
    >>> deadline_for(24, Clock(weekends_off=True), fri).isoformat()
    '2027-01-18T12:00:00+00:00'
    """
    if not move_hours:
        return None
    clock = clock or Clock()
    if clock.vacation_until and clock.vacation_until > start:
        start = clock.vacation_until
    if not clock.weekends_off:
        return start + timedelta(hours=move_hours)
    return _weekdays_only(start, timedelta(hours=move_hours), _zone(clock.tz))


def _zone(name):
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _weekdays_only(start, left, zone):
    """``start`` plus ``left`` of weekday time in ``zone`` (Saturday and Sunday do not run);
    the arithmetic is on elapsed time (UTC), the days are the zone's own (summer time
    included)."""
    utc = timezone.utc
    t = start.astimezone(utc)
    while left > timedelta(0):
        day = t.astimezone(zone).date()
        if day.weekday() >= 5:  # a weekend day: on to the next Monday, 00:00 local
            monday = day + timedelta(days=7 - day.weekday())
            t = datetime.combine(monday, time(0), zone).astimezone(utc)
            continue
        saturday = datetime.combine(day + timedelta(days=5 - day.weekday()), time(0), zone)
        step = min(left, saturday.astimezone(utc) - t)
        t, left = t + step, left - step
    return t


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


class TableClocks(NamedTuple):
    """What the table's decisions (shared/table.py) do to the deadlines after one entry."""

    resigned: tuple = ()  # seats that resigned: their duties fall due at once (the timeout move)
    shift: int = 0        # seconds every deadline moves by: a pause's days at its start, minus
    #                       the rest of the pause at a @resume
    rest: int = 0         # seconds of a pause in force still to run: a deadline written by this
    #                       entry starts when the pause ends


def table_clocks(table, paused_before, seq):
    """The :class:`TableClocks` of the entry ``seq`` that left the table state ``table``
    (``paused_before``: the pause in force before it, or None); None when they change no
    deadline."""
    from shared.table import DAY

    from ..clock import now_ts
    t = now_ts()
    paused = table.get("paused")
    shift = rest = 0
    if paused and paused.get("seq") == seq:  # every seat has agreed: the clocks stop now
        shift = paused["days"] * DAY
    elif paused_before and not paused and paused_before["until"] > t:  # a @resume
        shift = -(paused_before["until"] - t)
    elif paused and paused["from"] <= t < paused["until"]:
        rest = paused["until"] - t
    resigned = tuple(table.get("resigned") or ())
    return TableClocks(resigned, shift, rest) if resigned or shift or rest else None


def hold_clocks(game_id, clocks, seq, renewed=None):
    """Apply ``clocks`` (a :class:`TableClocks`) to ``game_id``'s duties after entry ``seq``,
    in the append's transaction.  ``renewed``: the seat whose deadline the entry renewed."""
    rows = db.session.execute(db.select(DUTIES.c.id, DUTIES.c.seat, DUTIES.c.due_at,
                                        DUTIES.c.since_seq)
                              .where(DUTIES.c.game_id == game_id)).all()
    current = now()
    for row in rows:
        values = {}
        if row.seat in clocks.resigned:  # it left the race: no notice, its timeout move now
            values = {"due_at": current, "notified": True, "reminded": True}
        elif row.due_at is not None and clocks.shift:
            values = {"due_at": max(current, row.due_at + timedelta(seconds=clocks.shift)),
                      "reminded": False}
            from . import timebank  # a time bank's running spell moves with the deadline
            timebank.shift(game_id, row.seat, values["due_at"] - row.due_at)
        elif row.due_at is not None and clocks.rest and (row.since_seq == seq
                                                         or row.seat == renewed):
            values = {"due_at": row.due_at + timedelta(seconds=clocks.rest)}
        if values:
            db.session.execute(update(DUTIES).where(DUTIES.c.id == row.id).values(**values))
