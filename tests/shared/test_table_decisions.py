"""The table's decisions (shared/table.py): resign, draw, abort, pause and resume, replayed
alone and in archives verified offline; the hostile cases stay here (a resignation signed by
another seat's key, an acceptance dropped from an archive, the server signing a decision,
moves after the end, a resigned seat moving, the limits)."""

import copy

import pytest

from shared.archive import ArchiveError, verify_archive
from shared.table import (
    ABORT_MOVES,
    DAY,
    MAX_ASKS,
    MAX_PAUSE_DAYS,
    MAX_PAUSES,
    TableError,
    format_table_move,
    parse_table_move,
)
from tests.helpers.table import TableBuilder

THREE = ("north", "east", "south")


def refused(b, seat, text, code, **kw):
    with pytest.raises(TableError) as exc:
        b.move(seat, text, **kw)
    assert exc.value.code == code, exc.value.message
    return exc.value.message


def played(b, moves_each=ABORT_MOVES):
    """Every seat makes ``moves_each`` (1 or 2) moves of its own: peek keeps the turn, hold
    passes it on."""
    for seat in b.log.seats:
        if moves_each > 1:
            b.move(seat, "peek")
        b.move(seat, "hold")
    return b


@pytest.mark.parametrize("text", ["@resign", "@draw offer", "@draw accept", "@draw refuse",
                                  "@abort", "@abort accept", "@abort refuse", "@pause 1",
                                  f"@pause {MAX_PAUSE_DAYS}", "@resume"])
def test_the_grammar_reads_back_each_decision(text):
    assert format_table_move(parse_table_move(text)) == text


@pytest.mark.parametrize("text,code", [
    ("@resign now", "bad_table_entry"), ("@draw", "bad_table_entry"),
    ("@draw yes", "bad_table_entry"), ("@abort please", "bad_table_entry"),
    ("@pause", "bad_table_entry"), ("@pause 0", "pause_limit"),
    (f"@pause {MAX_PAUSE_DAYS + 1}", "pause_limit"), ("@pause 07", "bad_table_entry"),
    ("@pause -3", "bad_table_entry"), ("@resume 2", "bad_table_entry")])
def test_the_grammar_refuses_what_is_not_a_decision(text, code):
    with pytest.raises(TableError) as exc:
        parse_table_move(text)
    assert exc.value.code == code


def test_a_resignation_of_two_seats_makes_the_other_win_and_ends_the_log():
    b = TableBuilder()
    b.move("north", "hold")
    b.move("east", "@resign")
    result = b.log.result()
    assert result["winners"] == ["north"] and result["table"] == "resign"
    assert result["reason"] == "east resigned: north wins"
    assert b.log.to_act() == [] and b.log.legal_moves("north") == []
    view = b.log.view("north")
    assert view["status"] == "over" and view["result"] == result
    assert refused(b, "north", "@draw offer", "game_over").startswith("the game is over")
    refused(b, "north", "roll", "game_over")


def test_a_resigned_seat_of_three_leaves_the_race_and_the_last_seat_wins():
    b = TableBuilder(seats=THREE)
    b.move("north", "hold")
    b.move("east", "@resign")
    assert b.log.result() is None and b.log.racing() == ["north", "south"]
    assert b.log.view(None)["table"]["resigned"] == ["east"]
    assert b.log.to_act() == ["east"] and b.log.legal_moves("east") == []
    refused(b, "east", "hold", "resigned")  # its turns are the server's timeout moves
    b.move("east", "hold", forced=True)
    refused(b, "east", "@draw offer", "resigned")
    refused(b, "east", "@resign", "resigned")
    b.move("south", "@draw offer")
    b.move("north", "@resign")
    result = b.log.result()
    assert result["winners"] == ["south"] and result["resigned"] == ["east", "north"]
    assert "north resigned: south wins" == result["reason"]


