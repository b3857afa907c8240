"""The after-append hook (server/game/hooks.py): who registers, in which order, and what a
hook may rely on (inside the append's transaction, or after its commit)."""

import pytest

from server.game import hooks
from server.game.domain import Refused


def _pig(make_player):
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()
    game = bob.post(f"/api/games/{game['id']}/join", {}).get_json()
    return game["id"], ann, game["head"]


def _names(phase):
    return [f"{fn.__module__}.{fn.__name__}" for fn in hooks.registered(phase)]


def test_create_app_registers_the_hooks_once_in_the_order_of_the_old_append_path(app):
    """The @handover rows first (the orders' SELECT must see the seat's orders ended), with
    the seat offers a hand-over uses up, then the standing orders, then the notices of the
    table's decisions, then push; after the commit, the standing orders carried out, then a
    tournament's next round when the entry ended its game; a second app registers nothing
    twice."""
    from server import create_app
    create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": "sqlite://"})
    assert _names(hooks.IN_TRANSACTION) == [
        "server.game.bots._hand_over",
        "server.game.substitutes._handed",
        "server.game.orders._ended_by_handover_and_in_force",
        "server.game.decisions._tell_the_table",
        "server.workers.push._announce_appended"]
    assert _names(hooks.COMMITTED) == ["server.game.orders._carry_out_after_append",
                                       "server.game.tournaments._after_game_over"]


def test_an_unknown_phase_is_refused():
    with pytest.raises(ValueError, match="unknown after-append phase"):
        hooks.after_append(print, "before")


def test_a_hook_raising_in_the_transaction_rolls_the_whole_move_back(app, make_player,
                                                                     monkeypatch):
    def refuse(appended):
        raise Refused("hook_refused", f"no move {appended.seq} in {appended.game_id}")

    monkeypatch.setitem(hooks._HOOKS, hooks.IN_TRANSACTION,
                        hooks.registered(hooks.IN_TRANSACTION) + [refuse])
    game_id, ann, head = _pig(make_player)
    r = ann.play(game_id, "north", "peek", seq=0, prev=head)
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "hook_refused"
    assert ann.get(f"/api/games/{game_id}/log").get_json()["entries"] == []
    game = ann.get(f"/api/games/{game_id}").get_json()
    assert game["head"] == head and game["to_act"] == ["north"]


def test_hooks_see_the_entry_in_and_after_the_transaction_and_never_for_a_repeat(
        app, make_player, monkeypatch):
    from server.db import db
    from server.db.models import Move
    seen = []

    def inside(appended):
        # the entry row is written (same transaction) and not yet visible as committed
        assert db.session().in_transaction()
        rows = db.session.execute(db.select(Move.seq).filter_by(
            game_id=appended.game_id)).scalars().all()
        appended.notes["test"] = rows
        seen.append(("in", appended.seq, appended.seat, appended.env["move"], rows))

    def after(appended):
        seen.append(("committed", appended.seq, appended.notes["test"], appended.over))

    monkeypatch.setitem(hooks._HOOKS, hooks.IN_TRANSACTION,
                        hooks.registered(hooks.IN_TRANSACTION) + [inside])
    monkeypatch.setitem(hooks._HOOKS, hooks.COMMITTED,
                        hooks.registered(hooks.COMMITTED) + [after])
    game_id, ann, head = _pig(make_player)
    body = ann.move_body(game_id, "north", "peek", seq=0, prev=head)
    first = ann.post(f"/api/games/{game_id}/moves", body)
    assert first.status_code == 201
    again = ann.post(f"/api/games/{game_id}/moves", body)  # the same signed move: a repeat
    assert again.status_code == 200
    assert seen == [("in", 0, "north", "peek", [0]), ("committed", 0, [0], False)]
