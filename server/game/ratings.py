"""Ratings: what a finished rated game changes, and the tables people read.

A competitive game (``Game.cooperative`` False) created as rated, with no bot in it, changes
its players' ratings once it is over: openskill's Plackett-Luce model (Weng-Lin), one team
per seat, ranked by the game's own ``standings`` (winners first, then by final score).  A
cooperative game (Title of Liberty) is never rated: each player's record counts games and
wins by the size of the team instead.

Two fresh accounts of one person must not farm a rating (the winner went from 0 to +3.4 in
one game): a rated game changes ratings only when every one of its players has some history
when it finished, an account at least PBEM_RATING_MIN_DAYS old (7) that had finished at least
PBEM_RATING_MIN_GAMES other games (3, unrated ones count).  A game without that history stays
rated and counted, and changes nothing.

The worker (``notify.tick``) rates finished games in the order they finished; a game is
claimed with a conditional update of ``rated_at``, so two workers never rate it twice.  The
ratings shown are openskill's *ordinal* (mu - 3 sigma): a new player starts at 0 and climbs
as their results make the model surer of them.
"""

import logging

from sqlalchemy import update

from shared.games import get_game

from ..clock import now
from ..db import db
from ..db.models import BotAccount, Game, Player, Rating, Seat, TeamRecord

log = logging.getLogger("pbem.ratings")

_model = None


def model():
    """openskill's Plackett-Luce model, loaded when a game is first rated (not in every
    worker's start-up)."""
    global _model
    if _model is None:
        from openskill.models import PlackettLuce
        _model = PlackettLuce()
    return _model


def has_bot(game_id):
    """True when a seat of the game is played by one of the server's bot accounts."""
    return db.session.execute(db.select(db.func.count()).select_from(Seat).join(
        BotAccount, BotAccount.player_id == Seat.player_id).where(
        Seat.game_id == game_id)).scalar_one() > 0


def rated_by_default(game_def, bots):
    """Whether a new game is rated when its creator does not say: competitive, no bots."""
    return not game_def.cooperative and not bots


def cooperative_types():
    """The game types whose games keep team records (``Game.cooperative``)."""
    from shared.games import game_types
    return sorted(t for t in game_types() if get_game(t).cooperative)


def rate_finished_games(limit=100):
    """Rate every finished game not yet counted; returns how many were counted.

    A rated game changes ratings; a cooperative game (never rated) adds to its players' team
    records, so it is picked too (selecting only rated games, no team record was ever kept).
    """
    counts = db.or_(Game.rated.is_(True), Game.type.in_(cooperative_types()))
    rows = db.session.execute(
        db.select(Game.id).where(Game.status == "over", counts, Game.rated_at.is_(None))
        .order_by(Game.finished_at, Game.id).limit(limit)).scalars().all()
    counted = 0
    for game_id in rows:
        claimed = db.session.execute(update(Game).where(Game.id == game_id,
                                                        Game.rated_at.is_(None))
                                     .values(rated_at=now()))
        if claimed.rowcount != 1:  # another worker has it
            db.session.rollback()
            continue
        game = db.session.get(Game, game_id)
        try:
            _count(game)
        except (KeyError, TypeError, ValueError):  # a result the game no longer reads
            log.exception("game %s could not be rated; it stays unrated", game_id)
            db.session.rollback()
            db.session.execute(update(Game).where(Game.id == game_id)
                               .values(rated=False, rated_at=now()))
        db.session.commit()
        counted += 1
    return counted


def places_of(game_def, result, seats):
    """{seat: place} of a finished game for its ratings: the game's standings, with every
    seat that resigned (shared/table.py) placed below all the seats that raced on."""
    places = game_def.standings(result, seats)
    resigned = set(result.get("resigned") or ())
    if resigned:
        last = max((p for seat, p in places.items() if seat not in resigned), default=0) + 1
        places.update({seat: last for seat in resigned})
    return places


def _count(game):
    game_def = get_game(game.type)
    seats = [s for s in game.seats]
    if has_bot(game.id) or any(s.player_id is None for s in seats):
        return
    if (game.result or {}).get("rated") is False:  # aborted (shared/table.py): unrated
        game.rated = False
        return
    winners = set((game.result or {}).get("winners") or [])
    if game_def.cooperative:
        for s in seats:
            rec = _team_record(s.player_id, game.type, len(seats))
            rec.games += 1
            rec.wins += s.seat in winners
        return
    if len({s.player_id for s in seats}) < len(seats):
        # one player in two seats (no rated game seats one twice now; older ones may): the
        # game would count twice, with the last seat's result
        return
    newcomers = unestablished(game, {s.player_id for s in seats})
    if newcomers:  # two fresh accounts of one person must not farm a rating
        log.info("game %s changes no rating: %d of its players have too little history",
                 game.id, len(newcomers))
        return
    places = places_of(game_def, game.result, [s.seat for s in seats])
    m = model()
    rows = [_rating(s.player_id, game.type) for s in seats]
    teams = [[m.rating(mu=r.mu, sigma=r.sigma)] for r in rows]
    new = m.rate(teams, ranks=[places[s.seat] for s in seats])
    stamp = now()
    for s, row, team in zip(seats, rows, new):
        row.mu, row.sigma = team[0].mu, team[0].sigma
        row.games += 1
        row.wins += s.seat in winners
        row.updated_at = stamp


