"""The bot worker: when a bot seat plays (which move is ``shared.bots.choose_move``'s
business; the bot accounts are server/game/bots.py's).

:func:`play_due` plays every bot seat that owes a move, and runs

* in ``pbem-server bots`` (the process to run beside the web workers and
  ``pbem-server notify``: a loop polling every ``--interval`` seconds, 1 by default), and
* in ``pbem-server run`` (the development server), as a background thread
  (``PBEM_BOT_INTERVAL`` seconds, 1 by default; 0 turns it off).

Several workers may run at once: each builds the next envelope on the head it read, and the
log's seq/prev check lets exactly one of them append it (the others get a 409 and move on).
A move the rules refuse (it should never happen) is logged and the bot falls back to a
random legal move; a seat whose moves are refused twice for the same position is left alone
(logged once per worker), so a worker never loops on it.
"""

import logging
import random
import secrets
import threading
import time

from shared.bots import choose_move, legal_or_again, may_play
from shared.envelope import EnvelopeError, make_envelope, sign_envelope
from shared.games import get_game

from ..clock import now_ts
from ..db import db
from ..db.models import Game, Seat
from ..db.state_cache import load_log
from ..game.append import append_move
from ..game.bots import _setting, bot_keys
from ..game.domain import Conflict, DomainError
from ..game.views import view_for
from . import loop as workers

log = logging.getLogger("pbem.bots")

#: moves one worker plays in one game per pass before it looks at the other games
MOVES_PER_GAME = 50

# --- the worker -----------------------------------------------------------------------------------

_given_up = set()
_memory_lock = threading.Lock()


def _give_up(key):
    with _memory_lock:
        if len(_given_up) > 10000:
            _given_up.clear()
        _given_up.add(key)


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


def new_nonce():
    """A bot move's envelope nonce (random; tests that replay games count them instead)."""
    return secrets.token_hex(12)


def _append(game, seat, move, priv):
    try:
        env = make_envelope(game.id, game.head_seq + 1, game.head_hash, seat, move,
                            new_nonce(), now_ts())
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
