"""Bots in the service: bot accounts, filling seats with bots, and the bot worker.

A bot is an ordinary player account whose private key the server keeps: one account per
level, named ``bot-<level>`` (``bot-random``, ``bot-greedy``, ``bot-strong``) so that every
seat list, page, log and archive header shows which seats are bots.  Registration refuses
every name of that shape (:func:`is_reserved_name`).  A bot's move is an ordinary envelope
signed with its account's key and appended with ``append.append_move``: archives verify as
always (the bot's key is its seat's key in the header).

Which move a bot plays is the rules library's business (``shared.bots.choose_move``, given
the seat's view and legal moves only).  This module only decides *when*: :func:`play_due`
plays every bot seat that owes a move, and runs

* in ``pbem-server bots`` (the process to run beside the web workers and
  ``pbem-server notify``: a loop polling every ``--interval`` seconds, 1 by default), and
* in ``pbem-server run`` (the development server), as a background thread
  (``PBEM_BOT_INTERVAL`` seconds, 1 by default; 0 turns it off).

Several workers may run at once: each builds the next envelope on the head it read, and the
log's seq/prev check lets exactly one of them append it (the others get a 409 and move on).
A move the rules refuse (it should never happen) is logged and the bot falls back to a
random legal move; a seat whose moves are refused twice for the same position is left alone
(logged once per worker), so a worker never loops on it.  Games with bots are unrated
(server/ratings.py).

A seat may also pass to a bot during a game: its player signs ``@handover bot-LEVEL KEY``
(``pbem leave GAME --to-bot``; the keys are listed by ``GET /api/bots``), or, in a game whose
option ``on_timeout`` is ``bot:LEVEL``, the server signs one for a seat whose deadline passed
(server/notify.py).  The append path (server/append.py) then gives the seat row to the bot
account, and this worker plays it like any bot seat.
"""

import logging
import random
import secrets
import threading
import time
from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from shared.bots import LEVELS, choose_move, legal_or_again, levels, may_play
from shared.envelope import EnvelopeError, make_envelope, public_key_hex, sign_envelope
from shared.games import get_game

from .append import append_move
from .lifecycle import create_game as create_plain_game, join_game
from .state_cache import load_log
from .views import view_for
from .clock import now_ts
from .domain import Conflict, DomainError, Refused
from . import workers
from .extensions import db
from .models import Game, Player, Seat, UTCDateTime, utcnow

log = logging.getLogger("pbem.bots")

PREFIX = "bot-"
DEFAULT_LEVEL = "greedy"
#: moves one worker plays in one game per pass before it looks at the other games
MOVES_PER_GAME = 50


class BotAccount(db.Model):
    """The private key of a bot account (one per level).  Without its row, a bot is silent."""

    __tablename__ = "bot_accounts"
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    level: Mapped[str] = mapped_column(String(16), unique=True, nullable=False)
    private_key: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


# --- names ------------------------------------------------------------------------------------

def account_name(level):
    return PREFIX + level


def is_reserved_name(name):
    """Whether a player name is kept for bots: ``bot``, and ``bot-...`` in any case, with
    ``_`` or ``.`` for the dash (``Bot_Greedy`` would pass for ``bot-greedy`` on a page)."""
    folded = str(name).lower().replace("_", "-").replace(".", "-")
    return folded == "bot" or folded.startswith(PREFIX)


def level_for(game_def, wanted):
    """The level that really plays ``wanted`` in ``game_def``: the strongest the game has bots
    for, up to ``wanted`` (a game without greedy bots gets ``bot-random``, not a random player
    named greedy)."""
    have = levels(game_def)
    allowed = LEVELS[:LEVELS.index(wanted) + 1]
    return [level for level in have if level in allowed][-1]


# --- accounts ---------------------------------------------------------------------------------

def _unavailable(level, why):
    raise Conflict("bot_unavailable", f"the {level} bot cannot play on this server: {why}; "
                   "ask the server's operator (see docs/CLI.md, Bots)", {"level": level})


