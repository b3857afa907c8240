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


def pig_table(make_player):
    """A started Pig game of ann and bob: (its summary, {seat: player})."""
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()
    bob.post(f"/api/games/{game['id']}/join", {})
    info = ann.get(f"/api/games/{game['id']}").get_json()
    by_seat = {s["seat"]: (ann if s["player"] == "ann" else bob) for s in info["seats"]}
    return info, by_seat


def move_first(info, by_seat, what="roll"):
    """The first seat that owes a move in ``info`` plays ``what`` (201 expected): its entry."""
    seat = info["to_act"][0]
    r = by_seat[seat].play(info["id"], seat, what)
    assert r.status_code == 201, r.get_json()
    return r.get_json()
