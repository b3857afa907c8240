"""The notices of the table's decisions (shared/table.py): when a seat resigns, offers a
draw, asks to abort or to pause (or the table agrees one), every other seat's player is told.

An after-append hook (server/game/hooks.py), run in the append's transaction: the notice rows
are written with the entry, or not at all.  What the decisions do to the deadlines is the
append path's (server/game/duties.py ``hold_clocks``); what they mean is shared/table.py's.
"""

from shared.games import get_game
from shared.table import DECISIONS

from ..db import db
from ..db.models import Player
from . import hooks

#: the notice's sentence for each decision entry ({seat}: who signed it), and the command
#: that answers it (None: nothing to answer)
_TOLD = {
    "@resign": ("{seat} resigned", None),
    "@draw offer": ("{seat} offers a draw",
                    "pbem draw {game} to accept, pbem draw {game} --refuse to refuse"),
    "@abort": ("{seat} asks to abort the game", "pbem abort {game} to agree, "
               "pbem abort {game} --refuse to refuse"),
    "@pause": ("{seat} asks to pause the game for {days} days",
               "pbem pause {game} --days {days} to agree, pbem resume {game} to refuse"),
    "@draw refuse": ("{seat} refused (or withdrew) the draw offer", None),
    "@abort refuse": ("{seat} refused (or withdrew) the request to abort", None),
    "@resume": ("{seat} signed @resume: a pause in force ends and the clocks run again, a "
                "pause asked is refused", None),
}


def _told(move, seat, table):
    """(sentence, answer) for a decision entry that other seats hear of, or None."""
    if move.startswith("@pause "):  # the asking seat's; the others' agree (the pause is told)
        asked = table.get("pause")
        return _TOLD["@pause"] if asked and asked["seat"] == seat else None
    return _TOLD.get(move)


def _tell_the_table(appended):
    move = appended.env["move"]
    if move.split(" ", 1)[0] not in DECISIONS:  # (every entry comes here: nothing to read)
        return
    table, result = appended.table or {}, appended.result
    told = _told(move, appended.seat, table)
    paused = (table.get("paused") or {}).get("seq") == appended.seq
    if told is None and result is None and not paused:
        return
    from ..db.models import Game
    from ..workers.channel_outbox import simple_notice
    from ..workers.outbox import enqueue
    from .append import seat_owners  # (the append path imports no hook)
    game = db.session.get(Game, appended.game_id)
    title = get_game(game.type).title
    days = move.split(" ")[1] if move.startswith("@pause ") else None
    if result is not None and (result.get("table") or told is None):
        what, answer = f"Game over: {result['reason']}", None
    elif paused:
        what, answer = (f"The table agreed to pause the game for {days} days: the clocks stop "
                        "until the time ends or a seat resumes"), f"pbem resume {game.id}"
    else:
        sentence, answer = told
        what = sentence.format(seat=appended.seat, days=days)
        answer = answer.format(game=game.id, days=days) if answer else None
    owners = seat_owners(game.id, table["players"])
    told_players = set()
    for seat, player_id in owners.items():
        if seat == appended.seat or player_id is None or player_id in told_players:
            continue
        if player_id == owners.get(appended.seat):
            continue
        player = db.session.get(Player, player_id)
        if player is None:
            continue
        told_players.add(player_id)
        body = "\n".join([f"{title} - game {game.id} - you play {seat}", "", f"{what}.",
                          *([f"To answer: {answer}"] if answer else []),
                          f"To look: pbem show {game.id}", ""])
        enqueue(player, game.id, "table", f"[pbem] {title} {game.id}: {what}"[:200], body,
                {"event": "table", "game": game.id, "seat": appended.seat, "move": move},
                notice=simple_notice("table", f"{what} in {title} {game.id}", game.id))


def init_app(app):
    """Register the hook that tells the other seats of a table decision."""
    hooks.after_append(_tell_the_table, hooks.IN_TRANSACTION)
