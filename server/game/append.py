"""The append path: verify one signed entry, play it through the rules (or, for a table entry
such as ``@takeback 12``, through ``shared.table``), store it.

The entry is checked against the game's log replayed so far (``shared.table.LogReplay``, from
the snapshot): its signature under the seat keys the table state holds now (after rotations),
whose turn it is (the answers owed while a takeback request waits), and the rules.

The hot path of the service: Core statements built once, one read of the game row, then the
conditional head update, the entry, the snapshot and the duties in one transaction (under
the SQLite write lock, ``server/db/writelock.py``).
"""

import logging
import secrets
from dataclasses import dataclass
from datetime import datetime
from types import SimpleNamespace

from flask import current_app
from sqlalchemy import bindparam, update
from sqlalchemy.exc import IntegrityError

from shared import IllegalMove
from shared.envelope import (
    EntryError,
    EnvelopeError,
    entry_hash,
    make_envelope,
    read_envelope,
    sign_envelope,
)
from shared.games import get_game
from shared.table import TableError, is_table_move, verify_logged

from ..clock import now, now_ts
from ..db import db
from ..db.keys import server_key
from ..db.models import Game, Move, Player, Seat, SeatOffer, Snapshot
from ..db.prepared import Prepared, Writer
from ..db.state_cache import load_log, remember, state_text, store_snapshot
from ..db.writelock import write_lock
from . import duties
from .domain import Conflict, DomainError, Forbidden, Malformed, NotFound, Refused
from .hooks import COMMITTED, IN_TRANSACTION, Appended, run_after_append
from .views import entry_json

MOVER = object()  # ``reader`` of append_move: render the entry for the seat that moved

_GAMES, _MOVES = Game.__table__, Move.__table__
_GAME_COLUMNS = ("id", "type", "status", "head_seq", "head_hash", "header", "seed",
                 "move_hours", "genesis")
# Statements of the hot path, built once (building them costs more than running them on SQLite).
_SELECT_GAME = db.select(*(_GAMES.c[c] for c in _GAME_COLUMNS)).where(
    _GAMES.c.id == bindparam("gid"))
_MOVE_HEAD = update(_GAMES).where(_GAMES.c.id == bindparam("gid"),
                                  _GAMES.c.head_seq == bindparam("old_seq"),
                                  _GAMES.c.status == "playing")
_INSERT_MOVE = db.insert(_MOVES)
_SNAPSHOTS = Snapshot.__table__
# ... and the statements of every move, run on the driver's cursor (server/db/prepared.py)
_RUN_MOVE_HEAD = Prepared(_MOVE_HEAD, keys=("head_seq", "head_hash", "to_act"))
_RUN_INSERT_MOVE = Prepared(_INSERT_MOVE.inline(), keys=(
    "game_id", "seq", "seat", "move", "envelope", "signature", "prev_hash", "hash", "forced",
    "events", "received_at"))
_RUN_SNAPSHOT = Prepared(update(_SNAPSHOTS).where(_SNAPSHOTS.c.game_id == bindparam("gid"))
                         .values(seq=bindparam("new_seq"), state=bindparam("new_state")))

# how the append path answers each fault verify_entry finds: (kind, code)
_ENTRY_FAULTS = {"wrong_game": (Malformed, "wrong_game"),
                 "forced_reserved": (Forbidden, "forced_reserved"),
                 "unknown_seat": (Forbidden, "not_your_seat"),
                 "bad_signature": (Forbidden, "bad_signature"),
                 # delegated moves (device keys, shared/delegation.py)
                 "bad_delegation": (Forbidden, "bad_delegation"),
                 "delegation_expired": (Forbidden, "delegation_expired"),
                 "device_revoked": (Forbidden, "device_revoked")}


@dataclass(frozen=True)
class NewEntry:
    """A verified move the rules accepted, ready to be written as entry ``env["seq"]``."""

    game: SimpleNamespace  # the game row as read by the append (see _GAME_COLUMNS)
    game_def: object       # the rules library's Game
    env: dict              # the envelope
    envelope_text: str     # its canonical text, as signed
    signature: str
    digest: str            # the entry's hash
    forced: bool
    state: dict            # the state after the move
    table: dict            # the table state after it (shared.table)
    events: list           # what the entry caused (a table entry's own texts)
    to_act: list           # the seats that owe a move after it
    result: object         # the game's result when the move ends it, else None
    received: datetime
    viewer: object         # the seat the answer is rendered for (None: a spectator)
    owed_anew: bool = False  # a takeback request was asked or settled: fresh duties
    handed_to: object = None  # a @handover entry: the bot account's player id
    revoked_key: object = None  # a @revoke entry: the device key (its orders end)
    clocks: object = None  # the table's hold on the deadlines (duties.table_clocks), if any


