"""What a caller sees: a seat's view of the board, the log redacted for a viewer, the live
signed head, and which seat a player looks through."""

from shared.envelope import head_message, sign
from shared.games import get_game

from ..db import db
from ..db.keys import server_key
from ..db.models import Move
from ..db.state_cache import load_log
from .domain import Forbidden, Unauthenticated


def seat_of(game, player, wanted=None):
    """The seat ``player`` holds in ``game`` (``wanted`` picks one when several)."""
    if player is None:
        if wanted is not None:
            raise Unauthenticated("unauthenticated",
                                  f"sign the request to see seat {wanted}'s view")
        return None
    mine = [s.seat for s in game.seats if s.player_id == player.id]
    if wanted is not None:
        if wanted not in mine:
            raise Forbidden("not_your_seat", f"you do not hold seat {wanted!r} in game {game.id}")
        return wanted
    return mine[0] if mine else None


def view_for(game, seat):
    """``seat``'s view of the board (None: a spectator's); None while the game is open."""
    if game.status == "open":
        return None
    view = load_log(game).view(seat)  # the rules' view, and a pending takeback's answers
    view["you"] = seat
    return view


def entry_json(move, game_def, viewer):
    """One log entry (a Move row, or anything with its fields) as ``viewer`` may read it."""
    return {"seq": move.seq, "seat": move.seat, "move": move.move, "forced": move.forced,
            "events": game_def.events_for(move.events, viewer),
            "facts": game_def.facts_for(move.events, viewer), "hash": move.hash,
            "prev": move.prev_hash, "envelope": move.envelope, "signature": move.signature,
            "received_at": move.received_at.isoformat() if move.received_at else None}


def log_entries(game, viewer, since=0, limit=None):
    """The log from ``since`` on (at most ``limit`` entries), redacted for ``viewer``.

    It ends at ``game``'s head as read (``head_seq``): a move another process appends
    meanwhile is left for the next read, so the entries always end at the signed head that
    answers with them (``signed_head(game)``)."""
    game_def = get_game(game.type)
    query = db.select(Move).filter_by(game_id=game.id) \
        .filter(Move.seq >= since, Move.seq <= game.head_seq).order_by(Move.seq)
    if limit:
        query = query.limit(limit)
    return [entry_json(m, game_def, viewer) for m in db.session.execute(query).scalars()]


def signed_head(game):
    """The live head of every view and log answer: length and last hash (no status)."""
    priv, _ = server_key()
    length = game.head_seq + 1
    head_hash = game.head_hash or game.genesis
    return {"game": game.id, "length": length, "hash": head_hash,
            "signature": sign(priv, head_message(game.id, length, head_hash))}
