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


def play_pig_to_end(game_id, by_seat, target=1):
    """Hold/roll until someone wins a pig game (target 1: the first roll that is not a 1 and a
    hold wins)."""
    for _ in range(200):
        view = next(iter(by_seat.values())).get(f"/api/games/{game_id}").get_json()
        if view["status"] == "over":
            return view
        seat = view["to_act"][0]
        player = by_seat[seat]
        info = player.get(f"/api/games/{game_id}/view?seat={seat}").get_json()
        move = "hold" if info["view"]["pot"] > 0 else "roll"
        r = player.play(game_id, seat, move)
        assert r.status_code == 201, r.get_json()
    raise AssertionError("the game did not end")
