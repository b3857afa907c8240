"""Substitutes: a seat whose player left or timed out, offered to another human through a
one-time link.

Which seats: a seat a bot holds (its player handed it over, ``pbem leave``, or the server did
at a missed deadline) and a human's seat that missed a deadline since its player took it (a
forced entry of the seat in the log).  Who offers: a player seated in the game, or the seat's
own player (its holder, or the player who handed it to a bot).  The link holds a token that
only its hash is stored of (``SeatOffer.token_hash``); a new offer of the same seat voids the
seat's earlier ones.

The hand-over itself is a ``@handover NAME KEY`` entry to the claimant (shared/table.py,
"Substitutes"), and who signs it follows from the log:

- a seat a bot took at a missed deadline, in a game whose signed ``on_timeout`` option names a
  bot: the server, at once, when the link is claimed (a forced entry);
- a seat its player handed to a bot: that player's main key, the one that signed the hand-over
  to the bot; a human's seat: its player's.  The claim then waits (``status`` "claimed") until
  that player signs it: ``pbem offer-seat GAME SEAT`` again does it, and the player gets a
  notice that someone claimed the seat.

The append path (server/game/append.py) accepts a ``@handover`` to a human only for a claimed
offer of that seat with that player and key (its ``_claimant``); the after-append hook marks
the offer done, so a claimed link is never used twice.  A game that gets a substitute is unrated,
as one with a bot is (server/game/bots.py).
"""

import hashlib
import secrets

from sqlalchemy import update

from shared.table import bot_level, timeout_bot

from ..clock import now
from ..db import db
from ..db.models import Duty, Game, Move, Player, SeatOffer
from ..db.state_cache import load_log
from . import hooks
from .domain import Conflict, Forbidden, NotFound, Refused

#: the path of a seat's link on the server (the page claims it: server/web/players.py)
LINK_PATH = "/seat/"
#: the most links one game may have made (each new one voids the seat's older ones; the cap
#: keeps a player from filling the database with them)
MAX_OFFERS = 50


def token_hash(token):
    return hashlib.sha256(str(token).encode("utf-8", "replace")).hexdigest()


def _table(game):
    return load_log(game).table


def signer(game, seat, table=None):
    """Who signs the hand-over of ``seat`` to a substitute: ``"server"``, or the name of the
    player whose main key signs it (None when the seat may not be offered)."""
    table = table if table is not None else _table(game)
    holder = table["players"][seat]
    if bot_level(holder) is not None:
        if seat in (table.get("forced_bot") or []):
            options = (game.header or {}).get("options")
            return "server" if timeout_bot(options) is not None else None
        key = (table.get("left") or {}).get(seat)
        if key is None:
            return None
        leaving = db.session.execute(db.select(Player.name).filter_by(public_key=key)) \
            .scalar_one_or_none()
        return leaving
    return holder


def _timed_out(game, seat, table):
    """Whether ``seat``'s human player missed a deadline since the seat became theirs."""
    since = (table.get("handed") or {}).get(seat, -1)
    return db.session.execute(db.select(Move.id).filter(
        Move.game_id == game.id, Move.seat == seat, Move.forced.is_(True),
        Move.seq > since).limit(1)).first() is not None


def _check_seat(game, seat):
    if game.status != "playing":
        raise Conflict("not_playing", f"game {game.id} is not being played: only a seat of a "
                       "running game is offered")
    names = [s.seat for s in game.seats]
    if seat not in names:
        raise NotFound("unknown_seat", f"game {game.id} has no seat {seat!r}: its seats are "
                       f"{', '.join(names)}")


def offer(player, game, seat):
    """A one-time link's token for ``seat`` of ``game``, offered by ``player``; raises."""
    _check_seat(game, seat)
    table = _table(game)
    who = signer(game, seat, table)
    holder = table["players"][seat]
    seated = any(s.player_id == player.id for s in game.seats)
    if not seated and player.name not in (holder, who):
        raise Forbidden("not_your_game", f"you hold no seat in game {game.id}: only its "
                        "players and the seat's own player offer a seat")
    by_bot = bot_level(holder) is not None
    if who is None or (not by_bot and not _timed_out(game, seat, table)):
        raise Refused("seat_not_free", f"{seat} of game {game.id} is played by {holder}: only "
                      "a seat whose player left it (to a bot) or missed a deadline is offered"
                      + (", and a seat a bot took at a missed deadline only in a game whose "
                         "option on_timeout names a bot" if by_bot else ""))
    made = db.session.execute(db.select(db.func.count()).select_from(SeatOffer).where(
        SeatOffer.game_id == game.id)).scalar_one()
    if made >= MAX_OFFERS:
        raise Conflict("too_many_offers", f"game {game.id} has made {made} seat links, the "
                       "most a game may make")
    token = secrets.token_urlsafe(24)
    db.session.execute(update(SeatOffer).where(
        SeatOffer.game_id == game.id, SeatOffer.seat == seat,
        SeatOffer.status.in_(("open", "claimed"))).values(status="void"))
    db.session.add(SeatOffer(game_id=game.id, seat=seat, token_hash=token_hash(token),
                             offered_by=player.id, created_at=now(), status="open"))
    db.session.commit()
    return token, who


