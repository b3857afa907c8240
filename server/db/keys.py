"""The server's signing key: from the configuration, or made once and kept in the database.

It signs the live heads of views and logs (``server/game/views.py``), forced moves (the notice
worker) and archives (``server/game/archives.py``).
"""

import secrets

from flask import current_app
from sqlalchemy.exc import IntegrityError

from shared.envelope import public_key_hex

from . import db
from .models import ServerKey


def server_key():
    """(private bytes, public hex) of the server's signing key."""
    cached = current_app.extensions.get("pbem_server_key")
    if cached:
        return cached
    configured = current_app.config.get("PBEM_SERVER_KEY")
    if configured:
        priv = bytes.fromhex(configured)
    else:
        row = db.session.get(ServerKey, 1)
        if row is None:
            priv = secrets.token_bytes(32)
            db.session.add(ServerKey(id=1, private_key=priv.hex(), public_key=public_key_hex(priv)))
            try:
                db.session.commit()
            except IntegrityError:
                db.session.rollback()
                row = db.session.get(ServerKey, 1)
                priv = bytes.fromhex(row.private_key)
        else:
            priv = bytes.fromhex(row.private_key)
    pair = (priv, public_key_hex(priv))
    current_app.extensions["pbem_server_key"] = pair
    return pair
