"""Table entries (shared/table.py): the grammar, Game.reveals on each game, takebacks, key
rotation and revocation, in a log replayed alone and in archives verified offline; the hostile
cases stay here (a stranger's takeback, another seat's moves, across a roll, answering twice,
a rotation signed by a wrong key, an archive with a removed answer)."""

import copy
import random

import pytest

from shared import IllegalMove, InvalidMove
from shared.archive import ArchiveError, verify_archive
from shared.envelope import public_key_hex, sign
from shared.games import get_game
from shared.table import (
    MAX_REQUESTS,
    LogReplay,
    TableError,
    format_table_move,
    is_table_move,
    parse_table_move,
    recovery_message,
    replay_log,
)
from tests.helpers.table import TableBuilder, key


def pig_after_hold():
    """north rolls until it has a pot, then holds: the hold revealed nothing."""
    b = TableBuilder()
    while True:
        b.move("north", "roll")
        if b.state["pot"]:
            break
        b.move("east", "hold")  # north rolled a 1: east holds 0 and north rolls again
    pot = b.state["pot"]
    hold = b.move("north", "hold")["seq"]
    return b, hold, pot


# --- the grammar -----------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["@takeback 0", "@takeback 12", "@accept takeback",
                                  "@refuse takeback", "@revoke " + public_key_hex(key(5)),
                                  "@rotate " + public_key_hex(key(6)),
                                  f"@rotate {public_key_hex(key(6))} recovery "
                                  f"{public_key_hex(key(7))} " + "ab" * 64])
def test_table_entries_read_back_as_written(text):
    assert is_table_move(text)
    assert format_table_move(parse_table_move(text)) == text


@pytest.mark.parametrize("text", ["@takeback", "@takeback -1", "@takeback 012", "@takeback x",
                                  "@takeback 1 2", "@accept", "@accept it", "@revoke abc",
                                  "@revoke " + "g" * 64, "@rotate", "@rotate " + "A" * 64,
                                  "@dance", "@", "takeback 3",
                                  f"@rotate {public_key_hex(key(6))} recovery x y"])
def test_malformed_table_entries_are_refused_in_a_sentence(text):
    with pytest.raises(TableError) as caught:
        parse_table_move(text)
    assert caught.value.code == "bad_table_entry" and caught.value.message


@pytest.mark.parametrize("game_type", ["zarahemla", "stone_age", "title_of_liberty", "pig"])
def test_no_game_notation_begins_with_the_table_mark(game_type):
    game = get_game(game_type)
    for text in ("@takeback 1", "@accept takeback", "@roll", "@end"):
        with pytest.raises(InvalidMove):
            game.parse_move(text)


# --- Game.reveals, on each game ---------------------------------------------------------------

def _reveals_by_kind(game_type, n_seats, seed, steps=600):
    """{kind: set of reveals seen} over a random game of ``steps`` moves."""
    game = get_game(game_type)
    seats = game.seat_names(n_seats)
    state = game.new_game(seats, {}, bytes([seed]) * 32)
    rng = random.Random(seed)
    seen = {}
    for ply in range(steps):
        to_act = game.to_act(state)
        if not to_act:
            break
        seat = rng.choice(to_act)
        move = rng.choice(game.legal_moves(state, seat))
        trace = []
        state = game.play(state, seat, move, b"e%d" % ply, reveals=trace)
        parsed = game.parse_move(move)
        kind = parsed.kind
        if game_type == "zarahemla" and kind == "robber":
            kind = "robber-steal" if parsed.args[1] else "robber-alone"
        seen.setdefault(kind, set()).add(trace[0])
    return seen


def test_zarahemla_reveals_rolls_steals_draws_and_cards_not_building():
    seen = {}
    for seed in (1, 2, 3):
        for kind, values in _reveals_by_kind("zarahemla", 3, seed).items():
            seen.setdefault(kind, set()).update(values)
    assert seen["roll"] == {True}
    for kind in ("settle", "road", "end", "robber-alone"):
        assert seen.get(kind, {False}) == {False}, kind
    for kind in ("buy", "robber-steal", "warrior", "prosperity", "harvest", "roads", "temples",
                 "liahona"):
        assert seen.get(kind, {True}) == {True}, kind
    assert "buy" in seen and "robber-steal" in seen


def test_stone_age_reveals_rolls_and_chips_not_placing():
    seen = {}
    for seed in (1, 2):
        for kind, values in _reveals_by_kind("stone_age", 3, seed).items():
            seen.setdefault(kind, set()).update(values)
    assert seen["roll"] == {True}
    assert seen.get("place", {False}) == {False}
    assert False in set().union(*seen.values())


