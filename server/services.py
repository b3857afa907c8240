"""Game services: create, join, append to the log, views, log and archive.

Every game decision is a call into ``shared``; this module only stores.
"""

import json
import os
from datetime import timedelta
import secrets
import threading
from contextlib import nullcontext
from collections import OrderedDict
from types import SimpleNamespace

try:
    import fcntl
except ImportError:  # Windows has no flock: threads still queue on the thread lock
    fcntl = None

from flask import current_app, g
from sqlalchemy import bindparam, update
from sqlalchemy.exc import IntegrityError

from shared import IllegalMove
from shared.archive import FORMAT, replay
from shared.envelope import (EnvelopeError, entry_hash, envelope_message, final_head_message,
                             genesis_hash, head_message, move_entropy, parse_canonical,
                             public_key_hex, running_head_message, seed_commitment, sign,
                             start_message, validate_envelope, verify)
from shared.games import get_game

from . import duties
from .clock import now
from .errors import ApiError, fail
from .extensions import db
from .models import Game, Move, Player, Seat, ServerKey, Snapshot

_ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"


def new_game_id():
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(10))


# --- the server's key -------------------------------------------------------

def server_key():
    """(private bytes, public hex) of the server's signing key."""
    cached = current_app.extensions.get("pbem_server_key")
    if cached:
        return cached
    configured = current_app.config.get("PBEM_SERVER_KEY")
    if configured:
        priv = bytes.fromhex(configured)
    else:
        row = db.session.get(ServerKey, 1)
        if row is None:
            priv = secrets.token_bytes(32)
            db.session.add(ServerKey(id=1, private_key=priv.hex(), public_key=public_key_hex(priv)))
            try:
                db.session.commit()
            except IntegrityError:
                db.session.rollback()
                row = db.session.get(ServerKey, 1)
                priv = bytes.fromhex(row.private_key)
        else:
            priv = bytes.fromhex(row.private_key)
    pair = (priv, public_key_hex(priv))
    current_app.extensions["pbem_server_key"] = pair
    return pair


def signed_head(game):
    """The live head of every view and log answer: length and last hash (no status)."""
    priv, _ = server_key()
    length = game.head_seq + 1
    head_hash = game.head_hash or game.genesis
    return {"game": game.id, "length": length, "hash": head_hash,
            "signature": sign(priv, head_message(game.id, length, head_hash))}


# Ed25519 signatures are deterministic: signing a fixed message when it is asked for gives the
# bytes signed when the fact became fixed.  A game's start (its genesis, hence its header) is
# fixed when the last seat fills; its final head (length, last hash, result, seed) when the
# last move ends it.  So these two are signed when an archive is exported, not stored.

def _archive_key(game):
    """The private key that signs ``game``'s archive: the one its header names."""
    priv, pub = server_key()
    if game.header["server_key"] != pub:
        fail(409, "server_key_changed", f"game {game.id} was started under server key "
             f"{game.header['server_key'][:16]}..., and this server now signs with "
             f"{pub[:16]}...: it cannot sign that game's archive")
    return priv


def start_signature(game):
    """The server's signature of a started game's id and genesis hash (its header)."""
    return sign(_archive_key(game), start_message(game.id, game.genesis))


def archive_head(game):
    """An archive's head: a running head while the game is played, the final head once over.

    The final head binds the length, the last hash, status "over", the result and the seed.
    """
    priv = _archive_key(game)
    length = game.head_seq + 1
    head_hash = game.head_hash or game.genesis
    if game.status == "over":
        message = final_head_message(game.id, length, head_hash, game.result, game.seed)
    else:
        message = running_head_message(game.id, length, head_hash)
    return {"game": game.id, "length": length, "hash": head_hash,
            "status": "over" if game.status == "over" else "playing",
            "signature": sign(priv, message)}


# --- snapshots ----------------------------------------------------------------

class _StateCache:
    """A small per-process cache of the latest state of recently used games."""

    def __init__(self, size=256):
        self.size = size
        self.items = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            value = self.items.get(key)
            if value is not None:
                self.items.move_to_end(key)
            return value

    def put(self, key, value):
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)


def _cache():
    cache = current_app.extensions.get("pbem_state_cache")
    if cache is None:
        cache = current_app.extensions["pbem_state_cache"] = _StateCache()
    return cache


