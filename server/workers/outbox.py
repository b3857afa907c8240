"""The notice outbox: :func:`enqueue` adds the rows the notice worker (server/workers/notify.py)
sends.  Services (table talk, rematches, mail-in) import it without importing the worker; the
rows are written in the caller's transaction.
"""

import logging

from ..clock import now
from ..db import db
from ..db.models import Notice
from . import channel_outbox

log = logging.getLogger("pbem.notices")


def enqueue(player, game_id, kind, subject, body, payload=None, to=None, notice=None,
            headers=None):
    """Outbox rows for one message to ``player`` (or a bare address ``to``): mail (with the
    mail ``headers`` given: Reply-To, Message-ID, In-Reply-To), and, with ``notice`` (its
    public form, server/workers/channel_outbox.py), each of the player's chat channels and
    Web Push subscriptions."""
    current = now()
    if player is None:
        db.session.add(Notice(to_address=to, game_id=game_id, kind=kind, channel="email",
                              subject=subject, body=body, next_attempt_at=current,
                              created_at=current))
        return
    if player.email and player.notify != "none":
        status = "digest" if player.notify == "digest" and kind in ("turn", "reminder", "talk") \
            else "pending"
        db.session.add(Notice(player_id=player.id, to_address=player.email, game_id=game_id,
                              kind=kind, channel="email", subject=subject, body=body,
                              payload=payload, next_attempt_at=current, created_at=current,
                              status=status, headers=headers))
    if player.notify == "none":
        return
    rows = channel_outbox.enqueue_channels(
        player, game_id, kind, notice, "digest" if player.notify == "digest"
        and kind in ("turn", "reminder", "talk") else "pending") if notice is not None else []
    if not player.email and not rows:
        # a player with nowhere to be told (a bot account asks for none: its turns are many)
        log.info("notice for %s (no email, no channel): %s\n%s", player.name, subject, body)
