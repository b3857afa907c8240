"""Notices out, deadlines, reminders, digests: the worker's tick.

The append transaction only records duties (server/game/duties.py).  This worker,
run as a background thread in ``pbem-server run`` or as ``pbem-server
notify``, turns them into notices in the outbox table and drains it:

* a new duty -> a turn notice (the board for that seat as plain text, what
  is owed, the deadline in the player's zone, legal moves, how to answer);
* a deadline getting close -> one reminder; a deadline passed -> the game's
  ``timeout_move`` appended as a server-signed forced entry;
* the outbox -> email (or the log) and webhooks, each notice claimed by one
  worker with a conditional update, retried with exponential backoff;
  quiet hours in the player's zone postpone email; "digest" players get one
  mail a day; "none" players get no mail.
"""

import logging
import time
from datetime import datetime, timedelta
from datetime import time as dtime
from zoneinfo import ZoneInfo

from flask import current_app
from sqlalchemy import or_, update

from shared.games import get_game

from ..clock import now
from ..db import db
from ..db.models import Duty, Game, Notice, Player, WorkerHeartbeat
from ..db.state_cache import load_log
from ..game import ratings, timebank
from ..game.append import append_forced
from ..game.domain import DomainError
from . import channel_outbox, push
from . import loop as workers
from .channels import ChannelError
from .mailer import Mailer, SendError, post_webhook
from .outbox import enqueue

log = logging.getLogger("pbem.notices")
MAX_ATTEMPTS = 10
DIGEST_HOUR = 8
MOVES_IN_NOTICE = 25


def _zone(player):
    try:
        return ZoneInfo(player.tz or "UTC")
    except Exception:
        return ZoneInfo("UTC")


def local(dt, player):
    return dt.astimezone(_zone(player)).strftime("%a %d %b %Y %H:%M %Z")


# --- composing -------------------------------------------------------------------

def turn_text(game, seat, player, kind, headers=None):
    game_def = get_game(game.type)
    replayed = load_log(game)
    view = replayed.view(seat)  # a pending takeback: the answer owed, and the request
    view["you"] = seat
    board = game_def.render(view)
    owes = (view.get("owes") or {}).get(seat, "a move")
    moves = replayed.legal_moves(seat)
    duty = db.session.execute(db.select(Duty).filter_by(game_id=game.id, seat=seat)) \
        .scalar_one_or_none()
    due = f"Deadline: {local(duty.due_at, player)}" if duty and duty.due_at \
        else "No deadline is set for this game."
    shown = moves[:MOVES_IN_NOTICE]
    more = f"\n  ... and {len(moves) - len(shown)} more (pbem moves {game.id})" \
        if len(moves) > len(shown) else ""
    head = "Reminder: you still owe" if kind == "reminder" else "You owe"
    # a player who moves by mail: the reply address of this notice's token
    mail_to, reply_to = (player.email, headers["Reply-To"]) if headers else (None, None)
    from ..game.talk import notice_lines  # table talk: the last messages this player may read
    talk = notice_lines(game, player)
    talk = ["Table talk (the last messages):", *(f"  {line}" for line in talk), ""] \
        if talk else []
    body = "\n".join([
        f"{game_def.title} - game {game.id} - you play {seat}",
        f"{head}: {owes}", due, "", board, "",
        *talk,
        "Your legal moves:", *(f"  {m}" for m in shown), more.lstrip("\n") if more else "",
        "To answer:",
        *([f"  reply to this email with your move alone on its first line (from {mail_to},",
           f"  the address you registered), or write it to {reply_to}"]
          if mail_to else []),
        f"  pbem play {game.id} '<move>'",
        "  or reply to this email with the block printed by",
        f"  pbem play --armor {game.id} '<move>'", ""])
    subject = f"[pbem] {'Reminder: ' if kind == 'reminder' else ''}{game_def.title} " \
              f"{game.id}: your move: {owes}"  # owes is a phrase: "place a settlement (...)"
    payload = {"event": kind, "game": game.id, "type": game.type, "seat": seat, "owes": owes,
               "deadline": duty.due_at.isoformat() if duty and duty.due_at else None,
               "legal_moves": shown, "seq": game.head_seq}
    return subject[:200], body, payload