def load_state(game):
    """The state after the game's last move (a fresh copy the caller may mutate).

    From the cache or the snapshot table; rebuilt from the log when the
    snapshot is missing or behind.
    """
    key = (game.id, game.head_seq)
    text = _cache().get(key)
    if text is None:
        snap = db.session.get(Snapshot, game.id)
        if snap is not None and snap.seq == game.head_seq:
            text = snap.state
        else:
            text = json.dumps(rebuild_state(game), separators=(",", ":"))
        _cache().put(key, text)
    return json.loads(text)


def rebuild_state(game):
    """Replay the whole log from the seed (the snapshot is only a cache)."""
    moves = db.session.execute(db.select(Move).filter_by(game_id=game.id)
                               .filter(Move.seq <= game.head_seq).order_by(Move.seq)).scalars()
    envelopes = [json.loads(m.envelope) for m in moves]
    return replay(get_game(game.type), game.header, bytes.fromhex(game.seed), envelopes)


def _store_snapshot(game_id, seq, text):
    updated = db.session.execute(_UPDATE_SNAPSHOT, {"gid": game_id, "new_seq": seq,
                                                    "new_state": text})
    if updated.rowcount == 0:
        db.session.execute(db.insert(_T_SNAPSHOTS).values(game_id=game_id, seq=seq, state=text))


# --- games ------------------------------------------------------------------------

def create_game(player, type_, n_seats, options, seat=None, move_hours=None):
    try:
        game_def = get_game(type_)
    except KeyError:
        fail(404, "unknown_game_type", f"there is no game called {type_!r}",
             {"known": _known_types()})
    if not game_def.min_seats <= n_seats <= game_def.max_seats:
        fail(422, "bad_seats", f"{type_} is played by {game_def.min_seats} to "
             f"{game_def.max_seats} players, not {n_seats}")
    try:
        options = game_def.normalize_options(options, n_seats)
        names = game_def.seat_names(n_seats, options)
    except IllegalMove as exc:
        fail(422, exc.code, exc.message)
    if seat is not None and seat not in names:
        fail(422, "bad_seat", f"there is no seat {seat!r}; the seats are {', '.join(names)}")
    seed = secrets.token_bytes(32)
    with _write_lock():  # SQLite: creations queue, so the cap below is counted exactly
        _check_open_games_cap(player)
        game = Game(id=new_game_id(), type=type_, rules_version=str(game_def.rules_version),
                    options=options, n_seats=n_seats, status="open", seed=seed.hex(),
                    seed_commitment=seed_commitment(seed), created_by=player.id,
                    created_at=now(), move_hours=move_hours)
        db.session.add(game)
        for i, name in enumerate(names):
            db.session.add(Seat(game_id=game.id, index=i, seat=name))
        db.session.flush()
        taken = seat or names[0]
        db.session.execute(update(Seat).where(Seat.game_id == game.id, Seat.seat == taken)
                           .values(player_id=player.id, joined_at=now()))
        db.session.commit()
    db.session.refresh(game)
    maybe_start(game)
    return game


def _check_open_games_cap(player):
    """Refuse a new game while ``player`` has PBEM_MAX_OPEN_GAMES games waiting for players.

    One key once created 1,200 games in 33 s and filled the open-games list.  On PostgreSQL
    the player's row is locked for the count and the insert (concurrent creations by one
    player queue); on SQLite the write lock around them does the same.
    """
    cap = current_app.config.get("PBEM_MAX_OPEN_GAMES") or 0
    if cap <= 0:
        return
    db.session.execute(db.select(Player.id).where(Player.id == player.id).with_for_update())
    waiting = db.session.execute(db.select(db.func.count()).select_from(Game).where(
        Game.created_by == player.id, Game.status == "open")).scalar_one()
    if waiting >= cap:
        db.session.rollback()
        fail(409, "too_many_open_games", f"you already have {waiting} games waiting for "
             f"players (at most {cap}); wait for them to fill, or ask the server's operator "
             "(setting PBEM_MAX_OPEN_GAMES)", {"limit": cap, "setting": "PBEM_MAX_OPEN_GAMES"})


def _known_types():
    from shared.games import game_types
    return game_types()


