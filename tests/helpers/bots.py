"""Bot games over the API: a game with bots, its log, and the bot worker's due moves."""



def play_due(app):
    from server.workers import bots as bot_worker
    with app.app_context():
        return bot_worker.play_due()


def log_of(player, game_id):
    return player.get(f"/api/games/{game_id}/log").get_json()["entries"]


def game_of(player, game_id):
    return player.get(f"/api/games/{game_id}").get_json()