def _game_row(game_id):
    """The few columns an append needs, read with one Core query (no ORM objects)."""
    row = db.session.execute(_SELECT_GAME, {"gid": game_id}).first()
    if row is None:
        raise NotFound("unknown_game", f"there is no game {game_id!r}")
    return SimpleNamespace(**row._mapping)


def _heads():
    """{game id: its row (see _GAME_COLUMNS) as this process last wrote it}: the head a
    worker's own last append left, so that the next move of the game needs no read.  Only
    playing games; the conditional head update of the next append checks it still holds."""
    return current_app.extensions.setdefault("pbem_heads", {})


def _remember_head(game, env, digest, over):
    heads = _heads()
    if over:
        heads.pop(game.id, None)
        return
    if len(heads) > 10000:
        heads.clear()
    heads[game.id] = SimpleNamespace(**{**vars(game), "head_seq": env["seq"],
                                        "head_hash": digest})


class _StaleHead(Exception):
    """The head this process remembered has moved on: read the game row and start again."""


def seat_owners(game_id, players=None):
    """{seat: player id} of a started game.

    A seat changes hands during a game only by a ``@handover`` entry (shared/table.py), which
    changes the table state's ``players`` (names, unique) in the same transaction as the seat
    rows.  So the per-process cache is keyed on ``players`` ({seat: name}, the table state of
    the log as the caller read it): a process that reads the log after another process's
    handover asks with the new names and never gets the old owners.  The rows read are
    cached only when their names are the table's.  Without ``players`` the rows are read
    (never cached).
    """
    if players is None:
        return _read_owners(game_id)[0]
    cache = current_app.extensions.setdefault("pbem_seat_owners", {})
    key = (game_id, tuple(sorted(players.items())))
    owners = cache.get(key)
    if owners is None:
        owners, names = _read_owners(game_id)
        if names != players:  # the rows are not the log's (a handover being written)
            return owners
        if len(cache) > 10000:
            cache.clear()
        cache[key] = owners
    return owners


_OWNERS = None


def _read_owners(game_id):
    """({seat: player id}, {seat: player name}) of ``game_id`` as its seat rows say now."""
    global _OWNERS
    if _OWNERS is None:
        t, p = Seat.__table__, Player.__table__
        _OWNERS = db.select(t.c.seat, t.c.player_id, p.c.name).select_from(
            t.outerjoin(p, p.c.id == t.c.player_id)).where(
            t.c.game_id == bindparam("gid")).order_by(t.c.index)
    rows = db.session.execute(_OWNERS, {"gid": game_id}).all()
    return {r.seat: r.player_id for r in rows}, {r.seat: r.name for r in rows}


def _reader_seat(game_id, env_seat, reader, players=None):
    """The seat whose eyes an answer about ``env_seat``'s move is rendered for.

    ``reader`` is MOVER (the server's own callers), a player id (a signed request) or None
    (anyone else: a spectator).  A player reads as the moving seat if they hold it, else as
    their own seat in the game, else as a spectator.
    """
    if reader is MOVER:
        return env_seat
    if reader is None:
        return None
    mine = [seat for seat, pid in seat_owners(game_id, players).items() if pid == reader]
    return env_seat if env_seat in mine else (mine[0] if mine else None)


def _verified(game, log, envelope_text, signature, forced):
    """(envelope, entry hash) of a move for ``game`` whose seat's key (as the table state of
    ``log`` holds it now), or for a forced move the server's, signed it.  Raises a
    DomainError."""
    try:
        return verify_logged(log.table, envelope_text, signature, game_id=game.id,
                             forced=forced, server_key=server_key()[1] if forced else None,
                             subject="this move")
    except EntryError as exc:
        kind, code = _ENTRY_FAULTS.get(exc.code, (Forbidden, exc.code))
        raise kind(code, exc.message) from None
    except EnvelopeError as exc:
        raise Malformed(exc.code, exc.message) from None


