"""A game's life before its first move: create, join, start (when the last seat fills).

Every game decision is a call into ``shared``; this module only stores.
"""

import secrets
from datetime import timedelta

from flask import current_app
from sqlalchemy import update

from shared import IllegalMove
from shared.envelope import genesis_hash, seed_commitment
from shared.games import game_types, get_game
from shared.tournament import OPTION as TOURNAMENT

from ..clock import now
from ..db import db
from ..db.keys import server_key
from ..db.models import Game, Player, Seat
from ..db.state_cache import state_text, store_snapshot
from ..db.writelock import write_lock
from ..workers import push
from . import duties
from .domain import Conflict, NotFound, Refused

_ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"


def new_game_id():
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(10))


def new_game_seed():
    """A new game's secret seed (32 random bytes; tests that replay games fix it)."""
    return secrets.token_bytes(32)


def create_game(player, type_, n_seats, options, seat=None, move_hours=None, rated=None,
                take_seat=True, private=False):
    """A new open game of ``type_``, with ``player`` in ``seat`` (the first by default).

    ``rated``: whether the finished game changes its players' ratings (server/game/ratings.py);
    None: rated when the game is competitive.  A cooperative game is never rated.
    ``take_seat=False``: the creator takes no seat (a game of bots only, server/game/bots.py,
    whose creator watches); the game starts when the seats are filled.
    ``private``: the game is never listed, and its free seats are taken only with its
    ``invite_token`` (made here, in the same commit: a private game is never listed even for
    a moment).
    """
    try:
        game_def = get_game(type_)
    except KeyError:
        raise NotFound("unknown_game_type", f"there is no game called {type_!r}",
                       {"known": game_types()}) from None
    if not game_def.min_seats <= n_seats <= game_def.max_seats:
        raise Refused("bad_seats", f"{type_} is played by {game_def.min_seats} to "
                      f"{game_def.max_seats} players, not {n_seats}")
    try:
        options = game_def.normalize_options(options, n_seats)
        names = game_def.seat_names(n_seats, options)
    except IllegalMove as exc:
        raise Refused(exc.code, exc.message) from None
    if seat is not None and seat not in names:
        raise Refused("bad_seat", f"there is no seat {seat!r}; the seats are {', '.join(names)}")
    if options.get("time_bank") and not move_hours:
        raise Refused("bad_option", "option time_bank needs a move time (move_hours): without "
                      "a deadline no seat ever spends from its bank")
    if rated and game_def.cooperative:
        raise Refused("not_rated", f"{type_} is cooperative: it is never rated (a record of "
                      "wins by team size is kept instead)")
    if TOURNAMENT in options:
        raise Refused("bad_option", "only a tournament's rounds make games that name a "
                      "tournament (pbem tournament)")
    with write_lock():  # SQLite: creations queue, so the cap below is counted exactly
        _check_open_games_cap(player)
        game = _game_row(game_def, type_, options, n_seats, player, move_hours, rated,
                         private=private)
        db.session.add(game)
        for i, name in enumerate(names):
            db.session.add(Seat(game_id=game.id, index=i, seat=name))
        db.session.flush()
        if take_seat:
            taken = seat or names[0]
            db.session.execute(update(Seat).where(Seat.game_id == game.id, Seat.seat == taken)
                               .values(player_id=player.id, joined_at=now()))
        db.session.commit()
    db.session.refresh(game)
    maybe_start(game)
    return game


def _game_row(game_def, type_, options, n_seats, creator, move_hours, rated, private=False):
    """A new open Game row (its seed made here); the caller adds it and its seats."""
    seed = new_game_seed()
    return Game(id=new_game_id(), type=type_, rules_version=str(game_def.rules_version),
                options=options, n_seats=n_seats, status="open", seed=seed.hex(),
                seed_commitment=seed_commitment(seed), created_by=creator.id,
                created_at=now(), move_hours=move_hours,
                rated=not game_def.cooperative if rated is None else bool(rated),
                private=bool(private),
                invite_token=secrets.token_urlsafe(24) if private else None)


def create_seated_game(creator, type_, options, players, move_hours=None):
    """A game whose seats are given, in order, to ``players`` (a tournament's table), started
    at once; ``options`` may name a tournament (shared/tournament.py), which no player's
    request may.  Rated as any game of its type (competitive: rated)."""
    game_def = get_game(type_)
    try:
        options = game_def.normalize_options(options, len(players))
        names = game_def.seat_names(len(players), options)
    except IllegalMove as exc:
        raise Refused(exc.code, exc.message) from None
    with write_lock():
        game = _game_row(game_def, type_, options, len(players), creator, move_hours, None)
        db.session.add(game)
        for i, (name, player) in enumerate(zip(names, players)):
            db.session.add(Seat(game_id=game.id, index=i, seat=name, player_id=player.id,
                                joined_at=now()))
        db.session.commit()
    db.session.refresh(game)
    maybe_start(game)
    return game


def _check_open_games_cap(player):
    """Refuse a new game while ``player`` has PBEM_MAX_OPEN_GAMES games waiting for players.

    One key once created 1,200 games in 33 s and filled the open-games list."""
    refuse_past_open_cap(player, Game, Game.created_by, "PBEM_MAX_OPEN_GAMES",
                         "too_many_open_games", "you already have {n} games waiting for "
                         "players (at most {cap}); wait for them to fill")


