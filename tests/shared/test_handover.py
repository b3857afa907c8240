"""``@handover BOT KEY`` (shared/table.py): a seat given to a bot account, by its player or,
when the game's ``on_timeout`` option says so, by the server on a missed deadline; checked in
the one replay and in archives verified offline, with the hostile cases (another seat's key,
a name that is not a bot's, a forged server handover, the old key after the handover)."""

import pytest

from shared import IllegalMove
from shared.archive import ArchiveError, verify_archive
from shared.envelope import public_key_hex
from shared.games import get_game
from shared.table import (
    TableError,
    bot_level,
    format_table_move,
    normalize_on_timeout,
    parse_table_move,
    timeout_bot,
)
from tests.helpers.table import TableBuilder, key

BOT = key(80)
BOT_PUB = public_key_hex(BOT)


def handover(name="bot-greedy", pub=BOT_PUB):
    return f"@handover {name} {pub}"


def test_the_entry_reads_back_and_names_only_bot_accounts():
    text = handover()
    tm = parse_table_move(text)
    assert (tm.kind, tm.player, tm.key) == ("handover", "bot-greedy", BOT_PUB)
    assert format_table_move(tm) == text
    for bad in ("@handover", "@handover bot-greedy", f"@handover {BOT_PUB}",
                f"@handover bot-greedy {BOT_PUB} x", "@handover bot-greedy " + "A" * 64):
        with pytest.raises(TableError) as caught:
            parse_table_move(bad)
        assert caught.value.code == "bad_table_entry"
    assert parse_table_move(handover("alice")).player == "alice"  # a substitute
    for name in ("bot", "bot-", "bot-genius", "Bot-greedy", "bot_greedy", "-x", "a"):
        with pytest.raises(TableError, match="only to a bot account") as caught:
            parse_table_move(handover(name))
        assert caught.value.code == "not_a_bot"
    assert bot_level("bot-strong") == "strong" and bot_level("bot-x") is None


def test_the_on_timeout_option():
    assert normalize_on_timeout(None) == normalize_on_timeout("move") == "move"
    assert normalize_on_timeout("bot") == "bot:greedy"
    assert normalize_on_timeout("bot:strong") == "bot:strong"
    for bad in ("bot:genius", "robot", 3, "bot:"):
        if bad == "bot:":
            assert normalize_on_timeout(bad) == "bot:greedy"
            continue
        with pytest.raises(TableError, match="on_timeout"):
            normalize_on_timeout(bad)
    assert timeout_bot({"on_timeout": "bot:random"}) == "random"
    assert timeout_bot({}) is None and timeout_bot({"on_timeout": "move"}) is None
    game = get_game("zarahemla")
    assert game.normalize_options({"on_timeout": "bot"}, 2)["on_timeout"] == "bot:greedy"
    assert "on_timeout" not in game.normalize_options({"on_timeout": "move"}, 2)
    with pytest.raises(IllegalMove) as caught:
        game.normalize_options({"on_timeout": "nap"}, 2)
    assert caught.value.code == "bad_option"
    # the rules never see the table's option: the same state with or without it
    plain = game.new_game(["red", "blue"], {}, b"x" * 32)
    with_bot = game.new_game(["red", "blue"], {"on_timeout": "bot:strong"}, b"x" * 32)
    assert plain == with_bot


def test_a_player_hands_the_seat_over_and_the_bot_signs_from_then_on():
    b = TableBuilder()
    b.move("north", "roll")
    seat = b.log.to_act()[0]
    b.move(seat, handover())
    assert b.log.table["players"][seat] == "bot-greedy"
    assert b.log.table["keys"][seat] == BOT_PUB and b.log.table["handovers"] == 1
    old = b.keys[seat]
    with pytest.raises(Exception, match="bad signature"):
        b.move(seat, "roll", signer=old)
    b.keys[seat] = BOT
    b.finish()
    report = verify_archive(b.archive())
    assert report["complete"] and report["table"]["players"][seat] == "bot-greedy"


def test_hostile_handovers_are_refused():
    b = TableBuilder()
    # signed by another seat's key
    with pytest.raises(Exception, match="bad signature"):
        b.move("north", handover(), signer=key(2))
    # to a name kept for bots that is no bot account's, or to a player seated already
    with pytest.raises(TableError, match="only to a bot account"):
        b.move("north", handover("bot-genius"))
    with pytest.raises(TableError, match="holds a seat") as caught:
        b.move("north", handover("p1"))
    assert caught.value.code == "seated_already"
    # a forged server handover in a game without the policy
    with pytest.raises(TableError, match="only in a game whose option on_timeout"):
        b.move("north", handover(), forced=True)
    b.move("north", handover())
    b.keys["north"] = BOT
    # a bot does not leave; the same bot with another key is refused
    with pytest.raises(TableError, match="a bot does not leave"):
        b.move("north", handover("bot-strong", public_key_hex(key(81))))
    with pytest.raises(TableError, match="one bot account has one key"):
        b.move("east", handover("bot-greedy", public_key_hex(key(81))))
    b.move("east", handover("bot-greedy", BOT_PUB))  # the same bot, the same key: fine
    b.keys["east"] = BOT
    b.finish()
    with pytest.raises(TableError, match="game is over"):
        b.move("north", handover("bot-random", public_key_hex(key(82))), signer=BOT)