def _existing(game, envelope_text, signature):
    """The stored entry these exact bytes are (a repeat), or None.  A stored entry was verified
    when it was appended, so a repeat is recognised by its hash, whatever keys hold now."""
    try:
        env = read_envelope(envelope_text)
    except EnvelopeError:
        return None
    if env["game"] != game.id or env["seq"] > game.head_seq or not isinstance(signature, str) \
            or not signature.isascii():
        return None
    existing = db.session.execute(db.select(Move).filter_by(game_id=game.id,
                                                            seq=env["seq"])).scalar_one_or_none()
    if existing is None or existing.hash != entry_hash(envelope_text.encode("utf-8"), signature):
        return None
    return existing


def append_move(game_id, envelope_text, signature, forced=False, reader=MOVER):
    """Verify and append one signed move to game ``game_id``.  Returns (entry dict, created).

    The entry (new, or the existing one for a repeat) is rendered for ``reader`` (see
    :func:`_reader_seat`): a copy of a public envelope and signature is not a key, so an
    unsigned repeat reads what a spectator reads.  A rules refusal's reason is the mover's
    own (it may name their hand): others get a generic sentence.

    A move that follows the head this process's last append of the game left (see
    :func:`_heads`) is appended without reading the game row: the conditional head update
    fails if another append came first, and the move then goes the long way (read, check).

    Every DomainError raised once the move's signature verified carries that ``seat``.
    """
    known = _heads().get(game_id)
    game = known or _game_row(game_id)
    if game.status == "open":
        raise Conflict("not_started", f"game {game.id} has not started: seats are still free")
    repeat = _repeat(game, envelope_text, signature, forced, reader)
    if repeat is not None:
        return repeat
    # the keys that sign now are the table state's (rotations), at the head this process knows
    log = load_log(game)
    try:
        env, digest = _verified(game, log, envelope_text, signature, forced)
    except DomainError:
        if known is None:
            raise
        # a head this process remembered may be older than a key rotation another made
        _heads().pop(game_id, None)
        known, game = None, _game_row(game_id)
        repeat = _repeat(game, envelope_text, signature, forced, reader)
        if repeat is not None:
            return repeat
        log = load_log(game)
        env, digest = _verified(game, log, envelope_text, signature, forced)
    try:
        answer = None
        if known is not None:
            if env["seq"] == known.head_seq + 1 and env["prev"] == known.head_hash:
                try:
                    answer = _append_verified(known, log, env, envelope_text, signature,
                                              digest, forced, reader, optimistic=True)
                except _StaleHead:
                    _heads().pop(game_id, None)
            if answer is None:  # the game moved on in another process: read it, start again
                game = _game_row(game_id)
                repeat = _repeat(game, envelope_text, signature, forced, reader)
                if repeat is not None:
                    return repeat
                log = load_log(game)
                env, digest = _verified(game, log, envelope_text, signature, forced)
        if answer is None:
            answer = _append_verified(game, log, env, envelope_text, signature, digest, forced,
                                      reader)
    except DomainError as exc:
        exc.seat = env["seat"]
        raise
    answer, created, appended = answer
    # the after-append hooks of the committed entry (server/game/hooks.py): e.g. the
    # standing orders the new entry may be what they wait for
    if created:
        run_after_append(COMMITTED, appended)
    return answer, created


def _repeat(game, envelope_text, signature, forced, reader):
    """The answer to a repeat of a stored entry (rendered for ``reader``), or None."""
    existing = _existing(game, envelope_text, signature)
    if existing is None or bool(existing.forced) != bool(forced):
        return None
    viewer = _reader_seat(game.id, existing.seat, reader)
    return entry_json(existing, get_game(game.type), viewer), False


