"""Idempotency-Key for POSTs: a retried request replays the stored answer.

The key is scoped to the authenticated player (or, for a registration, to
the public key being registered).  The same key with another body is a 422.
A key whose first request is still running answers 409.  Only successful
answers are stored: a refused request may be retried with the same key.
"""

import hashlib
import re
from functools import wraps

from flask import Response, request
from sqlalchemy.exc import IntegrityError

from ..db import db
from ..db.models import IdempotencyKey
from ..game.domain import Conflict, Malformed, Refused
from .auth import current_player


def _scope():
    if request.path == "/api/players":
        body = request.get_json(silent=True) or {}
        key = body.get("public_key") if isinstance(body, dict) else None
        # this runs before the schema: only a well-formed key names a scope (a 200-character
        # one overflowed the column, a 500 before); the schema then refuses the others
        if isinstance(key, str) and re.fullmatch(r"[0-9a-f]{64}", key):
            return f"register:{key}"
        return "register:?"
    return f"player:{current_player().id}"


def idempotent(view):
    @wraps(view)
    def wrapper(*args, **kwargs):
        key = request.headers.get("Idempotency-Key")
        if key is None:
            return view(*args, **kwargs)
        if not 1 <= len(key) <= 128 or not key.isascii() or not key.isprintable():
            raise Malformed("bad_idempotency_key", "Idempotency-Key must be 1 to 128 "
                            "printable ASCII characters")
        scope = _scope()
        digest = hashlib.sha256(request.method.encode() + b" " + request.path.encode() + b"\n"
                                + request.get_data(cache=True)).hexdigest()
        row = db.session.execute(db.select(IdempotencyKey).filter_by(scope=scope, key=key)) \
            .scalar_one_or_none()
        if row is None:
            row = IdempotencyKey(scope=scope, key=key, request_hash=digest)
            db.session.add(row)
            try:
                db.session.commit()
            except IntegrityError:
                db.session.rollback()
                row = db.session.execute(db.select(IdempotencyKey)
                                         .filter_by(scope=scope, key=key)).scalar_one()
            else:
                return _run_and_store(view, row, args, kwargs)
        if row.request_hash != digest:
            raise Refused("idempotency_key_reused", "this Idempotency-Key was used with "
                          "another request; use a new key for a new request")
        if row.status is None:
            raise Conflict("idempotency_in_progress", "a request with this Idempotency-Key is "
                           "still being processed; retry shortly")
        resp = Response(row.body, status=row.status, mimetype="application/json")
        resp.headers["Idempotent-Replayed"] = "true"
        return resp

    return wrapper


def _run_and_store(view, row, args, kwargs):
    row_id = row.id
    try:
        resp = view(*args, **kwargs)
    except BaseException:
        db.session.rollback()
        db.session.execute(db.delete(IdempotencyKey).filter_by(id=row_id))
        db.session.commit()
        raise
    if not isinstance(resp, Response):
        return resp
    if 200 <= resp.status_code < 300:
        db.session.execute(db.update(IdempotencyKey).filter_by(id=row_id)
                           .values(status=resp.status_code, body=resp.get_data(as_text=True)))
    else:
        db.session.execute(db.delete(IdempotencyKey).filter_by(id=row_id))
    db.session.commit()
    return resp