def compose_turn_notices():
    """A notice for every duty not yet announced (claimed with a conditional update)."""
    count = 0
    duties = db.session.execute(db.select(*_DUTY_COLUMNS).filter_by(notified=False)
                                .limit(200)).all()
    for duty in duties:
        if _claim(duty, Duty.notified):
            _announce(db.session.get(Game, duty.game_id), duty, "turn")
            count += 1
    return count


# Duties are read as plain rows, not ORM objects: a move appended while a sweep runs (by a
# player, or by the sweep's own forced move) deletes duty rows, and an ORM object expired by
# the commit that follows would then fail to reload (or, where ids are reused, reload as
# another seat's duty).
_DUTY_COLUMNS = (Duty.id, Duty.game_id, Duty.seat, Duty.player_id, Duty.due_at, Duty.reminded)


def _claim(duty, flag):
    """Set ``duty``'s ``flag`` (notified, reminded) unless another worker did: True when this
    worker claimed it (and so sends its notice)."""
    claimed = db.session.execute(update(Duty).where(Duty.id == duty.id, flag.is_(False))
                                 .values({flag: True}))
    if claimed.rowcount != 1:
        db.session.rollback()
        return False
    return True


def _announce(game, duty, kind):
    """Queue the duty's turn notice (``kind`` "turn" or "reminder") and commit."""
    player = db.session.get(Player, duty.player_id)
    headers = mail_headers(player, game, duty.seat)
    subject, body, payload = turn_text(game, duty.seat, player, kind, headers)
    enqueue(player, game.id, kind, subject, body, payload,
            notice=channel_outbox.public_notice(game, duty.seat, kind, duty.due_at),
            headers=headers)
    db.session.commit()


def mail_headers(player, game, seat):
    """The headers carrying a new reply token for the move ``seat`` owes in ``game`` now, for
    a player who moves by mail (server/game/mailkeys.py); None for any other."""
    from ..game import mailkeys
    if not player.email or not mailkeys.opted_in(player):
        return None
    return mailkeys.issue_token(player, game.id, seat, game.head_seq + 1)


# --- deadlines ---------------------------------------------------------------------

def _reminder_window(game):
    return timedelta(hours=min(12, game.move_hours / 4)) if game.move_hours else None


def sweep_deadlines():
    """Reminders for deadlines getting close; forced moves for deadlines passed."""
    current = now()
    forced = reminded = 0
    rows = db.session.execute(db.select(*_DUTY_COLUMNS).filter(Duty.due_at.is_not(None))
                              .order_by(Duty.due_at).limit(500)).all()
    for duty in rows:
        game = db.session.get(Game, duty.game_id)
        if game is None or game.status != "playing":
            continue
        if duty.due_at <= current:
            forced += _force(game, duty)
        elif not duty.reminded and duty.due_at - _reminder_window(game) <= current:
            if _claim(duty, Duty.reminded):
                _announce(game, duty, "reminder")
                reminded += 1
    return forced, reminded


def sweep_time_limits():
    """Games whose own wall-clock limit passed end with the game's time-up move."""
    ended = 0
    games = db.session.execute(db.select(Game).filter(Game.status == "playing",
                                                      Game.ends_at.is_not(None),
                                                      Game.ends_at <= now())).scalars().all()
    for game in games:
        game_def = get_game(game.type)
        replayed = load_log(game)
        if replayed.pending():  # the clock's end waits for the takeback's answers (or their
            continue            # deadline, which refuses it)
        state = replayed.state
        to_act = game_def.to_act(state)
        if to_act and append_forced(game, to_act[0], game_def.time_up_move(state)):
            db.session.commit()
            ended += 1
    return ended


