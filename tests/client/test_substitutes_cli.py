"""Substitutes, time banks and records against a real ``pbem-server run`` (the run's shared
server): ``pbem offer-seat`` and ``pbem claim`` for a seat left to a bot and for one a bot
took at a missed deadline, a time bank spent and then the timeout move, and the records
after finished, resigned, aborted and conceded games.  A deadline is made to pass by moving
the game's rows back in time in the server's database (the server runs on the real
clock)."""

import time
from datetime import timedelta

import pytest
import requests
from sqlalchemy import create_engine, update

from shared.archive import verify_archive
from shared.games import game_types


@pytest.fixture
def database(server):
    engine = create_engine(f"sqlite:///{server.tmp}/pbem.sqlite")
    yield engine
    engine.dispose()


def age(engine, game, seat, seconds):
    """Move ``seat``'s deadline (and its time bank's spell) ``seconds`` into the past, as if
    that much time had gone by for it."""
    from server.db.models import Duty, Seat
    back = timedelta(seconds=seconds)
    with engine.begin() as conn:
        for model, column in ((Duty, "due_at"), (Seat, "bank_since")):
            table = model.__table__
            rows = conn.execute(table.select().where(table.c.game_id == game,
                                                     table.c.seat == seat)).mappings().all()
            for row in rows:
                if row[column] is not None:
                    conn.execute(update(table).where(table.c.id == row["id"])
                                 .values({column: row[column] - back}))


