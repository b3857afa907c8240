"""Device keys: a device a player delegates to (its key, delegation and signed requests)."""

import json
import secrets

from client.signing import request_headers
from shared.delegation import make_delegation
from shared.envelope import (
    make_envelope,
    public_key_hex,
    sign_envelope,
)

DAY = 86400


class Device:
    """A device key of ``player`` with its delegation."""

    def __init__(self, player, label="phone", days=30, key=None, signer=None):
        self.player = player
        self.key = key or secrets.token_bytes(32)
        self.public_key = public_key_hex(self.key)
        self.delegation = make_delegation(signer or player.key, player.name, self.public_key,
                                          label, player.clock() + days * DAY)

    def register(self):
        return self.player.post("/api/devices", {"delegation": self.delegation})

    def request(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else b""
        headers = request_headers(self.key, self.player.name, method, path, data,
                                  ts=self.player.clock())
        headers["X-Pbem-Device"] = self.public_key
        return self.player.client.open(path, method=method, data=data, headers=headers,
                                       content_type="application/json" if body is not None
                                       else None)

    def move_body(self, game_id, seat, move, ts=None):
        info = self.player.get(f"/api/games/{game_id}/view").get_json()
        env = make_envelope(game_id, info["next_seq"], info["prev"], seat, move,
                            secrets.token_hex(8), self.player.clock() if ts is None else ts,
                            delegation=self.delegation)
        text, sig = sign_envelope(self.key, env)
        return {"envelope": text, "signature": sig}

    def play(self, game_id, seat, move, ts=None):
        return self.player.post(f"/api/games/{game_id}/moves",
                                self.move_body(game_id, seat, move, ts))


def _code(resp):
    return resp.get_json()["error"]["code"]
