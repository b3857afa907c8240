"""Archives as the server writes them (pbem-archive-v3: v2 with messages and orders), and
the attacks on them on the archive of a real game played through the API.

Runs on SQLite, and on PostgreSQL with PBEM_TEST_DATABASE_URL set (the ``app`` fixture).
"""

import copy
import json
import random

import pytest

from shared.archive import V4_FORMAT, ArchiveError, load_archive, verify_archive
from shared.envelope import genesis_hash, head_message, running_head_message, verify
from tests.figures import record
from tests.helpers.api import start_pig

TOP_KEYS = {"format", "header", "genesis", "start_signature", "entries", "head", "seed",
            "result", "messages", "orders", "documents"}


def outcome(archive, **kw):
    try:
        report = verify_archive(archive, **kw)
    except ArchiveError:
        return "refused"
    return "complete" if report["complete"] else "prefix"


def export_text(archive):
    return json.dumps(archive, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


@pytest.fixture
def played(make_player):
    """A finished Pig game, with the archive and the live head fetched at every length."""
    game_id, (ann, bob) = start_pig(make_player, target=15)
    by_seat = {"north": ann, "east": bob}
    archives, live = {}, {}
    while True:
        info = ann.get(f"/api/games/{game_id}/view").get_json()
        archive = bob.get(f"/api/games/{game_id}/archive").get_json()
        archives[archive["head"]["length"]] = archive
        live[info["head"]["length"]] = info["head"]
        if info["game"]["status"] == "over":
            break
        seat = info["view"]["to_act"][0]
        r = by_seat[seat].play(game_id, seat, "hold" if info["view"]["pot"] >= 5 else "roll")
        assert r.status_code == 201, r.get_json()
    key = ann.get("/api/server").get_json()["public_key"]
    return {"game": game_id, "archives": archives, "live": live, "final": archive, "key": key,
            "players": (ann, bob)}


def test_every_archive_while_running_is_a_prefix_and_the_last_is_complete(played):
    final, key = played["final"], played["key"]
    n = final["head"]["length"]
    assert set(final) == TOP_KEYS and final["format"] == V4_FORMAT
    assert final["head"]["status"] == "over" and final["seed"] and final["result"]["winners"]
    report = verify_archive(copy.deepcopy(final), server_key=key)
    assert report["complete"] and report["entries"] == n and report["result"] == final["result"]
    for length, archive in played["archives"].items():
        assert set(archive) == TOP_KEYS and set(archive["head"]) == {
            "game", "length", "hash", "status", "signature"}
        assert archive["start_signature"] == final["start_signature"]
        if length == n:
            continue
        assert archive["head"]["status"] == "playing"
        assert archive["seed"] is None and archive["result"] is None
        report = verify_archive(archive, server_key=key)
        assert not report["complete"] and report["entries"] == length
        assert report["head"]["length"] == length
        assert archive["entries"] == final["entries"][:length]
    # the live head of the view is signed with another message than any archive head
    head = played["live"][n]
    assert verify(key, head_message(played["game"], n, head["hash"]), head["signature"])
    assert not verify(key, running_head_message(played["game"], n, head["hash"]),
                      head["signature"])


def test_a_started_game_without_moves_has_a_bound_header(make_player):
    """'an archive with no entries and no head whose header was rewritten (another seat
    owner and key)'"""
    game_id, (ann, bob) = start_pig(make_player)
    archive = ann.get(f"/api/games/{game_id}/archive").get_json()
    assert archive["entries"] == [] and archive["head"]["length"] == 0
    assert outcome(copy.deepcopy(archive)) == "prefix"
    archive["header"]["seats"][1].update(player="mallory",
                                         public_key=archive["header"]["seats"][0]["public_key"])
    assert outcome(archive) == "refused"
    archive["genesis"] = archive["head"]["hash"] = genesis_hash(archive["header"])
    with pytest.raises(ArchiveError, match="start signature"):
        verify_archive(archive)
    del archive["head"]
    assert outcome(archive) == "refused"


def test_the_attacks_of_the_issue_on_a_real_game(played):
    final, archives = played["final"], played["archives"]
    n = final["head"]["length"]
    # tail dropped, head removed, result null ("won by nobody")
    a = copy.deepcopy(final)
    del a["entries"][-2:], a["head"]
    a["result"] = None
    assert outcome(a) == "refused"
    # cut short, carrying an older genuine signed head: a prefix at most, at every length
    for k in range(n):
        cut = copy.deepcopy(final)
        cut["entries"] = cut["entries"][:k]
        assert outcome(cut) == "refused"                   # with the final head
        cut["head"] = archives[k]["head"]
        assert outcome(cut) == "refused"                   # seed and result still there
        cut["seed"] = cut["result"] = None
        # v4: the side documents are signed with the head they were exported at
        assert outcome(cut) == "refused"
        for key in ("messages", "orders", "documents"):
            cut[key] = archives[k][key]
        assert outcome(cut) == "prefix"                    # a genuine prefix, never complete
        live = played["live"][k]
        cut["head"] = dict(archives[k]["head"], signature=live["signature"])
        assert outcome(cut) == "refused"                   # the live head is no archive head
    # a finished game with seed null, or without its seed
    a = copy.deepcopy(final)
    a["seed"] = None
    assert outcome(a) == "refused"
    del a["seed"]
    assert outcome(a) == "refused"
    # a swapped header with a valid re-computed genesis
    a = copy.deepcopy(final)
    a["header"]["seats"][0]["player"] = "mallory"
    a["genesis"] = genesis_hash(a["header"])
    with pytest.raises(ArchiveError, match="start signature"):
        verify_archive(a)
    # a renamed redundant key in an entry
    for key in ("hash", "seq"):
        a = copy.deepcopy(final)
        a["entries"][1][key.upper()] = a["entries"][1].pop(key)
        with pytest.raises(ArchiveError, match="entry 1"):
            verify_archive(a)
    # a server key that is not the expected one
    with pytest.raises(ArchiveError, match="expected key"):
        verify_archive(copy.deepcopy(final), server_key="0" * 64)


def test_one_bit_flips_and_key_renames_over_the_whole_real_archive(played):
    final = played["final"]
    data = bytearray(export_text(final).encode("utf-8"))
    assert outcome(load_archive(bytes(data))) == "complete"
    rnd = random.Random(2026)
    flips = 0
    for _ in range(1500):
        i, bit = rnd.randrange(len(data)), 1 << rnd.randrange(8)
        data[i] ^= bit
        try:
            archive = load_archive(bytes(data))
        except ArchiveError:
            archive = None
        assert archive is None or outcome(archive) == "refused", (i, bit)
        data[i] ^= bit
        flips += 1
    assert flips == 1500

    def dicts(node, path=()):
        if isinstance(node, dict):
            yield path, node
            for k, v in node.items():
                yield from dicts(v, path + (k,))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from dicts(v, path + (i,))

    renamed = 0
    for path, node in list(dicts(final)):
        for key in list(node):
            a = copy.deepcopy(final)
            target = a
            for step in path:
                target = target[step]
            target[key + "x"] = target.pop(key)
            assert outcome(a) == "refused", (path, key)
            renamed += 1
    assert renamed > 4 * len(final["entries"])
    record("4 a real finished game's archive through the API",
           f"{flips} random one-bit flips and {renamed} renamed keys: all refused")


def test_the_archive_endpoint_is_documented_with_the_new_fields(client):
    doc = json.dumps(client.get("/api/openapi.json").get_json())
    assert "start_signature" in doc and "ArchiveHead" in doc


def test_an_envelope_with_a_lone_surrogate_is_a_400(make_player):
    """JSON may carry half a UTF-16 pair ("\\ud800"): it has no UTF-8 form, so no canonical
    form, and is refused as such (it raised UnicodeEncodeError, a 500, before)."""
    game_id, (ann, bob) = start_pig(make_player)
    body = ann.move_body(game_id, "north", "roll")
    body["envelope"] = body["envelope"].replace('"move":"roll"', '"move":"roll\ud800"')
    r = ann.post(f"/api/games/{game_id}/moves", body)
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "not_canonical"
    assert "not valid Unicode" in r.get_json()["error"]["message"]


def test_an_archive_is_never_signed_by_another_key_than_its_header_names(app, make_player):
    """Were the server's key replaced, it could not sign old games' archives: a clear 409
    rather than an archive that does not verify."""
    from shared.envelope import public_key_hex
    game_id, (ann, bob) = start_pig(make_player)
    assert ann.get(f"/api/games/{game_id}/archive").status_code == 200
    other = bytes(range(32))
    app.extensions["pbem_server_key"] = (other, public_key_hex(other))
    r = ann.get(f"/api/games/{game_id}/archive")
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "server_key_changed"
