"""Signing requests and moves with a player's Ed25519 key."""

import secrets
import time

from shared.envelope import make_envelope, request_message, sign, sign_envelope


def request_headers(private_key, name, method, path, body=b"", ts=None, nonce=None):
    """The four X-Pbem-* headers that prove the caller holds ``private_key``."""
    ts = str(int(time.time()) if ts is None else ts)
    nonce = nonce or secrets.token_hex(12)
    sig = sign(private_key, request_message(method, path, ts, nonce, body))
    return {"X-Pbem-Player": name, "X-Pbem-Timestamp": ts, "X-Pbem-Nonce": nonce,
            "X-Pbem-Signature": sig}


def signed_move(private_key, game, seq, prev, seat, move, ts=None, nonce=None):
    """The POST body for a move: {"envelope": canonical text, "signature": hex}."""
    env = make_envelope(game, seq, prev, seat, move, nonce or secrets.token_hex(12),
                        int(time.time()) if ts is None else ts)
    text, sig = sign_envelope(private_key, env)
    return {"envelope": text, "signature": sig}