def _append_verified(game, log, env, envelope_text, signature, digest, forced, reader,
                     optimistic=False):
    if "delegation" in env:  # a new move of a device: ended by the server's clock? revoked?
        from .devicekeys import check_in_force
        check_in_force(env)
    # the rules read an entry's signed time (a pause ends at the first entry stamped after
    # its days): a time ahead of the server's clock by more than a request may be would end
    # an agreed pause at once; an old time stays good (an outbox posts moves signed offline)
    ahead = current_app.config.get("PBEM_AUTH_WINDOW", 300)
    if not forced and isinstance(env.get("ts"), int) and env["ts"] > now_ts() + ahead:
        raise Refused("future_ts", f"the move is signed {env['ts'] - now_ts()} s ahead of the "
                      f"server's clock (at most {ahead} s): check this computer's clock")
    if game.status == "over":
        raise Conflict("game_over", f"game {game.id} is over")
    if env["seq"] != game.head_seq + 1 or env["prev"] != game.head_hash:
        raise Conflict("stale_seq", f"the game has moved on: the next move is seq "
                       f"{game.head_seq + 1}", {"seq": game.head_seq + 1, "prev": game.head_hash})
    game_def = log.game
    table_entry = is_table_move(env["move"])
    before = log.to_act()  # the seats whose duty rows stand now (server/game/duties.py)
    if not table_entry and env["seat"] not in before:
        pending = log.pending()
        if pending:
            raise Refused("takeback_pending", f"{pending['seat']} asked to take back moves: the "
                          "game waits until every seat has answered")
        raise Refused("not_your_turn", f"{env['seat']} owes no move now")
    asked = (log.pending() or {}).get("asked")
    paused_before = log.table.get("paused")  # a @resume gives the clocks the pause's rest
    handed = revoked = None
    if table_entry and env["move"].startswith("@handover "):
        handed = _handover_bot(game, env)
    if table_entry and env["move"].startswith("@revoke ") and not forced:
        revoked = env["move"].split(" ", 1)[1]
        from .revocation import check_revoker
        holder = seat_owners(game.id, log.table["players"]).get(env["seat"])
        check_revoker(holder, revoked)
    try:
        events = log.step(env)
    except TableError as exc:  # about the table, never about a hand: anyone may read it
        raise Refused(exc.code, exc.message) from None
    except IllegalMove as exc:
        if _reader_seat(game.id, env["seat"], reader, log.table["players"]) != env["seat"]:
            raise Refused("illegal_move", "the rules refused this move; its reason is for the "
                          f"player of seat {env['seat']} only: send the move in a request "
                          "signed by that player to read it") from None
        # the reason may name the mover's hidden hand
        raise Refused(exc.code, exc.message, private=True) from None
    state = log.state
    entry = NewEntry(game=game, game_def=game_def, env=env, envelope_text=envelope_text,
                     signature=signature, digest=digest, forced=forced, state=state,
                     table=log.table, events=events or [], to_act=log.to_act(),
                     result=log.result(), received=now(),
                     viewer=_reader_seat(game.id, env["seat"], reader, log.table["players"]),
                     owed_anew=asked != (log.pending() or {}).get("asked"),
                     handed_to=handed, revoked_key=revoked,
                     clocks=duties.table_clocks(log.table, paused_before, env["seq"])
                     if table_entry or log.table.get("resigned") or log.table.get("paused")
                     else None)
    with write_lock():
        return _write_move(entry, before, optimistic)  # (entry, True, Appended)


def _write_move(new, before, optimistic=False):
    """Write ``new`` in one transaction: the head moves only from the seq before it (a rival
    append makes this one a stale_seq, or a _StaleHead when ``optimistic``: the game row was
    not read), then the entry, the snapshot, the in-transaction after-append hooks
    (server/game/hooks.py: a @handover's seat rows, the standing orders, push) and the duties
    (``before``: the seats that owed a move before it)."""
    game, env = new.game, new.env
    text = state_text(new.state, new.table)
    head = {"head_seq": env["seq"], "head_hash": new.digest, "to_act": new.to_act}
    over = new.result is not None
    writer = Writer(db.session)
    if over:
        head.update(status="over", result=new.result, finished_at=new.received)
        if new.result.get("rated") is False:  # an aborted game (shared/table.py)
            head["rated"] = False
        moved = db.session.execute(_MOVE_HEAD.values(**head),
                                   {"gid": game.id, "old_seq": env["seq"] - 1}).rowcount
    else:
        moved = writer.run(_RUN_MOVE_HEAD, {"gid": game.id, "old_seq": env["seq"] - 1, **head})
    if moved != 1:
        db.session.rollback()
        if optimistic:
            raise _StaleHead()
        raise Conflict("stale_seq", "another move was appended first; fetch the game and retry")
    row = {"game_id": game.id, "seq": env["seq"], "seat": env["seat"], "move": env["move"],
           "envelope": new.envelope_text, "signature": new.signature, "prev_hash": env["prev"],
           "hash": new.digest, "forced": new.forced, "events": new.events,
           "received_at": new.received}
    writer.run(_RUN_INSERT_MOVE, row)
    if not writer.run(_RUN_SNAPSHOT, {"gid": game.id, "new_seq": env["seq"], "new_state": text}):
        store_snapshot(game.id, env["seq"], text)  # the game's first snapshot row
    appended = Appended(game_id=game.id, seq=env["seq"], seat=env["seat"], env=env, over=over,
                        handed_to=new.handed_to, writer=writer, revoked_key=new.revoked_key,
                        table=new.table, result=new.result)
    run_after_append(IN_TRANSACTION, appended)
    duties.after_move(writer, game, seat_owners(game.id, new.table["players"]), before,
                      new.to_act, env["seat"],
                      env["seq"], over=over, reset=new.owed_anew)
    if new.clocks is not None and not over:
        duties.hold_clocks(game.id, new.clocks, env["seq"],
                           renewed=env["seat"] if env["seat"] in before
                           and env["seat"] in new.to_act and not new.owed_anew else None)
    answer = entry_json(SimpleNamespace(**row), new.game_def, new.viewer)
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        raise Conflict("stale_seq", "another move was appended first; fetch the game and "
                       "retry") from None
    remember(game.id, env["seq"], text)
    _remember_head(game, env, new.digest, over)
    return answer, True, appended


