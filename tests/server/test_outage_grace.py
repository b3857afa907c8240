"""Outage grace: deadlines that passed while no notice worker ran are moved by the length of
the outage (measured from the worker's own heartbeat), never forced at once."""

from datetime import timedelta

from tests.helpers.mail import pig_game, tick

HOUR = 3600


def _first_pass(app):
    """What a notice worker does first when it starts (pbem-server notify, or run)."""
    from server.workers import notify
    with app.app_context():
        return notify._passes()()


def _duties(app):
    from server.db import db
    from server.db.models import Duty
    with app.app_context():
        return {(d.game_id, d.seat): d.due_at for d in db.session.execute(
            db.select(Duty).filter(Duty.due_at.is_not(None))).scalars()}


def _forced(player, game_id):
    log = player.get(f"/api/games/{game_id}/log").get_json()["entries"]
    return [e for e in log if e["forced"]]


def test_deadlines_passed_in_an_outage_are_moved_by_its_length(app, make_player, clock):
    g1, ann, bob = pig_game(make_player, clock, move_hours=48)
    carl, dora = make_player("carl"), make_player("dora")
    g2 = carl.post("/api/games", {"type": "pig", "seats": 2, "move_hours": 24}).get_json()["id"]
    dora.post(f"/api/games/{g2}/join", {})
    tick(app)                                   # the worker runs: its heartbeat now
    before = _duties(app)
    assert len(before) == 2
    clock.advance(72 * HOUR)                    # the worker is down for three days: both
    counts = _first_pass(app)                   # deadlines pass; then it starts again
    assert counts["forced"] == 0
    assert _forced(ann, g1) == [] and _forced(carl, g2) == []
    after = _duties(app)
    assert after == {k: v + timedelta(hours=72) for k, v in before.items()}
    # the time given back runs as before: the 24-hour game is forced a day later, not now
    clock.advance(23 * HOUR)
    assert tick(app)["forced"] == 0
    clock.advance(2 * HOUR)
    assert tick(app)["forced"] == 1 and len(_forced(carl, g2)) == 1


def test_a_short_pause_is_no_outage_and_a_second_worker_gives_nothing_twice(app, make_player,
                                                                            clock):
    from server.workers import notify
    g1, ann, bob = pig_game(make_player, clock, move_hours=48)
    tick(app)
    before = _duties(app)
    clock.advance(notify.OUTAGE_AFTER - 1)
    with app.app_context():
        assert notify.catch_up_after_outage() == 0
    assert _duties(app) == before
    clock.advance(10 * HOUR)
    with app.app_context():
        assert notify.catch_up_after_outage() == 1   # the first worker back gives it back
        assert notify.catch_up_after_outage() == 0   # a second one finds a fresh heartbeat
    assert _duties(app) == {k: v + timedelta(seconds=notify.OUTAGE_AFTER - 1 + 10 * HOUR)
                            for k, v in before.items()}


def test_a_first_start_ever_moves_nothing_and_starts_the_heartbeat(app, make_player, clock):
    from server.db import db
    from server.db.models import WorkerHeartbeat
    from server.workers import notify
    pig_game(make_player, clock, move_hours=48)
    before = _duties(app)
    with app.app_context():
        assert db.session.get(WorkerHeartbeat, "notices") is None
        assert notify.catch_up_after_outage() == 0   # nothing to measure an outage from
        assert db.session.get(WorkerHeartbeat, "notices").at.timestamp() == clock()
    assert _duties(app) == before
