"""Shared helpers of the bot tests: games played by bots, and positions to ask them about."""

import random

from shared.bots import legal_or_again
from shared.games import get_game

GAMES = ("zarahemla", "stone_age", "title_of_liberty")
MOVE_CAP = {"zarahemla": 1500, "stone_age": 1500, "title_of_liberty": 4000}


def seats_for(game, n=None):
    n = n or game.min_seats
    return game.seat_names(max(game.min_seats, min(game.max_seats, n)))


def bot_game(name, levels, seed, budget=None, on_move=None, cap=None, options=None,
             version=None):
    """Play a game with ``levels[i]`` in seat ``i``; returns (state, moves played).

    Every move a bot returns is checked by the rules library before it is played (the
    caller's ``on_move(state, seat, move, legal)`` runs first, on the state before it).
    """
    game = get_game(name)
    seats = seats_for(game, len(levels))
    by_seat = dict(zip(seats, levels))
    state = game.new_game(seats, options or {}, b"botgame-%d" % seed, rules_version=version)
    rngs = {s: random.Random(seed * 10 + i) for i, s in enumerate(seats)}
    order = random.Random(seed)
    played = 0
    cap = cap or MOVE_CAP[name]
    while game.result(state) is None and played < cap:
        seat = order.choice(game.to_act(state))
        legal = game.legal_moves(state, seat)
        move = legal_or_again(game, game.view(state, seat), seat, legal, rngs[seat],
                           by_seat[seat], budget)
        if on_move is not None:
            on_move(state, seat, move, legal)
        state = game.play(state, seat, move, b"%d" % played)
        played += 1
    return state, played


def positions(name, seed, every=7, limit=12, n=None):
    """Reachable positions of a random game: (state, seat to ask) every ``every`` moves."""
    game = get_game(name)
    state = game.new_game(seats_for(game, n), {}, b"positions-%d" % seed)
    rng = random.Random(seed)
    out = []
    played = 0
    while game.result(state) is None and len(out) < limit and played < 5000:
        acting = game.to_act(state)
        seat = rng.choice(acting)
        if played % every == 0:
            out.append((clone(state), seat))
        state = game.play(state, seat, rng.choice(game.legal_moves(state, seat)),
                          b"%d" % played)
        played += 1
    return out


def clone(state):
    import json
    return json.loads(json.dumps(state))
