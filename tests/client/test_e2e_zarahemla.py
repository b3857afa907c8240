"""End to end with a real game: three players set up a Zarahemla board through ``pbem``."""

import pytest

from shared.games import game_types

pytestmark = pytest.mark.skipif("zarahemla" not in game_types(),
                                reason="the zarahemla engine is not in this checkout")


def test_three_players_set_up_and_roll(make_player, tmp_path):
    ann, bob, cyd = (make_player(n) for n in ("ann", "bob", "cyd"))
    rules = ann.run("rules", "zarahemla").stdout
    assert "settle" in rules and "vp_to_win" in rules
    game = ann.run("new", "zarahemla", "--seats", 3, "--option", "board=beginner").stdout.strip()
    bob.run("join", game)
    assert "the game has started" in cyd.run("join", game).stdout
    players = {p.json("show", game)["you"]: p for p in (ann, bob, cyd)}
    assert sorted(players) == sorted(ann.json("show", game)["scores"])

    played = []
    for _ in range(40):  # the set-up: settlements and roads in snake order, moves from pbem
        to_act = ann.json("show", game)["to_act"]
        assert to_act
        seat = to_act[0]  # several seats may owe something at once; any order will do
        legal = players[seat].json("moves", game)
        assert legal, seat
        idle = [p for s, p in players.items() if s not in to_act]
        assert all(p.json("moves", game, ok=3)["error"]["code"] == "not_your_move"
                   for p in idle)
        if "roll" in legal:
            break
        move = legal[0]
        players[seat].run("play", game, move)
        played.append(move)
    else:
        pytest.fail("the set-up did not end")
    assert len(played) >= 12 and any(m.startswith("road") for m in played)
    # the last road's events, joined: the second one's sentence goes on in lower case
    said = " ".join(bob.run("log", game).stdout.split())
    assert "; set-up done: every player now chooses" in said and "; Set-up" not in said
    assert players[seat].run("wait", game, "--timeout", 2).exit_code == 0
    out = players[seat].run("play", game, "roll").stdout
    assert out.startswith(f"move {len(played) + 1}: {seat} roll")  # numbered from 1
    # a refused move gives the rules' reason
    other = next(p for s, p in players.items() if s not in ann.json("show", game)["to_act"])
    # on a view of the current head (a stale one would make it "not played: the game moved
    # on", since the move is signed at the head its player last saw)
    other.run("show", game)
    refused = other.run("play", game, "end", ok=1)
    assert refused.stderr.startswith("pbem: 'end' refused: ")

    board = cyd.run("show", game).stdout
    assert len(board.splitlines()) > 10
    assert all(len(line) <= 80 for line in board.splitlines())
    log = bob.json("log", game)
    assert [e["move"] for e in log] == played + ["roll"]
    path = tmp_path / "zarahemla.json"
    ann.run("export", game, "-o", path)
    said = " ".join(bob.run("verify", path, ok=5).stdout.split())  # 5: a verified prefix
    assert "still running" in said
