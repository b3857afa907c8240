"""The order language against the real games (shared/orders.py): what each game supports,
and the replies its situations call for, found by seeded random play."""

import random

import pytest

from shared.games import get_game
from shared.orders import (
    Order,
    OrderBook,
    OrderError,
    check_entry,
    format_order,
    parse_order,
    reply,
)

TRADING = ("zarahemla", "stone_age")
SEATS = {"zarahemla": 3, "stone_age": 3, "title_of_liberty": 2}


@pytest.mark.parametrize("text,canonical", [
    ("decline offers", "decline offers"), ("Decline  greedy offers", "decline greedy offers"),
    ("roll", "roll"), ("discard stones, wheat", "discard stone,wheat"),
    ("if offer 1wood for 1water then accept", "if offer 1wood for 1water then accept")])
def test_zarahemla_orders_parse_to_canonical_text(text, canonical):
    game = get_game("zarahemla")
    order = parse_order(game, text)
    assert format_order(order) == canonical and parse_order(game, canonical) == order


@pytest.mark.parametrize("text", ["decline", "roll twice", "discard bone", "discard",
                                  "discard wood,wood", "if roll then", "if @takeback 3 then "
                                  "roll", "if roll then @accept takeback", "", "then if"])
def test_orders_that_do_not_parse_are_refused(text):
    with pytest.raises(OrderError):
        parse_order(get_game("zarahemla"), text)


def test_a_game_without_trading_refuses_trade_orders():
    game = get_game("title_of_liberty")
    for text in ("decline offers", "decline greedy offers", "roll", "discard wood"):
        with pytest.raises(OrderError):
            parse_order(game, text)


def _walk(name, seed, want, steps=3000):
    """Random legal play of ``name`` until ``want(game, state, history)`` gives a value."""
    game = get_game(name)
    seats = game.seat_names(SEATS[name])
    state = game.new_game(seats, {}, f"orders-{seed}".encode())
    rng = random.Random(seed)
    history = []
    for step in range(steps):
        found = want(game, state, history)
        if found:
            return game, state, history, found
        to_act = game.to_act(state)
        if not to_act:
            break
        seat = rng.choice(to_act)
        move = rng.choice(game.legal_moves(state, seat))
        state = game.play(state, seat, move, f"{step}".encode())
        history.append({"seq": step, "seat": seat, "move": move})
    pytest.fail(f"no such situation in {steps} random moves of {name}")


def _owes_answer(game, state, history):
    for seat in game.to_act(state):
        offer = game.view(state, seat).get("offer")
        if offer and seat in (offer.get("owed") or offer.get("waiting") or []):
            return seat
    return None


@pytest.mark.parametrize("name", TRADING)
def test_trade_offers_are_declined_by_their_orders(name):
    game, state, history, seat = _walk(name, 3, _owes_answer)
    assert reply(game, state, seat, Order("decline_offers", ()), 0, history) == "decline"
    offer = game.view(state, seat)["offer"]
    greedy = sum(offer["get"].values()) > sum(offer["give"].values())
    assert reply(game, state, seat, Order("decline_greedy", ()), 0, history) == \
        ("decline" if greedy else None)
    # the offerer owes no answer to its own offer: it declines nothing
    assert reply(game, state, offer["from"], Order("decline_offers", ()), 0, history) is None


def _owes_discard(game, state, history):
    for seat in game.to_act(state):
        view = game.view(state, seat)
        owed = view.get("discard", view.get("discards")) or {}
        if owed.get(seat):
            return seat
    return None


@pytest.mark.parametrize("name", TRADING)
def test_discards_follow_the_order_of_the_order(name):
    game, state, history, seat = _walk(name, 5, _owes_discard)
    view = game.view(state, seat)
    need = (view.get("discard") or view.get("discards"))[seat]
    hand = view["hand"]
    first = max(hand, key=lambda r: (hand[r], r))
    order = parse_order(game, f"discard {first}")
    move = reply(game, state, seat, order, 0, history)
    assert move is not None and move.startswith("discard ")
    bundle = game.parse_move(move).args[0]
    assert sum(bundle) == need
    names = list(hand)
    assert bundle[names.index(first)] == min(need, hand[first])
    game.check(state, seat, move)


def test_roll_orders_roll_at_the_start_of_a_turn_only():
    def start_of_turn(game, state, history):
        seat = state and game.to_act(state)
        if seat and len(seat) == 1 and history and history[-1]["seat"] != seat[0] and \
                "roll" in game.legal_moves(state, seat[0]):
            return seat[0]
        return None
    game, state, history, seat = _walk("zarahemla", 1, start_of_turn)
    assert reply(game, state, seat, Order("roll", ()), 0, history) == "roll"
    mine = history + [{"seq": len(history), "seat": seat, "move": "play warrior"}]
    assert reply(game, state, seat, Order("roll", ()), 0, mine) is None


def test_check_entry_names_what_does_not_follow():
    game, state, history, seat = _walk("zarahemla", 3, _owes_answer)
    from shared.envelope import public_key_hex
    from shared.messages import sign_document
    from shared.orders import ORDER_DOMAIN, make_order
    key = bytes(range(32))
    keys = {s: public_key_hex(key) for s in game.seat_names(3)}
    doc = sign_document(key, ORDER_DOMAIN, make_order("g1", seat, 0, "decline offers", "n1", 1))
    book = OrderBook([doc], keys, game, "g1", len(history))
    digest = next(iter(book.orders))
    env = {"seq": len(history), "seat": seat, "move": "decline", "order": digest}
    check_entry(game, state, env, book, history)
    with pytest.raises(OrderError, match="does not follow"):
        check_entry(game, state, dict(env, move="accept"), book, history)
    with pytest.raises(OrderError, match="not in the archive"):
        check_entry(game, state, dict(env, order="0" * 64), book, history)