def test_title_of_liberty_reveals_battles_not_marches():
    seen = {}
    for seed in (1, 2, 3):
        for kind, values in _reveals_by_kind("title_of_liberty", 2, seed, 400).items():
            seen.setdefault(kind, set()).update(values)
    assert seen.get("duel", {True}) == {True}
    assert any(values == {False} for values in seen.values())
    assert any(True in values for values in seen.values())


def test_the_default_counts_draws_even_with_one_outcome_and_private_events():
    game = get_game("pig")
    state = game.new_game(["north", "east"], {}, b"x" * 32)
    trace = []
    game.play(state, "north", "peek", b"", reveals=trace)
    game.play(state, "north", "hold", b"", reveals=trace)
    game.play(state, "east", "roll", b"", reveals=trace)
    assert trace == [True, False, True]


# --- takebacks --------------------------------------------------------------------------------

def test_a_takeback_with_consent_replays_the_log_without_the_moves():
    b, hold, pot = pig_after_hold()
    before = b.log.view("north")
    assert before["to_act"] == ["east"] and b.state["scores"]["north"] == pot
    b.move("north", f"@takeback {hold}")
    assert b.log.to_act() == ["east"]
    view = b.log.view("east")
    assert view["takeback"]["seat"] == "north" and view["takeback"]["moves"] == [hold]
    assert "@accept takeback" in view["owes"]["east"]
    assert b.log.legal_moves("east") == ["@accept takeback", "@refuse takeback"]
    assert b.log.legal_moves("north") == []
    with pytest.raises(TableError, match="no move is played"):
        b.move("east", "roll")
    b.move("east", "@accept takeback")
    assert b.log.table["taken_back"] == [hold]
    assert b.state["pot"] == pot and b.state["scores"]["north"] == 0
    assert b.log.to_act() == ["north"]
    # the replay of the whole log gives the same state, and the archive verifies
    again = replay_log(b.game, b.header, b.seed, [_env(e) for e in b.entries])
    assert again.state == b.state and again.table == b.log.table
    b.finish()
    report = verify_archive(b.archive())
    assert report["complete"] and report["table"]["taken_back"] == [hold]


def _env(entry):
    import json
    return json.loads(entry["envelope"])


def test_the_move_after_a_takeback_draws_fresh_randomness():
    """The first roll after a takeback has the taken-back move's ply but a new seq and link:
    its label differs from every earlier one (the archive replays it the same)."""
    b, hold, pot = pig_after_hold()
    b.move("north", f"@takeback {hold}")
    b.move("east", "@accept takeback")
    ply = b.state["ply"]
    b.move("north", "roll")
    assert b.state["ply"] == ply + 1
    b.finish()
    assert verify_archive(b.archive())["complete"]


def test_a_refusal_ends_the_request_and_asking_again_waits_for_another_seat():
    b, hold, pot = pig_after_hold()
    b.move("north", f"@takeback {hold}")
    b.move("east", "@refuse takeback")
    assert b.log.pending() is None and b.log.to_act() == ["east"]
    assert b.state["scores"]["north"] == pot  # nothing taken back
    with pytest.raises(TableError) as caught:
        b.move("north", f"@takeback {hold}")
    assert caught.value.code == "takeback_rate_limited"
    b.move("east", "hold")  # another seat moved: north may ask again (about its new moves)
    with pytest.raises(TableError, match="cannot be taken back"):
        b.move("north", f"@takeback {hold}")  # the hold is no longer its last move


def test_a_seat_asks_at_most_max_requests_times():
    b = TableBuilder(options={"target": 1000})
    asked = 0
    while asked < MAX_REQUESTS + 1:
        seat = b.log.to_act()[0]
        if b.state["pot"] == 0:
            b.move(seat, "roll")
            continue
        hold = b.move(seat, "hold")["seq"]
        if seat != "north":
            continue
        if asked == MAX_REQUESTS:
            with pytest.raises(TableError, match=f"{MAX_REQUESTS} takebacks"):
                b.move("north", f"@takeback {hold}")
            break
        b.move("north", f"@takeback {hold}")
        b.move("east", "@accept takeback")
        asked += 1
        b.move("north", "hold")


