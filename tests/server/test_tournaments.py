"""Tournaments over the API: a signed document, entries, each round's games created by the
server naming the tournament in their headers, the next round paired when the last game of a
round ends, and an export that ``pbem verify`` recomputes (pairings and standings) and
refuses when tampered with."""

import copy
import json

import pytest
from click.testing import CliRunner

import shared.tournament as rules
from client.cli import cli
from shared.archive import verify_archive
from shared.games import get_game
from tests.helpers import tournaments as th

NAMES = ("ann", "bob", "cyd", "dee", "eve", "fay")


@pytest.fixture(autouse=True)
def _same_games_every_run(monkeypatch, app):
    """Bot games replayed alike on every run: fixed game seeds, ids, bot nonces and server
    key, the players' keys fixed (_players), and the bots' own choices fixed by
    PBEM_BOT_SEED (the helper)."""
    th.fix_game_draws(monkeypatch, app)


def _players(make_player, names=NAMES):
    """The organiser and the players, each with a fixed key (see _same_games_every_run)."""
    return make_player("org", key=th.player_key("org")), [
        make_player(n, key=th.player_key(n)) for n in names]


def _keys(players):
    return {p.name: p.key for p in players}


def _verify(tmp_path, export, name="t.json"):
    """``pbem verify FILE`` of ``export``: (exit code, output)."""
    path = tmp_path / name
    path.write_text(json.dumps(export))
    result = CliRunner().invoke(cli, ["--json", "verify", str(path)],
                                env={"PBEM_HOME": str(tmp_path / "home"), "NO_COLOR": "1"},
                                catch_exceptions=False)
    return result.exit_code, result.stdout + result.stderr


def _check_export(tmp_path, org, tid, info):
    """Export; pbem verify recomputes the server's standings; a tampered standing, a
    reordered pairing and a swapped game are refused with their reasons."""
    export = org.get(f"/api/tournaments/{tid}/export").get_json()
    assert export["seed"] == th.SEED.hex()  # revealed once the tournament is over
    code, out = _verify(tmp_path, export)
    assert code == 0, out
    verdict = json.loads(out)
    assert verdict["ok"] and verdict["outcome"] == "complete"
    assert verdict["standings"] == info["standings"] == export["standings"]
    assert verdict["rounds"] == len(info["rounds"])

    tampered = copy.deepcopy(export)
    tampered["standings"][0], tampered["standings"][1] = (tampered["standings"][1],
                                                          tampered["standings"][0])
    code, out = _verify(tmp_path, tampered)
    assert code == 1 and "standings the export states are not the ones its games give" in out

    reordered = copy.deepcopy(export)
    tables = reordered["rounds"][1]["tables"]
    tables[0]["players"], tables[1]["players"] = tables[1]["players"], tables[0]["players"]
    code, out = _verify(tmp_path, reordered)
    assert code == 1 and "round 2's pairing is not the one its standings give" in out

    swapped = copy.deepcopy(export)  # two games of round one trade tables
    first, second = swapped["rounds"][0]["tables"][:2]
    first["game"], second["game"] = second["game"], first["game"]
    code, out = _verify(tmp_path, swapped)
    assert code == 1 and "does not name this tournament, round and table" in out, out

    swapped = copy.deepcopy(export)  # a game's archive replaced by another game's
    gid = swapped["rounds"][2]["tables"][0]["game"]
    swapped["archives"][gid] = swapped["archives"][swapped["rounds"][0]["tables"][0]["game"]]
    code, out = _verify(tmp_path, swapped)
    assert code == 1 and "the archive is of another game" in out, out

    forged = copy.deepcopy(export)  # a result rewritten: the game's archive no longer holds
    gid = forged["rounds"][0]["tables"][0]["game"]
    forged["archives"][gid]["result"] = {"winners": []}
    code, out = _verify(tmp_path, forged)
    assert code == 1 and f"the archive of game {gid!r} does not verify" in out, out
    return export


def _swiss(org, players, type_, options, rounds=3):
    return th.run(org, players, th.document(org, type_=type_, options=options, rounds=rounds))


