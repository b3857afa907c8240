"""Set-up over the Flask test client (the ``make_player`` fixture of tests/conftest.py)."""


def start_pig(make_player, seats=2, target=20):
    players = [make_player(n) for n in ("ann", "bob", "cyd", "dee")[:seats]]
    r = players[0].post("/api/games", {"type": "pig", "seats": seats,
                                       "options": {"target": target}})
    assert r.status_code == 201, r.get_json()
    game = r.get_json()
    assert game["status"] == "open" and game["you"] == ["north"]
    for p in players[1:]:
        r = p.post(f"/api/games/{game['id']}/join", {})
        assert r.status_code == 200, r.get_json()
    assert r.get_json()["status"] == "playing"
    return game["id"], players
