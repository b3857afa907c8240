"""What revoking a device ends on the server, and who may revoke a key.

A seat revokes only keys its own player delegated (``shared/table.py``, ``@revoke``): the
table state refuses a key the log shows delegated by another player; the server, which holds
the registry and every account's key, also refuses another player's registered device and any
account's main key (a bot's included: its seat could then not be handed to it).

Revoking a device ends the standing orders it signed (``server/game/orders.py``): ``pbem device
revoke`` at once, in every game, and a ``@revoke`` entry in its game; the archive verifier
refuses an order's entry after the revocation (``shared/archive.py``).
"""

import json

from sqlalchemy import update

from ..db import db
from ..db.models import DeviceKey, Player, StandingOrder
from .domain import Forbidden


def check_revoker(player_id, key):
    """Refuse (Forbidden ``not_your_device``) a ``@revoke`` of ``key`` by the seat of player
    ``player_id`` when ``key`` is another player's registered device or any account's main
    key."""
    owner = db.session.execute(db.select(DeviceKey.player_id).where(
        DeviceKey.device_key == key)).scalar_one_or_none()
    if owner is not None and owner != player_id:
        raise Forbidden("not_your_device", "that device key is another player's: a seat "
                        "revokes only the keys its own player delegated")
    if db.session.execute(db.select(Player.id).where(Player.public_key == key)).first():
        raise Forbidden("not_your_device", "that is a player's main key (or a bot's), not a "
                        "device key your player delegated")


def signed_by(row, keys):
    """True when standing order ``row`` was signed by one of the device ``keys``."""
    delegation = json.loads(row.body).get("delegation")
    return delegation is not None and delegation.get("device_key") in keys


def end_orders(keys, game_id=None, seat=None, player_id=None):
    """Mark done the standing orders in force that the device ``keys`` signed (in game
    ``game_id``'s ``seat``, or in every game of ``player_id``); return them as
    [{"game", "seat", "order", "hash"}], in the caller's transaction."""
    query = db.select(StandingOrder).where(StandingOrder.done.is_(False),
                                           StandingOrder.body.contains('"delegation"'))
    if game_id is not None:
        query = query.where(StandingOrder.game_id == game_id, StandingOrder.seat == seat)
    if player_id is not None:
        query = query.where(StandingOrder.player_id == player_id)
    ended = [row for row in db.session.execute(query).scalars() if signed_by(row, set(keys))]
    if ended:
        db.session.execute(update(StandingOrder).where(
            StandingOrder.id.in_([row.id for row in ended])).values(done=True))
    return [{"game": row.game_id, "seat": row.seat, "order": row.text, "hash": row.hash}
            for row in ended]
