"""Title of Liberty at the table (shared/table.py): a seat does not resign alone and there is
no draw (the team concedes with its own move), while aborts and pauses are the table's."""

import pytest

from shared.table import TableError
from tests.helpers.table import TableBuilder


def _tol():
    b = TableBuilder("title_of_liberty", seats=("moroni", "helaman"), options={})
    return b


def _refused(b, seat, text, code):
    with pytest.raises(TableError) as exc:
        b.move(seat, text)
    assert exc.value.code == code
    return exc.value.message


def test_tol_seat_cannot_resign_or_draw():
    b = _tol()
    assert "concedes with the move concede" in _refused(b, "moroni", "@resign", "cooperative")
    _refused(b, "helaman", "@draw offer", "cooperative")
    assert b.log.result() is None


def test_tol_table_aborts_and_pauses():
    b = _tol()
    b.move("moroni", "@pause 2")
    b.move("helaman", "@pause 2")
    assert b.log.table["paused"]["days"] == 2
    b.move("helaman", "@abort")  # nobody has moved yet: one seat aborts alone
    result = b.log.result()
    assert result["winners"] == [] and result["rated"] is False