def test_the_rules_winner_must_be_in_the_race():
    b = TableBuilder(seats=THREE)
    b.move("north", "@resign")
    rules = {"winners": ["north"], "scores": {"north": 12, "east": 3, "south": 9}}
    result = b.log._race_result(rules)
    assert result["winners"] == ["south"] and result["resigned"] == ["north"]
    assert result["reason"] == "north resigned"
    kept = b.log._race_result({"winners": ["east"], "scores": {}, "reason": "target"})
    assert kept["winners"] == ["east"] and kept["reason"] == "target; north resigned"


def test_a_cooperative_game_keeps_concede_for_the_team():
    b = TableBuilder()
    b.log.game = copy.copy(b.game)
    b.log.game.cooperative = True
    assert "concedes with the move concede" in refused(b, "north", "@resign", "cooperative")
    refused(b, "north", "@draw offer", "cooperative")


def test_a_draw_needs_every_other_seat_and_then_has_no_winner():
    b = TableBuilder(seats=THREE)
    b.move("north", "@draw offer")
    refused(b, "east", "@draw offer", "draw_pending")
    refused(b, "north", "@draw accept", "own_request")
    b.move("east", "@draw accept")
    refused(b, "east", "@draw accept", "answered")
    assert b.log.result() is None
    assert b.log.view("south")["table"]["draw"]["owed"] == ["south"]
    b.move("north", "hold")  # the offerer moved: the offer is withdrawn
    assert "draw" not in b.log.view(None).get("table", {})
    refused(b, "south", "@draw accept", "no_draw")
    b.move("east", "@draw offer")
    b.move("east", "hold")  # withdrawn again: the offerer moved
    assert "draw" not in b.log.view(None).get("table", {})
    b.move("north", "@draw offer")
    b.move("south", "hold")  # another seat's move leaves the offer standing
    b.move("east", "@draw accept")
    b.move("south", "@draw accept")
    result = b.log.result()
    assert result == {"winners": [], "reason": "drawn by agreement", "table": "draw"}


def test_a_draw_offer_stays_through_the_other_seats_moves_and_a_refusal_ends_it():
    b = TableBuilder()
    b.move("east", "@draw offer")
    b.move("north", "hold")
    assert b.log.view(None)["table"]["draw"]["seat"] == "east"
    b.move("north", "@draw refuse")
    refused(b, "north", "@draw refuse", "no_draw")
    b.move("north", "@draw offer")
    b.move("north", "@draw refuse")  # the offerer withdraws its own offer


def test_draw_offers_are_limited():
    b = TableBuilder()
    for _ in range(MAX_ASKS):
        b.move("north", "@draw offer")
        b.move("east", "@draw refuse")
    assert "the most allowed" in refused(b, "north", "@draw offer", "rate_limited")
    b.move("east", "@draw offer")  # the limit is each seat's own


def test_one_seat_aborts_alone_before_every_seat_made_two_moves():
    b = TableBuilder()
    b.move("north", "peek")
    b.move("north", "hold")
    b.move("east", "hold")  # east has made one move of its own
    b.move("north", "@abort")
    result = b.log.result()
    assert result["winners"] == [] and result["rated"] is False and result["by"] == "north"
    assert result["reason"].startswith("aborted by north") and "unrated" in result["reason"]


def test_forced_moves_and_taken_back_moves_do_not_count_for_an_abort():
    b = TableBuilder()
    played(b, 1)
    b.move("north", "hold")
    b.move("east", "hold", forced=True)  # east's second move was the server's
    b.move("north", "@abort")
    assert b.log.result()["table"] == "abort"


def test_later_an_abort_needs_every_seat():
    b = played(TableBuilder(seats=THREE))
    b.move("east", "@abort")
    assert b.log.result() is None
    refused(b, "north", "@abort", "abort_pending")
    refused(b, "east", "@abort accept", "own_request")
    b.move("north", "@abort accept")
    b.move("south", "@abort refuse")
    refused(b, "south", "@abort accept", "no_abort")
    b.move("south", "@abort")
    b.move("north", "@abort accept")
    b.move("east", "@abort accept")
    result = b.log.result()
    assert result["rated"] is False and result["reason"].startswith(
        "aborted by agreement of every seat")