def find(token):
    """The offer a link's token names; NotFound for a wrong token (as for none at all)."""
    row = db.session.execute(db.select(SeatOffer).filter_by(token_hash=token_hash(token))) \
        .scalar_one_or_none()
    if row is None:
        raise NotFound("unknown_offer", "this link offers no seat: check it was copied whole")
    return row


def offer_json(row, game):
    claimant = db.session.get(Player, row.claimed_by) if row.claimed_by else None
    table = _table(game) if game.status == "playing" else None
    return {"game": game.id, "type": game.type, "seat": row.seat, "status": row.status,
            "held_by": table["players"][row.seat] if table else None,
            "signer": signer(game, row.seat, table) if table else None,
            "claimant": claimant.name if claimant else None,
            "claimant_key": row.claimed_key if claimant else None}


def claim(player, token):
    """``player`` claims the seat the link offers.  Returns the offer as :func:`offer_json`
    shows it: "done" when the server signed the hand-over, "claimed" while it waits for the
    leaving player's signature.  Raises for a used or void link, a game over, a seated
    player."""
    from .append import append_forced
    from .bots import is_reserved_name
    row = find(token)
    game = db.session.get(Game, row.game_id)
    if row.status != "open":
        raise Conflict("offer_used", "this link was used already (a link offers a seat once): "
                       "ask the game's players for a new one")
    if game.status != "playing":
        row.status = "void"
        db.session.commit()
        raise Conflict("game_over", f"game {game.id} is over: there is no seat to take")
    if is_reserved_name(player.name):
        raise Forbidden("not_a_player", "a bot account takes no offered seat")
    table = _table(game)
    if player.name in table["players"].values() or \
            any(s.player_id == player.id for s in game.seats):
        raise Refused("seated_already", f"you hold a seat of game {game.id} already")
    who = signer(game, row.seat, table)
    if who is None:
        row.status = "void"
        db.session.commit()
        raise Conflict("offer_used", f"{row.seat} of game {game.id} is no longer free")
    claimed = db.session.execute(update(SeatOffer).where(
        SeatOffer.id == row.id, SeatOffer.status == "open").values(
        status="claimed", claimed_by=player.id, claimed_key=player.public_key,
        claimed_at=now()))
    if claimed.rowcount != 1:  # another claim got there first
        db.session.rollback()
        raise Conflict("offer_used", "this link was used already (a link offers a seat once)")
    db.session.commit()
    if who == "server":
        text = f"@handover {player.name} {player.public_key}"
        for _ in range(3):  # a bot's move may come first: hand over at the new head
            db.session.refresh(game)
            if append_forced(game, row.seat, text):
                break
        else:
            db.session.execute(update(SeatOffer).where(SeatOffer.id == row.id).values(
                status="open", claimed_by=None, claimed_key=None, claimed_at=None))
            db.session.commit()
            raise Conflict("stale_seq", "the game moved while the seat was handed over: "
                           "open the link again")
    else:
        _tell_signer(game, row, who, player)
    db.session.refresh(row)
    return offer_json(row, game)


def _tell_signer(game, row, who, player):
    from ..workers.outbox import enqueue  # the outbox module imports no worker
    signer_row = db.session.execute(db.select(Player).filter_by(name=who)).scalar_one_or_none()
    if signer_row is None:
        return
    enqueue(signer_row, game.id, "claim", f"[pbem] {player.name} claims {row.seat} in game "
            f"{game.id}",
            f"{player.name} opened the link you (or a player of the game) made for {row.seat} "
            f"in game {game.id}. Hand the seat over, signed by your key:\n"
            f"  pbem offer-seat {game.id} {row.seat}\n",
            {"event": "claim", "game": game.id, "seat": row.seat, "claimant": player.name})
    db.session.commit()


def pending_claims(game, player):
    """The claimed offers of ``game`` that wait for ``player``'s signature."""
    rows = db.session.execute(db.select(SeatOffer).filter_by(game_id=game.id,
                                                             status="claimed")).scalars().all()
    if not rows or game.status != "playing":
        return []
    table = _table(game)
    return [offer_json(r, game) for r in rows if signer(game, r.seat, table) == player.name]


# --- the after-append hook (server/game/hooks.py) ---------------------------------------------

def init_app(app):
    hooks.after_append(_handed, hooks.IN_TRANSACTION)


def _handed(appended):
    """A ``@handover`` to a claimant makes the claim done (its link is used up) and voids the
    seat's other offers (the seat changed hands); the substitute is told of a move the seat
    owes."""
    if appended.handed_to is None:
        return
    db.session.execute(update(SeatOffer).where(
        SeatOffer.game_id == appended.game_id, SeatOffer.seat == appended.seat,
        SeatOffer.status == "claimed", SeatOffer.claimed_by == appended.handed_to)
        .values(status="done", done_at=now()))
    if bot_level(appended.env["move"].split(" ")[1]) is None:
        db.session.execute(update(SeatOffer).where(
            SeatOffer.game_id == appended.game_id, SeatOffer.seat == appended.seat,
            SeatOffer.status.in_(("open", "claimed"))).values(status="void"))
        # a move the seat owes now is the substitute's to hear of (the duty's deadline is
        # renewed by the append, as for any entry of a seat that still owes)
        db.session.execute(update(Duty).where(Duty.game_id == appended.game_id,
                                              Duty.seat == appended.seat)
                           .values(notified=False))