def test_hostile_takebacks_are_refused():
    b, hold, pot = pig_after_hold()
    # another seat's moves
    with pytest.raises(TableError, match="cannot be taken back by east"):
        b.move("east", f"@takeback {hold}")
    # across a roll (the roll before the hold revealed a die)
    with pytest.raises(TableError, match="cannot be taken back"):
        b.move("north", f"@takeback {hold - 1}")
    # a seq that is no move at all, or a table entry
    with pytest.raises(TableError):
        b.move("north", "@takeback 999")
    # an answer with nothing asked
    with pytest.raises(TableError, match="no takeback request"):
        b.move("east", "@accept takeback")
    b.move("north", f"@takeback {hold}")
    # the asker answers its own request; a second request; a stranger's entry
    with pytest.raises(TableError, match="other seats answer"):
        b.move("north", "@accept takeback")
    with pytest.raises(TableError, match="pending already"):
        b.move("north", f"@takeback {hold}")
    with pytest.raises(Exception, match="not in this game"):
        b.move("mallory", "@accept takeback", signer=key(66))
    # the server may refuse for a late seat, never accept
    with pytest.raises(TableError, match="only refuse"):
        b.move("east", "@accept takeback", forced=True)
    b.move("east", "@accept takeback")
    # answering twice
    with pytest.raises(TableError, match="no takeback request"):
        b.move("east", "@accept takeback")


def test_answering_twice_in_a_three_seat_game_is_refused():
    b = TableBuilder(seats=("north", "east", "south"))
    b.move("north", "roll")
    while not b.state["pot"]:
        seat = b.log.to_act()[0]
        b.move(seat, "roll")
    seat = b.log.to_act()[0]
    hold = b.move(seat, "hold")["seq"]
    others = [s for s in ("north", "east", "south") if s != seat]
    b.move(seat, f"@takeback {hold}")
    b.move(others[0], "@accept takeback")
    assert b.log.to_act() == [others[1]]
    with pytest.raises(TableError, match="answered this takeback request already"):
        b.move(others[0], "@accept takeback")
    b.move(others[1], "@refuse takeback", forced=True)  # its deadline passed
    assert b.log.table["taken_back"] == []
    b.finish()
    assert verify_archive(b.archive())["complete"]


def test_several_moves_taken_back_at_once_and_forced_moves_never():
    b = TableBuilder(game_type="zarahemla", seats=("red", "blue"), options={})
    game = b.game
    # the set-up: settle and road, each seat, snake order: nothing revealed
    for _ in range(8):
        seat = b.log.to_act()[0]
        b.move(seat, game.legal_moves(b.state, seat)[0])
    # during set-up, red's second settle and road: red asks for both
    seat = b.log.to_act()[0]
    assert b.log.takeback_from(seat, 1) == len(b.entries) - 1
    last_two = b.log.takeback_from(seat, 2)
    before = copy.deepcopy(LogReplay(game, b.header, b.seed).state)
    b.move(seat, f"@takeback {last_two}")
    other = [s for s in ("red", "blue") if s != seat][0]
    b.move(other, "@accept takeback")
    log = replay_log(game, b.header, b.seed, [_env(e) for e in b.entries])
    assert log.state == b.state and b.state["ply"] == 6
    assert before["ply"] == 0
    # a forced move (the server's timeout) cannot be taken back
    seat = b.log.to_act()[0]
    forced = b.move(seat, game.timeout_move(b.state, seat), forced=True)["seq"]
    with pytest.raises(TableError, match="cannot be taken back"):
        b.move(seat, f"@takeback {forced}")


def test_an_archive_with_a_removed_or_altered_answer_is_refused():
    b, hold, pot = pig_after_hold()
    b.move("north", f"@takeback {hold}")
    b.move("east", "@accept takeback")
    b.finish()
    good = b.archive()
    assert verify_archive(good)["complete"]
    cut = copy.deepcopy(good)
    answer = next(i for i, e in enumerate(cut["entries"]) if "@accept" in e["envelope"])
    del cut["entries"][answer]
    with pytest.raises(ArchiveError):
        verify_archive(cut)


def test_a_forger_who_resigns_the_log_without_an_answer_is_refused():
    """Seat north holds its own key and rewrites the log after its request, leaving out
    east's answer: every signature holds, but the replay refuses north's next move."""
    b, hold, pot = pig_after_hold()
    b.move("north", f"@takeback {hold}")
    b.force_entry("north", "roll", key(1))  # no answer: the game waits
    with pytest.raises(ArchiveError, match="no move is played"):
        verify_archive(b.archive())


