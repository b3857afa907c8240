"""Trade with the bank at 4:1, 3:1 and 2:1, and the asynchronous player offer."""

import pytest

from shared import IllegalMove
from shared.zarahemla import GAME

from .helpers import bundle, empty_play_state, play, put_building, put_road, set_hand, total_cards


def test_bank_four_to_one_without_a_post():
    st = empty_play_state()
    set_hand(st, "red", stone=5)
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "bank 3stone for 1wood")
    assert err.value.code == "bad_rate"
    play(st, "red", "bank 4stone for 1wood")
    assert st["players"]["red"]["hand"] == bundle(stone=1, wood=1)
    assert st["bank"][4] == 18 + 4 - 5
    assert total_cards(st) == 90


def test_rules_note_20_bank_trade_refusals():
    st = empty_play_state()
    set_hand(st, "red", stone=8, wood=4)
    for text, code in (("bank 4stone for 2wood", "bad_rate"),
                       ("bank 4stone for 1stone", "same_resource"),
                       ("bank 4stone+4wood for 2water", "bad_trade"),
                       ("bank 12stone for 3wood", "cannot_afford")):
        with pytest.raises(IllegalMove) as err:
            play(st, "red", text)
        assert err.value.code == code, text
    set_hand(st, "blue", water=18)
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "bank 4stone for 1water")
    assert err.value.code == "bank_empty"
    play(st, "red", "bank 8stone for 1wheat+1brick")


def test_generic_post_trades_three_to_one():
    st = empty_play_state()
    put_building(st, "red", 1)              # on the 3:1 post 1-5 (beginner board)
    set_hand(st, "red", wheat=3)
    play(st, "red", "bank 3wheat for 1stone")
    assert st["players"]["red"]["hand"] == bundle(stone=1)


def test_rules_note_12_two_to_one_post_is_usable_the_turn_it_is_built():
    # the stone post is on 11-16; red builds a settlement on 16 and trades at once
    st = empty_play_state()
    put_building(st, "red", 26)
    put_road(st, "red", 21, 26)
    put_road(st, "red", 16, 21)
    set_hand(st, "red", wood=1, brick=1, water=1, wheat=1, stone=6)
    with pytest.raises(IllegalMove):
        play(st, "red", "bank 2stone for 1wood")
    play(st, "red", "settle 16")
    play(st, "red", "bank 2stone for 1wood")
    play(st, "red", "bank 4stone for 1water+1wheat")   # 4:2 on a 2:1 post
    assert st["players"]["red"]["hand"] == bundle(wood=1, water=1, wheat=1)
    assert "bank 2stone for 1wood" not in GAME.legal_moves(st, "red")


def test_a_two_to_one_post_gives_no_three_to_one():
    st = empty_play_state()
    put_building(st, "red", 16)             # stone post only
    set_hand(st, "red", wheat=3, stone=2)
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "bank 3wheat for 1wood")
    assert err.value.code == "bad_rate"
    play(st, "red", "bank 2stone for 1wood")


def test_rules_note_13_offer_accept_confirm():
    st = empty_play_state()
    set_hand(st, "red", wood=2, stone=1)
    set_hand(st, "blue", brick=1)
    set_hand(st, "white", brick=2)
    play(st, "red", "offer 1stone for 1brick")
    assert GAME.to_act(st) == ["red", "blue", "white", "orange"]
    owes = GAME.view(st, None)["owes"]
    assert owes["blue"] == "answer red's offer (accept, decline or counter)"
    with pytest.raises(IllegalMove) as err:
        play(st, "orange", "accept")             # orange holds no brick
    assert err.value.code == "cannot_afford"
    play(st, "blue", "accept")
    play(st, "orange", "decline")
    assert GAME.to_act(st) == ["red", "white"]
    with pytest.raises(IllegalMove) as err:
        play(st, "blue", "decline")
    assert err.value.code == "answered"
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "confirm orange")
    assert err.value.code == "no_answer"
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "confirm white")
    assert err.value.code == "no_answer"
    assert "confirm blue" in GAME.legal_moves(st, "red")
    play(st, "red", "confirm blue")
    assert st["players"]["red"]["hand"] == bundle(wood=2, brick=1)
    assert st["players"]["blue"]["hand"] == bundle(stone=1)
    assert st["offer"] is None and GAME.to_act(st) == ["red"]
    assert total_cards(st) == 90


