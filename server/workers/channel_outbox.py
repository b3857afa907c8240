"""Notices to chat channels and to phones: what the outbox adds for them.

Every notice a player gets by mail goes, as a :class:`server.channels.PublicNotice` (what a
spectator may know, plus "your move"), to each of the player's active channels and to the
browsers that subscribed to Web Push.  They are rows of the same outbox (``Notice``, with
``channel`` "channel" and the channel's id, or "webpush"), sent once by one worker, retried
with the outbox's back-off, postponed by the player's quiet hours and folded into the daily
digest as mail is.

A channel that fails :data:`STOP_AFTER` times in a row (a permanent refusal, such as a deleted
webhook, counts three) is **stopped**: nothing more is sent to it, and the player is told by
their other channels and by mail.  Setting it again starts it anew.

A game's channel (a Discord or Slack webhook for the game's group, set by one of its players)
gets one line per move: the move's public text and whose move it is, mentioning the players
who owe a move by the chat ids they linked.  The worker keeps the last entry each game channel
was told of, so a pass tells each move once.
"""

import logging

from flask import current_app

from shared.games import get_game

from ..clock import now, now_ts
from ..db import db
from ..db.models import Duty, Game, Move, NoticeChannel, Player, PushSubscription, Seat
from .channels import ChannelError, PublicNotice, build_request, send

log = logging.getLogger("pbem.notices")
#: failed sends in a row that stop a channel (a permanent refusal counts three)
STOP_AFTER = 6
#: the most moves one pass tells a game channel of (older ones are summed up in a line)
MOVES_PER_PASS = 10


def _game_url(game_id):
    base = (current_app.config.get("PBEM_BASE_URL") or "").rstrip("/")
    return f"{base}/g/{game_id}" if base and game_id else None


def public_notice(game, seat, kind, due_at=None):
    """The public notice of a duty (``kind`` turn, reminder, forced): the game, the last
    move's public text, what ``seat`` owes as a spectator reads it, the deadline."""
    from ..db.state_cache import load_log
    game_def = get_game(game.type)
    view = load_log(game).view(None)
    owes = (view.get("owes") or {}).get(seat)
    lines = []
    last = db.session.execute(db.select(Move).filter_by(game_id=game.id, seq=game.head_seq)) \
        .scalar_one_or_none()
    if last is not None:
        lines += [f"{last.seat}: {text}" for text in game_def.events_for(last.events, None)
                  if text][:3]
    if owes:
        lines.append(f"{seat} owes: {owes}")
    head = {"reminder": "Reminder: your move", "forced": "Your deadline passed"}.get(
        kind, "Your move")
    return PublicNotice(kind=kind, headline=f"{head} in {game_def.title} {game.id} "
                        f"(you play {seat})", game_id=game.id, title=game_def.title,
                        lines=tuple(lines), url=_game_url(game.id), seq=game.head_seq,
                        deadline=int(due_at.timestamp()) if due_at else None)


def simple_notice(kind, headline, game_id=None, lines=()):
    return PublicNotice(kind=kind, headline=headline, game_id=game_id, lines=tuple(lines),
                        url=_game_url(game_id))


def enqueue_channels(player, game_id, kind, notice, status="pending"):
    """Outbox rows of ``notice`` for each active channel of ``player`` and for Web Push."""
    from ..db.models import Notice
    current = now()
    rows = []
    for channel in active_channels(player):
        rows.append(Notice(player_id=player.id, game_id=game_id, kind=kind, channel="channel",
                           channel_id=channel.id, subject=notice.headline[:200], body="",
                           payload=notice.data(), next_attempt_at=current, created_at=current,
                           status=status))
    has_push = db.session.execute(db.select(PushSubscription.id).filter_by(
        player_id=player.id).limit(1)).scalar_one_or_none()
    if has_push is not None:
        rows.append(Notice(player_id=player.id, game_id=game_id, kind=kind, channel="webpush",
                           subject=notice.headline[:200], body="", payload=notice.data(),
                           next_attempt_at=current, created_at=current, status=status))
    db.session.add_all(rows)
    return rows


def active_channels(player):
    """The player's own channels that are not stopped (a game's channel is not one)."""
    return db.session.execute(db.select(NoticeChannel).filter_by(
        player_id=player.id, game_id=None, status="active").order_by(NoticeChannel.id)) \
        .scalars().all()


def notice_of(row):
    data = row.payload or {}
    return PublicNotice(kind=data.get("kind") or row.kind, headline=data.get("headline")
                        or row.subject, game_id=data.get("game"), title=data.get("title")
                        or "pbem", lines=tuple(data.get("lines") or ()),
                        deadline=data.get("deadline"), url=data.get("url"),
                        seq=data.get("seq"), mentions=tuple(data.get("mentions") or ()))


