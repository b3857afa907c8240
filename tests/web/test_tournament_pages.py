"""The tournament page /t/ID (standings, rounds, each game linked), the lobby's open
tournaments, and the entry form a signed-in player sees (its browser signs the entry)."""

from tests.helpers import tournaments as th

from .helpers import inline_scripts_or_styles, text_of


def test_the_lobby_lists_an_open_tournament_and_its_page_offers_entry(app, make_player):
    org, ann = make_player("org"), make_player("ann")
    doc = th.document(org, type_="pig", options={"target": 6}, title="Winter <Swiss>")
    tid = th.create(org, doc).get_json()["id"]
    lobby = ann.client.get("/").get_data(as_text=True)
    assert f'href="/t/{tid}"' in lobby and "Winter &lt;Swiss&gt;" in lobby
    page = ann.client.get(f"/t/{tid}").get_data(as_text=True)
    assert "Sign up" in page and 'id="enter-form"' not in page  # not signed in
    assert ann.post("/api/session").status_code == 200
    page = ann.client.get(f"/t/{tid}").get_data(as_text=True)
    assert 'id="enter-form"' in page and f'data-tournament="{tid}"' in page
    assert f'data-join="/api/tournaments/{tid}/join"' in page
    assert not inline_scripts_or_styles(page)
    assert th.join(ann, tid).status_code == 200
    page = ann.client.get(f"/t/{tid}").get_data(as_text=True)
    assert 'id="enter-form"' not in page and 'id="entered"' in page


def test_the_page_shows_standings_and_every_rounds_games(app, make_player):
    org, players = make_player("org"), [make_player(n) for n in ("ann", "bob", "cyd")]
    tid = th.run(org, players, th.document(org, type_="pig", options={"target": 6},
                                           rounds=2))
    th.play_round(app, tid, {p.name: p.key for p in players})
    info = org.get(f"/api/tournaments/{tid}").get_json()
    page = org.client.get(f"/t/{tid}").get_data(as_text=True)
    text = text_of(page)
    assert 'id="standings"' in page and 'id="round-1"' in page and 'id="round-2"' in page
    for rnd in info["rounds"]:
        for table in rnd["tables"]:
            assert f'href="/g/{table["game"]}"' in page
        for bye in rnd["byes"]:
            assert bye in text
    for row in info["standings"]:
        assert row["player"] in text
    assert tid not in org.client.get("/").get_data(as_text=True)  # no longer open
    r = org.client.get("/t/" + "0" * 64)
    assert r.status_code == 404 and "no tournament" in r.get_data(as_text=True)
    assert org.client.get("/t/%3Cscript%3E").status_code == 404
