"""End to end against a real server: the CLI numbers moves from 1 as the pages do (and
translates the @takeback notation at its boundary), and under --json every failure prints
the API's error shape on stdout with the documented exit code."""

import json
import re

import requests

from client.numbers import shown_event, shown_text, wire_text
from tests.helpers.cli import _hold_with_a_pot, finish, start


def test_log_play_and_say_number_moves_as_the_page_does(make_player):
    game, (ann, bob) = start(make_player)
    assert ann.run("play", game, "peek").stdout.startswith("move 1: north peek")
    said = ann.run("say", game, "hello").stdout
    assert said.startswith("said before move 2: ")
    page = requests.get(f"{ann.server}/g/{game}", timeout=10).text
    assert "before move 2" in page          # the page's words for the same message
    log = ann.run("log", game).stdout.splitlines()
    assert log[0].startswith("   1  north      peek")
    assert ann.json("log", game)[0]["seq"] == 0   # --json keeps the API's seq


def test_takeback_notation_is_translated_both_ways(make_player):
    game, (ann, bob) = start(make_player)
    _hold_with_a_pot(ann, bob, game)
    entries = ann.json("log", game)
    hold = entries[-1]
    assert hold["move"] == "hold" and hold["seat"] == "north"
    number = hold["seq"] + 1                 # the number pbem log shows for the hold
    assert f"{number:>4}  north      hold" in ann.run("log", game).stdout
    asked = ann.run("play", game, f"@takeback {number}").stdout
    assert asked.startswith(f"move {number + 1}: north @takeback {number}")
    assert f"(move {number})" in asked       # the event's seq, as a number
    page = requests.get(f"{ann.server}/g/{game}", timeout=10).text
    assert f"(from move {number})" in page   # the page's takeback panel: the same number
    wire = ann.json("log", game)[-1]
    assert wire["move"] == f"@takeback {hold['seq']}"   # the envelope keeps the seq
    shown = ann.run("log", game).stdout
    assert f"north      @takeback {number}" in shown
    # move 0 does not exist: a sentence, nothing signed
    zero = ann.run("play", game, "@takeback 0", ok=1)
    assert "numbered from 1" in zero.stderr
    assert len(ann.json("log", game)) == len(entries) + 1


def test_the_number_helpers_are_inverse():
    for seq in (0, 1, 14, 424):
        assert wire_text(shown_text(f"@takeback {seq}")) == f"@takeback {seq}"
    assert shown_event("north asks to take back 2 moves (moves 14-15)") == \
        "north asks to take back 2 moves (moves 15-16)"
    assert shown_event("White rolled 8 (5+3)") == "White rolled 8 (5+3)"


def test_json_refusals_carry_the_error_shape(make_player):
    game, (ann, bob) = start(make_player, target=3)
    out = ann.run("--json", "play", game, "bogus", ok=1)
    body = json.loads(out.stdout)              # one JSON document, not [] and a sentence
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}
    assert "bogus" in body["error"]["message"] and body["error"]["details"]["played"] == []
    assert out.stderr.startswith("pbem: 'bogus' refused")
    # moves played before a refusal are in the details
    two = json.loads(ann.run("play", game, "peek", "bogus", "--json", ok=1).stdout)
    assert [p["move"] for p in two["error"]["details"]["played"]] == ["peek"]
    # a usage error under --json: exit 2 and the same shape
    usage = ann.run("--json", "play", game, ok=2)
    assert json.loads(usage.stdout)["error"]["code"] == "usage"
    # not your move: exit 3; the game over: exit 6
    assert bob.json("moves", game, ok=3)["error"]["code"] == "not_your_move"
    finish(game, {"north": ann, "east": bob}, ann)
    over = ann.run("--json", "moves", game, ok=6)
    assert json.loads(over.stdout)["error"]["code"] == "game_over"
    assert ann.run("moves", game, ok=6).stderr.startswith(f"pbem: game {game} is over")
    # a refusal of the server keeps its code
    late = json.loads(ann.run("--json", "play", game, "hold", ok=1).stdout)
    assert re.fullmatch(r"[a-z_]+", late["error"]["code"]) and late["error"]["code"] != "usage"


def test_a_long_stone_age_path_fits_80_columns():
    """pbem log printed 86 columns for a long nomad path: one word wider than the room left
    under the move column.  It now breaks after a hyphen and every line fits."""
    from client.commands.archive import log_lines
    path = "-".join(str(n) for n in range(100, 40, -3))        # 20 crossings, 79 characters
    line = f"  15  white      move {path}  -- White's nomad walks {len(path)} crossings"
    assert len(line) > 80
    wrapped = log_lines([line], 80)
    assert max(map(len, wrapped)) <= 80 and len(wrapped) > 1
    assert all(w.startswith(" " * 17) for w in wrapped[1:])
    assert wrapped[0].startswith("  15  white      move")
    assert path in "".join(w.strip() for w in wrapped)    # nothing lost, only broken