def deliver(row, player):
    """Send one outbox row of channel "channel" or "webpush".

    Returns None when it went (or its channel is gone or stopped: the row is done), or the
    channel it stopped (STOP_AFTER failures in a row): the caller tells the channel's owner,
    with :func:`stopped_notice`. Raises ChannelError when it failed and may go later.
    """
    allow = current_app.config.get("PBEM_WEBHOOK_ALLOW_PRIVATE", False)
    notice = notice_of(row)
    if row.channel == "webpush":
        from .webpush import push_to_player
        push_to_player(player, notice)
        return None
    channel = db.session.get(NoticeChannel, row.channel_id)
    if channel is None or channel.status != "active":
        return None
    req = build_request(channel.kind, channel.target, notice, msg_id=f"pbem-notice-{row.id}",
                        timestamp=now_ts(),
                        telegram_api=current_app.config.get("PBEM_TELEGRAM_API"))
    try:
        send(req, allow)
    except ChannelError as exc:
        channel.failures += 3 if exc.permanent else 1
        if channel.failures >= STOP_AFTER:
            channel.status = "stopped"
            channel.stopped_reason = exc.message[:300]
            log.warning("notice channel %s (%s) stopped: %s", channel.id, channel.kind,
                        exc.message)
            db.session.commit()
            return channel
        db.session.commit()
        raise
    if channel.failures:
        channel.failures = 0
        db.session.commit()
    return None


def stopped_notice(channel):
    """(owner, subject, body, notice) telling the owner of a stopped channel; owner None
    when nobody is to be told."""
    owner = db.session.get(Player, channel.player_id) if channel.player_id else None
    what = f"the {channel.kind} channel of game {channel.game_id}" if channel.game_id else \
        f"your {channel.kind} channel"
    reason = channel.stopped_reason or "it kept failing"
    body = (f"pbem stopped sending to {what} after repeated failures ({reason}).\n"
            "Set it again (pbem notify, or the settings page) once it works; until then "
            "your other channels and mail still get every notice.\n")
    return (owner, f"[pbem] Notices to {what} stopped", body,
            simple_notice("stopped", f"pbem stopped sending to {what}", channel.game_id,
                          (reason,)))


# --- game channels ------------------------------------------------------------------------

def _owing_mentions(game, kind):
    duties = db.session.execute(db.select(Duty.player_id).filter_by(game_id=game.id)) \
        .scalars().all()
    out = []
    for player_id in dict.fromkeys(duties):
        player = db.session.get(Player, player_id)
        chat = (player.chat_ids or {}).get(kind) if player else None
        if chat:
            out.append(chat)
    return tuple(out)


def tell_game_channels():
    """One pass: each game channel is told of the moves since it was last told (at most
    :data:`MOVES_PER_PASS` lines, the rest summed up); returns the notices queued."""
    from ..db.models import Notice
    queued = 0
    channels = db.session.execute(db.select(NoticeChannel).filter(
        NoticeChannel.game_id.is_not(None), NoticeChannel.status == "active")).scalars().all()
    for channel in channels:
        game = db.session.get(Game, channel.game_id)
        if game is None or game.head_seq < 0:
            continue
        start = (channel.last_seq if channel.last_seq is not None else game.head_seq - 1) + 1
        if start > game.head_seq:
            continue
        game_def = get_game(game.type)
        moves = db.session.execute(db.select(Move).filter(
            Move.game_id == game.id, Move.seq >= start).order_by(Move.seq)).scalars().all()
        lines = []
        if len(moves) > MOVES_PER_PASS:
            lines.append(f"{len(moves) - MOVES_PER_PASS} earlier moves")
            moves = moves[-MOVES_PER_PASS:]
        for move in moves:
            texts = [t for t in game_def.events_for(move.events, None) if t]
            lines.append(f"{move.seat}: {'; '.join(texts) or 'moved'}")
        owing = ", ".join(game.to_act or []) or "nobody"
        over = game.status == "over"
        headline = (f"{game_def.title} {game.id} is over" if over else
                    f"{game_def.title} {game.id}: {owing} to move")
        notice = PublicNotice(kind="move", headline=headline, game_id=game.id,
                              title=game_def.title, lines=tuple(lines),
                              url=_game_url(game.id), seq=game.head_seq,
                              mentions=() if over else _owing_mentions(game, channel.kind))
        current = now()
        db.session.add(Notice(player_id=None, game_id=game.id, kind="move", channel="channel",
                              channel_id=channel.id, subject=headline[:200], body="",
                              payload=dict(notice.data(), mentions=list(notice.mentions)),
                              next_attempt_at=current, created_at=current))
        channel.last_seq = game.head_seq
        db.session.commit()
        queued += 1
    return queued


def seated(game_id, player):
    """True when ``player`` holds a seat of game ``game_id``."""
    return db.session.execute(db.select(Seat.id).filter_by(
        game_id=game_id, player_id=player.id).limit(1)).scalar_one_or_none() is not None

