"""Tournaments in the service: the signed document stored, entries, the close of entry, each
round's games, and the next round made when the last game of a round ends.

Every tournament decision (pairings, scoring, standings, what is signed) is
``shared.tournament``'s; this module stores and creates games.  The organiser signs the
document and sends the secret seed it commits to; every draw comes from that seed hashed
with the entries' signatures (``shared.tournament.draw_seed``, fixed at the close of entry).
The server keeps the seed until the tournament is over and reveals it in the export; while it
runs, the export reveals the keys of the rounds paired so far instead, so that anyone can
recompute every pairing made yet (``pbem verify``: a prefix) and, at the end, every one.
A round's games are ordinary games (rated as their type is),
seated in the pairing's order, whose header option ``tournament`` names the tournament, round
and table.  A missed deadline plays out as the game's own deadline rules say (the forced
timeout move, or a bot when the game's ``on_timeout`` asks for one), and the game's result is
scored like any other.  When the last game of a round ends, the after-append hook
(:func:`init_app`) pairs the next round from the standings, or ends the tournament.
"""

import logging

from sqlalchemy import update

from shared import tournament as rules
from shared.envelope import verify
from shared.games import get_game

from ..clock import now, now_ts
from ..db import db
from ..db.models import Game, Player, Tournament, TournamentEntry, TournamentRound
from ..db.writelock import write_lock
from . import hooks
from .domain import Conflict, Forbidden, NotFound, Refused
from .lifecycle import create_seated_game, refuse_past_open_cap

log = logging.getLogger("pbem.tournaments")


def _refuse(exc):
    raise Refused(exc.code, exc.message) from None


def get_or_404(tid):
    t = db.session.get(Tournament, tid) if isinstance(tid, str) and len(tid) == 64 else None
    if t is None:
        raise NotFound("unknown_tournament", f"there is no tournament {str(tid)[:70]!r}")
    return t


# --- the document ---------------------------------------------------------------------------

def _check_game(doc):
    """The document's game exists, its options are the game's normalized options, and its
    format and seats fit the game."""
    try:
        game_def = get_game(doc["type"])
    except KeyError:
        raise NotFound("unknown_game_type", f"there is no game called {doc['type']!r}") \
            from None
    fmt, size = doc["format"], doc["table_size"]
    if (fmt == "challenge") != bool(game_def.cooperative):
        raise Refused("bad_format", f"{doc['type']} is {'' if game_def.cooperative else 'not '}"
                      "cooperative: " + ("its tournaments are challenges" if
                                         game_def.cooperative else "the challenge format is "
                                         "for cooperative games"))
    smallest = {"tables": size - 1, "challenge": 1}.get(fmt, 2)
    for n in sorted({smallest, size}):
        if not game_def.min_seats <= n <= game_def.max_seats:
            raise Refused("bad_seats", f"{doc['type']} is played by {game_def.min_seats} to "
                          f"{game_def.max_seats} players: a {fmt} tournament of {size} a game "
                          f"would seat {n}")
    from shared import IllegalMove
    try:
        normalized = game_def.normalize_options(doc["options"], size)
    except IllegalMove as exc:
        raise Refused(exc.code, exc.message) from None
    if normalized != doc["options"]:
        raise Refused("bad_options", "the document's options must be the game's options with "
                      "their defaults filled in (the games name them so): "
                      f"{normalized}", {"options": normalized})


def create(player, document, signature, seed_hex):
    """Store a tournament from its organiser's signed document and the seed it commits to."""
    try:
        rules.check_document(document)
    except rules.TournamentError as exc:
        _refuse(exc)
    if document["organiser"] != player.name or document["organiser_key"] != player.public_key:
        raise Forbidden("not_organiser", "the document names another organiser or key: its "
                        "organiser is the player who sends it, with their main key")
    if not verify(player.public_key, rules.document_message(document), signature):
        raise Refused("bad_signature", "the document is not signed by your main key")
    try:
        seed = bytes.fromhex(seed_hex)
    except (TypeError, ValueError):
        seed = b""
    if len(seed) != 32 or rules.seed_commitment(seed) != document["seed_commitment"]:
        raise Refused("bad_seed", "the seed is 32 bytes (64 hex digits) whose commitment is "
                      "the document's seed_commitment")
    _check_game(document)
    tid = rules.tournament_id(document)
    with write_lock():
        if db.session.get(Tournament, tid) is not None:
            db.session.rollback()
            raise Conflict("tournament_exists", f"tournament {tid[:12]}... exists already")
        _check_open_cap(player)
        t = Tournament(id=tid, organiser_id=player.id, document=document,
                       signature=signature, seed=seed.hex(), status="open", round=0,
                       created_at=now())
        db.session.add(t)
        db.session.commit()
    return t


