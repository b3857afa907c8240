"""The turn service end to end through the HTTP API, with the Pig fixture game."""

import json
import threading

import pytest

from client.signing import signed_move
from shared.archive import ArchiveError, verify_archive
from shared.envelope import canonical_json
from tests.helpers.api import start_pig


def log_length(player, game_id):
    return len(player.get(f"/api/games/{game_id}/log").get_json()["entries"])


def test_full_game_through_the_api(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    by_seat = {"north": ann, "east": bob}
    for _ in range(2000):
        info = ann.get(f"/api/games/{game_id}/view").get_json()
        if info["game"]["status"] == "over":
            break
        seat = info["view"]["to_act"][0]
        player = by_seat[seat]
        legal = player.get(f"/api/games/{game_id}/legal").get_json()
        assert legal["seat"] == seat and "roll" in legal["moves"]
        move = "hold" if info["view"]["pot"] >= 8 else "roll"
        r = player.play(game_id, seat, move)
        assert r.status_code == 201, r.get_json()
    else:
        pytest.fail("the game did not end")
    view = bob.get(f"/api/games/{game_id}/view").get_json()
    assert view["view"]["status"] == "over" and view["view"]["result"]["winners"]
    assert "Winner" in view["board"]
    archive = ann.get(f"/api/games/{game_id}/archive").get_json()
    assert archive["seed"] and archive["result"]["winners"]
    report = verify_archive(archive)
    assert report["replayed"] and report["result"] == archive["result"]
    # after the end no move is accepted
    r = ann.play(game_id, "north", "roll")
    assert r.status_code == 409


def test_view_is_per_seat_and_log_is_redacted(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    assert ann.play(game_id, "north", "peek").status_code == 201
    mine = ann.get(f"/api/games/{game_id}/log").get_json()["entries"][0]["events"][0]
    theirs = bob.get(f"/api/games/{game_id}/log").get_json()["entries"][0]["events"][0]
    public = ann.get(f"/api/games/{game_id}/log", signed=False).get_json()
    assert mine.startswith("north peeked at ")
    assert theirs == "north peeked" == public["entries"][0]["events"][0]
    secret = ann.get(f"/api/games/{game_id}/view").get_json()["view"]["secret"]
    assert secret > 0
    assert "secret" not in bob.get(f"/api/games/{game_id}/view").get_json()["view"] or \
        bob.get(f"/api/games/{game_id}/view").get_json()["view"]["secret"] == 0
    spectator = ann.get(f"/api/games/{game_id}/view", signed=False).get_json()
    assert spectator["seat"] is None and "secret" not in spectator["view"]


def test_wrong_key_is_refused_and_nothing_appended(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    info = ann.get(f"/api/games/{game_id}/view").get_json()
    # bob signs a move for ann's seat
    body = signed_move(bob.key, game_id, info["next_seq"], info["prev"], "north", "roll")
    r = bob.post(f"/api/games/{game_id}/moves", body)
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "bad_signature"
    assert log_length(ann, game_id) == 0


def test_replayed_envelope_returns_existing_entry_and_appends_nothing(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    body = ann.move_body(game_id, "north", "peek")
    first = ann.post(f"/api/games/{game_id}/moves", body)
    again = ann.post(f"/api/games/{game_id}/moves", body)
    assert first.status_code == 201 and again.status_code == 200
    assert again.get_json()["hash"] == first.get_json()["hash"]
    assert log_length(ann, game_id) == 1


def test_stale_seq_gets_409_with_the_current_seq(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    stale = ann.move_body(game_id, "north", "peek")
    assert ann.play(game_id, "north", "peek").status_code == 201
    r = ann.post(f"/api/games/{game_id}/moves", stale)
    assert r.status_code == 409
    err = r.get_json()["error"]
    assert err["code"] == "stale_seq" and err["details"]["seq"] == 1
    assert log_length(ann, game_id) == 1


@pytest.mark.parametrize("body, code", [
    ({"envelope": "not json", "signature": "0" * 128}, "not_canonical"),
    ({"envelope": '{"b": 1, "a": 2}', "signature": "0" * 128}, "not_canonical"),
    ({"envelope": "{}", "signature": "xyz"}, "malformed"),
    ({"envelope": "{}"}, "malformed"),
    ({"envelope": "{}", "signature": "0" * 128, "seq": 4}, "malformed"),
    ({"envelope": '{"a":1.5}', "signature": "0" * 128}, "not_canonical"),
])
def test_malformed_bodies_are_400(make_player, body, code):
    game_id, (ann, bob) = start_pig(make_player)
    r = ann.post(f"/api/games/{game_id}/moves", body)
    assert r.status_code == 400, r.get_json()
    assert r.get_json()["error"]["code"] == code
    assert log_length(ann, game_id) == 0


def test_body_that_is_not_json_is_400(make_player, client):
    game_id, (ann, bob) = start_pig(make_player)
    r = client.post(f"/api/games/{game_id}/moves", data=b"{nope", content_type="application/json")
    assert r.status_code == 400 and "error" in r.get_json()


def test_illegal_move_is_422_with_the_rules_reason(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    r = ann.play(game_id, "north", "fly")
    assert r.status_code == 422
    assert r.get_json()["error"]["code"] == "bad_notation"
    r = bob.play(game_id, "east", "roll")
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "not_your_turn"


def test_two_concurrent_submissions_for_one_seq_append_exactly_one(make_player, app):
    game_id, (ann, bob) = start_pig(make_player)
    info = ann.get(f"/api/games/{game_id}/view").get_json()
    bodies = [signed_move(ann.key, game_id, 0, info["prev"], "north", m)
              for m in ("peek", "roll", "hold", "peek", "roll", "hold", "peek", "roll")]
    statuses = []
    barrier = threading.Barrier(len(bodies))

    def submit(body):
        c = app.test_client()
        barrier.wait()
        r = c.post(f"/api/games/{game_id}/moves", data=json.dumps(body),
                   content_type="application/json")
        statuses.append(r.status_code)

    threads = [threading.Thread(target=submit, args=(b,)) for b in bodies]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [201] + [409] * (len(bodies) - 1)
    assert log_length(ann, game_id) == 1


def test_archive_verifies_and_one_changed_byte_does_not(make_player):
    game_id, (ann, bob) = start_pig(make_player, target=10)
    by_seat = {"north": ann, "east": bob}
    while True:
        info = ann.get(f"/api/games/{game_id}/view").get_json()
        if info["game"]["status"] == "over":
            break
        seat = info["view"]["to_act"][0]
        by_seat[seat].play(game_id, seat, "hold" if info["view"]["pot"] >= 6 else "roll")
    archive = ann.get(f"/api/games/{game_id}/archive").get_json()
    verify_archive(archive)
    text = json.dumps(archive)
    # change one byte inside the first envelope's move text
    entry = archive["entries"][0]["envelope"]
    changed = entry.replace('"move":"roll"', '"move":"rolm"').replace(
        '"move":"hold"', '"move":"hole"')
    assert changed != entry
    tampered = json.loads(text.replace(json.dumps(entry)[1:-1], json.dumps(changed)[1:-1], 1))
    with pytest.raises(ArchiveError, match="entry 0 has a bad signature"):
        verify_archive(tampered)
    tampered = json.loads(text)
    tampered["seed"] = ("0" if archive["seed"][0] != "0" else "1") + archive["seed"][1:]
    with pytest.raises(ArchiveError, match="commitment"):
        verify_archive(tampered)
    tampered = json.loads(text)
    tampered["entries"].pop()
    with pytest.raises(ArchiveError, match="head"):
        verify_archive(tampered)


def test_running_game_archive_has_no_seed_and_checks_chain(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    ann.play(game_id, "north", "peek")
    archive = bob.get(f"/api/games/{game_id}/archive").get_json()
    assert archive["seed"] is None and archive["result"] is None
    report = verify_archive(archive)
    assert report["entries"] == 1 and not report["replayed"]


def test_openapi_document_is_served(client):
    doc = client.get("/api/openapi.json").get_json()
    assert "/api/games/{game_id}/moves" in doc["paths"]
    assert "ErrorSchema" in json.dumps(doc) or "Error" in json.dumps(doc)


def test_the_openapi_document_written_on_first_read_documents_every_api_route(app):
    """create_app leaves the document to its first read (server/http/errors.py): that read,
    made by several threads at once, still documents every route of every blueprint, each
    blueprint once, and every reader gets the same document."""
    import re
    import threading
    docs = []

    def read():
        docs.append(app.test_client().get("/api/openapi.json").get_json())
    threads = [threading.Thread(target=read) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(docs) == 4 and all(doc == docs[0] for doc in docs)
    paths = docs[0]["paths"]
    smorest = app.extensions["flask-smorest"]["blp_name_to_api"]
    routes = {re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)
              for rule in app.url_map.iter_rules() if rule.endpoint.split(".", 1)[0] in smorest}
    assert routes and routes <= set(paths), sorted(routes - set(paths))
    tags = [tag["name"] for tag in docs[0]["tags"]]
    assert sorted(tags) == sorted(smorest) and len(tags) == len(set(tags))


def test_unknown_route_and_game_are_json_404(make_player, client):
    ann = make_player("ann")
    r = client.get("/api/nothing")
    assert r.status_code == 404 and r.get_json()["error"]["code"] == "not_found"
    r = ann.get("/api/games/zzzz/view")
    assert r.status_code == 404 and r.get_json()["error"]["code"] == "unknown_game"


def test_canonical_json_is_sorted_and_compact():
    assert canonical_json({"b": 1, "a": [1, "é"]}) == '{"a":[1,"é"],"b":1}'.encode()


def test_snapshots_are_only_a_cache_and_rebuild_from_the_log(make_player, app):
    game_id, (ann, bob) = start_pig(make_player)
    by_seat = {"north": ann, "east": bob}
    for _ in range(12):
        info = ann.get(f"/api/games/{game_id}/view").get_json()
        seat = info["view"]["to_act"][0]
        by_seat[seat].play(game_id, seat, "peek" if info["next_seq"] % 3 == 0 else "roll")
    before = ann.get(f"/api/games/{game_id}/view").get_json()["view"]
    from server.db import db
    from server.db.models import Snapshot
    with app.app_context():
        db.session.execute(db.delete(Snapshot))
        db.session.commit()
        app.extensions.pop("pbem_state_cache", None)
    after = ann.get(f"/api/games/{game_id}/view").get_json()["view"]
    assert after == before
    seat = after["to_act"][0]
    assert by_seat[seat].play(game_id, seat, "roll").status_code == 201


def test_game_summary_follows_the_log_head(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    ann.play(game_id, "north", "hold")
    info = ann.get(f"/api/games/{game_id}").get_json()
    assert info["seq"] == 0 and info["to_act"] == ["east"]
    entry = ann.get(f"/api/games/{game_id}/log").get_json()["entries"][0]
    assert info["head"] == entry["hash"]