def append_forced(game, seat, move):
    """Append ``move`` for ``seat`` at ``game``'s head as a server-signed forced entry (a
    timeout move, a late refusal, a hand-over); False, rolled back, when another entry got
    there first or the entry was refused."""
    env = make_envelope(game.id, game.head_seq + 1, game.head_hash, seat, move,
                        secrets.token_hex(12), now_ts(), forced=True)
    text, sig = sign_envelope(server_key()[0], env)
    try:
        append_move(game.id, text, sig, forced=True)
    except DomainError as exc:  # another worker or a player got there first
        db.session.rollback()
        logging.getLogger("pbem.notices").info("forced entry for %s in %s not appended: %s",
                                               seat, game.id, exc.message)
        return False
    return True


def _handover_bot(game, env):
    """The player id of the bot account a ``@handover NAME KEY`` entry names, once the server
    has checked NAME is a bot account of a level the game has bots for and KEY its key (the
    offline verifier cannot know the bot's key; the server holds it); for a substitute (NAME
    not a bot's), the id of the player who claimed the seat with that key
    (server/game/substitutes.py).  Raises Refused."""
    from shared.bots import levels
    from shared.table import TableError, parse_table_move

    from .bots import bot_player
    try:
        tm = parse_table_move(env["move"])
    except TableError as exc:
        raise Refused(exc.code, exc.message) from None
    if not tm.player.startswith("bot-"):  # a substitute (parse_table_move read the name)
        return _claimant(game, env["seat"], tm.player, tm.key)
    level = tm.player[len("bot-"):]
    have = levels(get_game(game.type))
    if level not in have:
        raise Refused("bad_bot_level", f"{game.type} has no {level} bot: its levels are "
                      f"{', '.join(have)}")
    bot = bot_player(level)
    if bot.public_key != tm.key:
        raise Refused("not_the_bot_key", f"{tm.key[:16]}... is not the key of {tm.player}: "
                      "ask GET /api/bots for the bot accounts' keys")
    return bot.id


def _claimant(game, seat, name, key):
    """The player id of ``name``, who claimed ``seat`` of ``game`` with ``key`` (the append
    path's check of a ``@handover`` to a human, server/game/substitutes.py); raises Refused
    otherwise."""
    player = db.session.execute(db.select(Player).filter_by(name=name)).scalar_one_or_none()
    if player is not None and db.session.execute(db.select(Seat.id).filter_by(
            game_id=game.id, player_id=player.id).limit(1)).first() is not None:
        raise Refused("seated_already", f"{name} holds a seat of game {game.id} already")
    found = player is not None and db.session.execute(db.select(SeatOffer.id).filter_by(
        game_id=game.id, seat=seat, status="claimed", claimed_by=player.id,
        claimed_key=key).limit(1)).first() is not None
    if not found:
        raise Refused("no_claim", f"{name} has not claimed {seat} of game {game.id} with that "
                      "key: a seat goes to a player who opened the link it was offered with "
                      "(pbem offer-seat, then pbem claim)")
    return player.id