def history_rule():
    """(days, games): a rated game changes ratings only when each of its players' accounts
    was that many days old when it finished and had finished that many other games before it
    (unrated ones count).  PBEM_RATING_MIN_DAYS (7) and PBEM_RATING_MIN_GAMES (3)."""
    from flask import current_app
    config = current_app.config
    days = config.get("PBEM_RATING_MIN_DAYS")
    games = config.get("PBEM_RATING_MIN_GAMES")
    return (7 if days is None else int(days)), (3 if games is None else int(games))


def unestablished(game, player_ids):
    """The players of ``player_ids`` without the history a rated game asks of them (see
    :func:`history_rule`) when ``game`` finished."""
    from datetime import timedelta
    days, games = history_rule()
    finished = game.finished_at or now()
    out = set()
    for pid in sorted(player_ids):
        player = db.session.get(Player, pid)
        if player.created_at is None or player.created_at > finished - timedelta(days=days):
            out.add(pid)
            continue
        if games <= 0:
            continue
        before = db.session.execute(db.select(db.func.count(db.distinct(Game.id))).select_from(
            Seat).join(Game, Game.id == Seat.game_id).where(
            Seat.player_id == pid, Game.id != game.id, Game.status == "over",
            Game.finished_at <= finished)).scalar_one()
        if before < games:
            out.add(pid)
    return out


def _rating(player_id, game_type):
    row = db.session.execute(db.select(Rating).filter_by(player_id=player_id,
                                                         game_type=game_type)).scalar_one_or_none()
    if row is None:
        m = model()
        row = Rating(player_id=player_id, game_type=game_type, mu=m.mu, sigma=m.sigma,
                     games=0, wins=0)
        db.session.add(row)
    return row


def _team_record(player_id, game_type, size):
    row = db.session.execute(db.select(TeamRecord).filter_by(
        player_id=player_id, game_type=game_type, team_size=size)).scalar_one_or_none()
    if row is None:
        row = TeamRecord(player_id=player_id, game_type=game_type, team_size=size, games=0,
                         wins=0)
        db.session.add(row)
    return row


def ordinal(mu, sigma):
    """The rating shown: mu - 3 sigma (openskill's ordinal), one decimal."""
    return round(mu - 3 * sigma, 1)


def rating_json(row, name=None):
    out = {"rating": ordinal(row.mu, row.sigma), "mu": round(row.mu, 3),
           "sigma": round(row.sigma, 3), "games": row.games, "wins": row.wins}
    if name is not None:
        out = {"player": name, **out}
    return out


def leaderboard(game_type, limit=100):
    """The rating table of a game type: players by rating, best first (or, for a cooperative
    game, the team records by team size)."""
    game_def = get_game(game_type)
    if game_def.cooperative:
        rows = db.session.execute(db.select(TeamRecord, Player.name).join(
            Player, Player.id == TeamRecord.player_id).where(TeamRecord.game_type == game_type)
            .order_by(TeamRecord.team_size, TeamRecord.wins.desc(), Player.name)).all()
        sizes = {}
        for rec, name in rows:
            entry = sizes.setdefault(rec.team_size, {"team_size": rec.team_size, "games": 0,
                                                     "wins": 0, "players": []})
            entry["players"].append({"player": name, "games": rec.games, "wins": rec.wins})
        for entry in sizes.values():
            # every player of a game has a row: the team's own games are counted once
            entry["games"] = sum(p["games"] for p in entry["players"]) // entry["team_size"]
            entry["wins"] = sum(p["wins"] for p in entry["players"]) // entry["team_size"]
        return {"type": game_type, "cooperative": True, "ratings": [],
                "teams": [sizes[k] for k in sorted(sizes)]}
    rows = db.session.execute(db.select(Rating, Player.name).join(
        Player, Player.id == Rating.player_id).where(Rating.game_type == game_type)).all()
    table = sorted((rating_json(r, name) for r, name in rows),
                   key=lambda e: (-e["rating"], -e["games"], e["player"]))[:limit]
    # an empty table says why: no rated game finished, or those that did changed no rating
    # (their players had too little history, see history_rule)
    finished = db.session.execute(db.select(db.func.count(Game.id)).where(
        Game.type == game_type, Game.status == "over", Game.rated.is_(True))).scalar_one()
    days, games = history_rule()
    return {"type": game_type, "cooperative": False, "ratings": table, "teams": [],
            "rated_finished": finished, "history": {"days": days, "games": games}}


def player_ratings(player):
    """A player's ratings and team records, for their profile."""
    ratings = {r.game_type: rating_json(r) for r in db.session.execute(
        db.select(Rating).filter_by(player_id=player.id)).scalars()}
    teams = {}
    for rec in db.session.execute(db.select(TeamRecord).filter_by(player_id=player.id)
                                  .order_by(TeamRecord.team_size)).scalars():
        teams.setdefault(rec.game_type, []).append(
            {"team_size": rec.team_size, "games": rec.games, "wins": rec.wins})
    return {"ratings": ratings, "team_records": teams}
