"""A player's record: the games they finished, won, resigned, aborted, and the deadlines they
missed; on their profile (``GET /api/players/NAME``) and their page.

The record is read from the games as they ended (``Game.result`` of the games over whose seat
the player holds at the end) and from the player's count of missed deadlines (every forced
entry the notice worker made for them: a timeout move, a late refusal, a hand-over to a bot;
server/workers/notify.py).  A result says how the game ended in words of its own: the key
``reason`` (absent in most results: a game played to its end) and the seats it names.  This
module reads every form a result has:

- aborted: ``table`` "abort" (the table's decision, shared/table.py), ``reason`` beginning
  with "abort", or a true ``aborted``; an aborted game is counted as an abort for each of its
  players, never as a finished game;
- resigned: ``reason`` "resigned"/"resignation" (or beginning with "resign") with the seats in
  ``resigned`` (a seat or a list; ``seat`` or ``by`` as well), or a ``resigned`` key alone; a
  Title of Liberty concession (its ``reason`` text begins "SEAT conceded") counts for the
  seat that conceded;
- a win: the seat is in ``winners``.
"""

from ..db import db
from ..db.models import Game, Seat


def _named(result, *keys):
    out = set()
    for key in keys:
        value = result.get(key)
        if isinstance(value, str):
            out.add(value)
        elif isinstance(value, (list, tuple)):
            out.update(v for v in value if isinstance(v, str))
    return out


def how_it_ended(result, seat):
    """("aborted" | "finished", won: bool, resigned: bool) of ``seat`` in a game's result."""
    result = result if isinstance(result, dict) else {}
    reason = result.get("reason")
    reason = reason.strip().lower() if isinstance(reason, str) else ""
    if result.get("aborted") is True or result.get("table") == "abort" \
            or reason.startswith("abort"):
        return "aborted", False, False
    resigned = False
    if reason.startswith("resign") or "resigned" in result:
        resigned = seat in _named(result, "resigned", "seat", "by")
    elif reason.startswith(f"{seat.lower()} conceded"):
        resigned = True
    return "finished", seat in _named(result, "winners"), resigned


def player_record(player):
    """{"finished", "wins", "resignations", "aborts", "missed_deadlines"} of ``player``."""
    rows = db.session.execute(db.select(Seat.seat, Game.result).join(
        Game, Game.id == Seat.game_id).where(Seat.player_id == player.id,
                                             Game.status == "over")).all()
    record = {"finished": 0, "wins": 0, "resignations": 0, "aborts": 0,
              "missed_deadlines": player.missed_deadlines or 0}
    for seat, result in rows:
        kind, won, resigned = how_it_ended(result, seat)
        if kind == "aborted":
            record["aborts"] += 1
            continue
        record["finished"] += 1
        record["wins"] += won
        record["resignations"] += resigned
    return record