def test_the_books_counter_offer_neblis_takes_mollys_deal():
    # Neblis (red) has 2 wood and 3 stone and wants 1 brick
    st = empty_play_state(n=3)
    set_hand(st, "red", wood=2, stone=3)
    set_hand(st, "blue", brick=2)      # Matt
    set_hand(st, "white", brick=1)     # Molly
    play(st, "red", "offer 1stone for 1brick")
    play(st, "blue", "counter 2brick for 3stone")
    play(st, "white", "counter 1brick for 1stone+1wood")
    play(st, "red", "confirm white")
    assert st["players"]["red"]["hand"] == bundle(wood=1, brick=1, stone=2)
    assert st["players"]["white"]["hand"] == bundle(wood=1, stone=1)
    assert st["players"]["blue"]["hand"] == bundle(brick=2)


def test_offer_to_named_players_only_they_answer():
    st = empty_play_state()
    set_hand(st, "red", wood=1)
    set_hand(st, "white", water=1)
    play(st, "red", "offer 1wood for 1water to white")
    assert GAME.to_act(st) == ["red", "white"]
    with pytest.raises(IllegalMove) as err:
        play(st, "blue", "accept")
    assert err.value.code == "not_addressed"
    play(st, "white", "accept")
    play(st, "red", "confirm white")
    assert st["players"]["red"]["hand"] == bundle(water=1)


def test_an_offer_never_blocks_and_ending_the_turn_withdraws_it():
    st = empty_play_state()
    set_hand(st, "red", wood=1, brick=1)
    put_building(st, "red", 13)
    play(st, "red", "offer 1wood for 1water")
    play(st, "red", "road 13-18")                 # the current player goes on building
    play(st, "red", "end")
    assert st["offer"] is None
    assert GAME.to_act(st) == ["blue"]
    assert "withdrawn" in st["events"][0]["public"]
    with pytest.raises(IllegalMove) as err:
        play(st, "white", "accept")
    assert err.value.code == "no_offer"


def test_rules_note_23_withdraw_and_new_offer_replaces_the_old_one():
    st = empty_play_state()
    set_hand(st, "red", wood=2)
    play(st, "red", "offer 1wood for 1water")
    play(st, "red", "offer 2wood for 1stone to blue")
    assert st["offer"]["to"] == ["blue"] and st["offer"]["give"] == bundle(wood=2)
    play(st, "red", "withdraw")
    assert st["offer"] is None
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "withdraw")
    assert err.value.code == "no_offer"


def test_rules_note_13_only_the_current_player_offers_and_gifts_are_not_trades():
    st = empty_play_state()
    set_hand(st, "red", wood=2)
    set_hand(st, "blue", wood=2)
    with pytest.raises(IllegalMove) as err:
        play(st, "blue", "offer 1wood for 1water")
    assert err.value.code == "not_your_turn"
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "offer 1wood+1water for 1water")
    assert err.value.code == "same_resource"
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "offer 3wood for 1water")
    assert err.value.code == "cannot_afford"
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "offer 1wood for 1water to red")
    assert err.value.code == "bad_partner"
    st3 = empty_play_state(n=3)
    set_hand(st3, "red", wood=1)
    with pytest.raises(IllegalMove) as err:
        play(st3, "red", "offer 1wood for 1water to orange")
    assert err.value.code == "bad_partner"


def test_rules_note_24_confirm_fails_when_the_partner_no_longer_holds_the_cards():
    st = empty_play_state()
    set_hand(st, "red", wood=1)
    set_hand(st, "blue", water=1)
    play(st, "red", "offer 1wood for 1water")
    play(st, "blue", "accept")
    set_hand(st, "blue")                      # e.g. stolen by a Stripling Warrior
    assert "confirm blue" not in GAME.legal_moves(st, "red")
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "confirm blue")
    assert err.value.code == "cannot_afford"


def test_answering_seats_list_accept_decline_and_counters():
    st = empty_play_state()
    set_hand(st, "red", wood=1)
    set_hand(st, "blue", water=1, stone=1)
    play(st, "red", "offer 1wood for 1water")
    legal = GAME.legal_moves(st, "blue")
    assert legal[:2] == ["accept", "decline"]
    assert "counter 1stone for 1wood" in legal
    assert GAME.legal_moves(st, "white") == ["decline"]
