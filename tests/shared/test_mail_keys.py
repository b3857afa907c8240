"""Mail keys (shared/delegation.py, label "mail"): keys a server holds, delegated by a seat's
player to sign the moves they send in plain words by mail.  An archive names every move one
signed; the table state refuses any table entry one signs, where a device key may."""

import json

import pytest

from shared.archive import ArchiveError, mail_moves, verify_archive
from shared.delegation import MAIL_LABEL, is_mail_key, make_delegation
from shared.envelope import entry_hash, make_envelope, public_key_hex, sign_envelope
from shared.table import LogReplay, TableError
from tests.helpers.archives import ArchiveBuilder

NORTH, EAST, SERVER = bytes(range(32)), bytes(range(32, 64)), bytes(range(64, 96))
MAILKEY, PHONE = bytes(range(150, 182)), bytes(range(182, 214))
UNTIL = 1_800_000_900


class Builder(ArchiveBuilder):
    def signed_by(self, seat, text, key, delegation, play=True):
        seq = len(self.entries)
        env = make_envelope(self.header["game"], seq, self.prev, seat, text, f"mail-{seq}",
                            1_800_000_000 + seq, delegation=delegation)
        raw, sig = sign_envelope(key, env)
        if play:
            from shared.envelope import move_entropy
            self.state = self.game.play(self.state, seat, text,
                                        move_entropy(self.header["game"], seq, self.prev))
        digest = entry_hash(raw.encode("utf-8"), sig)
        self.entries.append({"seq": seq, "envelope": raw, "signature": sig, "hash": digest})
        self.prev = digest
        self.running_heads[len(self.entries)] = self.head_signature(len(self.entries), digest)


def _builder():
    return Builder("pig", "mailgame", {"north": NORTH, "east": EAST}, SERVER, bytes([2]) * 32,
                   {"target": 12}, players={"north": "ann", "east": "bob"})


def _mail_delegation():
    return make_delegation(NORTH, "ann", public_key_hex(MAILKEY), MAIL_LABEL, UNTIL)


def test_the_archive_names_every_move_a_mail_key_signed():
    b = _builder()
    mail = _mail_delegation()
    b.move("north", "peek")
    b.signed_by("north", "peek", MAILKEY, mail)
    b.signed_by("north", "hold", MAILKEY, mail)
    b.move("east", "hold")
    report = verify_archive(b.archive(), server_key=public_key_hex(SERVER))
    assert report["mail_moves"] == [
        {"seq": 1, "seat": "north", "player": "ann", "device_key": public_key_hex(MAILKEY),
         "not_after": UNTIL, "first_seq": 1},
        {"seq": 2, "seat": "north", "player": "ann", "device_key": public_key_hex(MAILKEY),
         "not_after": UNTIL, "first_seq": 1}]
    assert is_mail_key(mail) and not is_mail_key(dict(mail, label="phone"))


def test_a_device_key_of_another_label_is_not_a_mail_move():
    b = _builder()
    phone = make_delegation(NORTH, "ann", public_key_hex(PHONE), "phone", UNTIL)
    b.signed_by("north", "peek", PHONE, phone)
    assert verify_archive(b.archive())["mail_moves"] == []
    assert mail_moves([]) == []


def test_a_table_entry_signed_by_a_mail_key_is_refused_where_a_device_may_sign_it():
    b = _builder()
    mail = _mail_delegation()
    phone = make_delegation(NORTH, "ann", public_key_hex(PHONE), "phone", UNTIL)
    b.move("north", "hold")  # north's own last move, nothing revealed: it may ask it back
    table = LogReplay(None, b.header)
    for entry in b.entries:
        table.step(json.loads(entry["envelope"]))
    base = {"game": "mailgame", "seq": 1, "prev": b.prev, "seat": "north", "nonce": "n",
            "ts": 1_800_000_001}
    by_phone = dict(base, move="@takeback 0", delegation=phone)
    events = LogReplay(None, b.header)
    for entry in b.entries:
        events.step(json.loads(entry["envelope"]))
    assert events.step(by_phone)  # a device key may ask a takeback
    with pytest.raises(TableError) as refused:
        table.step(dict(base, move="@takeback 0", delegation=mail))
    assert refused.value.code == "mail_scope"
    # and the archive verifier refuses an archive whose mail key signed one
    b.signed_by("north", "@takeback 0", MAILKEY, mail, play=False)
    with pytest.raises(ArchiveError, match="never a table entry"):
        verify_archive(b.archive())
