"""Bot games over the API: a game with bots, its log, and the bot worker's due moves."""



def play_due(app):
    from server.workers import bots as bot_worker
    with app.app_context():
        return bot_worker.play_due()


def log_of(player, game_id):
    return player.get(f"/api/games/{game_id}/log").get_json()["entries"]


def game_of(player, game_id):
    return player.get(f"/api/games/{game_id}").get_json()


def two_seat_game(ann, bob, options=None, **extra):
    body = {"type": "pig", "seats": 2, "options": options or {"target": 30}, **extra}
    r = ann.post("/api/games", body)
    assert r.status_code == 201, r.get_json()
    game_id = r.get_json()["id"]
    assert bob.post(f"/api/games/{game_id}/join", {}).get_json()["status"] == "playing"
    return game_id


def bot_key(player, game_type="pig", level="random"):
    r = player.get(f"/api/bots?game={game_type}", signed=False)
    assert r.status_code == 200, r.get_json()
    return {b["level"]: b for b in r.get_json()["bots"]}[level]
