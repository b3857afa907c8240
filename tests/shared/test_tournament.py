"""Tournaments anyone can check offline: pairings and standings recomputed from signed
documents and the games' own results; a tampered standing, a reordered pairing or a swapped
game is refused with the reason."""

import copy
import doctest
import itertools

import pytest

import shared.tournament as t
from shared.envelope import public_key_hex, sign

ORGANISER = bytes([7]) * 32
SEED = bytes(range(32))


def _key(name):
    return bytes([sum(name.encode()) % 250 + 1]) * 32


class TwoSeatGame:
    """The rules library's part a tournament reads: standings from a result."""

    cooperative = False

    def standings(self, result, seats):
        if not result["winners"]:
            return {s: 1 for s in seats}
        return {s: 1 if s in result["winners"] else 2 for s in seats}


class CoopGame(TwoSeatGame):
    cooperative = True


def _document(fmt="swiss", rounds=3, table_size=2, type_="zarahemla", tiebreaks=None):
    return t.new_document(organiser="org", organiser_key=public_key_hex(ORGANISER), type=type_,
                          options={"board": "beginner"}, format=fmt, rounds=rounds, seed=SEED,
                          table_size=table_size, tiebreaks=tiebreaks, start=1_800_000_000,
                          title="Winter Swiss")


def _winner(players):
    """The fixed 'skill' that decides the fake games: the name first in reverse order wins."""
    return max(players)


def _run(doc, names, decide=None, rounds=None):
    """Play a whole tournament with fake archives; return the export."""
    tid = t.tournament_id(doc)
    decide = decide or (lambda seats: {"winners": [f"s{seats.index(_winner(seats))}"]})
    export = {"format": t.EXPORT_FORMAT, "tournament": tid, "document": doc,
              "signature": t.sign_document(ORGANISER, doc), "entries": [], "close": None,
              "withdrawals": [], "rounds": [], "seed": SEED.hex(), "archives": {}}
    for name in names:
        pub = public_key_hex(_key(name))
        export["entries"].append({"player": name, "public_key": pub, "signature": sign(
            _key(name), t.entry_message(tid, name, pub))})
    export["close"] = {"players": sorted(names),
                       "signature": sign(ORGANISER, t.close_message(tid, names))}
    draw = t.draw_seed(SEED, export["entries"])
    game_def = CoopGame() if doc["format"] == "challenge" else TwoSeatGame()
    played = []
    for r in range(1, (rounds or t.rounds_in(doc, len(names))) + 1):
        pairing = t.pair_round(doc, sorted(names), played, draw, tid, r)
        tables, scored = [], []
        for i, seats in enumerate(pairing["tables"], start=1):
            gid = f"g{r}x{i}"
            header = {"game": gid, "type": doc["type"],
                      "options": dict(doc["options"], tournament=t.game_option(tid, r, i)),
                      "seats": [{"seat": f"s{k}", "player": p} for k, p in enumerate(seats)]}
            result = decide(list(seats))
            export["archives"][gid] = {"header": header, "result": result}
            tables.append({"game": gid, "players": list(seats)})
            scored.append(t.score_game(game_def, header, result))
        export["rounds"].append({"round": r, "tables": tables, "byes": pairing["byes"]})
        played.append(t.scored_round(pairing, scored))
    export["standings"] = t.standings(doc, sorted(names), played, draw, tid)
    return export


def _running(export, rounds, playing=()):
    """``export`` as the server shows it while round ``rounds`` is being played: the rounds
    so far, the games ``playing`` (ids) unfinished, no seed, the round keys so far."""
    doc, tid = export["document"], export["tournament"]
    running = copy.deepcopy(export)
    running["rounds"] = running["rounds"][:rounds]
    kept = {tb["game"] for rnd in running["rounds"] for tb in rnd["tables"]}
    running["archives"] = {g: a for g, a in running["archives"].items() if g in kept}
    for gid in playing:
        running["archives"][gid]["result"] = None
    names = sorted(e["player"] for e in export["entries"])
    draw = t.draw_seed(SEED, export["entries"])
    game_def = TwoSeatGame()
    played = []
    for rnd in running["rounds"]:
        scored = [None if running["archives"][tb["game"]]["result"] is None else
                  t.score_game(game_def, running["archives"][tb["game"]]["header"],
                               running["archives"][tb["game"]]["result"])
                  for tb in rnd["tables"]]
        played.append(t.scored_round({"tables": [tb["players"] for tb in rnd["tables"]],
                                      "byes": rnd["byes"]}, scored))
    running["standings"] = t.standings(doc, names, played, draw, tid)
    running["seed"], running["round_keys"] = None, t.round_keys(draw, rounds)
    return running


