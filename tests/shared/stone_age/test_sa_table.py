"""The Settlers of the Stone Age at the table (shared/table.py): a seat that resigns leaves the
race, the server plays its turns, and the last seat in the race wins."""

import pytest

from shared.table import TableError
from tests.helpers.table import TableBuilder


def test_sa_a_resigned_seat_leaves_the_race_and_the_last_seat_wins():
    b = TableBuilder("stone_age", seats=("red", "blue", "white"), options={})
    b.move("blue", "@resign")
    assert b.log.result() is None and b.log.racing() == ["red", "white"]
    assert b.log.legal_moves("blue") == []  # its turns are the server's timeout moves
    while "blue" not in b.log.to_act():
        seat = b.log.to_act()[0]
        b.move(seat, b.game.timeout_move(b.state, seat))
    with pytest.raises(TableError) as exc:
        b.move("blue", b.game.legal_moves(b.state, "blue")[0])
    assert exc.value.code == "resigned"
    b.move("blue", b.game.timeout_move(b.state, "blue"), forced=True)
    assert b.log.result() is None and b.log.racing() == ["red", "white"]
    b.move("white", "@resign")
    result = b.log.result()
    assert result["winners"] == ["red"] and result["resigned"] == ["blue", "white"]
    assert b.log.view(None)["status"] == "over"