def test_an_answer_signed_by_the_asker_for_the_other_seat_is_refused():
    b, hold, pot = pig_after_hold()
    b.move("north", f"@takeback {hold}")
    b.force_entry("east", "@accept takeback", key(1))  # north's key, east's seat
    with pytest.raises(ArchiveError, match="bad signature"):
        verify_archive(b.archive())


def test_a_takeback_request_in_a_running_archive_is_checked_without_the_seed():
    b, hold, pot = pig_after_hold()
    b.move("north", f"@takeback {hold}")
    b.force_entry("north", "@accept takeback", key(1))
    archive = b.archive()
    with pytest.raises(ArchiveError, match="other seats answer"):
        verify_archive(archive)


# --- rotation and revocation -------------------------------------------------------------------

def test_a_rotated_seat_signs_with_its_new_key_from_the_rotation_on():
    b = TableBuilder()
    b.move("north", "roll")
    new = key(40)
    seat = b.log.to_act()[0]
    b.move(seat, "@rotate " + public_key_hex(new))
    old = b.keys[seat]
    with pytest.raises(Exception, match="bad signature"):
        b.move(seat, "roll", signer=old)
    b.keys[seat] = new
    b.finish()
    archive = b.archive()
    report = verify_archive(archive)
    assert report["complete"] and report["table"]["keys"][seat] == public_key_hex(new)
    # the header is the one the game started with
    assert archive["header"]["seats"][0]["public_key"] == public_key_hex(key(1))


def test_an_archive_with_an_old_key_after_the_rotation_is_refused():
    b = TableBuilder()
    b.move("north", "@rotate " + public_key_hex(key(40)))
    b.force_entry("north", "roll", key(1))
    with pytest.raises(ArchiveError, match="entry 1 has a bad signature"):
        verify_archive(b.archive())


def test_rotation_by_the_recovery_key_and_forged_rotations():
    b = TableBuilder()
    recovery, new = key(50), key(51)
    rpub = public_key_hex(recovery)
    cert = sign(key(1), recovery_message("p0", rpub))
    text = f"@rotate {public_key_hex(new)} recovery {rpub} {cert}"
    # signed by the main key instead of the recovery key: refused
    with pytest.raises(Exception, match="bad signature"):
        b.move("north", text, signer=key(1))
    # a certificate by another key (an attacker's own recovery key): refused
    forged = sign(key(66), recovery_message("p0", public_key_hex(key(67))))
    with pytest.raises(Exception, match="recovery certificate"):
        b.move("north", f"@rotate {public_key_hex(new)} recovery {public_key_hex(key(67))} "
               f"{forged}", signer=key(67))
    # a certificate for another player
    other = sign(key(1), recovery_message("p1", rpub))
    with pytest.raises(Exception, match="recovery certificate"):
        b.move("north", f"@rotate {public_key_hex(new)} recovery {rpub} {other}",
               signer=recovery)
    # a rotation of another seat's key, or signed by a stranger
    with pytest.raises(Exception, match="bad signature"):
        b.move("east", "@rotate " + public_key_hex(key(68)), signer=key(1))
    b.move("north", text, signer=recovery)
    b.keys["north"] = new
    b.finish()
    assert verify_archive(b.archive())["complete"]


def test_revocations_are_kept_and_checked():
    b = TableBuilder()
    device = public_key_hex(key(70))
    b.move("north", "@revoke " + device)
    assert b.log.table["revoked"] == [device]
    with pytest.raises(TableError, match="already revoked"):
        b.move("north", "@revoke " + device)
    with pytest.raises(TableError, match="main key"):
        b.move("north", "@revoke " + public_key_hex(key(2)))
    with pytest.raises(TableError, match="revoked device key"):
        b.move("north", "@rotate " + device)
    with pytest.raises(TableError, match="only refuse"):
        b.move("north", "@revoke " + public_key_hex(key(71)), forced=True)
    b.finish()
    assert verify_archive(b.archive())["table"]["revoked"] == [device]


def test_a_stranger_or_a_wrong_signature_never_moves_the_table():
    b = TableBuilder()
    before = copy.deepcopy(b.log.table)
    for seat, signer, text in (("north", key(66), "@rotate " + public_key_hex(key(66))),
                               ("zed", key(66), "@takeback 0"),
                               ("east", key(1), "@revoke " + public_key_hex(key(70)))):
        with pytest.raises(Exception):
            b.move(seat, text, signer=signer)
    assert b.log.table == before


def test_illegal_move_is_still_the_rules_sentence():
    b = TableBuilder()
    with pytest.raises(IllegalMove, match="owes no move"):
        b.move("east", "roll")