def test_a_swiss_of_six_players_of_pig_runs_exports_and_verifies(app, make_player, tmp_path):
    org, players = _players(make_player)
    tid = _swiss(org, players, "pig", {"target": 6})
    first = org.get(f"/api/tournaments/{tid}").get_json()
    assert first["status"] == "playing" and first["round"] == 1
    for table in first["rounds"][0]["tables"]:
        game = org.get(f"/api/games/{table['game']}").get_json()
        assert game["status"] == "playing" and game["rated"]
        assert [s["player"] for s in game["seats"]] == table["players"]
        assert game["options"]["tournament"] == rules.game_option(
            tid, 1, first["rounds"][0]["tables"].index(table) + 1)
    info = th.play_out(app, org, tid, _keys(players))
    assert info["status"] == "over" and [r["round"] for r in info["rounds"]] == [1, 2, 3]
    met = set()
    for rnd in info["rounds"]:
        for table in rnd["tables"]:
            pair = frozenset(table["players"])
            assert pair not in met  # nobody meets twice in a Swiss of three rounds
            met.add(pair)
    export = _check_export(tmp_path, org, tid, info)
    # every draw is the fixed one, so each run plays these same games: the games' seeds
    # and ids are counted, the entries signed by the fixed keys
    games = [tb["game"] for rnd in export["rounds"] for tb in rnd["tables"]]
    assert sorted(games) == games and all(g.startswith("test") for g in games)
    assert [export["archives"][g]["seed"] for g in games] == [
        th.game_seed(n).hex() for n in range(1, len(games) + 1)]
    assert {e["player"]: e["public_key"] for e in export["entries"]} == {
        p.name: p.public_key for p in players} and players[0].key == th.player_key("ann")


@pytest.mark.slow
def test_a_swiss_of_six_over_three_rounds_of_zarahemla_with_bots(app, make_player, tmp_path):
    org, players = _players(make_player)
    tid = _swiss(org, players, "zarahemla", {})
    info = th.play_out(app, org, tid, _keys(players), level="greedy")
    assert info["status"] == "over" and len(info["rounds"]) == 3
    assert sum(row["score"] for row in info["standings"]) == 2 * 9  # 9 games, 2 points each
    export = _check_export(tmp_path, org, tid, info)
    for archive in export["archives"].values():
        assert archive["header"]["type"] == "zarahemla" and archive["result"] is not None


def test_the_tournament_is_named_in_each_game_header_and_no_player_may_name_one(
        app, make_player):
    org, players = _players(make_player, NAMES[:2])
    tid = _swiss(org, players, "pig", {"target": 6}, rounds=1)
    gid = org.get(f"/api/tournaments/{tid}").get_json()["rounds"][0]["tables"][0]["game"]
    header = org.get(f"/api/games/{gid}/archive").get_json()["header"]
    assert header["options"]["tournament"] == f"{tid}:1:1"
    r = org.post("/api/games", {"type": "pig", "seats": 2, "options": {
        "target": 6, "tournament": f"{tid}:1:1"}})
    assert r.status_code == 400 and "too long" in json.dumps(r.get_json())
    r = org.post("/api/games", {"type": "pig", "seats": 2, "options": {"tournament": "x"}})
    assert r.status_code == 422 and "ID:ROUND:TABLE" in r.get_json()["error"]["message"]


def test_an_odd_count_gives_a_bye_and_a_withdrawal_is_not_paired_again(app, make_player,
                                                                        tmp_path):
    org, players = _players(make_player, NAMES[:5])
    tid = _swiss(org, players, "pig", {"target": 6}, rounds=3)
    keys = _keys(players)
    info = org.get(f"/api/tournaments/{tid}").get_json()
    assert len(info["rounds"][0]["byes"]) == 1 and len(info["rounds"][0]["tables"]) == 2
    bye = info["rounds"][0]["byes"][0]
    quitter = next(p for p in players if p.name != bye)
    r = th.leave(quitter, tid, 1)
    assert r.status_code == 422 and "round 2" in r.get_json()["error"]["message"]
    r = th.leave(quitter, tid, 2)
    assert r.status_code == 200, r.get_json()
    assert th.leave(quitter, tid, 2).status_code == 409  # once
    th.play_round(app, tid, keys)
    info = org.get(f"/api/tournaments/{tid}").get_json()
    assert info["round"] == 2
    second = info["rounds"][1]
    assert all(quitter.name not in t["players"] for t in second["tables"])
    assert quitter.name not in second["byes"] and not second["byes"]  # four left: no bye
    # running: the export verifies as a prefix (exit 5) from the round keys so far, with the
    # seed kept secret, the withdrawal and the current round's unfinished games in it
    running = org.get(f"/api/tournaments/{tid}/export").get_json()
    assert running["seed"] is None and len(running["round_keys"]) == 3
    code, out = _verify(tmp_path, running, "running.json")
    verdict = json.loads(out)
    assert code == 5 and verdict["outcome"] == "prefix" and not verdict["final"], out
    assert verdict["rounds"] == 2 and verdict["standings"] == info["standings"]
    row = next(r for r in info["standings"] if r["player"] == bye)
    assert row["score"] >= rules.BYE  # the bye scored as a win
    info = th.play_out(app, org, tid, keys)
    export = org.get(f"/api/tournaments/{tid}/export").get_json()
    assert export["withdrawals"][0]["player"] == quitter.name
    report = rules.verify_tournament(export, verify_archive, get_game)
    assert report["complete"] and report["standings"] == info["standings"]
    assert export["round_keys"] is None  # over: the seed, from which every key is checked
    draw = rules.draw_seed(th.SEED, export["entries"])
    assert running["round_keys"] == rules.round_keys(draw, 2)