def _check_open_cap(player):
    """Refuse a new tournament while ``player`` organises PBEM_MAX_OPEN_TOURNAMENTS open for
    entry (each is listed in the lobby: one key must not fill it)."""
    refuse_past_open_cap(player, Tournament, Tournament.organiser_id,
                         "PBEM_MAX_OPEN_TOURNAMENTS", "too_many_open_tournaments",
                         "you already organise {n} tournaments open for entry (at most "
                         "{cap}); close entry to one first")


def entries(t):
    return db.session.execute(db.select(TournamentEntry).filter_by(tournament_id=t.id)
                              .order_by(TournamentEntry.id)).scalars().all()


def _entry(t, player):
    return db.session.execute(db.select(TournamentEntry).filter_by(
        tournament_id=t.id, player_id=player.id)).scalar_one_or_none()


# --- entry -----------------------------------------------------------------------------------

def join(t, player, public_key, signature, signing_key):
    """Enter ``player``: ``signature`` by ``public_key`` (the key that signed the request:
    the main key, or a device key) of the entry message of this tournament."""
    if t.status != "open":
        raise Conflict("entry_closed", f"entry to tournament {t.id[:12]}... is closed")
    if public_key != signing_key:
        raise Refused("bad_key", "the entry names another key than the one that signed the "
                      "request")
    if not verify(public_key, rules.entry_message(t.id, player.name, public_key), signature):
        raise Refused("bad_signature", "the entry is not signed by the key it names (sign "
                      "the tournament's entry message)")
    with write_lock():
        # entry may have closed since the check above (a close committed while the
        # signature was checked): read it again under the lock, the row locked on PostgreSQL
        # (a close's update of it then waits for this entry, and sees it)
        if _status_locked(t) != "open":
            db.session.rollback()
            raise Conflict("entry_closed", f"entry to tournament {t.id[:12]}... is closed")
        if _entry(t, player) is not None:
            db.session.rollback()
            raise Conflict("already_entered", f"{player.name} has entered already")
        count = db.session.execute(db.select(db.func.count()).select_from(TournamentEntry)
                                   .filter_by(tournament_id=t.id)).scalar_one()
        if count >= t.document["max_players"]:
            db.session.rollback()
            raise Conflict("tournament_full", f"the tournament takes at most "
                           f"{t.document['max_players']} players")
        db.session.add(TournamentEntry(tournament_id=t.id, player_id=player.id,
                                       public_key=public_key, signature=signature,
                                       created_at=now()))
        db.session.commit()
    return t


def leave(t, player, from_round, signature):
    """Withdraw ``player``: before the close of entry the entry is struck out; after, the
    player is not paired from ``from_round`` on (a round not paired yet), signed."""
    entry = _entry(t, player)
    if entry is None:
        raise Conflict("not_entered", f"{player.name} has not entered this tournament")
    if t.status == "over":
        raise Conflict("tournament_over", "the tournament is over")
    if entry.withdrawn_from is not None:
        raise Conflict("withdrawn", f"{player.name} withdrew from round {entry.withdrawn_from}")
    if t.status != "open" and (type(from_round) is not int or from_round != t.round + 1):
        raise Refused("bad_round", f"a withdrawal now is from round {t.round + 1} on (the "
                      "next round to be paired); finish or resign this round's game")
    if not verify(entry.public_key, rules.withdraw_message(t.id, player.name, from_round),
                  signature):
        raise Refused("bad_signature", "the withdrawal is not signed by the key of the entry")
    with write_lock():
        if _status_locked(t) != t.status:  # entry closed since the check above
            db.session.rollback()
            raise Conflict("entry_changed", "entry closed while you were leaving: ask again")
        if t.status == "open":
            db.session.delete(entry)
        else:
            entry.withdrawn_from, entry.withdraw_signature = from_round, signature
        db.session.commit()
    return t


