"""A player's private calendar feed: one event per pending deadline, for any calendar app.

The feed's address holds a token only its player knows: ``HMAC(server key, "calendar" |
player id | generation)``, so nothing secret is stored; making a new address
(:func:`new_feed`) raises the player's generation and ends the old one.  A wrong or old token
finds nothing (NotFound, the same answer as for a player who does not exist).

Each event is a deadline the player has now (``Duty.due_at``), named by its game, with the
game's page as its URL; its UID stays the same while the deadline is the same duty, so a
calendar app updates an event instead of adding another when a deadline moves (vacation, an
outage's grace).
"""

import hashlib
import hmac
from datetime import timedelta

from flask import current_app

from shared.games import get_game

from ..clock import now
from ..db import db
from ..db.keys import server_key
from ..db.models import Duty, Game, Player
from .domain import NotFound

#: how long each deadline's event lasts in the calendar (a marker, not a meeting)
EVENT_MINUTES = 15


def feed_token(player):
    """The token of ``player``'s current feed (43 characters of base64url)."""
    import base64
    mac = hmac.new(server_key()[0], f"pbem-calendar-v1|{player.id}|"
                   f"{player.calendar_generation or 0}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode("ascii").rstrip("=")


def feed_path(player):
    return f"/api/calendar/{player.name}/{feed_token(player)}.ics"


def new_feed(player):
    """A new feed address for ``player``; the old one stops working."""
    player.calendar_generation = (player.calendar_generation or 0) + 1
    db.session.commit()
    return feed_path(player)


def player_for(name, token):
    """The player whose feed ``token`` opens; NotFound otherwise (no hint which part was
    wrong)."""
    player = db.session.execute(db.select(Player).filter_by(name=name)).scalar_one_or_none() \
        if isinstance(name, str) and len(name) <= 32 else None
    if player is None or not isinstance(token, str) or \
            not hmac.compare_digest(feed_token(player), token):
        raise NotFound("unknown_feed", "there is no calendar feed at this address")
    return player


def feed(player, base_url=""):
    """The feed of ``player``: text/calendar bytes (RFC 5545), one VEVENT a deadline."""
    from icalendar import Calendar, Event
    cal = Calendar()
    cal.add("prodid", "-//pbem//deadlines//EN")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", f"pbem: {player.name}'s deadlines")
    stamp = now()
    rows = db.session.execute(
        db.select(Duty, Game).join(Game, Game.id == Duty.game_id).filter(
            Duty.player_id == player.id, Duty.due_at.is_not(None), Game.status == "playing")
        .order_by(Duty.due_at)).all()
    for duty, game in rows:
        title = get_game(game.type).title
        event = Event()
        event.add("uid", f"{game.id}-{duty.seat}-{duty.since_seq}@pbem")
        event.add("dtstamp", stamp)
        event.add("dtstart", duty.due_at)
        event.add("dtend", duty.due_at + timedelta(minutes=EVENT_MINUTES))
        event.add("summary", f"Deadline: your move in {title} {game.id} ({duty.seat})")
        if base_url:
            event.add("url", f"{base_url.rstrip('/')}/g/{game.id}")
        event.add("description", f"You play {duty.seat} in {title} {game.id}; the deadline "
                  "passes at this time. pbem plays the game's timeout move for a late seat.")
        cal.add_component(event)
    return cal.to_ical()


def base_url(request_host_url):
    return (current_app.config.get("PBEM_BASE_URL") or request_host_url).rstrip("/")