def test_tables_of_four_and_three_seat_stone_age_by_the_pairing(app, make_player):
    org, players = _players(make_player, NAMES + ("gus",))
    doc = th.document(org, type_="stone_age", fmt="tables", rounds=2, table_size=4)
    tid = th.run(org, players, doc)
    info = org.get(f"/api/tournaments/{tid}").get_json()
    tables = info["rounds"][0]["tables"]
    assert sorted(len(t["players"]) for t in tables) == [3, 4]  # seven players: 4 + 3
    assert sorted(sum((t["players"] for t in tables), [])) == sorted(p.name for p in players)
    for i, table in enumerate(tables, start=1):
        game = org.get(f"/api/games/{table['game']}").get_json()
        assert game["type"] == "stone_age" and game["status"] == "playing"
        assert [s["player"] for s in game["seats"]] == table["players"]
        assert game["options"]["tournament"] == rules.game_option(tid, 1, i)


@pytest.mark.slow
def test_tables_of_three_play_zarahemla_to_the_end_and_verify(app, make_player):
    org, players = _players(make_player)
    doc = th.document(org, type_="zarahemla", fmt="tables", rounds=1, table_size=3)
    tid = th.run(org, players, doc)
    info = th.play_out(app, org, tid, _keys(players), level="greedy")
    assert [len(t["players"]) for t in info["rounds"][0]["tables"]] == [3, 3]
    export = org.get(f"/api/tournaments/{tid}/export").get_json()
    report = rules.verify_tournament(export, verify_archive, get_game)
    assert report["complete"] and report["standings"] == info["standings"]
    assert sum(r["score"] for r in info["standings"]) == 2 * 3 * 2  # 3 pairs a table, 2 tables


def test_tables_of_pig_play_out_and_verify(app, make_player):
    org, players = _players(make_player, NAMES[:5])
    doc = th.document(org, type_="pig", fmt="tables", rounds=2, table_size=3,
                      options={"target": 6})
    tid = th.run(org, players, doc)
    info = th.play_out(app, org, tid, _keys(players))
    assert [sorted(len(t["players"]) for t in r["tables"]) for r in info["rounds"]] == \
        [[2, 3], [2, 3]]
    export = org.get(f"/api/tournaments/{tid}/export").get_json()
    report = rules.verify_tournament(export, verify_archive, get_game)
    assert report["complete"] and report["standings"] == info["standings"]


def test_the_title_of_liberty_challenge_ranks_by_wins_then_rounds_used(app, make_player):
    org, players = _players(make_player, NAMES[:4])
    doc = th.document(org, type_="title_of_liberty", fmt="challenge", rounds=1,
                      table_size=2, options={"rounds": 2})
    assert doc["tiebreaks"] == ["rounds_used"]
    tid = th.run(org, players, doc)
    info = org.get(f"/api/tournaments/{tid}").get_json()
    assert [len(t["players"]) for t in info["rounds"][0]["tables"]] == [2, 2]
    info = th.play_out(app, org, tid, _keys(players))
    export = org.get(f"/api/tournaments/{tid}/export").get_json()
    report = rules.verify_tournament(export, verify_archive, get_game)
    assert report["complete"] and report["standings"] == info["standings"]
    for table in info["rounds"][0]["tables"]:
        game = org.get(f"/api/games/{table['game']}").get_json()
        won = bool(game["result"].get("winners"))
        for name in table["players"]:
            row = next(r for r in info["standings"] if r["player"] == name)
            assert row["score"] == (2 if won else 0)
            assert row["tiebreaks"] == [-game["result"]["round"]]  # fewer rounds rank higher
    ranked = [(-r["score"], [-t for t in r["tiebreaks"]]) for r in info["standings"]]
    assert ranked == sorted(ranked)
    r = org.post("/api/tournaments", {"document": th.document(
        org, type_="title_of_liberty", fmt="swiss", rounds=1), "signature": "0" * 128,
        "seed": th.SEED.hex()})
    assert r.status_code == 422 and r.get_json()["error"]["code"] in ("bad_format",
                                                                       "bad_signature")