def close(t, player, signature):
    """The organiser closes entry, signing the sorted list of the players who entered."""
    _organiser_only(t, player)
    if t.status != "open":
        raise Conflict("entry_closed", "entry is closed already")
    names = sorted(e.player.name for e in entries(t))
    smallest = {"tables": t.document["table_size"] - 1, "challenge": 1}.get(
        t.document["format"], 2)
    if len(names) < max(smallest, 2):
        raise Conflict("too_few_players", f"{len(names)} player(s) entered: a "
                       f"{t.document['format']} tournament needs at least {max(smallest, 2)}")
    if not verify(t.document["organiser_key"], rules.close_message(t.id, names), signature):
        raise Refused("bad_signature", "the close of entry is not the organiser's signature "
                      f"of the players who entered: {', '.join(names)}", {"players": names})
    with write_lock():
        done = db.session.execute(update(Tournament).where(Tournament.id == t.id,
                                                           Tournament.status == "open")
                                  .values(status="closed", close_signature=signature))
        if done.rowcount != 1:
            db.session.rollback()
            raise Conflict("entry_closed", "entry is closed already")
        # an entry committed since the list was read and signed would be paired and in no
        # signed list: read it again after the update (which holds the row, so no entry can
        # land from here on) and refuse a list that is no longer the whole entry
        now_names = sorted(db.session.execute(
            db.select(Player.name).join(TournamentEntry,
                                        TournamentEntry.player_id == Player.id)
            .where(TournamentEntry.tournament_id == t.id)).scalars())
        if now_names != names:
            db.session.rollback()
            raise Conflict("entry_changed", "someone entered or left while entry was being "
                           f"closed: sign the close of the players who entered now: "
                           f"{', '.join(now_names)}", {"players": now_names})
        db.session.commit()
    db.session.expire(t)
    return t


def _status_locked(t):
    return db.session.execute(db.select(Tournament.status).where(Tournament.id == t.id)
                              .with_for_update()).scalar_one()


def start(t, player):
    """The organiser starts round one (entry closed, the document's start time reached)."""
    _organiser_only(t, player)
    if t.status != "closed":
        raise Conflict("not_closed" if t.status == "open" else "started",
                       "close entry first" if t.status == "open" else "it has started already")
    if now_ts() < t.document["start"]:
        raise Conflict("too_early", "the document's start time has not come",
                       {"start": t.document["start"]})
    _next_round(t, 0)
    db.session.expire(t)
    return t


def _organiser_only(t, player):
    if player.id != t.organiser_id:
        raise Forbidden("not_organiser", "only the tournament's organiser may do this")


# --- rounds ----------------------------------------------------------------------------------

def players_of(t):
    return sorted(e.player.name for e in entries(t))


def withdrawn_of(t):
    return {e.player.name: e.withdrawn_from for e in entries(t) if e.withdrawn_from}


def rounds_of(t):
    return db.session.execute(db.select(TournamentRound).filter_by(tournament_id=t.id)
                              .order_by(TournamentRound.round)).scalars().all()


def _scored(t, rounds):
    """The played rounds as the standings read them (a game not over scores nothing)."""
    game_def = get_game(t.document["type"])
    out = []
    for rnd in rounds:
        games = [db.session.get(Game, gid) for gid in rnd.games]
        scored = [rules.score_game(game_def, g.header, g.result) if g.status == "over"
                  else None for g in games]
        out.append(rules.scored_round(rnd.pairing, scored))
    return out


def standings(t):
    return rules.standings(t.document, players_of(t), _scored(t, rounds_of(t)),
                           draw_seed(t), t.id)


def draw_seed(t):
    """The seed of ``t``'s draws: the organiser's hashed with the entries' signatures."""
    return rules.draw_seed(bytes.fromhex(t.seed), [
        {"player": e.player.name, "signature": e.signature} for e in entries(t)])


