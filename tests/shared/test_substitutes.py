"""Substitutes (shared/table.py): a ``@handover`` to a human player, who claimed a seat that
its player left or a bot took at a missed deadline.  Who may sign it is checked from the log
alone, and an archive with a forged one is refused offline."""

import pytest

from shared.archive import ArchiveError, verify_archive
from shared.envelope import entry_hash, make_envelope, public_key_hex, sign_envelope
from shared.table import TableError
from tests.helpers.table import SERVER, TableBuilder, key

BOT = key(80)
BOT_PUB = public_key_hex(BOT)
SUB = key(70)
SUB_PUB = public_key_hex(SUB)


def handover(name, pub):
    return f"@handover {name} {pub}"


def test_a_player_hands_the_seat_to_a_substitute_who_signs_from_then_on():
    b = TableBuilder()
    b.move("north", handover("carol", SUB_PUB))
    assert b.log.table["players"]["north"] == "carol"
    assert b.log.table["keys"]["north"] == SUB_PUB
    with pytest.raises(Exception, match="bad signature"):
        b.move("north", "roll", signer=key(1))  # the old player's key no longer signs
    b.keys["north"] = SUB
    b.finish()
    report = verify_archive(b.archive())
    assert report["complete"] and report["table"]["players"]["north"] == "carol"
    assert report["handovers"][0]["seat"] == "north"


def test_a_seat_left_to_a_bot_is_handed_on_by_the_leaving_key_only():
    b = TableBuilder()
    b.move("north", handover("bot-greedy", BOT_PUB))  # p0 leaves (pbem leave --to-bot)
    b.keys["north"] = BOT
    assert b.log.table["left"] == {"north": public_key_hex(key(1))}
    # the bot's key does not hand the seat on, nor does the server, nor another seat's key
    with pytest.raises(Exception, match="bad signature"):
        b.move("north", handover("carol", SUB_PUB), signer=BOT)
    with pytest.raises(TableError, match="only when a bot took it at a missed deadline"):
        b.move("north", handover("carol", SUB_PUB), forced=True)
    with pytest.raises(Exception, match="bad signature"):
        b.move("north", handover("carol", SUB_PUB), signer=key(2))
    b.move("north", handover("carol", SUB_PUB), signer=key(1))
    assert b.log.table["players"]["north"] == "carol" and b.log.table["left"] == {}
    b.keys["north"] = SUB
    b.finish()
    assert verify_archive(b.archive())["complete"]


def test_a_seat_a_bot_took_at_a_missed_deadline_is_handed_on_by_the_server():
    b = TableBuilder(options={"target": 12, "on_timeout": "bot:random"})
    b.move("north", "roll")
    seat = b.log.to_act()[0]
    b.move(seat, handover("bot-random", BOT_PUB), forced=True)
    b.keys[seat] = BOT
    assert b.log.table["forced_bot"] == [seat] and "left" not in b.log.table
    # the late player's old key does not hand it on; the bot's key neither
    with pytest.raises(TableError, match="only the server hands it on"):
        b.move(seat, handover("carol", SUB_PUB), signer=BOT)
    b.move(seat, handover("carol", SUB_PUB), forced=True)
    assert b.log.table["players"][seat] == "carol" and b.log.table["forced_bot"] == []
    b.keys[seat] = SUB
    b.finish()
    report = verify_archive(b.archive())
    assert report["complete"] and report["handovers"][-1]["forced"]


def test_hostile_substitutions_are_refused():
    b = TableBuilder()
    # the server never hands a human's seat to a player
    with pytest.raises(TableError, match="only when a bot took it") as caught:
        b.move("north", handover("carol", SUB_PUB), forced=True)
    assert caught.value.code == "forced_reserved"
    # to a key a seat holds, to a seated player
    with pytest.raises(TableError, match="a seat's key") as caught:
        b.move("north", handover("carol", public_key_hex(key(2))))
    with pytest.raises(TableError, match="holds a seat"):
        b.move("north", handover("p1", SUB_PUB))
    b.finish()
    with pytest.raises(TableError, match="game is over"):
        b.move("north", handover("carol", SUB_PUB))


def test_an_archive_with_a_forged_server_handover_to_a_player_is_refused():
    """The server's key cannot give a player's seat away: only a bot's seat taken at a missed
    deadline, in a game whose header says so."""
    b = TableBuilder(options={"target": 12, "on_timeout": "bot:random"})
    b.move("north", handover("bot-random", BOT_PUB))  # left by its player, not forced
    b.keys["north"] = BOT
    seq = len(b.entries)
    env = make_envelope(b.header["game"], seq, b.prev, "north", handover("mallory", SUB_PUB),
                        "t", 1_800_000_100, forced=True)
    raw, sig = sign_envelope(SERVER, env)
    digest = entry_hash(raw.encode("utf-8"), sig)
    b.entries.append({"seq": seq, "envelope": raw, "signature": sig, "hash": digest})
    b.prev = digest
    with pytest.raises(ArchiveError, match=f"entry {seq} .*missed deadline"):
        verify_archive(b.archive())


def test_an_archive_whose_substitute_handover_the_bot_signed_is_refused():
    b = TableBuilder()
    b.move("north", handover("bot-greedy", BOT_PUB))
    b.force_entry("north", handover("mallory", SUB_PUB), BOT)
    with pytest.raises(ArchiveError, match="entry 1 has a bad signature"):
        verify_archive(b.archive())
