"""The Settlers of the Stone Age at the table (shared/table.py): a seat that resigns leaves the
race, the server plays its turns, and the last seat in the race wins."""

import pytest

from shared.table import TableError
from tests.helpers.table import TableBuilder


def test_sa_a_resigned_seat_leaves_the_race_and_the_last_seat_wins():
    b = TableBuilder("stone_age", seats=("red", "blue", "white"), options={})
    first = b.log.to_act()[0]
    b.move("blue", "@resign")
    assert b.log.result() is None and b.log.racing() == ["red", "white"]
    if "blue" in b.log.to_act():  # its turns are the server's timeout moves
        with pytest.raises(TableError):
            b.move("blue", b.log.legal_moves("blue")[0])
    assert first in b.log.to_act()
    b.move("white", "@resign")
    result = b.log.result()
    assert result["winners"] == ["red"] and result["resigned"] == ["blue", "white"]
    assert b.log.view(None)["status"] == "over"
