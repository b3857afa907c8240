"""One move numbering on the pages: the log, the table's events, the duties and the archive
step page number moves from 1 (shared/numbering.py), as the CLI does, while the API's fields and
the signed entries keep seqs from 0.  A takeback asked at seq S is shown as "@takeback S+1" and
"(move S+1)" everywhere a player reads it."""

import re

from tests.helpers.api import start_pig


def _hold_with_a_pot(game_id, ann, bob):
    while True:
        r = ann.play(game_id, "north", "roll")
        assert r.status_code == 201, r.get_json()
        if ann.get(f"/api/games/{game_id}/view").get_json()["view"]["pot"]:
            break
        assert bob.play(game_id, "east", "hold").status_code == 201
    r = ann.play(game_id, "north", "hold")
    assert r.status_code == 201
    return r.get_json()["seq"]


def test_a_takeback_has_the_pages_numbers_on_the_game_and_archive_pages(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    hold = _hold_with_a_pot(game_id, ann, bob)
    r = ann.play(game_id, "north", f"@takeback {hold}")
    assert r.status_code == 201, r.get_json()
    # the API keeps the seq it was given
    assert r.get_json()["events"] == [f"north asks to take back 1 move (move {hold})"]
    page = bob.client.get(f"/g/{game_id}").get_data(as_text=True)
    # the log: the entry's number, its text and its event, all from 1
    entry = re.search(r'<li value="(\d+)" id="move-%d">.*?</li>\s*</ul>' % (hold + 1), page, re.S)
    assert entry, page
    assert entry.group(1) == str(hold + 2)
    assert f"@takeback {hold + 1}</code>" in entry.group(0)
    assert f"asks to take back 1 move (move {hold + 1})" in entry.group(0)
    assert f"(move {hold})" not in entry.group(0)
    # the held move itself is numbered hold + 1 in the log
    assert re.search(r'<li value="%d" id="move-%d">' % (hold + 1, hold), page)
    # what bob owes names the pages' number
    assert f"(move {hold + 1})" in page.split('class="owes"', 1)[1].split("</tr>", 1)[0]
    # the request panel says "from move" with the same number
    assert f"(from move {hold + 1})" in page
    assert bob.play(game_id, "east", "@accept takeback").status_code == 201
    # play to the end (the step pages replay a finished game, whose seed is revealed)
    players = {"north": ann, "east": bob}
    for _ in range(2000):
        game = ann.get(f"/api/games/{game_id}/view").get_json()
        if game["game"]["status"] == "over":
            break
        seat = game["game"]["to_act"][0]
        move = "hold" if game["view"]["pot"] >= 6 else "roll"
        assert players[seat].play(game_id, seat, move).status_code == 201
    assert game["game"]["status"] == "over"
    # the archive's step page for the request
    step = bob.client.get(f"/archive/{game_id}?step={hold + 2}")
    text = step.get_data(as_text=True)
    assert step.status_code == 200, text[:300]
    assert f"@takeback {hold + 1}</code>" in text
    assert f"(move {hold + 1})" in text and f"(move {hold})" not in text