def bot_player(level):
    """The Player of ``level``'s bot, created (with its key) on first use.

    Raises Conflict ``bot_unavailable`` when the account exists without its key (a
    deleted key, or a human who took the name before names were reserved): the server never
    plays from an account whose key it does not hold.
    """
    if level not in LEVELS:
        raise Refused("bad_bot_level", f"there is no bot level {level!r}: the levels are "
                      f"{', '.join(LEVELS)}")
    name = account_name(level)
    for _ in range(3):
        # one statement: the account and its key as one snapshot (another worker may be
        # committing both at this moment)
        row = db.session.execute(db.select(Player, BotAccount)
                                 .outerjoin(BotAccount, BotAccount.player_id == Player.id)
                                 .where(Player.name == name)).first()
        if row is not None:
            player, account = row
            if account is None or account.level != level:
                _unavailable(level, f"the account {name} exists but the server holds no key "
                             "for it")
            if player.public_key != public_key_hex(bytes.fromhex(account.private_key)):
                _unavailable(level, "its stored key is not the key of its account")
            return player
        priv = secrets.token_bytes(32)
        player = Player(name=name, public_key=public_key_hex(priv), tz="UTC", notify="none")
        db.session.add(player)
        try:
            db.session.flush()
            db.session.add(BotAccount(player_id=player.id, level=level, private_key=priv.hex()))
            db.session.commit()
        except IntegrityError:  # another worker created it first: read theirs
            db.session.rollback()
            continue
        log.info("created the bot account %s", player.name)
        return player
    _unavailable(level, "its account could not be created")


def bot_keys():
    """{player id: (level, private key bytes)} of every bot account whose key checks out."""
    out = {}
    rows = db.session.execute(db.select(BotAccount, Player.public_key)
                              .join(Player, Player.id == BotAccount.player_id)).all()
    for account, public in rows:
        priv = bytes.fromhex(account.private_key)
        if public_key_hex(priv) == public:
            out[account.player_id] = (account.level, priv)
        else:
            _warn_once(("key", account.player_id), "bot account %s: its stored key is not its "
                       "account's key; its seats are not played", account.player_id)
    return out


# --- games with bots ----------------------------------------------------------------------------

#: games of bots only one player may have being played at once (PBEM_MAX_BOT_GAMES)
MAX_BOT_GAMES = 3


def create_game(player, type_, n_seats, options, seat=None, move_hours=None, bots=0,
                level=DEFAULT_LEVEL, rated=None, private=False):
    """``lifecycle.create_game``, then ``bots`` of the free seats filled with bot accounts.

    ``bots == n_seats``: a game of bots only (to watch a strategy from the shell): the
    creator takes no seat, every seat goes to the bot of ``level``, and the game starts at
    once; the bot worker plays it to the end.  A player may have at most
    ``PBEM_MAX_BOT_GAMES`` (3) such games being played at once: each costs the server's
    CPU until it ends.  Everything that could refuse is checked before the game exists, so
    a refusal leaves no half-filled game behind.
    """
    if not bots:
        return create_plain_game(player, type_, n_seats, options, seat, move_hours, rated,
                                 private=private)
    if rated:
        raise Refused("not_rated", "a game with bots is never rated: leave out rated, or play "
                      "without bots")
    try:
        game_def = get_game(type_)
    except KeyError:
        game_def = None  # lifecycle.create_game refuses it with the known types
    alone = game_def is not None and bots == n_seats
    if game_def is not None and bots > n_seats:
        raise Refused("bad_bots", f"a game of {n_seats} seats has room for at most "
                      f"{n_seats} bot(s)")
    if alone and seat is not None:
        raise Refused("bad_bots", f"a game of {n_seats} bot(s) in {n_seats} seat(s) leaves "
                      "no seat for you: leave out the seat you asked for (you watch)")
    if level not in LEVELS:
        raise Refused("bad_bot_level", f"there is no bot level {level!r}: the levels are "
                      f"{', '.join(LEVELS)}")
    bot = bot_player(level_for(game_def, level)) if game_def is not None else None
    if alone:
        _check_bot_games_cap(player)
    game = create_plain_game(player, type_, n_seats, options, seat, move_hours, rated=False,
                             take_seat=not alone, private=private)
    for _ in range(bots):
        join_game(game, bot)
    db.session.refresh(game)
    return game