def test_an_archive_with_the_old_key_after_a_handover_is_refused():
    b = TableBuilder()
    b.move("north", handover())
    b.force_entry("north", "roll", key(1))  # the player's old key signs on: refused
    with pytest.raises(ArchiveError, match="entry 1 has a bad signature"):
        verify_archive(b.archive())


def test_an_archive_with_a_forged_server_handover_is_refused():
    b = TableBuilder()
    b.move("north", "roll")
    seat = b.log.to_act()[0]
    # the forger re-signs as the server a handover in a game whose header lacks the policy
    from shared.envelope import entry_hash, make_envelope, sign_envelope
    from tests.helpers.table import SERVER
    seq = len(b.entries)
    env = make_envelope(b.header["game"], seq, b.prev, seat, handover(), "t", 1_800_000_100,
                        forced=True)
    raw, sig = sign_envelope(SERVER, env)
    digest = entry_hash(raw.encode("utf-8"), sig)
    b.entries.append({"seq": seq, "envelope": raw, "signature": sig, "hash": digest})
    b.prev = digest
    with pytest.raises(ArchiveError, match=f"entry {seq} .*on_timeout"):
        verify_archive(b.archive())


def test_a_server_handover_on_a_missed_deadline_when_the_options_allow():
    # Pig has random bots only: bot:greedy is refused when the game is made (shared.bots)
    b = TableBuilder(options={"target": 12, "on_timeout": "bot:random"})
    assert b.header["options"]["on_timeout"] == "bot:random"
    b.move("north", "roll")
    seat = b.log.to_act()[0]
    idle = [s for s in ("north", "east") if s != seat][0]
    # only the seat that owes may be handed over by the server, and to a bot no stronger
    with pytest.raises(TableError, match="owes nothing"):
        b.move(idle, handover("bot-random"), forced=True)
    with pytest.raises(TableError, match="level random at most"):
        b.move(seat, handover("bot-strong"), forced=True)
    # the server's key signs it; a seat's key cannot make a forced entry
    with pytest.raises(Exception):
        b.move(seat, handover("bot-random"), forced=True, signer=b.keys[seat])
    b.move(seat, handover("bot-random"), forced=True)
    assert b.log.table["players"][seat] == "bot-random"
    b.keys[seat] = BOT
    b.finish()
    report = verify_archive(b.archive())
    assert report["complete"] and report["table"]["keys"][seat] == BOT_PUB
    # the same archive without the policy in its header is refused (the header is signed:
    # the builder signs it again, as a forger with the server key would have to)
    c = TableBuilder()
    c.move("north", "roll")
    with pytest.raises(TableError, match="on_timeout"):
        c.move(c.log.to_act()[0], handover(), forced=True)


def test_a_handover_in_a_running_archive_is_checked_without_the_seed():
    b = TableBuilder()
    b.move("north", handover())
    b.keys["north"] = BOT
    b.move("north", "roll")
    report = verify_archive(b.archive())  # a running game: the chain and the table only
    assert report["status"] == "playing" and report["entries"] == 2
    b.force_entry("north", "roll", key(1))
    with pytest.raises(ArchiveError, match="entry 2 has a bad signature"):
        verify_archive(b.archive())


def test_the_handover_event_names_the_bot():
    b = TableBuilder()
    replay = b.log
    env = b.move("north", handover())
    assert env["move"] == handover()
    from shared.table import replay_log
    again = replay_log(replay.game, b.header, b"s" * 32, [env])
    assert again.table["players"]["north"] == "bot-greedy"
    events = replay_log(replay.game, b.header, b"s" * 32, []).step(env)
    assert events[0]["public"].startswith("north is handed over to the bot bot-greedy")


def test_a_handover_signed_by_a_device_key_is_refused():
    """A device may move for its player, but not give the seat away (as for @rotate)."""
    from shared.delegation import make_delegation
    from shared.envelope import make_envelope, sign_envelope
    from shared.table import verify_logged
    b = TableBuilder()
    device = key(85)
    d = make_delegation(key(1), "p0", public_key_hex(device), "phone", 1_900_000_000)
    env = make_envelope(b.header["game"], 0, b.prev, "north", handover(), "dev", 1_800_000_000,
                        delegation=d)
    raw, sig = sign_envelope(device, env)
    checked, _ = verify_logged(b.log.table, raw, sig, game_id=b.header["game"], seq=0,
                               prev=b.prev)  # the signature itself holds...
    with pytest.raises(TableError, match="main key") as caught:
        b.log.step(checked)  # ...but the table refuses it
    assert caught.value.code == "main_key_only"
    assert b.log.table["players"]["north"] == "p0"