def _verify_game(archive):
    return {"complete": archive["result"] is not None, "result": archive["result"]}


def _verify(export, coop=False):
    game = CoopGame() if coop else TwoSeatGame()
    return t.verify_tournament(export, _verify_game, lambda _type: game)


SIX = ["ann", "bob", "cat", "dan", "eve", "fay"]


def test_a_swiss_of_six_over_three_rounds_verifies_and_nobody_meets_twice():
    doc = _document()
    export = _run(doc, SIX)
    report = _verify(export)
    assert report["complete"] and report["rounds"] == 3 and report["games"] == 9
    met = [frozenset(tb["players"]) for rnd in export["rounds"] for tb in rnd["tables"]]
    assert len(met) == len(set(met))  # no rematch
    # the strongest (by the fake games' rule) leads with three wins
    top = report["standings"][0]
    assert top["player"] == "fay" and top["score"] == 6 and top["rank"] == 1
    # round two pairs the winners of round one together (Monrad within score groups)
    scores = {}
    for tb in export["rounds"][0]["tables"]:
        w = _winner(tb["players"])
        scores.update({p: 2 if p == w else 0 for p in tb["players"]})
    for tb in export["rounds"][1]["tables"][:1]:
        assert [scores[p] for p in tb["players"]] == [2, 2]


def test_a_tampered_standing_is_refused():
    export = _run(_document(), SIX)
    bad = copy.deepcopy(export)
    bad["standings"][0]["score"] += 2
    with pytest.raises(t.TournamentError) as refused:
        _verify(bad)
    assert refused.value.code == "bad_standings"
    bad = copy.deepcopy(export)
    bad["standings"][0], bad["standings"][1] = bad["standings"][1], bad["standings"][0]
    with pytest.raises(t.TournamentError):
        _verify(bad)


def test_a_reordered_pairing_is_refused_with_the_pairing_it_should_be():
    export = _run(_document(), SIX)
    bad = copy.deepcopy(export)
    first = bad["rounds"][1]["tables"][0]
    first["players"].reverse()  # seat order (colours) swapped
    with pytest.raises(t.TournamentError) as refused:
        _verify(bad)
    assert refused.value.code == "bad_pairing" and "round 2's pairing" in refused.value.message
    bad = copy.deepcopy(export)
    a, b = bad["rounds"][2]["tables"][0], bad["rounds"][2]["tables"][1]
    a["players"][1], b["players"][1] = b["players"][1], a["players"][1]
    with pytest.raises(t.TournamentError) as refused:
        _verify(bad)
    assert refused.value.code == "bad_pairing"


def test_a_game_swapped_for_another_is_refused():
    export = _run(_document(), SIX)
    bad = copy.deepcopy(export)
    r1, r2 = bad["rounds"][0]["tables"][0], bad["rounds"][1]["tables"][0]
    r1["game"], r2["game"] = r2["game"], r1["game"]
    with pytest.raises(t.TournamentError) as refused:
        _verify(bad)
    assert refused.value.code == "wrong_game"
    # a game of the same players from outside the tournament
    bad = copy.deepcopy(export)
    gid = bad["rounds"][0]["tables"][0]["game"]
    bad["archives"][gid]["header"]["options"].pop("tournament")
    with pytest.raises(t.TournamentError) as refused:
        _verify(bad)
    assert "does not name this tournament" in refused.value.message


def test_forged_entries_seeds_and_documents_are_refused():
    export = _run(_document(), SIX)
    cases = []
    bad = copy.deepcopy(export)
    bad["entries"][0]["signature"] = bad["entries"][1]["signature"]
    cases.append((bad, "bad_signature"))
    bad = copy.deepcopy(export)
    bad["seed"] = "00" * 32
    cases.append((bad, "bad_seed"))
    bad = copy.deepcopy(export)
    bad["document"]["rounds"] = 2  # another document: another id
    cases.append((bad, "bad_tournament"))
    bad = copy.deepcopy(bad)
    bad["tournament"] = t.tournament_id(bad["document"])  # and its id: not the organiser's
    cases.append((bad, "bad_signature"))
    bad = copy.deepcopy(export)
    bad["close"]["players"] = bad["close"]["players"][:-1]
    cases.append((bad, "bad_tournament"))
    bad = copy.deepcopy(export)
    del bad["archives"][bad["rounds"][0]["tables"][0]["game"]]
    cases.append((bad, "missing_game"))
    for bad, code in cases:
        with pytest.raises(t.TournamentError) as refused:
            _verify(bad)
        assert refused.value.code == code, refused.value.message