def _force(game, duty):
    """Append the game's timeout move for the late seat, signed by the server; or, in a game
    whose option ``on_timeout`` is ``bot:LEVEL`` (shared/table.py), a forced ``@handover``
    of the seat to that bot, which then plays the owed move (server/game/bots.py)."""
    game_def = get_game(game.type)
    replayed = load_log(game)
    if duty.seat not in replayed.to_act():
        return 0
    # a seat that resigned (shared/table.py) plays its turns by the timeout move, told nothing
    resigned = duty.seat in (replayed.table.get("resigned") or ())
    banked = 0 if resigned else timebank.draw(game, duty)  # the bank is spent first
    if banked:
        _tell_bank(game, game_def, duty, banked)
        db.session.commit()
        return 0
    handover = None if replayed.pending() or resigned else _timeout_handover(
        game, game_def, replayed, duty.seat)
    # a late answer to a takeback request is a refusal (the server signs it)
    move = "@refuse takeback" if replayed.pending() else \
        handover or game_def.timeout_move(replayed.state, duty.seat)
    if move is None:  # its timeout waits for other seats' moves (their deadlines come too)
        return 0
    if not append_forced(game, duty.seat, move):
        return 0
    if resigned:
        db.session.commit()
        return 1
    player = db.session.get(Player, duty.player_id)
    # the player's record counts it (server/game/records.py)
    db.session.execute(update(Player).where(Player.id == duty.player_id)
                       .values(missed_deadlines=Player.missed_deadlines + 1))
    if handover:
        bot = move.split(" ")[1]
        enqueue(player, game.id, "forced", f"[pbem] {game_def.title} {game.id}: your deadline "
                f"passed; a bot plays your seat",
                f"Your deadline in game {game.id} passed, and this game hands a late seat to a "
                f"bot: {bot} plays {duty.seat} from now on.\nYou hold no seat in it any more; "
                f"you can still follow it: pbem show {game.id}\n\nThe hand-over is marked "
                f"as forced in the log and the archive.\n",
                {"event": "handover", "game": game.id, "seat": duty.seat, "bot": bot},
                notice=channel_outbox.simple_notice(
                    "forced", f"Your deadline passed in {game_def.title} {game.id}: {bot} "
                    f"plays {duty.seat} from now on", game.id))
    else:
        enqueue(player, game.id, "forced", f"[pbem] {game_def.title} {game.id}: your "
                f"deadline passed",
                f"Your deadline in game {game.id} passed, so the server played for "
                f"{duty.seat}:\n  {move}\n\nThis entry is marked as forced in the log and "
                f"the archive.\n",
                {"event": "forced", "game": game.id, "seat": duty.seat, "move": move},
                notice=channel_outbox.simple_notice(
                    "forced", f"Your deadline passed in {game_def.title} {game.id}: the "
                    f"server played for {duty.seat}", game.id))
    db.session.commit()
    return 1


def _tell_bank(game, game_def, duty, left):
    """The notice of a deadline passed with ``left`` seconds in the seat's bank."""
    player = db.session.get(Player, duty.player_id)
    enqueue(player, game.id, "bank", f"[pbem] {game_def.title} {game.id}: your deadline "
            f"passed; your time bank runs",
            f"Your deadline in game {game.id} passed. This game gives each seat a time bank, "
            f"and {duty.seat} now spends from it: {timebank.shown(left)} left for the whole "
            f"game. When it is spent, the game's timeout rule acts.\n  pbem show {game.id}\n",
            {"event": "bank", "game": game.id, "seat": duty.seat, "bank_left": left},
            notice=channel_outbox.simple_notice(
                "bank", f"Your deadline passed in {game_def.title} {game.id}: {duty.seat} "
                f"spends its time bank ({timebank.shown(left)} left)", game.id))


def _timeout_handover(game, game_def, replayed, seat):
    """The ``@handover`` a missed deadline of ``seat`` makes under the game's ``on_timeout``
    option, or None (the option says ``move``, or a bot holds the seat already: then the
    timeout move)."""
    from shared.table import bot_level, timeout_bot

    from ..game.bots import bot_player, level_for
    wanted = timeout_bot((game.header or {}).get("options"))
    if wanted is None or bot_level(replayed.table["players"][seat]) is not None:
        return None
    try:
        bot = bot_player(level_for(game_def, wanted))
    except DomainError as exc:  # the bot cannot play here: the timeout move, as by default
        log.error("game %s: %s is late, but %s", game.id, seat, exc.message)
        return None
    return f"@handover {bot.name} {bot.public_key}"


# --- digests and sending -------------------------------------------------------------

