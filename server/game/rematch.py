"""Rematches: the same players and options again, the seats rotated.

A player of a finished game offers a rematch: a new open game of the same type, seat count,
options, deadline and ratedness, in which every seat is kept for a player of the old game,
moved one seat on (the player of the old first seat takes the second, ..., the last takes the
first; the order of play is the order of the seats).  The offer takes the offerer's seat at
once and the server's bots take theirs; each other player accepts by taking their kept seat
(``pbem rematch GAME`` or joining the new game), and the game starts when every seat is taken,
like any game.  Any invited player may decline: the offer is withdrawn (the new game never
started, so nothing signed is lost) and another may be made.  One offer stands per game: a
second ``rematch`` returns the standing one.
"""

import secrets

from sqlalchemy import delete, update

from shared.envelope import seed_commitment
from shared.games import get_game

from ..clock import now
from ..db import db
from ..db.models import BotAccount, Game, Player, Seat
from ..db.writelock import write_lock
from .domain import Conflict, Forbidden, NotFound
from .lifecycle import maybe_start, new_game_id


def _seat_of(game, player):
    return next((s for s in game.seats if s.player_id == player.id), None)


def rotated(players):
    """The players of the new seats: the old seat i's player sits at i + 1 (the last at 0)."""
    return players[-1:] + players[:-1] if players else []


def offer(game, player):
    """Offer (or return the standing offer of) a rematch of ``game``; returns (new game, made)."""
    if _seat_of(game, player) is None:
        raise Forbidden("not_in_game", f"you have no seat in game {game.id}")
    if game.status != "over":
        raise Conflict("not_over", f"game {game.id} is not over: a rematch is offered once "
                       "it ends")
    if game.rematch_id:
        standing = db.session.get(Game, game.rematch_id)
        if standing is not None:
            return standing, False
    bot_ids = set(db.session.execute(db.select(BotAccount.player_id)).scalars())
    players = rotated([s.player_id for s in game.seats])
    game_def = get_game(game.type)
    seed = secrets.token_bytes(32)
    with write_lock():
        claimed = db.session.execute(update(Game).where(Game.id == game.id,
                                                        Game.rematch_id.is_(None))
                                     .values(rematch_id="pending"))
        if claimed.rowcount != 1:  # another player's offer got there first
            db.session.rollback()
            db.session.expire(game)
            standing = db.session.get(Game, game.rematch_id) if game.rematch_id else None
            if standing is None:
                raise Conflict("rematch_race", "another rematch offer is being made; ask again")
            return standing, False
        new = Game(id=new_game_id(), type=game.type,
                   rules_version=str(game_def.rules_version), options=game.options,
                   n_seats=game.n_seats, status="open", seed=seed.hex(),
                   seed_commitment=seed_commitment(seed), created_by=player.id,
                   created_at=now(), move_hours=game.move_hours, rated=game.rated,
                   rematch_of=game.id)
        db.session.add(new)
        for old, pid in zip(game.seats, players):
            takes = pid == player.id or pid in bot_ids
            db.session.add(Seat(game_id=new.id, index=old.index, seat=old.seat,
                                invited_id=pid, player_id=pid if takes else None,
                                joined_at=now() if takes else None))
        db.session.execute(update(Game).where(Game.id == game.id).values(rematch_id=new.id))
        _tell_invited(game, new, player, [pid for pid in players
                                          if pid != player.id and pid not in bot_ids])
        db.session.commit()
    db.session.expire(game)
    new = db.session.get(Game, new.id)
    maybe_start(new)
    return new, True


def _tell_invited(game, new, offerer, invited):
    """A notice to each invited player: who offers, and how to accept or decline."""
    from ..workers.outbox import enqueue
    title = get_game(game.type).title
    for pid in dict.fromkeys(invited):
        enqueue(db.session.get(Player, pid), new.id, "rematch",
                f"[pbem] {offerer.name} offers a rematch of {title} {game.id}",
                f"{offerer.name} offers a rematch of game {game.id}: game {new.id}, the same "
                f"players and options, the seats moved on by one.\n\n"
                f"  accept:  pbem rematch {game.id}\n"
                f"  decline: pbem rematch {game.id} --decline\n\n"
                "It starts when every player has accepted.\n",
                {"event": "rematch", "game": game.id, "rematch": new.id,
                 "by": offerer.name})


def standing_offer(game):
    """The rematch offered of ``game`` (an open or started game), or None."""
    if not game.rematch_id or game.rematch_id == "pending":
        return None
    return db.session.get(Game, game.rematch_id)


def decline(game, player):
    """Withdraw the open rematch of ``game`` (any of its invited players may)."""
    new = standing_offer(game)
    if new is None:
        raise NotFound("no_rematch", f"no rematch of game {game.id} is offered")
    if _seat_of(game, player) is None:
        raise Forbidden("not_in_game", f"you have no seat in game {game.id}")
    if new.status != "open":
        raise Conflict("game_started", f"the rematch {new.id} has already started")
    with write_lock():
        still_open = db.select(Game.id).where(Game.id == new.id, Game.status == "open")
        db.session.execute(delete(Seat).where(Seat.game_id.in_(still_open)))
        gone = db.session.execute(delete(Game).where(Game.id == new.id, Game.status == "open"))
        if gone.rowcount != 1:
            db.session.rollback()
            raise Conflict("game_started", f"the rematch {new.id} has already started")
        db.session.execute(update(Game).where(Game.id == game.id).values(rematch_id=None))
        db.session.commit()
    db.session.expire(game)
    return new.id