def test_bad_documents_entries_and_closes_are_refused_with_a_sentence(app, make_player):
    org, (ann, bob) = _players(make_player, NAMES[:2])
    doc = th.document(org, type_="pig", options={"target": 6})

    def refused(r, status, code):
        assert r.status_code == status, r.get_json()
        error = r.get_json()["error"]
        assert error["code"] == code and error["message"], error
        return error["message"]

    refused(ann.post("/api/tournaments", {"document": doc, "signature":
                                          rules.sign_document(org.key, doc),
                                          "seed": th.SEED.hex()}), 403, "not_organiser")
    refused(org.post("/api/tournaments", {"document": doc, "signature":
                                          rules.sign_document(ann.key, doc),
                                          "seed": th.SEED.hex()}), 422, "bad_signature")
    refused(th.create(org, doc, seed=bytes(32)), 422, "bad_seed")
    raw = dict(doc, options={"target": "6"})  # not the normalized options
    refused(th.create(org, raw), 422, "bad_options")
    refused(th.create(org, dict(doc, format="knockout")), 422, "bad_tournament")
    refused(org.post("/api/tournaments", {"document": [], "signature": "0" * 128,
                                          "seed": "0" * 64}), 400, "malformed")
    r = th.create(org, doc)
    assert r.status_code == 201
    tid = r.get_json()["id"]
    refused(th.create(org, doc), 409, "tournament_exists")
    refused(org.get("/api/tournaments/" + "0" * 64), 404, "unknown_tournament")
    refused(org.get("/api/tournaments/nope"), 404, "unknown_tournament")
    forged = {"public_key": ann.public_key, "signature": rules.sign_document(bob.key, doc)}
    refused(ann.post(f"/api/tournaments/{tid}/join", forged), 422, "bad_signature")
    refused(ann.post(f"/api/tournaments/{tid}/join", dict(forged, public_key=bob.public_key)),
            422, "bad_key")
    assert th.join(ann, tid).status_code == 200
    refused(th.join(ann, tid), 409, "already_entered")
    refused(th.close(org, tid, ["ann"]), 409, "too_few_players")
    assert th.join(bob, tid).status_code == 200
    refused(th.close(ann, tid, [ann.name, bob.name]), 403, "not_organiser")
    refused(th.close(org, tid, [ann.name]), 422, "bad_signature")
    refused(org.post(f"/api/tournaments/{tid}/start", {}), 409, "not_closed")
    listed = org.get("/api/tournaments", signed=False).get_json()["tournaments"]
    assert [t["id"] for t in listed] == [tid] and listed[0]["players"] == 2
    assert th.close(org, tid, [ann.name, bob.name]).status_code == 200
    refused(th.join(org, tid), 409, "entry_closed")
    refused(ann.post(f"/api/tournaments/{tid}/start", {}), 403, "not_organiser")
    assert org.get("/api/tournaments", signed=False).get_json()["tournaments"] == []
    refused(org.post(f"/api/tournaments/{tid}/start", {"x": 1}), 400, "malformed")
    r = org.post(f"/api/tournaments/{tid}/start", {})
    assert r.status_code == 200 and r.get_json()["round"] == 1
    refused(org.post(f"/api/tournaments/{tid}/start", {}), 409, "started")
    mine = ann.get(f"/api/tournaments/{tid}").get_json()["you"]
    assert mine["entered"] and mine["game"]


def test_a_closed_tournament_not_started_verifies_as_a_prefix(app, make_player, tmp_path):
    org, players = _players(make_player, NAMES[:4])
    tid = th.create(org, th.document(org, type_="pig", options={"target": 6})).get_json()["id"]
    for p in players:
        assert th.join(p, tid).status_code == 200
    assert th.close(org, tid, [p.name for p in players]).status_code == 200
    export = org.get(f"/api/tournaments/{tid}/export").get_json()
    assert export["seed"] is None and len(export["round_keys"]) == 1 and not export["rounds"]
    code, out = _verify(tmp_path, export)
    verdict = json.loads(out)
    assert code == 5 and verdict["outcome"] == "prefix" and verdict["rounds"] == 0, out


def test_leaving_before_the_close_strikes_the_entry(app, make_player):
    org, (ann, bob) = _players(make_player, NAMES[:2])
    tid = th.create(org, th.document(org, type_="pig", options={"target": 6})).get_json()["id"]
    th.join(ann, tid)
    assert th.leave(ann, tid, 1).status_code == 200
    assert org.get(f"/api/tournaments/{tid}").get_json()["entries"] == []
    assert th.leave(bob, tid, 1).status_code == 409  # never entered
    assert th.join(ann, tid).status_code == 200  # and may enter again