def _in_quiet_hours(player, at):
    if player is None or player.quiet_start is None or player.quiet_end is None \
            or player.quiet_start == player.quiet_end:
        return None
    zone = _zone(player)
    t = at.astimezone(zone)
    start, end = player.quiet_start, player.quiet_end
    hour = t.hour
    quiet = start <= hour < end if start < end else (hour >= start or hour < end)
    if not quiet:
        return None
    end_day = t.date() if hour < end else t.date() + timedelta(days=1)
    return datetime.combine(end_day, dtime(end), zone)


def build_digests():
    """One digest email a day, at 08:00 in the player's zone, of the notices before it.

    Notices that arrive after today's digest wait for tomorrow's.
    """
    current = now()
    players = db.session.execute(db.select(Player).where(Player.id.in_(
        db.select(Notice.player_id).filter_by(status="digest")))).scalars().all()
    made = 0
    for player in players:
        zone = _zone(player)
        t = current.astimezone(zone)
        day = t.date() if t.hour >= DIGEST_HOUR else t.date() - timedelta(days=1)
        boundary = datetime.combine(day, dtime(DIGEST_HOUR), zone)
        if player.last_digest_at and player.last_digest_at >= boundary:
            continue
        items = db.session.execute(db.select(Notice).filter(
            Notice.player_id == player.id, Notice.status == "digest",
            Notice.created_at <= boundary).order_by(Notice.id)).scalars().all()
        _channel_digests(player, [n for n in items if n.channel != "email"], current)
        items = [n for n in items if n.channel == "email"]
        if not items:
            db.session.commit()
            continue
        parts = [f"Your pbem digest for {t.strftime('%a %d %b %Y')}: "
                 f"{len(items)} notice{'s' if len(items) != 1 else ''}.", ""]
        for n in items:
            parts += ["=" * 72, n.subject, "", n.body, ""]
            n.status = "digested"
        player.last_digest_at = current
        db.session.add(Notice(player_id=player.id, to_address=player.email, kind="digest",
                              channel="email", subject=f"[pbem] Daily digest: {len(items)} "
                              f"notice{'s' if len(items) != 1 else ''}",
                              body="\n".join(parts), next_attempt_at=current, created_at=current))
        db.session.commit()
        made += 1
    return made


def _channel_digests(player, items, current):
    """One digest notice per chat channel (and one push) of the day's held notices."""
    groups = {}
    for n in items:
        groups.setdefault((n.channel, n.channel_id), []).append(n)
        n.status = "digested"
    for (channel, channel_id), group in groups.items():
        games = list(dict.fromkeys(n.game_id for n in group if n.game_id))
        headline = (f"pbem digest: {len(group)} notice{'s' if len(group) != 1 else ''}"
                    + (f" in {', '.join(games[:8])}" if games else ""))
        lines = tuple(dict.fromkeys(n.subject for n in group))[:10]
        notice = channel_outbox.simple_notice("digest", headline, None, lines)
        db.session.add(Notice(player_id=player.id, kind="digest", channel=channel,
                              channel_id=channel_id, subject=headline[:200], body="",
                              payload=notice.data(), next_attempt_at=current,
                              created_at=current))


#: notices claimed at once by one worker, and how long its claim (lease) on them lasts
BATCH = 200
LEASE = timedelta(minutes=2)
#: seconds of sending in one pass; what is still due then is sent by the next pass, which
#: follows at once (``tick``'s "more")
SEND_BUDGET = 10.0


def _claim_due(current, limit):
    """Claim up to ``limit`` due notices for this worker (a lease of :data:`LEASE`) and return
    their ids: one ``UPDATE ... WHERE id IN (the due ones) RETURNING id``, committed.  On
    PostgreSQL the due ones are read ``FOR UPDATE SKIP LOCKED``: two workers draining at once
    take disjoint batches instead of queueing on each other's rows, and a row another worker
    claimed meanwhile fails the condition when it is re-read under its lock.  On SQLite the
    statement runs under the database's write lock, so no other claim interleaves."""
    unclaimed = or_(Notice.claimed_until.is_(None), Notice.claimed_until < current)
    due = db.select(Notice.id).filter(Notice.status == "pending",
                                      Notice.next_attempt_at <= current, unclaimed) \
        .order_by(Notice.id).limit(limit)
    if db.engine.dialect.name == "postgresql":
        due = due.with_for_update(skip_locked=True)
    ids = db.session.execute(update(Notice).where(Notice.id.in_(due.scalar_subquery()))
                             .values(claimed_until=current + LEASE)
                             .returning(Notice.id)
                             .execution_options(synchronize_session=False)).scalars().all()
    db.session.commit()
    return sorted(ids)