def test_an_odd_swiss_gives_each_bye_once_to_the_lowest_ranked():
    five = SIX[:5]
    export = _run(_document(rounds=5), five)
    byes = [rnd["byes"] for rnd in export["rounds"]]
    assert all(len(b) == 1 for b in byes)
    assert len({b[0] for b in byes}) == 5  # nobody twice while someone had none
    assert _verify(export)["complete"]


def test_round_robin_meets_everyone_once():
    for names in (SIX[:4], SIX[:5], SIX):
        doc = _document("round_robin", rounds=30)
        export = _run(doc, names)
        met = [frozenset(tb["players"]) for rnd in export["rounds"] for tb in rnd["tables"]]
        assert sorted(met, key=sorted) == sorted(
            (frozenset(c) for c in itertools.combinations(names, 2)), key=sorted)
        assert len(export["rounds"]) == (len(names) if len(names) % 2 else len(names) - 1)
        assert _verify(export)["complete"]


def test_tables_of_three_and_four_are_seated_by_standings():
    doc = _document("tables", rounds=2, table_size=4, type_="stone_age")
    names = [f"p{i:02d}" for i in range(10)]
    export = _run(doc, names, decide=lambda seats: {"winners": ["s0"]})
    sizes = [len(tb["players"]) for tb in export["rounds"][0]["tables"]]
    assert sizes == [4, 3, 3]
    assert _verify(export)["complete"]
    # scores: at a table of four the winner beats three seats (6), the others tie (2 each)
    pts = t.table_points([("a", 1), ("b", 2), ("c", 3), ("d", 4)],
                         {"a": 1, "b": 2, "c": 2, "d": 2})
    assert pts == {1: 6, 2: 2, 3: 2, 4: 2}
    # round two's first table holds the four best of round one
    ranked = export["standings"]
    assert export["rounds"][1]["tables"][0] and len(ranked) == 10


def test_the_title_of_liberty_challenge_ranks_by_wins_then_rounds_used():
    doc = _document("challenge", rounds=2, table_size=2, type_="title_of_liberty")
    names = SIX[:4]

    def decide(seats):  # a team with "fay" or "dan" wins; the rounds used depend on names
        won = any(p in ("dan", "cat") for p in seats)
        return {"winners": ["s0", "s1"] if won else [], "round": 6 + len(seats[0])
                + (seats[0] < seats[-1])}
    export = _run(doc, names, decide=decide)
    report = _verify(export, coop=True)
    rows = report["standings"]
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    best = [r for r in rows if r["score"] == rows[0]["score"]]
    used = [-r["tiebreaks"][0] for r in best]
    assert used == sorted(used)  # fewer rounds used ranks higher


def test_a_withdrawn_player_is_not_paired_from_its_round_on():
    doc = _document(rounds=3)
    tid = t.tournament_id(doc)
    r1 = t.pair_round(doc, SIX, [], SEED, tid, 1)
    scored = t.scored_round(r1, [({tb[0]: 2, tb[1]: 0}, None) for tb in r1["tables"]])
    r2 = t.pair_round(doc, SIX, [scored], SEED, tid, 2, withdrawn={"ann": 2})
    assert "ann" not in [p for tb in r2["tables"] for p in tb]
    assert len(r2["byes"]) == 1  # five left: one bye