def join_game(game, player, seat=None):
    if game.status != "open":
        fail(409, "game_started", f"game {game.id} has already started")
    free = [s.seat for s in game.seats if s.player_id is None]
    if seat is None:
        if not free:
            fail(409, "game_full", f"game {game.id} has no free seat")
        seat = free[0]
    elif seat not in [s.seat for s in game.seats]:
        fail(422, "bad_seat", f"there is no seat {seat!r}; the seats are "
             f"{', '.join(s.seat for s in game.seats)}")
    result = db.session.execute(update(Seat).where(Seat.game_id == game.id, Seat.seat == seat,
                                                   Seat.player_id.is_(None))
                                .values(player_id=player.id, joined_at=now()))
    if result.rowcount != 1:
        db.session.rollback()
        fail(409, "seat_taken", f"seat {seat} of game {game.id} is taken")
    db.session.commit()
    db.session.expire(game)
    maybe_start(game)
    return game


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
    text = json.dumps(state, separators=(",", ":"))
    _store_snapshot(game.id, -1, text)
    db.session.flush()
    duties.refresh(game, {s.seat: s.player_id for s in game.seats}, game_def.to_act(state),
                   None, -1)
    db.session.commit()
    db.session.expire(game)


def seat_of(game, player, wanted=None):
    """The seat ``player`` holds in ``game`` (``wanted`` picks one when several)."""
    if player is None:
        if wanted is not None:
            fail(401, "unauthenticated", f"sign the request to see seat {wanted}'s view")
        return None
    mine = [s.seat for s in game.seats if s.player_id == player.id]
    if wanted is not None:
        if wanted not in mine:
            fail(403, "not_your_seat", f"you do not hold seat {wanted!r} in game {game.id}")
        return wanted
    return mine[0] if mine else None


# --- the log ---------------------------------------------------------------------------

def _entry_json(move, game_def, viewer):
    return {"seq": move.seq, "seat": move.seat, "move": move.move, "forced": move.forced,
            "events": game_def.events_for(move.events, viewer),
            "facts": game_def.facts_for(move.events, viewer), "hash": move.hash,
            "prev": move.prev_hash, "envelope": move.envelope, "signature": move.signature,
            "received_at": move.received_at.isoformat() if move.received_at else None}


_GAME_COLUMNS = ("id", "type", "status", "head_seq", "head_hash", "header", "seed",
                 "move_hours", "genesis")


_T_GAMES, _T_MOVES, _T_SNAPSHOTS = Game.__table__, Move.__table__, Snapshot.__table__
# Statements of the hot path, built once (building them costs more than running them on SQLite).
_SELECT_GAME = db.select(*(_T_GAMES.c[c] for c in _GAME_COLUMNS)).where(
    _T_GAMES.c.id == bindparam("gid"))
_MOVE_HEAD = update(_T_GAMES).where(_T_GAMES.c.id == bindparam("gid"),
                                    _T_GAMES.c.head_seq == bindparam("old_seq"))
_INSERT_MOVE = db.insert(_T_MOVES)
_UPDATE_SNAPSHOT = update(_T_SNAPSHOTS).where(_T_SNAPSHOTS.c.game_id == bindparam("gid")).values(
    seq=bindparam("new_seq"), state=bindparam("new_state"))


def _game_row(game_id):
    """The few columns an append needs, read with one Core query (no ORM objects)."""
    row = db.session.execute(_SELECT_GAME, {"gid": game_id}).first()
    if row is None:
        fail(404, "unknown_game", f"there is no game {game_id!r}")
    return SimpleNamespace(**row._mapping)


def seat_owners(game_id):
    """{seat: player id} of a started game (immutable once it starts, so cached)."""
    cache = current_app.extensions.setdefault("pbem_seat_owners", {})
    owners = cache.get(game_id)
    if owners is None:
        t = Seat.__table__
        owners = {r.seat: r.player_id for r in db.session.execute(
            db.select(t.c.seat, t.c.player_id).where(t.c.game_id == game_id)
            .order_by(t.c.index))}
        if len(cache) > 10000:
            cache.clear()
        cache[game_id] = owners
    return owners


MOVER = object()  # ``reader`` of append_move: render the entry for the seat that moved