#: outcomes recorded per commit: a worker that dies mid-batch sends at most this many mails
#: again once their lease ran out (never while it lives: the claims are its own)
COMMIT_EVERY = 25


def send_due(limit=BATCH, budget=SEND_BUDGET):
    """Send what is due, each notice claimed by exactly one worker, in batches of ``limit``
    on one SMTP connection, for at most ``budget`` seconds.  Returns (sent, more): more is
    True when the pass stopped with notices still due."""
    current = now()
    end = time.monotonic() + budget
    session = db.session()
    # the claimed rows are this worker's own until their lease ends: a commit need not
    # expire them (reloading each one after every commit was a third of a drain's time)
    keep, session.expire_on_commit = session.expire_on_commit, False
    try:
        with Mailer(current_app.config) as mailer:
            return _drain(current, limit, end, mailer)
    finally:
        session.expire_on_commit = keep


def _drain(current, limit, end, mailer):
    """send_due's batches: claim, send, record; until nothing is due or time is up."""
    sent = 0
    while True:
        ids = _claim_due(current, limit)
        notices = db.session.execute(db.select(Notice).where(Notice.id.in_(ids))
                                     .order_by(Notice.id)).scalars().all() if ids else []
        players = {p.id: p for p in db.session.execute(db.select(Player).where(
            Player.id.in_({n.player_id for n in notices if n.player_id}))).scalars()} \
            if notices else {}
        for i, notice in enumerate(notices):
            if time.monotonic() > end:  # give back the rest of the batch at once
                db.session.commit()
                _release(notices[i:])
                return sent, True
            sent += _send_one(notice, players.get(notice.player_id), current, mailer)
            if i % COMMIT_EVERY == COMMIT_EVERY - 1:
                db.session.commit()
        db.session.commit()
        if len(ids) < limit:
            return sent, False
        if time.monotonic() > end:
            return sent, True


def _release(notices):
    ids = [n.id for n in notices]
    db.session.execute(update(Notice).where(Notice.id.in_(ids)).values(claimed_until=None)
                       .execution_options(synchronize_session=False))
    db.session.commit()


def _send_one(notice, player, current, mailer):
    """Send one claimed notice and record the outcome in the session (send_due
    commits it); 1 when it went out."""
    if notice.channel in ("email", "channel", "webpush") and notice.kind != "move":
        resume = _in_quiet_hours(player, current)
        if resume is not None and notice.kind not in ("mail-reply",):
            notice.next_attempt_at = resume
            notice.claimed_until = None
            return 0
    try:
        if notice.channel in ("channel", "webpush"):
            db.session.commit()  # a delivery commits or rolls back on its own: the outcomes
            stopped = channel_outbox.deliver(notice, player)  # recorded so far go first
            if stopped is not None:
                owner, subject, body, public = channel_outbox.stopped_notice(stopped)
                if owner is not None:
                    enqueue(owner, stopped.game_id, "stopped", subject, body,
                            notice=public)
                notice.status, notice.claimed_until = "failed", None
                notice.last_error = (stopped.stopped_reason or "")[:500]
                return 0
        elif notice.channel == "webhook":  # an outbox row from before notice channels
            post_webhook(player.webhook_url, notice.payload or {},
                         current_app.config.get("PBEM_WEBHOOK_ALLOW_PRIVATE", False))
        else:
            mailer.send(notice.to_address, notice.subject, notice.body,
                        headers=notice.headers)
    except (SendError, ChannelError) as exc:
        notice.attempts += 1
        notice.last_error = str(exc)[:500]
        notice.claimed_until = None
        if notice.attempts >= MAX_ATTEMPTS:
            notice.status = "failed"
            log.error("notice %s failed for good: %s", notice.id, exc)
        else:
            wait = min(3600, 30 * 2 ** (notice.attempts - 1))
            # a chat service that asked us to wait (429 Retry-After) is given that long
            wait = max(wait, getattr(exc, "retry_after", None) or 0)
            notice.next_attempt_at = current + timedelta(seconds=wait)
        return 0
    notice.status = "sent"
    notice.sent_at = current
    notice.attempts += 1
    return 1


