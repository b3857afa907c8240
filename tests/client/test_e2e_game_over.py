"""End to end: the text board of a finished game (``pbem show``) has no turn left in it and
says once, in one "Game over: ..." sentence, who won and why."""

import pytest

from shared.games import game_types


def _players(make_player, kind, seats, *options):
    if kind not in game_types():
        pytest.skip(f"the {kind} engine is not in this checkout")
    players = [make_player(n) for n in ("ann", "bob", "cyd")[:seats]]
    args = sum((["--option", o] for o in options), [])
    game = players[0].run("new", kind, "--seats", seats, *args).stdout.strip()
    for p in players[1:]:
        p.run("join", game)
    return game, players


def _said_once(board):
    lines = board.splitlines()
    assert all(len(line) <= 80 for line in lines)
    flat = " ".join(board.split())
    assert flat.count("Game over:") == 1, board
    assert "is over" not in flat and " wins " not in flat.replace("Game over:", ""), board
    assert "Check the finished game:" in flat
    return flat


def test_a_finished_zarahemla_board_has_no_turn_left(make_player):
    game, (ann, bob) = _players(make_player, "zarahemla", 2, "board=beginner")
    players = {p.json("show", game)["you"]: p for p in (ann, bob)}
    for _ in range(40):  # the set-up, to the first roll: a turn to show
        seat = ann.json("show", game)["to_act"][0]
        legal = players[seat].json("moves", game)
        if "roll" in legal:
            break
        players[seat].run("play", game, legal[0])
    assert "Turn: " in bob.run("show", game).stdout
    ann.run("resign", game, "--yes")
    board = bob.run("show", game).stdout
    flat = _said_once(board)
    assert "Turn:" not in board and "(* = to play)" not in board
    rows = [line for line in board.splitlines() if line.startswith(("red", "blue"))]
    assert len(rows) == 2 and not any("*" in r.split()[0] for r in rows), rows
    assert "Game over: blue won (red resigned" in flat or "Game over: red won (blue resigned" \
        in flat, flat


def test_a_finished_stone_age_board_has_no_turn_left(make_player):
    game, players = _players(make_player, "stone_age", 3)
    seats = players[0].json("show", game)["seats"]

    def rows(board):
        return [line[0] for line in board.splitlines()
                if line[:1] in (" ", ">") and line[1:].split()[:1] in [[s] for s in seats]]
    assert sorted(rows(players[0].run("show", game).stdout)) == [" ", " ", ">"]
    for p in players:
        p.run("draw", game)
    board = players[0].run("show", game).stdout
    flat = _said_once(board)
    assert "Game over: nobody won (drawn by agreement)." in flat
    assert rows(board) == [" ", " ", " "]  # no ">" before the seat whose turn it was
    assert "Last roll:" not in board


def test_a_finished_title_of_liberty_board_has_no_turn_left(make_player):
    game, (ann,) = _players(make_player, "title_of_liberty", 1)
    assert "Turn of " in ann.run("show", game).stdout
    ann.run("play", game, "concede")
    board = ann.run("show", game).stdout
    flat = _said_once(board)
    assert "Turn of " not in board and "To act:" not in board
    assert "Game over: the Lamanites won (" in flat