def _reader_seat(game_id, env_seat, reader):
    """The seat whose eyes an answer about ``env_seat``'s move is rendered for.

    ``reader`` is MOVER (the server's own callers), a player id (a signed request) or None
    (anyone else: a spectator).  A player reads as the moving seat if they hold it, else as
    their own seat in the game, else as a spectator.
    """
    if reader is MOVER:
        return env_seat
    if reader is None:
        return None
    mine = [seat for seat, pid in seat_owners(game_id).items() if pid == reader]
    return env_seat if env_seat in mine else (mine[0] if mine else None)


def _has_nul(value):
    return isinstance(value, str) and "\x00" in value


def append_move(game_id, envelope_text, signature, forced=False, reader=MOVER):
    """Verify and append one signed move to game ``game_id``.  Returns (entry dict, created).

    The entry (new, or the existing one for a repeat) is rendered for ``reader`` (see
    :func:`_reader_seat`): a copy of a public envelope and signature is not a key, so an
    unsigned repeat reads what a spectator reads.  A rules refusal's reason is the mover's
    own (it may name their hand): others get a generic sentence.

    Every ApiError raised once the move's signature verified carries ``verified_seat``.

    The hot path of the service: Core statements only (one read of the game row, then the
    conditional head update, the entry, the snapshot and the duties in one transaction).
    """
    try:
        env = validate_envelope(parse_canonical(envelope_text))
    except EnvelopeError as exc:
        fail(400, exc.code, exc.message)
    except RecursionError:  # "[[[[..." 1,000 deep fits in 2,048 characters
        fail(400, "not_canonical", "the envelope is nested too deeply to be an envelope")
    if any(_has_nul(v) for v in env.values()):
        fail(400, "bad_characters", "the envelope holds a NUL character")
    game = _game_row(game_id)
    if env["game"] != game.id:
        fail(400, "wrong_game", f"this envelope is for game {env['game']}, not {game.id}")
    if bool(env.get("forced")) != forced:
        fail(403, "forced_reserved", "only the server may sign a forced move")
    if game.status == "open":
        fail(409, "not_started", f"game {game.id} has not started: seats are still free")
    keys = {s["seat"]: s["public_key"] for s in game.header["seats"]}
    if env["seat"] not in keys:
        fail(403, "not_your_seat", f"there is no seat {env['seat']!r} in game {game.id}")
    key = server_key()[1] if forced else keys[env["seat"]]
    raw = envelope_text.encode("utf-8")
    if not verify(key, envelope_message(raw, forced), signature):
        fail(403, "bad_signature", f"the move is not signed by the key of seat {env['seat']}")
    try:
        entry, created = _append_verified(game, env, envelope_text, raw, signature, forced,
                                          reader)
    except ApiError as exc:
        exc.verified_seat = env["seat"]
        raise
    if created:
        # the seat's move allowance pays for its appended moves only: anyone can post a
        # copy of a public (or captured) envelope again, and that must not lock it out
        g.pbem_verified_seat = f"{game.id}:{env['seat']}"
    return entry, created


def _append_verified(game, env, envelope_text, raw, signature, forced, reader):
    digest = entry_hash(raw, signature)
    if env["seq"] <= game.head_seq:
        existing = db.session.execute(db.select(Move).filter_by(game_id=game.id,
                                                                seq=env["seq"])).scalar_one()
        if existing.hash == digest:
            viewer = _reader_seat(game.id, env["seat"], reader)
            return _entry_json(existing, get_game(game.type), viewer), False
    if game.status == "over":
        fail(409, "game_over", f"game {game.id} is over")
    if env["seq"] != game.head_seq + 1 or env["prev"] != game.head_hash:
        fail(409, "stale_seq", f"the game has moved on: the next move is seq {game.head_seq + 1}",
             {"seq": game.head_seq + 1, "prev": game.head_hash})
    game_def = get_game(game.type)
    state = load_state(game)
    if env["seat"] not in game_def.to_act(state):
        fail(422, "not_your_turn", f"{env['seat']} owes no move now")
    try:
        state = game_def.play(state, env["seat"], env["move"],
                              move_entropy(game.id, env["seq"], env["prev"]))
    except IllegalMove as exc:
        if _reader_seat(game.id, env["seat"], reader) != env["seat"]:
            fail(422, "illegal_move", "the rules refused this move; its reason is for the "
                 f"player of seat {env['seat']} only: send the move in a request signed by "
                 "that player to read it")
        error = ApiError(422, exc.code, exc.message)
        error.private = True  # the reason may name the mover's hidden hand
        raise error from None
    result = game_def.result(state)
    received = now()
    values = {"head_seq": env["seq"], "head_hash": digest, "to_act": game_def.to_act(state)}
    if result is not None:
        values.update(status="over", result=result, finished_at=received)
    viewer = _reader_seat(game.id, env["seat"], reader)
    with _write_lock():
        return _write_move(game, game_def, env, values, result, state, forced, envelope_text,
                           signature, digest, received, viewer)