def test_a_running_tournament_verifies_as_a_prefix_from_the_round_keys_so_far():
    export = _run(_document(), SIX)
    playing = [tb["game"] for tb in export["rounds"][1]["tables"][:2]]
    running = _running(export, 2, playing)
    report = _verify(running)
    assert report["rounds"] == 2 and report["games"] == 6
    assert not report["final"] and not report["complete"]
    assert report["standings"] == running["standings"]
    # the seed stays secret: the keys of later rounds cannot be had from the ones revealed
    assert t.round_keys(t.draw_seed(SEED, export["entries"]), 3)[:3] == running["round_keys"]
    cases = []
    bad = copy.deepcopy(running)
    bad["round_keys"][0] = "ab" * 32  # another seeding than the committed seed gives
    cases.append((bad, "bad_pairing", "round 1's pairing is not the one"))
    bad = copy.deepcopy(running)
    bad["round_keys"].append("cd" * 32)  # a key for a round not paired
    cases.append((bad, "bad_seed", "one key (64 hex digits) for each round"))
    bad = copy.deepcopy(running)
    bad["round_keys"] = None
    cases.append((bad, "bad_seed", "one key (64 hex digits) for each round"))
    bad = copy.deepcopy(running)  # an unfinished game in a round before the current one
    bad["archives"][bad["rounds"][0]["tables"][0]["game"]]["result"] = None
    cases.append((bad, "unfinished", "round 1 table 1"))
    bad = _running(export, 2, playing)
    bad["seed"] = "00" * 32  # a seed, but not the committed one
    cases.append((bad, "bad_seed", "does not match the document's commitment"))
    for bad, code, words in cases:
        with pytest.raises(t.TournamentError) as refused:
            _verify(bad)
        assert refused.value.code == code and words in refused.value.message, \
            refused.value.message
    # closed but not started: the seeding's key alone; nothing paired, nobody scored
    report = _verify(_running(export, 0))
    assert report["rounds"] == 0 and not report["final"]
    assert [row["score"] for row in report["standings"]] == [0] * 6
    # the same tournament, over, verifies in full from its revealed seed
    assert _verify(export)["final"] and _verify(export)["complete"]


def test_the_draws_mix_the_organisers_seed_with_every_entrys_signature():
    export = _run(_document(), SIX)
    entries = export["entries"]
    draw = t.draw_seed(SEED, entries)
    assert draw == t.draw_seed(SEED, list(reversed(entries)))  # the players' order, not theirs
    assert draw != SEED and draw != t.draw_seed(bytes(32), entries)
    other = copy.deepcopy(entries)
    other[0]["signature"] = sign(bytes([99]) * 32, b"another key's entry")
    assert t.draw_seed(SEED, other) != draw  # one player's entry changes every draw
    # so the organiser, knowing its seed, still cannot tell the seeding before the entries
    doc, tid = export["document"], export["tournament"]
    assert t.seeded_order(SIX, draw, tid) != t.seeded_order(SIX, SEED, tid) or \
        t.seeded_order(SIX, t.draw_seed(SEED, other), tid) != t.seeded_order(SIX, draw, tid)
    assert export["rounds"][0]["tables"] == [
        {"game": f"g1x{i}", "players": seats} for i, seats in enumerate(
            t.pair_round(doc, SIX, [], draw, tid, 1)["tables"], start=1)]


def test_pairings_depend_on_the_seed_and_nothing_else():
    doc = _document()
    tid = t.tournament_id(doc)
    a = t.pair_round(doc, SIX, [], SEED, tid, 1)
    assert a == t.pair_round(doc, list(reversed(SIX)), [], SEED, tid, 1)
    assert a != t.pair_round(doc, SIX, [], bytes(32), tid, 1)


@pytest.mark.parametrize("field, value, words", [
    ("format", "knockout", "format is one of"), ("rounds", 0, "1 to 30 rounds"),
    ("table_size", 5, "seats 3-4"), ("tiebreaks", ["coin"], "tiebreaks are some of"),
    ("options", {"tournament": 1}, "the game's"), ("max_players", 1, "max_players"),
    ("type", ["zarahemla"], "type is a text"), ("title", "x" * 81, "at most 80"),
    ("organiser", None, "organiser is a text"), ("move_hours", "3", "move_hours"),
    ("tiebreaks", ["wins", "wins"], "each once"), ("format", ["swiss"], "format is one of"),
])
def test_a_malformed_document_is_refused_with_a_sentence(field, value, words):
    doc = _document("tables" if field == "table_size" else "swiss",
                    table_size=4 if field == "table_size" else 2)
    doc[field] = value
    with pytest.raises(t.TournamentError) as refused:
        t.check_document(doc)
    assert words in refused.value.message


def test_the_docstring_examples_hold():
    assert doctest.testmod(t).failed == 0
