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

A bot's trade offer waits for the humans it asks
-------------------------------------------------
In the trading games (Zarahemla, Stone Age) only the player on turn offers, and the offer
expires at the end of that turn (shared/trade.py; the rulebooks: "Only the player whose turn
it is can initiate a trade", "trading may only ever take place with the player whose turn it
is").  A bot plays its whole turn in one pass, so without a pause its next move (its turn's
end, a withdraw, a new offer) would close the offer before a human who plays by mail or
checks in hours later could read it.  So, while a bot seat's own offer is open and a *human*
seat it addresses has not answered, the worker does not ask that bot for a move at all (its
turn waits; an answer it owes a takeback request is still given), until every addressed human
answered (accepted, declined or countered) or the wait ran out; then the bot goes on as it
always does (it confirms an answer it likes, withdraws, or ends its turn).  Nobody waits for
an addressed bot: while the offerer waits for a human, the bots it asked answer in that
pass; an offer to bots only goes on at once, as before.  A game of bots only never waits and
costs nothing more (the check is skipped when no seat of the game is a human's).

The wait (:func:`offer_wait`) is half the game's move time, and at most
``PBEM_BOT_OFFER_HOURS`` (12 by default; 0: bots never wait), which is also the wait of a
game without a move time.  Half the move time, because the addressed human's answer duty
and the bot's own turn both fall due one move time after the offer (server/game/duties.py):
a wait as long would make the human miss a deadline (a forced decline, a missed deadline on
their record, or their seat handed to a bot) for an answer the rules never require, and the
bot's own turn time out.  The cap, because every seat waits with the bot: twelve hours is a
player who reads their mail twice a day, and a game without a move time (or with a week's)
loses no more than that per bot turn.  It is counted from the bot's first offer of its turn
(the first ``offer`` it played since its duty began), so a bot that offers again after a wait
ran out does not hold the table again, and it is read on the server's clock
(server/clock.py: the moves' ``received_at``, ``now_ts``) so that tests use the fake one.
docs/BOTS.md ("Bots and humans trading") says the same for players.
"""

import logging
import random
import secrets
import threading
import time

from shared.bots import choose_move, legal_or_again, may_play
from shared.envelope import EnvelopeError, make_envelope, sign_envelope
from shared.games import get_game
from shared.trade import find_offer, owed

from ..clock import now_ts
from ..db import db
from ..db.models import Duty, Game, Move, Seat
from ..db.state_cache import load_log
from ..game.append import append_move
from ..game.bots import _setting, bot_keys
from ..game.domain import Conflict, DomainError
from ..game.views import view_for
from . import loop as workers

log = logging.getLogger("pbem.bots")

#: moves one worker plays in one game per pass before it looks at the other games
MOVES_PER_GAME = 50
#: the longest a bot's offer waits for the humans it addresses (PBEM_BOT_OFFER_HOURS)
OFFER_HOURS = 12.0

# --- the worker -----------------------------------------------------------------------------------

_given_up = set()
_waiting = {}  # (game id, head seq, seat) -> when its offer's wait runs out (epoch seconds)
_memory_lock = threading.Lock()


def _give_up(key):
    with _memory_lock:
        if len(_given_up) > 10000:
            _given_up.clear()
        _given_up.add(key)


def _wait_until(key, until):
    with _memory_lock:
        if len(_waiting) > 10000:
            _waiting.clear()
        _waiting[key] = until


def _still_waiting(key):
    """Whether the seat of ``key`` was found waiting at this head and its wait has not run
    out (then a pass over the waiting game neither replays its log nor looks the wait up)."""
    until = _waiting.get(key)
    return until is not None and now_ts() < until


def offer_wait(game):
    """Seconds a bot's offer in ``game`` waits for the humans it addresses: half the game's
    move time, at most PBEM_BOT_OFFER_HOURS (12; also the wait without a move time; 0: no
    wait).  The module docstring says why."""
    cap = max(0.0, _setting("PBEM_BOT_OFFER_HOURS", OFFER_HOURS)) * 3600
    if game.move_hours:
        return min(cap, game.move_hours * 3600 / 2)
    return cap


def _wait_started(game, seat):
    """When ``seat``'s offers of this turn began to wait: the ``received_at`` (server clock)
    of its first ``offer`` since its duty began; None when there is none to find."""
    since = db.session.execute(db.select(Duty.since_seq).where(
        Duty.game_id == game.id, Duty.seat == seat)).scalar()
    query = db.select(Move.received_at).where(Move.game_id == game.id, Move.seat == seat,
                                              Move.move.like("offer %"))
    if since is None:  # no duty row (it should not happen): the latest offer of the seat
        query = query.order_by(Move.seq.desc())
    else:
        query = query.where(Move.seq > since).order_by(Move.seq)
    started = db.session.execute(query.limit(1)).scalar()
    return None if started is None else int(started.timestamp())


def _offer_waits(game, seat, state, humans):
    """Whether bot ``seat`` must not move yet: its own offer is open, a human seat of
    ``humans`` it addresses has not answered, and the wait has not run out (remembered for
    the next passes at this head)."""
    if not humans:
        return False
    offer = find_offer(state)
    if not offer or offer.get("from") != seat or not any(s in humans for s in owed(offer)):
        return False
    wait = offer_wait(game)
    started = _wait_started(game, seat) if wait else None
    if started is None:
        return False
    until = started + wait
    if now_ts() >= until:
        return False
    _wait_until((game.id, game.head_seq, seat), until)
    return True


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
    once: trade answers).  A bot whose own offer waits for a human is left for a later pass
    (the module docstring).  Returns the number of moves appended by this worker.
    """
    keys = bot_keys() if keys is None else keys
    played = 0
    waiting = set()  # (head seq, seat): a bot whose offer waits for a human (module docstring)
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
               and (game.id, game.head_seq, s) not in _given_up
               and (game.head_seq, s) not in waiting
               and not _still_waiting((game.id, game.head_seq, s))]
        if not due:
            break
        seat = due[0]
        level, priv = keys[owners[seat]]
        humans = {s for s, owner in owners.items() if owner not in keys}
        outcome = play_seat(game, seat, level, priv, humans)
        if outcome == "played":
            played += 1
        elif outcome == "failed":
            _give_up((game.id, game.head_seq, seat))
        elif outcome == "waiting":
            waiting.add((game.head_seq, seat))
    return played


def play_seat(game, seat, level, priv, humans=()):
    """Choose and append one move for bot ``seat``: "played", "lost" (another worker or
    player moved first, or the seat owes nothing), "failed" (the rules refused the bot's
    move and the random fallback; logged) or "waiting" (its own offer waits for a seat of
    ``humans``, the game's seats no bot plays: nothing is chosen; see the module
    docstring)."""
    game_def = get_game(game.type)
    replayed = load_log(game)
    if seat not in replayed.to_act():
        return "lost"
    if replayed.pending():  # a takeback request waits for this bot's answer: bots consent
        outcome = _append(game, seat, "@accept takeback", priv)
        return "failed" if outcome == "refused" else outcome
    state = replayed.state
    if _offer_waits(game, seat, state, humans):
        return "waiting"
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
