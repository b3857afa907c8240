"""Archives whose logs hold table entries (takebacks, key rotations), built entry by entry."""

from shared.envelope import entry_hash, make_envelope, public_key_hex, sign_envelope
from shared.table import LogReplay, verify_logged
from tests.helpers.archives import ArchiveBuilder


def key(i):
    return bytes([i]) * 32


SERVER = key(90)


class TableBuilder(ArchiveBuilder):
    """An ArchiveBuilder whose log may hold table entries: every entry goes through the one
    replay (shared/table.py), as on the server; ``signer`` picks another private key."""

    def __init__(self, game_type="pig", seats=("north", "east"), options=None, seed=b"s" * 32):
        keys = {s: key(i + 1) for i, s in enumerate(seats)}
        super().__init__(game_type, "tablegame", keys, SERVER, seed,
                         options if options is not None else {"target": 12},
                         players={s: f"p{i}" for i, s in enumerate(seats)})
        self.log = LogReplay(self.game, self.header, seed)

    def move(self, seat, text, forced=False, signer=None, ts=None):
        seq = len(self.entries)
        env = make_envelope(self.header["game"], seq, self.prev, seat, text, f"t-{seq}",
                            1_800_000_000 + seq if ts is None else ts, forced=forced)
        raw, sig = sign_envelope(signer or (SERVER if forced else self.keys[seat]), env)
        verify_logged(self.log.table, raw, sig, server_key=public_key_hex(SERVER),
                      game_id=self.header["game"], seq=seq, prev=self.prev)
        self.log.step(env)
        self.state = self.log.state
        digest = entry_hash(raw.encode("utf-8"), sig)
        self.entries.append({"seq": seq, "envelope": raw, "signature": sig, "hash": digest})
        self.prev = digest
        return env

    def result(self):
        """The result the replay gives (a table decision's, or the rules')."""
        return self.log.result()

    def force_entry(self, seat, text, signer):
        """Append an entry without the replay's consent (a forger's), signed by ``signer``."""
        seq = len(self.entries)
        env = make_envelope(self.header["game"], seq, self.prev, seat, text, f"t-{seq}",
                            1_800_000_000 + seq)
        raw, sig = sign_envelope(signer, env)
        digest = entry_hash(raw.encode("utf-8"), sig)
        self.entries.append({"seq": seq, "envelope": raw, "signature": sig, "hash": digest})
        self.prev = digest

    def finish(self):
        """Play Pig to its end: roll until the pot is 4 or more, then hold."""
        while self.game.result(self.state) is None:
            seat = self.log.to_act()[0]
            self.move(seat, "hold" if self.state["pot"] >= 4 else "roll")
