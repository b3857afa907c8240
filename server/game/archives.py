"""A game's archive (``shared/archive.py``, pbem-archive-v4), signed by the server.

Ed25519 signatures are deterministic: signing a fixed message when it is asked for gives the
bytes signed when the fact became fixed.  A game's start (its genesis, hence its header) is
fixed when the last seat fills; its final head (length, last hash, result, seed) when the
last move ends it.  So these two are signed when an archive is exported, not stored.
"""

from shared.archive import V4_FORMAT
from shared.envelope import (
    documents_digest,
    documents_message,
    final_head_message,
    running_head_message,
    sign,
    start_message,
)

from ..db import db
from ..db.keys import server_key
from ..db.models import Move
from .domain import Conflict


def _archive_key(game):
    """The private key that signs ``game``'s archive: the one its header names."""
    priv, pub = server_key()
    if game.header["server_key"] != pub:
        raise Conflict("server_key_changed", f"game {game.id} was started under server key "
                       f"{game.header['server_key'][:16]}..., and this server now signs with "
                       f"{pub[:16]}...: it cannot sign that game's archive")
    return priv


def start_signature(game):
    """The server's signature of a started game's id and genesis hash (its header)."""
    return sign(_archive_key(game), start_message(game.id, game.genesis))


def archive_head(game):
    """An archive's head: a running head while the game is played, the final head once over.

    The final head binds the length, the last hash, status "over", the result and the seed.
    """
    priv = _archive_key(game)
    length = game.head_seq + 1
    head_hash = game.head_hash or game.genesis
    if game.status == "over":
        message = final_head_message(game.id, length, head_hash, game.result, game.seed)
    else:
        message = running_head_message(game.id, length, head_hash)
    return {"game": game.id, "length": length, "hash": head_hash,
            "status": "over" if game.status == "over" else "playing",
            "signature": sign(priv, message)}


def archive_for(game, reader=None):
    """The archive document (shared/archive.py, pbem-archive-v4): header, start signature,
    every entry, the head (running, or final once over); the seed and result once over; the
    messages ``reader`` (a Player, None: anyone) may read, and the standing orders: the
    reader's own while the game runs, every seat's once it is over."""
    from . import orders, talk
    if game.status == "open":
        raise Conflict("not_started", f"game {game.id} has not started yet: there is no log")
    moves = db.session.execute(db.select(Move).filter_by(game_id=game.id)
                               .filter(Move.seq <= game.head_seq).order_by(Move.seq)).scalars()
    over = game.status == "over"
    head = archive_head(game)
    messages, standing = talk.documents(game, reader), orders.documents(game, reader)
    return {"format": V4_FORMAT, "header": game.header, "genesis": game.genesis,
            "start_signature": start_signature(game),
            "entries": [{"seq": m.seq, "envelope": m.envelope, "signature": m.signature,
                         "hash": m.hash} for m in moves],
            "head": head,
            "seed": game.seed if over else None,
            "result": game.result if over else None,
            "messages": messages,
            "orders": standing,
            "documents": documents_signature(game, head, reader, messages, standing)}


def documents_signature(game, head, reader, messages, standing):
    """v4: the server's signature of the set of side documents this export holds, in order,
    for ``reader`` (its name; None: a spectator), at ``head`` (shared.envelope
    ``documents_message``): dropping, adding or moving a message or an order breaks it."""
    name = reader.name if reader is not None else None
    digest = documents_digest(messages, standing)
    message = documents_message(game.id, head["length"], head["hash"], head["status"], name,
                                digest)
    return {"reader": name, "digest": digest, "signature": sign(_archive_key(game), message)}
