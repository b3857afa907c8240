"""Signing messages and standing orders in tests (the client signs them the same way)."""

import secrets

from shared.messages import MESSAGE_DOMAIN, document_hash, make_message, sign_document
from shared.orders import CANCEL_DOMAIN, ORDER_DOMAIN, make_cancel, make_order


def length(player, game_id):
    return player.get(f"/api/games/{game_id}/view").get_json()["next_seq"]


def message_doc(player, game_id, seat, text, to=None, at=None, key=None):
    at = length(player, game_id) if at is None else at
    body = make_message(game_id, seat, to, at, text, secrets.token_hex(8), player.clock())
    return sign_document(key or player.key, MESSAGE_DOMAIN, body)


def say(player, game_id, seat, text, to=None, at=None):
    return player.post(f"/api/games/{game_id}/messages",
                       message_doc(player, game_id, seat, text, to, at))


def order_doc(player, game_id, seat, text, at=None, key=None):
    at = length(player, game_id) if at is None else at
    body = make_order(game_id, seat, at, text, secrets.token_hex(8), player.clock())
    return sign_document(key or player.key, ORDER_DOMAIN, body)


def order(player, game_id, seat, text, at=None):
    return player.post(f"/api/games/{game_id}/orders", order_doc(player, game_id, seat, text, at))


def cancel(player, game_id, seat, order_hash, at=None):
    at = length(player, game_id) if at is None else at
    body = make_cancel(game_id, seat, at, order_hash, secrets.token_hex(8), player.clock())
    return player.post(f"/api/games/{game_id}/orders/cancel",
                       sign_document(player.key, CANCEL_DOMAIN, body))


def hash_of(doc):
    return document_hash(doc["body"])
