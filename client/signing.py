"""Signing requests and moves with a player's Ed25519 key."""

import os
import time

from shared.envelope import EnvelopeError, make_envelope, request_message, sign, sign_envelope


def request_headers(private_key, name, method, path, body=b"", ts=None, nonce=None):
    """The four X-Pbem-* headers that prove the caller holds ``private_key``."""
    ts = str(int(time.time()) if ts is None else ts)
    nonce = nonce or os.urandom(12).hex()
    sig = sign(private_key, request_message(method, path, ts, nonce, body))
    headers = {"X-Pbem-Player": name, "X-Pbem-Timestamp": ts, "X-Pbem-Nonce": nonce,
               "X-Pbem-Signature": sig}
    device = getattr(private_key, "public_key", None)  # a device home's key (home.DeviceKey)
    if device is not None:
        headers["X-Pbem-Device"] = device
    return headers


def signed_move(private_key, game, seq, prev, seat, move, ts=None, nonce=None):
    """The POST body for a move: {"envelope": canonical text, "signature": hex}.

    A device home's key (``home.DeviceKey``) puts its delegation in the envelope; a
    delegation that has ended by this machine's clock raises EnvelopeError."""
    ts = int(time.time()) if ts is None else ts
    delegation = getattr(private_key, "delegation", None)
    if delegation is not None and ts > delegation["not_after"]:
        raise EnvelopeError(f"this home's device key ({delegation['label']!r}) may no longer "
                            "move: its delegation ended; ask your main home for a new one "
                            "(pbem device add)", "delegation_expired")
    env = make_envelope(game, seq, prev, seat, move, nonce or os.urandom(12).hex(), ts,
                        delegation=delegation)
    text, sig = sign_envelope(private_key, env)
    return {"envelope": text, "signature": sig}