def test_a_resignation_settles_what_waited_only_for_it():
    b = played(TableBuilder(seats=("north", "east", "south", "west")))
    b.move("north", "@abort")
    b.move("east", "@abort accept")
    b.move("south", "@abort accept")
    b.move("west", "@resign")  # the last seat owed left the race: the others all agreed
    assert b.log.result()["table"] == "abort"


def test_a_pause_needs_every_seat_to_sign_the_same_days_and_resume_ends_it():
    b = TableBuilder(seats=THREE)
    t = 1_900_000_000
    b.move("north", "@pause 7", ts=t)
    refused(b, "east", "@pause 6", "pause_pending", ts=t + 1)
    b.move("east", "@pause 7", ts=t + 2)
    refused(b, "east", "@pause 7", "answered", ts=t + 3)
    assert "paused" not in b.log.table or not b.log.table["paused"]
    b.move("south", "@pause 7", ts=t + 10)
    paused = b.log.view(None)["table"]["paused"]
    assert paused == {"days": 7, "from": t + 10, "until": t + 10 + 7 * DAY, "seq": 2}
    assert b.log.paused_until(t + 11) == t + 10 + 7 * DAY
    b.move("north", "hold", ts=t + 20)  # moves go on while the clocks are stopped
    refused(b, "east", "@pause 3", "paused", ts=t + 30)
    b.move("east", "@resume", ts=t + 40)
    assert b.log.paused_until(t + 41) is None
    refused(b, "north", "@resume", "not_paused", ts=t + 50)


def test_a_pause_ends_with_its_days_and_pauses_are_limited():
    b = TableBuilder()
    t = 1_900_000_000
    for i in range(MAX_PAUSES):
        b.move("north", "@pause 1", ts=t)
        b.move("east", "@pause 1", ts=t)
        assert b.log.paused_until(t) == t + DAY
        t += DAY  # the day ran out: no @resume needed
        b.move(b.log.to_act()[0], "peek", ts=t)  # the first entry after it ends it
        assert not b.log.table["paused"] and b.log.view(None)["table"]["pauses"] == i + 1
    assert f"its {MAX_PAUSES} pauses" in refused(b, "north", "@pause 2", "pause_limit", ts=t)


def test_resume_refuses_or_withdraws_a_pause_asked():
    b = TableBuilder()
    b.move("north", "@pause 2")
    b.move("east", "@resume")
    b.move("east", "@pause 2")
    b.move("east", "@resume")
    assert not b.log.table.get("pause") and not b.log.table.get("paused")


def test_the_server_signs_no_decision():
    b = TableBuilder()
    for text in ("@resign", "@draw offer", "@abort", "@pause 2"):
        refused(b, "north", text, "forced_reserved", forced=True)


# --- archives -----------------------------------------------------------------------------

def _verified(b):
    report = verify_archive(b.archive())
    assert report["complete"] and report["result"] == b.log.result()
    return report


def test_archives_of_a_resigned_a_drawn_and_an_aborted_game_verify_complete():
    b = TableBuilder()
    b.move("north", "hold")
    b.move("east", "@resign")
    assert _verified(b)["view"]["result"]["reason"] == "east resigned: north wins"
    b = TableBuilder()
    b.move("north", "@draw offer")
    b.move("east", "@draw accept")
    assert _verified(b)["result"]["reason"] == "drawn by agreement"
    b = TableBuilder()
    b.move("north", "@abort")
    assert _verified(b)["result"]["rated"] is False


def test_a_resignation_signed_by_another_seat_is_refused():
    b = TableBuilder()
    b.move("north", "hold")
    b.force_entry("east", "@resign", signer=b.keys["north"])
    b.log.table["ended"] = {"winners": ["north"], "reason": "east resigned: north wins",
                            "table": "resign", "resigned": ["east"]}
    with pytest.raises(ArchiveError, match="signature"):
        verify_archive(b.archive())


