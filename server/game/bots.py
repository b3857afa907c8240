"""Bots in the service: bot accounts and filling seats with bots (the bot worker, which plays
their seats, is server/workers/bots.py).

A bot is an ordinary player account whose private key the server keeps: one account per
level, named ``bot-<level>`` (``bot-random``, ``bot-greedy``, ``bot-strong``) so that every
seat list, page, log and archive header shows which seats are bots.  Registration refuses
every name of that shape (:func:`is_reserved_name`).  A bot's move is an ordinary envelope
signed with its account's key and appended with ``append.append_move``: archives verify as
always (the bot's key is its seat's key in the header).

Which move a bot plays is the rules library's business (``shared.bots.choose_move``); when it
plays is the bot worker's (server/workers/bots.py).  Games with bots are unrated
(server/game/ratings.py).

A seat may also pass to a bot during a game: its player signs ``@handover bot-LEVEL KEY``
(``pbem leave GAME --to-bot``; the keys are listed by ``GET /api/bots``), or, in a game whose
option ``on_timeout`` is ``bot:LEVEL``, the server signs one for a seat whose deadline passed
(server/workers/notify.py).  The append path (server/game/append.py) then runs
:func:`_hand_over`, its after-append hook: the seat row goes to the bot account, and the bot
worker plays it like any bot seat.
"""

import logging
import secrets
import threading

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from shared.bots import LEVELS, levels
from shared.envelope import public_key_hex
from shared.games import get_game
from shared.table import reserved_for_bots

from ..db import db
from ..db.models import BotAccount, Duty, Game, Player, Seat
from . import hooks
from .domain import Conflict, Refused
from .lifecycle import create_game as create_plain_game
from .lifecycle import join_game

log = logging.getLogger("pbem.bots")

PREFIX = "bot-"
DEFAULT_LEVEL = "greedy"


# --- names ------------------------------------------------------------------------------------

def account_name(level):
    return PREFIX + level


def is_reserved_name(name):
    """Whether a player name is kept for bots (shared.table.reserved_for_bots)."""
    return reserved_for_bots(name)


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
                level=None, rated=None, private=False):
    """``lifecycle.create_game``, then ``bots`` of the free seats filled with bot accounts.

    ``bots == n_seats``: a game of bots only (to watch a strategy from the shell): the
    creator takes no seat, every seat goes to the bot of ``level`` (None: the game's
    strongest up to greedy; a level asked for that the game lacks is refused, naming the
    levels it has), and the game starts at once; the bot worker plays it to the end.  A
    player may have at most ``PBEM_MAX_BOT_GAMES`` (3) such games being played at once:
    each costs the server's CPU until it ends.  Everything that could refuse is checked
    before the game exists, so a refusal leaves no half-filled game behind.
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
    asked, level = level is not None, DEFAULT_LEVEL if level is None else level
    if level not in LEVELS:
        raise Refused("bad_bot_level", f"there is no bot level {level!r}: the levels are "
                      f"{', '.join(LEVELS)}")
    if asked and game_def is not None and level not in levels(game_def):
        # a level the game lacks is refused, never played by a weaker bot under its name
        raise Refused("bad_bot_level", f"{type_} has no {level} bot: its levels are "
                      f"{', '.join(levels(game_def))}")
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


# --- the worker's memory (bot_keys warns once per account) ------------------------------------

_warned = set()
_memory_lock = threading.Lock()


def _warn_once(key, message, *args):
    with _memory_lock:
        if key in _warned:
            return
        _warned.add(key)
        if len(_warned) > 10000:
            _warned.clear()
    log.warning(message, *args)


def _setting(name, default, cast=float):
    from flask import current_app
    value = current_app.config.get(name)
    try:
        return cast(value) if value not in (None, "") else default
    except ValueError:
        return default


# --- a seat handed over (the after-append hook, server/game/hooks.py) ---------------------------

def init_app(app):
    """Register the bots' after-append hook: a ``@handover``'s rows."""
    hooks.after_append(_hand_over, hooks.IN_TRANSACTION)


def _hand_over(appended):
    """A ``@handover``'s rows, in the append's transaction: the seat and its duty now belong
    to the bot, and the game is unrated (a game with a bot is never rated).  The seat's
    standing orders end in the orders' hook (server/game/orders.py)."""
    if appended.handed_to is None:
        return
    game_id, seat, bot_id = appended.game_id, appended.seat, appended.handed_to
    db.session.execute(update(Seat).where(Seat.game_id == game_id, Seat.seat == seat)
                       .values(player_id=bot_id))
    db.session.execute(update(Duty).where(Duty.game_id == game_id,
                                          Duty.seat == seat)
                       .values(player_id=bot_id))
    db.session.execute(update(Game).where(Game.id == game_id).values(rated=False))
