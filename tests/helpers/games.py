"""A game of each real engine started over the API, its players by seat."""



def start(make_player, type_, n):
    players = [make_player(f"p{i}") for i in range(n)]
    r = players[0].post("/api/games", {"type": type_, "seats": n})
    assert r.status_code == 201, r.get_json()
    game_id = r.get_json()["id"]
    for p in players[1:]:
        assert p.post(f"/api/games/{game_id}/join", {}).status_code == 200
    info = players[0].get(f"/api/games/{game_id}").get_json()
    by_seat = {s["seat"]: next(p for p in players if p.name == s["player"])
               for s in info["seats"]}
    return game_id, by_seat
