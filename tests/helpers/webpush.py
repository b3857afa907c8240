"""What a browser holds for a Web Push subscription, in Python: a P-256 key pair and an auth
secret, to decrypt what a push service was handed (RFC 8291, ``aes128gcm``)."""

import base64
import json

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


class PushKeys:
    """A subscription's keys (``p256dh``, ``auth``) for ``endpoint``; ``decrypt(body)`` reads
    a push sent to them as JSON."""

    def __init__(self, endpoint):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = bytes(range(16))
        self.endpoint = endpoint
        self.p256dh = b64url(self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))

    def subscription(self):
        """The subscription as a browser's ``PushSubscription.toJSON()`` gives it."""
        return {"endpoint": self.endpoint, "expirationTime": None,
                "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth)}}

    def decrypt(self, body):
        import http_ece
        return json.loads(http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth,
                                           version="aes128gcm"))