def _next_round(t, done):
    """Pair round ``done + 1`` and create its games, or end the tournament after its last
    round; claimed by one conditional update of ``round`` (two games ending at once)."""
    with write_lock():
        claimed = db.session.execute(update(Tournament).where(
            Tournament.id == t.id, Tournament.round == done,
            Tournament.status.in_(("closed", "playing"))).values(round=done + 1))
        if claimed.rowcount != 1:
            db.session.rollback()
            return False
        db.session.commit()
    db.session.expire(t)
    players = players_of(t)
    r = done + 1
    if r > rules.rounds_in(t.document, len(players)):
        db.session.execute(update(Tournament).where(Tournament.id == t.id)
                           .values(status="over", round=done, finished_at=now()))
        db.session.commit()
        return True
    try:
        games = _create_round(t, players, r)
    except Exception:
        # the round is not made: give the claim back, so that the next game's end (or the
        # organiser's start) tries again, instead of a tournament stuck on a round without
        # games; a game already created for it stays, unlisted by any round
        db.session.rollback()
        db.session.execute(update(Tournament).where(Tournament.id == t.id,
                                                    Tournament.round == r)
                           .values(round=done))
        db.session.commit()
        raise
    db.session.expire(t)
    if not games:  # every player withdrew or has a bye: the round is over at once
        _maybe_advance(t)
    return True


def _create_round(t, players, r):
    """Pair round ``r`` and create and start its games, in the pairing's seat order."""
    pairing = rules.pair_round(t.document, players, _scored(t, rounds_of(t)),
                               draw_seed(t), t.id, r, withdrawn_of(t))
    by_name = {p.name: p for p in db.session.execute(
        db.select(Player).where(Player.name.in_(players))).scalars()}
    organiser = db.session.get(Player, t.organiser_id)
    games = []
    for i, seated in enumerate(pairing["tables"], start=1):
        options = dict(t.document["options"], **{rules.OPTION: rules.game_option(t.id, r, i)})
        game = create_seated_game(organiser, t.document["type"], options,
                                  [by_name[name] for name in seated],
                                  t.document["move_hours"])
        games.append(game.id)
    db.session.add(TournamentRound(tournament_id=t.id, round=r, pairing=pairing, games=games,
                                   created_at=now()))
    db.session.execute(update(Tournament).where(Tournament.id == t.id)
                       .values(status="playing"))
    db.session.commit()
    return games


def _maybe_advance(t):
    if t.status != "playing":
        return False
    current = db.session.execute(db.select(TournamentRound).filter_by(
        tournament_id=t.id, round=t.round)).scalar_one_or_none()
    if current is None:
        return False
    statuses = db.session.execute(db.select(Game.status).where(
        Game.id.in_(current.games))).scalars().all() if current.games else []
    if any(s != "over" for s in statuses):
        return False
    return _next_round(t, t.round)


def advance(tid):
    """Pair the next round of tournament ``tid`` when every game of its round is over."""
    t = db.session.get(Tournament, tid)
    return t is not None and _maybe_advance(t)


def sweep(limit=50):
    """The notice worker's pass: pair the next round of every tournament whose round is over
    (the after-append hook does it as the last game ends; this catches a round it could not
    make, e.g. a failure while creating its games).  Returns how many moved on."""
    ids = db.session.execute(db.select(Tournament.id).where(Tournament.status == "playing")
                             .order_by(Tournament.created_at).limit(limit)).scalars().all()
    moved = 0
    for tid in ids:
        try:
            moved += bool(advance(tid))
        except Exception:  # one broken tournament must not stop the others (logged)
            db.session.rollback()
            log.exception("tournament %s: the next round could not be made", tid)
    return moved


def init_app(app):
    """Register the after-append hook that moves a tournament on when one of its games ends."""
    hooks.after_append(_after_game_over, hooks.COMMITTED)