def _check_bot_games_cap(player):
    """Refuse a game of bots only while ``player`` has PBEM_MAX_BOT_GAMES of them being
    played (games it created and holds no seat in)."""
    cap = _setting("PBEM_MAX_BOT_GAMES", MAX_BOT_GAMES, int)
    seated = db.select(Seat.game_id).where(Seat.player_id == player.id)
    running = db.session.execute(
        db.select(db.func.count()).select_from(Game).where(
            Game.created_by == player.id, Game.status.in_(("open", "playing")),
            Game.id.not_in(seated))).scalar_one()
    if running >= cap:
        raise Conflict("too_many_bot_games", f"you already have {running} games of bots only "
                       f"being played (at most {cap}); wait for one to end, or ask the "
                       "server's operator (setting PBEM_MAX_BOT_GAMES)",
                       {"limit": cap, "setting": "PBEM_MAX_BOT_GAMES"})


# --- the worker -----------------------------------------------------------------------------------

_warned = set()
_given_up = set()
_memory_lock = threading.Lock()


def _warn_once(key, message, *args):
    with _memory_lock:
        if key in _warned:
            return
        _warned.add(key)
        if len(_warned) > 10000:
            _warned.clear()
    log.warning(message, *args)


def _give_up(key):
    with _memory_lock:
        if len(_given_up) > 10000:
            _given_up.clear()
        _given_up.add(key)


def _setting(name, default, cast=float):
    from flask import current_app
    value = current_app.config.get(name)
    try:
        return cast(value) if value not in (None, "") else default
    except ValueError:
        return default


def _rng(game, seat):
    """The bot's own generator: fresh randomness, or fixed by PBEM_BOT_SEED (tests)."""
    seed = _setting("PBEM_BOT_SEED", None, str)
    if seed is None:
        return random.Random(secrets.randbits(64))
    return random.Random(f"{seed}:{game.id}:{game.head_seq}:{seat}")


def _budget():
    return {"seconds": _setting("PBEM_BOT_SECONDS", 2.0), "clock": time.monotonic}


def due_games(keys=None):
    """Ids of games being played in which a bot seat owes a move now."""
    keys = bot_keys() if keys is None else keys
    if not keys:
        return []
    rows = db.session.execute(
        db.select(Game.id, Game.to_act, Seat.seat)
        .join(Seat, Seat.game_id == Game.id)
        .where(Game.status == "playing", Seat.player_id.in_(list(keys)))
        .order_by(Game.id)).all()
    out = []
    for game_id, to_act, seat in rows:
        if seat in (to_act or []) and game_id not in out:
            out.append(game_id)
    return out


def play_due(max_per_game=MOVES_PER_GAME):
    """One pass: every bot seat that owes a move plays, game after game.  Returns the number
    of moves appended by this worker."""
    keys = bot_keys()
    played = 0
    for game_id in due_games(keys):
        try:
            played += play_game(game_id, keys, max_per_game)
        except Exception:  # one broken game must not stop the bots of the others
            db.session.rollback()
            log.exception("bot worker: game %s failed", game_id)
    return played