def until(what, check, timeout=90):
    """Poll ``check`` until it returns a true value (the server's worker passes every few
    seconds); its last value."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got or time.monotonic() > deadline:
            assert got, f"never: {what}"
            return got
        time.sleep(0.3)


def game_json(player, game):
    return requests.get(f"{player.server}/api/games/{game}", timeout=10).json()


def players_of(player, game):
    return [s["player"] for s in game_json(player, game)["seats"]]


def test_a_left_seat_is_offered_and_claimed_from_the_shell(make_player, tmp_path):
    ann, bob, carol = make_player("ann"), make_player("bob"), make_player("carol")
    game = ann.run("new", "pig", "--seats", 2, "--option", "target=100").stdout.strip()
    bob.run("join", game)
    refused = bob.run("offer-seat", game, "north", ok=1)  # ann is still there
    assert "is not offered" in refused.stderr and "Traceback" not in refused.stderr
    ann.run("leave", game, "--to-bot", "--yes")
    stranger = carol.run("offer-seat", game, "north", ok=1)
    assert stranger.stderr.strip().startswith(f"pbem: north of game {game} is not offered: "
                                              "you hold no seat")
    url = bob.run("offer-seat", game, "north").stdout.strip()
    assert "/seat/" in url
    wrong = carol.run("claim", url[:-4] + "AAAA", ok=1)
    assert wrong.stderr.strip() == "pbem: not claimed: this link offers no seat: check it " \
        "was copied whole"
    junk = carol.run("claim", "https://example.org/login/abc", ok=1)
    assert "is not a seat link" in junk.stderr
    for bad in ("", "x", "../../api/health", "%00" * 20, "A" * 500):
        refused = carol.run("claim", bad, ok=1)
        assert refused.stderr.startswith("pbem: ") and "Traceback" not in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    nowhere = bob.run("offer-seat", game, "nowhere", ok=1)
    assert "has no seat 'nowhere'" in nowhere.stderr
    claimed = carol.run("claim", url)
    assert f"you claimed north of game {game}; it is yours once {ann.name} signs" \
        in claimed.stdout
    again = make_player("dave").run("claim", url, ok=1)
    assert "not claimed: this link was used already" in again.stderr
    signed = ann.run("offer-seat", game, "north")  # ann's key signs the hand-over
    assert f"@handover {carol.name} " in signed.stdout
    assert players_of(ann, game) == [carol.name, bob.name]
    assert carol.json("show", game)["you"] == "north"
    path = tmp_path / "sub.json"
    ann.run("export", game, "-o", path)
    verified = ann.proc("verify", str(path))
    assert verified.returncode == 5, verified.stderr  # a running game: a verified prefix
    said = " ".join(verified.stdout.split())  # wrapped to 80 columns
    assert f"north to {carol.name} at move " in said, said
    assert "(a substitute, signed by the seat's leaving player)" in said, said
    import json
    report = verify_archive(json.loads(path.read_text()))
    assert [h["player"] for h in report["handovers"]][-1] == carol.name


def test_a_seat_a_bot_took_at_a_deadline_is_claimed_at_once(make_player, database):
    ann, bob, carol = make_player("ann"), make_player("bob"), make_player("carol")
    game = ann.run("new", "pig", "--seats", 2, "--option", "target=100", "--move-hours", 24,
                   "--on-timeout", "bot:random").stdout.strip()
    bob.run("join", game)
    age(database, game, "north", 25 * 3600)
    until("the bot took north", lambda: players_of(ann, game)[0] == "bot-random")
    url = bob.run("offer-seat", game, "north").stdout.strip()
    out = carol.run("claim", url).stdout
    assert f"north of game {game} is yours" in out
    assert players_of(ann, game) == [carol.name, bob.name]
    used = carol.run("claim", url, ok=1)
    assert "this link was used already" in used.stderr
    log = ann.json("log", game)
    hand = [e for e in log if e["move"].startswith(f"@handover {carol.name} ")]
    assert len(hand) == 1 and hand[0]["forced"]


def test_the_time_bank_is_spent_then_the_timeout_move_comes(make_player, database):
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.run("new", "pig", "--seats", 2, "--option", "target=100", "--option",
                   "time_bank=1", "--move-hours", 24).stdout.strip()
    bob.run("join", game)
    assert ann.json("show", game)["time_bank"] == {"hours": 1, "left": {"north": 3600,
                                                                        "east": 3600}}
    age(database, game, "north", 24 * 3600 + 600)  # ten minutes past the deadline
    left = until("north spends its bank", lambda: (
        ann.json("show", game)["time_bank"]["left"]["north"] < 3600 and
        ann.json("show", game)["time_bank"]["left"]["north"]))
    assert 0 < left <= 3000 and ann.json("log", game) == []  # nothing forced yet
    shown = ann.run("show", game).stdout
    assert "Time bank left (1h per seat for the whole game" in shown and "east 1h 00m" in shown
    age(database, game, "north", 3600)  # and the bank runs out
    entries = until("the timeout move", lambda: ann.json("log", game))
    assert entries[0]["seat"] == "north" and entries[0]["forced"]
    assert ann.json("show", game)["time_bank"]["left"]["north"] == 0
    record = requests.get(f"{ann.server}/api/players/{ann.name}", timeout=10).json()["record"]
    assert record["missed_deadlines"] == 1


def test_records_after_finished_resigned_and_conceded_games(make_player):
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.run("new", "pig", "--seats", 2, "--option", "target=1").stdout.strip()
    bob.run("join", game)
    by_seat = {"north": ann, "east": bob}
    while (view := ann.json("show", game))["status"] != "over":
        seat = view["to_act"][0]
        mover = by_seat[seat]
        last = ann.json("log", game)
        move = "hold" if last and last[-1]["seat"] == seat and last[-1]["move"] == "roll" \
            else "roll"
        mover.run("play", game, move)
    winner = by_seat[game_json(ann, game)["result"]["winners"][0]]
    resigned = ann.run("new", "pig", "--seats", 2, "--option", "target=100").stdout.strip()
    bob.run("join", resigned)
    ann.run("resign", resigned, "--yes")  # a resigned game: bob wins it
    assert game_json(ann, resigned)["result"]["winners"] == ["east"]
    aborted = ann.run("new", "pig", "--seats", 2, "--option", "target=100").stdout.strip()
    bob.run("join", aborted)
    bob.run("abort", aborted, "--yes")  # before two moves each: one seat aborts alone
    assert game_json(ann, aborted)["status"] == "over"
    conceder = None
    if "title_of_liberty" in game_types():
        tol = ann.run("new", "title_of_liberty", "--seats", 2).stdout.strip()
        bob.run("join", tol)
        seats = {p.json("show", tol)["you"]: p for p in (ann, bob)}
        conceder = seats[ann.json("show", tol)["to_act"][0]]
        conceder.run("play", tol, "concede")
    for who in (ann, bob):
        record = requests.get(f"{who.server}/api/players/{who.name}", timeout=10) \
            .json()["record"]
        assert record == {"finished": 2 + (conceder is not None),
                          "wins": int(who is winner) + (who is bob),
                          "resignations": int(who is conceder) + (who is ann), "aborts": 1,
                          "missed_deadlines": 0}, (who.name, record)
        page = requests.get(f"{who.server}/p/{who.name}", timeout=10)
        assert page.status_code == 200 and "resignations" in page.text