def refuse_past_open_cap(player, model, owner, setting, code, sentence):
    """Raise Conflict ``code`` when ``player`` owns (column ``owner`` of ``model``) as many
    rows still ``open`` as the setting allows (0: no cap).  ``sentence`` names ``{n}`` and
    ``{cap}``.  On PostgreSQL the player's row is locked for the count and the insert that
    follows (concurrent creations by one player queue); on SQLite the write lock around them
    does the same."""
    cap = current_app.config.get(setting) or 0
    if cap <= 0:
        return
    db.session.execute(db.select(Player.id).where(Player.id == player.id).with_for_update())
    waiting = db.session.execute(db.select(db.func.count()).select_from(model).where(
        owner == player.id, model.status == "open")).scalar_one()
    if waiting >= cap:
        db.session.rollback()
        raise Conflict(code, sentence.format(n=waiting, cap=cap) + ", or ask the server's "
                       f"operator (setting {setting})", {"limit": cap, "setting": setting})


def join_game(game, player, seat=None):
    """Seat ``player`` in ``game`` (the first free seat by default); start it when full."""
    if game.status != "open":
        raise Conflict("game_started", f"game {game.id} has already started")
    # a seat kept for an invited player (a rematch) is theirs: they take it, nobody else may
    kept = [s.seat for s in game.seats if s.player_id is None and s.invited_id == player.id]
    free = kept or [s.seat for s in game.seats if s.player_id is None and s.invited_id is None]
    if seat is None:
        if not free:
            raise Conflict("game_full", f"game {game.id} has no free seat")
        seat = free[0]
    elif seat not in [s.seat for s in game.seats]:
        raise Refused("bad_seat", f"there is no seat {seat!r}; the seats are "
                      f"{', '.join(s.seat for s in game.seats)}")
    invited = next(s.invited_id for s in game.seats if s.seat == seat)
    if invited is not None and invited != player.id:
        raise Conflict("seat_taken", f"seat {seat} of game {game.id} is kept for another "
                       "player (a rematch)")
    with write_lock():  # SQLite: one join at a time, so the rated check below is exact
        if game.rated:
            _refuse_second_seat(game, player)
        result = db.session.execute(update(Seat).where(Seat.game_id == game.id,
                                                       Seat.seat == seat,
                                                       Seat.player_id.is_(None))
                                    .values(player_id=player.id, joined_at=now()))
        if result.rowcount != 1:
            db.session.rollback()
            raise Conflict("seat_taken", f"seat {seat} of game {game.id} is taken")
        push.announce(game.id, game.head_seq)  # the pages show who sat down
        db.session.commit()
    db.session.expire(game)
    maybe_start(game)
    return game


def _refuse_second_seat(game, player):
    """A rated game has one seat per player: a second one would show its player both hands
    against the others, and count the game twice in their rating.  (An unrated game may seat
    one player twice, as for local play.)  On PostgreSQL the player's row is locked first, so
    two joins of one player at once queue and the second sees the first's seat."""
    db.session.execute(db.select(Player.id).where(Player.id == player.id).with_for_update())
    held = db.session.execute(db.select(Seat.seat).where(
        Seat.game_id == game.id, Seat.player_id == player.id)).scalars().first()
    if held is not None:
        db.session.rollback()
        raise Conflict("already_seated", f"you hold seat {held} of game {game.id} already: a "
                       "rated game has one seat per player (an unrated game may seat you "
                       "twice)", {"seat": held})


def maybe_start(game):
    """Start the game when every seat is filled (exactly once, even when joins race)."""
    db.session.expire(game)
    if game.status != "open" or any(s.player_id is None for s in game.seats):
        return
    game_def = get_game(game.type)
    _, server_pub = server_key()
    header = {"game": game.id, "type": game.type, "rules_version": game.rules_version,
              "options": game.options,
              "seats": [{"seat": s.seat, "player": s.player.name,
                         "public_key": s.player.public_key} for s in game.seats],
              "seed_commitment": game.seed_commitment, "server_key": server_pub,
              "created": game.created_at.replace(microsecond=0).isoformat()
              if game.created_at.tzinfo else game.created_at.replace(microsecond=0)
              .isoformat() + "+00:00"}
    state = game_def.new_game([s.seat for s in game.seats], game.options,
                              bytes.fromhex(game.seed), rules_version=game.rules_version)
    genesis = genesis_hash(header)
    started = now()
    limit = game_def.wall_clock_limit(game.options)
    result = db.session.execute(
        update(Game).where(Game.id == game.id, Game.status == "open")
        .values(status="playing", header=header, genesis=genesis, head_hash=genesis,
                head_seq=-1, started_at=started, to_act=game_def.to_act(state),
                ends_at=started + timedelta(hours=limit) if limit else None))
    if result.rowcount != 1:
        db.session.rollback()
        return
    store_snapshot(game.id, -1, state_text(state))
    db.session.flush()
    duties.refresh(game, {s.seat: s.player_id for s in game.seats}, game_def.to_act(state),
                   None, -1)
    push.announce(game.id, -1)  # waiters wake when the game starts
    db.session.commit()
    db.session.expire(game)