def play_game(game_id, keys=None, max_moves=MOVES_PER_GAME):
    """Play the bot seats of one game while they owe moves (at most ``max_moves`` here).

    Every bot seat that owes a move answers, one after the other (several seats may owe at
    once: trade answers).  Returns the number of moves appended by this worker.
    """
    keys = bot_keys() if keys is None else keys
    played = 0
    for _ in range(2 * max_moves + 2):  # attempts, played or lost: always bounded
        if played >= max_moves:
            break
        db.session.rollback()  # a fresh read of the head after every append
        game = db.session.get(Game, game_id)
        if game is None or game.status != "playing":
            break
        db.session.refresh(game)
        owners = {s.seat: s.player_id for s in game.seats}
        due = [s for s in (game.to_act or []) if owners.get(s) in keys
               and (game.id, game.head_seq, s) not in _given_up]
        if not due:
            break
        seat = due[0]
        level, priv = keys[owners[seat]]
        outcome = play_seat(game, seat, level, priv)
        if outcome == "played":
            played += 1
        elif outcome == "failed":
            _give_up((game.id, game.head_seq, seat))
    return played


def play_seat(game, seat, level, priv):
    """Choose and append one move for bot ``seat``: "played", "lost" (another worker or
    player moved first, or the seat owes nothing) or "failed" (the rules refused the bot's
    move and the random fallback; logged)."""
    game_def = get_game(game.type)
    replayed = load_log(game)
    if seat not in replayed.to_act():
        return "lost"
    if replayed.pending():  # a takeback request waits for this bot's answer: bots consent
        outcome = _append(game, seat, "@accept takeback", priv)
        return "failed" if outcome == "refused" else outcome
    state = replayed.state
    legal = list(game_def.legal_moves(state, seat))
    if not legal:
        log.error("bot %s in game %s owes a move but has no legal move", seat, game.id)
        return "failed"
    view = view_for(game, seat)
    rng = _rng(game, seat)
    try:
        # a confirm the rules would refuse (its partner no longer holds its side: the bot
        # chooses from its view alone) is asked again without it
        move = legal_or_again(game_def, view, seat, legal, rng, level, _budget(),
                              choose=choose_move)
    except Exception:  # a bot bug: logged, and a random legal move instead
        log.exception("bot %s (%s) in game %s failed to choose a move", seat, level, game.id)
        move = None
    if not may_play(game_def, move, legal):
        if move is not None:
            log.error("bot %s (%s) in game %s chose %r, which is not a legal move", seat,
                      level, game.id, move)
        move = choose_move(game_def, view, seat, legal, rng, "random")
    outcome = _append(game, seat, move, priv)
    if outcome != "refused":
        return outcome
    log.error("the rules refused bot %s's move %r in game %s (seq %s); playing a random legal "
              "move instead", seat, move, game.id, game.head_seq + 1)
    others = [m for m in legal if m != move]
    if not others:
        return "failed"
    fallback = choose_move(game_def, view, seat, others, rng, "random")
    outcome = _append(game, seat, fallback, priv)
    if outcome == "refused":
        log.error("the rules refused bot %s's fallback %r in game %s too; the seat is left "
                  "alone at seq %s", seat, fallback, game.id, game.head_seq + 1)
        return "failed"
    return outcome


def _append(game, seat, move, priv):
    try:
        env = make_envelope(game.id, game.head_seq + 1, game.head_hash, seat, move,
                            secrets.token_hex(12), now_ts())
        text, signature = sign_envelope(priv, env)
    except EnvelopeError as exc:
        log.error("bot move %r for %s in %s cannot be put in an envelope: %s", move, seat,
                  game.id, exc)
        return "refused"
    try:
        append_move(game.id, text, signature)
    except DomainError as exc:
        db.session.rollback()
        if isinstance(exc, Conflict):  # another worker (or the seat's deadline) got there first
            log.info("bot move for %s in %s not appended: %s", seat, game.id, exc.message)
            return "lost"
        log.error("bot move %r for %s in %s refused: %s", move, seat, game.id, exc.message)
        return "refused"
    return "played"


def run_forever(app, interval=1.0, stop=None):
    """The ``pbem-server bots`` loop: a pass, then a pause of ``interval`` seconds."""
    workers.run_forever(app, play_due, interval, "bots", stop)


def start_background(app, interval=1.0):
    return workers.start_background(app, play_due, interval, "bots")