_SQLITE_WRITES = threading.Lock()
_lock_files = {}


class _SQLiteWriteLock:
    """SQLite allows one writer at a time.  Writers wait on a thread lock (threads of one
    worker) and an flock on a file beside the database (the other workers), both woken by
    the kernel at once, instead of in SQLite's busy handler, whose sleeping back-off (up to
    100 ms a try) made the tail latency."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        _SQLITE_WRITES.acquire()
        try:
            fd = _lock_files.get(self.path)
            if fd is None:
                fd = _lock_files[self.path] = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            _SQLITE_WRITES.release()
            raise
        self.fd = fd
        return self

    def __exit__(self, *exc):
        try:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        finally:
            _SQLITE_WRITES.release()
        return False


def _write_lock():
    engine = db.engine
    if engine.dialect.name != "sqlite" or fcntl is None:
        return _SQLITE_WRITES if engine.dialect.name == "sqlite" else nullcontext()
    database = engine.url.database
    if not database or database == ":memory:":
        return _SQLITE_WRITES
    return _SQLiteWriteLock(os.path.abspath(database) + ".write-lock")


def _write_move(game, game_def, env, values, result, state, forced, envelope_text, signature,
                digest, received, viewer):
    text = json.dumps(state, separators=(",", ":"))
    events = state.get("events") or []
    moved = db.session.execute(_MOVE_HEAD.values(**values) if result is not None else
                               _MOVE_HEAD, {"gid": game.id, "old_seq": env["seq"] - 1,
                                            **({} if result is not None else values)})
    if moved.rowcount != 1:
        db.session.rollback()
        fail(409, "stale_seq", "another move was appended first; fetch the game and retry")
    entry = {"game_id": game.id, "seq": env["seq"], "seat": env["seat"], "move": env["move"],
             "envelope": envelope_text, "signature": signature, "prev_hash": env["prev"],
             "hash": digest, "forced": forced, "events": events, "received_at": received}
    db.session.execute(_INSERT_MOVE, entry)
    _store_snapshot(game.id, env["seq"], text)
    duties.refresh(game, seat_owners(game.id), values["to_act"], env["seat"], env["seq"],
                   over=result is not None)
    answer = _entry_json(SimpleNamespace(**entry), game_def, viewer)
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        fail(409, "stale_seq", "another move was appended first; fetch the game and retry")
    _cache().put((game.id, env["seq"]), text)
    return answer, True


def log_entries(game, viewer, since=0, limit=None):
    game_def = get_game(game.type)
    query = db.select(Move).filter_by(game_id=game.id).filter(Move.seq >= since) \
        .order_by(Move.seq)
    if limit:
        query = query.limit(limit)
    return [_entry_json(m, game_def, viewer) for m in db.session.execute(query).scalars()]


def view_for(game, seat):
    game_def = get_game(game.type)
    if game.status == "open":
        return None
    state = load_state(game)
    view = game_def.view(state, seat)
    view["you"] = seat
    return view


def archive_for(game):
    """The archive document (shared/archive.py, pbem-archive-v2): header, start signature,
    every entry, the head (running, or final once over); the seed and result once over."""
    if game.status == "open":
        fail(409, "not_started", f"game {game.id} has not started yet: there is no log")
    moves = db.session.execute(db.select(Move).filter_by(game_id=game.id)
                               .filter(Move.seq <= game.head_seq).order_by(Move.seq)).scalars()
    over = game.status == "over"
    return {"format": FORMAT, "header": game.header, "genesis": game.genesis,
            "start_signature": start_signature(game),
            "entries": [{"seq": m.seq, "envelope": m.envelope, "signature": m.signature,
                         "hash": m.hash} for m in moves],
            "head": archive_head(game),
            "seed": game.seed if over else None,
            "result": game.result if over else None}