def test_an_archive_with_a_draw_acceptance_dropped_is_refused():
    b = TableBuilder(seats=THREE)
    b.move("north", "@draw offer")
    b.move("east", "@draw accept")
    b.move("south", "@draw accept")
    good = b.archive()
    assert verify_archive(good)["complete"]
    forged = TableBuilder(seats=THREE)  # the same log without east's acceptance
    forged.move("north", "@draw offer")
    forged.force_entry("south", "@draw accept", signer=forged.keys["south"])
    forged.log.table["ended"] = b.log.table["ended"]
    with pytest.raises(ArchiveError, match="is refused|does not end"):
        verify_archive(forged.archive())


def test_an_archive_whose_result_hides_the_resignation_is_refused():
    b = TableBuilder()
    b.move("north", "hold")
    b.move("east", "@resign")
    forged = b.archive()
    forged["result"] = {"winners": ["east"], "reason": "north resigned: east wins",
                        "table": "resign", "resigned": ["north"]}
    with pytest.raises(ArchiveError):  # the head's signature covers the result, and the replay
        verify_archive(forged)


# --- what each game's RULES.md says of a player leaving --------------------------------------

def _norm(text):
    import re
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.parametrize("name,book", [("zarahemla", "zarahemla-rulebook.txt"),
                                       ("stone_age", "stone-age-rulebook.txt"),
                                       ("title_of_liberty", "nephite-war-rules.txt")])
def test_every_game_says_what_leaving_the_table_does_quoting_its_book(name, book):
    import os
    import re
    root = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
    with open(os.path.join(root, "shared", name, "RULES.md"), encoding="utf-8") as f:
        section = f.read().split("## Leaving the table")[1].split("\n## ")[0]
    with open(os.path.join(root, "docs", "rulebooks", book), encoding="utf-8") as f:
        text = _norm(f.read())
    quotes = re.findall(r'"([^"]+)"', _norm(section))
    assert quotes and all(q.rstrip(".") in text for q in quotes if q != "drawn by agreement")
    source = ""
    for folder, _, files in os.walk(os.path.dirname(__file__)):
        for file in files:
            if file.endswith(".py"):
                with open(os.path.join(folder, file), encoding="utf-8") as f:
                    source += f.read()
    for test in re.findall(r"`(test_[a-z0-9_]+)`", section):
        assert f"def {test}(" in source, test


def test_a_running_archive_with_pending_decisions_verifies_as_a_prefix():
    b = TableBuilder(seats=THREE)
    b.move("north", "@pause 2")
    b.move("east", "@draw offer")
    b.move("south", "@resign")
    report = verify_archive(b.archive())
    assert not report["complete"] and report["status"] == "playing"
    forged = TableBuilder(seats=THREE)  # a resigned seat's decision, by its own key
    forged.move("south", "@resign")
    forged.force_entry("south", "@draw offer", signer=forged.keys["south"])
    with pytest.raises(ArchiveError, match="has resigned"):
        verify_archive(forged.archive())


@pytest.mark.parametrize("name,book", [("zarahemla", "zarahemla-rulebook.txt"),
                                       ("stone_age", "stone-age-rulebook.txt"),
                                       ("title_of_liberty", "nephite-war-rules.txt")])
def test_every_rules_md_names_its_rulebook_inside_the_repository(name, book):
    """Each RULES.md names its rulebook by its place in this repository (a file that is
    there), and neither it nor the players' guide names a path outside the repository."""
    import os
    import re
    root = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
    assert os.path.isfile(os.path.join(root, "docs", "rulebooks", book))
    with open(os.path.join(root, "shared", name, "RULES.md"), encoding="utf-8") as f:
        notes = f.read()
    assert f"`docs/rulebooks/{book}` in this repository" in _norm(notes[:1500])
    with open(os.path.join(root, "shared", name, "HOWTO.md"), encoding="utf-8") as f:
        guide = f.read()
    for text in (notes, guide):
        assert not re.search(r"(?<![\w.])(/(work|home|tmp|root|usr|opt|mnt)/|~/|[A-Z]:\\)",
                             text)
        assert not re.search(r"\.\./", text)