# --- outages -----------------------------------------------------------------------------

#: seconds without a notice worker's heartbeat that count as an outage (a worker passes every
#: few seconds, and at least once a minute while games move)
OUTAGE_AFTER = 600


def beat(name="notices"):
    """Write the worker's heartbeat: this pass ran now."""
    current = now()
    claimed = db.session.execute(update(WorkerHeartbeat).where(WorkerHeartbeat.name == name)
                                 .values(at=current))
    if claimed.rowcount == 0:
        db.session.add(WorkerHeartbeat(name=name, at=current))
    try:
        db.session.commit()
    except Exception:  # noqa: BLE001 - another worker wrote the first beat at the same time
        db.session.rollback()


def catch_up_after_outage(name="notices"):
    """At a worker's start: when no notice worker has run for longer than
    :data:`OUTAGE_AFTER`, every deadline still running at the last heartbeat is moved by the
    length of the outage, so that nobody loses a turn to the service's downtime (the time the
    games lost is given back, never forced at once).  One worker of several does it (a
    compare-and-set on the heartbeat).  Returns the number of deadlines moved.
    """
    row = db.session.get(WorkerHeartbeat, name)
    current = now()
    if row is None:
        beat(name)
        return 0
    last = row.at
    gap = current - last
    if gap.total_seconds() <= OUTAGE_AFTER:
        return 0
    claimed = db.session.execute(update(WorkerHeartbeat).where(
        WorkerHeartbeat.name == name, WorkerHeartbeat.at == last).values(at=current))
    if claimed.rowcount != 1:  # another worker came back first and gives the time back
        db.session.rollback()
        return 0
    moved = 0
    for duty in db.session.execute(db.select(Duty).filter(Duty.due_at.is_not(None),
                                                          Duty.due_at > last)).scalars():
        duty.due_at = duty.due_at + gap
        timebank.shift(duty.game_id, duty.seat, gap)  # a time bank's spell, too
        moved += 1
    db.session.commit()
    log.warning("no notice worker ran for %s (since %s): %d deadline(s) moved by that long",
                gap, last.isoformat(), moved)
    return moved


def tick():
    """One pass of the worker: deadlines, new duties, digests, sending.  Returns counts."""
    beat()
    ended = sweep_time_limits()
    forced, reminded = sweep_deadlines()
    composed = compose_turn_notices()
    from ..game.orders import sweep  # standing orders: what no move set off yet
    ordered = sweep()
    channels = channel_outbox.tell_game_channels()
    digests = build_digests()
    sent, more = send_due()
    rated = ratings.rate_finished_games()
    from ..game.tournaments import sweep as sweep_tournaments  # a round the hook missed
    rounds = sweep_tournaments()
    return {"time_up": ended, "forced": forced, "reminders": reminded, "notices": composed,
            "digests": digests, "sent": sent, "rated": rated, "orders": ordered,
            "game_channels": channels, "tournament_rounds": rounds, "more": more}


def _passes():
    """The worker's pass: the first one gives back the time an outage took (before any
    deadline is swept), then every pass is a tick."""
    started = []

    def work():
        if not started:
            catch_up_after_outage()
            started.append(True)
        return tick()
    return work


def run_forever(app, interval=5.0, stop=None):
    """The ``pbem-server notify`` loop: a tick, then a pause of ``interval`` seconds, cut
    short when a game moves, starts or ends (its new duties are announced at once)."""
    workers.run_forever(app, _passes(), interval, "notices", stop, push.any_move_waiter(app))


def start_background(app, interval=5.0):
    return workers.start_background(app, _passes(), interval, "notices",
                                    push.any_move_waiter(app))