def test_missed_deadlines_play_out_by_the_games_own_rules_and_the_round_moves_on(
        app, make_player, clock):
    """Pig's own timeout move never ends a game (it holds), so this tournament's games say
    ``on_timeout: bot:random`` (shared/table.py): a seat whose deadline passed goes to a
    bot of the server, which plays it to the end."""
    from tests.helpers.bots import play_due
    from tests.helpers.mail import tick
    org, players = _players(make_player, NAMES[:2])
    doc = th.document(org, type_="pig", options={"target": 6, "on_timeout": "bot:random"},
                      rounds=2, move_hours=1)
    tid = th.run(org, players, doc)
    gid = org.get(f"/api/tournaments/{tid}").get_json()["rounds"][0]["tables"][0]["game"]
    assert org.get(f"/api/games/{gid}").get_json()["move_hours"] == 1
    for _ in range(400):  # nobody moves: the notice worker plays each timeout move
        info = org.get(f"/api/tournaments/{tid}").get_json()
        if info["round"] == 2:
            break
        clock.advance(3601)
        tick(app)
        play_due(app)
    assert info["round"] == 2, "round one's game never ended by its deadlines"
    game = org.get(f"/api/games/{gid}").get_json()
    assert game["status"] == "over" and not game["rated"]  # a bot played: unrated
    header = org.get(f"/api/games/{gid}/archive").get_json()["header"]
    seats = {s["seat"]: s["player"] for s in header["seats"]}  # the players who were paired
    winner = game["result"]["winners"]
    row = {r["player"]: r["score"] for r in info["standings"]}
    assert row[seats[winner[0]]] == 2 and sum(row.values()) == 2


@pytest.mark.parametrize("field, value", [
    ("type", ["zarahemla"]), ("type", "no_such_game"), ("title", 7), ("title", "x" * 500),
    ("organiser", None), ("options", {"target": {"deep": 1}}), ("options", {"nope": 1}),
    ("move_hours", "3"), ("move_hours", 10 ** 9), ("tiebreaks", ["buchholz"] * 50),
    ("tiebreaks", "buchholz"), ("start", 10 ** 30), ("rounds", True), ("table_size", 3),
    ("max_players", 10 ** 6), ("seed_commitment", "z" * 64), ("format", None)])
def test_a_hostile_document_gets_a_4xx_with_a_sentence(app, make_player, field, value):
    org = make_player("org")
    doc = dict(th.document(org, type_="pig", options={"target": 6}), **{field: value})
    r = org.post("/api/tournaments", {"document": doc, "signature":
                                      rules.sign_document(org.key, doc) if field != "start"
                                      else "0" * 128, "seed": th.SEED.hex()})
    assert 400 <= r.status_code < 500, r.get_data(as_text=True)
    assert r.get_json()["error"]["message"]


def test_a_round_that_failed_to_be_made_is_made_by_the_workers_next_pass(app, make_player,
                                                                       monkeypatch):
    from server.game import tournaments
    from tests.helpers.mail import tick
    org, players = _players(make_player, NAMES[:2])
    tid = _swiss(org, players, "pig", {"target": 6}, rounds=2)

    def broken(*args, **kwargs):
        raise RuntimeError("the database went away")
    monkeypatch.setattr(tournaments, "create_seated_game", broken)
    th.play_round(app, tid, _keys(players))  # the last move's hook fails to make round 2
    info = org.get(f"/api/tournaments/{tid}").get_json()
    assert info["round"] == 1 and len(info["rounds"]) == 1 and info["status"] == "playing"
    monkeypatch.undo()
    assert tick(app)["tournament_rounds"] == 1
    info = org.get(f"/api/tournaments/{tid}").get_json()
    assert info["round"] == 2 and len(info["rounds"]) == 2
    assert tick(app)["tournament_rounds"] == 0  # nothing more until round 2 is over


def test_one_organiser_may_have_only_so_many_tournaments_open_for_entry(app, make_player):
    app.config["PBEM_MAX_OPEN_TOURNAMENTS"] = 2
    org = make_player("org")
    for rounds in (1, 2):
        assert th.create(org, th.document(org, type_="pig", rounds=rounds)).status_code == 201
    r = th.create(org, th.document(org, type_="pig", rounds=3))
    assert r.status_code == 409 and r.get_json()["error"]["code"] == \
        "too_many_open_tournaments"
    assert "PBEM_MAX_OPEN_TOURNAMENTS" in r.get_json()["error"]["message"]