def _after_game_over(appended):
    if not appended.over:
        return
    try:
        game = db.session.get(Game, appended.game_id)
        option = (game.options or {}).get(rules.OPTION) if game is not None else None
        if option:
            advance(rules.read_game_option(option)[0])
    except Exception:  # the entry is in the log whatever happens here (hooks.py's contract)
        db.session.rollback()
        log.exception("tournament of game %s: the next round could not be made",
                      appended.game_id)


# --- what the API and pages show ----------------------------------------------------------------

def summary(t):
    """The tournament as the API shows it: document, status, entries, rounds, standings."""
    rounds = rounds_of(t)
    games = {gid: db.session.get(Game, gid) for rnd in rounds for gid in rnd.games}
    return {"id": t.id, "document": t.document, "status": t.status, "round": t.round,
            "rounds_total": rules.rounds_in(t.document, max(len(entries(t)), 2)),
            "organiser": t.document["organiser"],
            "entries": [{"player": e.player.name, "withdrawn_from": e.withdrawn_from}
                        for e in entries(t)],
            "rounds": [{"round": rnd.round, "byes": rnd.pairing["byes"],
                        "tables": [{"players": seated, "game": gid,
                                    "status": games[gid].status,
                                    "winners": _winner_players(games[gid])}
                                   for seated, gid in zip(rnd.pairing["tables"], rnd.games)]}
                       for rnd in rounds],
            "standings": standings(t) if t.status in ("playing", "over") else []}


def _winner_players(game):
    if game.status != "over" or not game.result:
        return []
    # the header's players: the ones the pairing seated, even where a bot took a seat over
    by_seat = {s["seat"]: s["player"] for s in game.header["seats"]}
    return [by_seat.get(s, s) for s in game.result.get("winners") or []]


def listing(status="open", limit=50):
    rows = db.session.execute(db.select(Tournament).filter_by(status=status)
                              .order_by(Tournament.created_at.desc()).limit(limit)).scalars()
    return [{"id": t.id, "title": t.document["title"], "type": t.document["type"],
             "format": t.document["format"], "rounds": t.document["rounds"],
             "organiser": t.document["organiser"], "status": t.status,
             "players": len(entries(t))} for t in rows]


def my_game(t, player):
    """The caller's unfinished game of the current round (None: it has ended, a bye,
    withdrawn, or no round)."""
    rnd = db.session.execute(db.select(TournamentRound).filter_by(
        tournament_id=t.id, round=t.round)).scalar_one_or_none()
    if rnd is None:
        return None
    for seated, gid in zip(rnd.pairing["tables"], rnd.games):
        if player.name in seated:
            game = db.session.get(Game, gid)
            return gid if game is not None and game.status != "over" else None
    return None


def export(t, reader=None):
    """The tournament file (shared.tournament EXPORT_FORMAT): the document and its
    signature, the entries, the close, the withdrawals, every round with its games'
    archives, the standings, and the seed once the tournament is over (before: the keys of
    the rounds paired so far, ``round_keys``)."""
    from .archives import archive_for
    rounds = rounds_of(t)
    archives = {}
    for rnd in rounds:
        for gid in rnd.games:
            archives[gid] = archive_for(db.session.get(Game, gid), reader)
    return {"format": rules.EXPORT_FORMAT, "tournament": t.id, "document": t.document,
            "signature": t.signature,
            "entries": [{"player": e.player.name, "public_key": e.public_key,
                         "signature": e.signature} for e in entries(t)],
            "close": {"players": players_of(t), "signature": t.close_signature}
            if t.close_signature else None,
            "withdrawals": [{"player": e.player.name, "from_round": e.withdrawn_from,
                             "signature": e.withdraw_signature} for e in entries(t)
                            if e.withdrawn_from],
            "rounds": [{"round": rnd.round, "byes": rnd.pairing["byes"],
                        "tables": [{"players": seated, "game": gid} for seated, gid in
                                   zip(rnd.pairing["tables"], rnd.games)]}
                       for rnd in rounds],
            "seed": t.seed if t.status == "over" else None,
            # the seeding's key and each paired round's (the entries are fixed at the close)
            "round_keys": None if t.status in ("over", "open") else
            rules.round_keys(draw_seed(t), len(rounds)),
            "archives": archives,
            "standings": standings(t) if t.status != "open" else []}
