"""Tournaments over the API: a signed document, entries, the close, and bots playing each
round's games with the players' own keys (the bot worker's ``play_seat``)."""

import shared.tournament as rules
from shared.envelope import sign

SEED = bytes(range(32))


def player_key(name):
    """A test player's fixed main key (their signatures, so the games' logs, are the same on
    every run)."""
    import hashlib
    return hashlib.sha256(b"pbem-test-player|" + name.encode()).digest()


def game_seed(n):
    """The seed of the ``n``-th game a test under :func:`fix_game_draws` creates."""
    import hashlib
    return hashlib.sha256(b"pbem-test-game|%d" % n).digest()


def fix_game_draws(monkeypatch, app):
    """Give every game the test creates a seed and an id counted from one, every bot move
    a counted nonce, and ``app`` a fixed server key, none drawn at random: with the bots'
    choices fixed too (PBEM_BOT_SEED) and the players' keys (:func:`player_key`), every run
    plays the same moves and dice, so the same standings and pairings (a game's draws mix in
    its id and the hash of the entry before: the header's server key, each move's nonce)."""
    import itertools

    from server.game import lifecycle
    alphabet = lifecycle._ID_ALPHABET
    seeds, ids = itertools.count(1), itertools.count(1)

    def game_id():
        n, out = next(ids), ""
        for _ in range(6):
            n, digit = divmod(n, len(alphabet))
            out = alphabet[digit] + out
        return "test" + out

    monkeypatch.setattr(lifecycle, "new_game_seed", lambda: game_seed(next(seeds)))
    monkeypatch.setattr(lifecycle, "new_game_id", game_id)
    # the server's key is in every game's header, so its genesis hash: fixed too
    monkeypatch.setitem(app.config, "PBEM_SERVER_KEY", player_key("the server").hex())
    app.extensions.pop("pbem_server_key", None)
    # the bots' moves carry a nonce, which each entry's hash (so the next draw) covers
    from server.workers import bots
    nonces = itertools.count(1)
    monkeypatch.setattr(bots, "new_nonce", lambda: f"test-nonce-{next(nonces)}")


def document(organiser, type_="zarahemla", fmt="swiss", rounds=3, table_size=2, options=None,
             **extra):
    from shared.games import get_game
    options = get_game(type_).normalize_options(options or {}, table_size)
    return rules.new_document(organiser=organiser.name, organiser_key=organiser.public_key,
                              type=type_, options=options, format=fmt, rounds=rounds,
                              seed=SEED, table_size=table_size, **extra)


def create(organiser, doc, seed=SEED):
    return organiser.post("/api/tournaments", {"document": doc, "signature":
                                               rules.sign_document(organiser.key, doc),
                                               "seed": seed.hex()})


def join(player, tid):
    return player.post(f"/api/tournaments/{tid}/join", {
        "public_key": player.public_key,
        "signature": sign(player.key, rules.entry_message(tid, player.name,
                                                          player.public_key))})


def close(organiser, tid, names):
    return organiser.post(f"/api/tournaments/{tid}/close", {
        "signature": sign(organiser.key, rules.close_message(tid, names))})


def leave(player, tid, from_round):
    return player.post(f"/api/tournaments/{tid}/leave", {
        "from_round": from_round,
        "signature": sign(player.key, rules.withdraw_message(tid, player.name, from_round))})


def run(organiser, players, doc):
    """Create, enter everyone, close and start: the tournament's id."""
    r = create(organiser, doc)
    assert r.status_code == 201, r.get_json()
    tid = r.get_json()["id"]
    for p in players:
        r = join(p, tid)
        assert r.status_code == 200, r.get_json()
    r = close(organiser, tid, [p.name for p in players])
    assert r.status_code == 200, r.get_json()
    r = organiser.post(f"/api/tournaments/{tid}/start", {})
    assert r.status_code == 200, r.get_json()
    return tid


def play_round(app, tid, keys, level="random", limit=3000):
    """Bots play every game of the tournament's current round to its end with the players'
    keys; returns the round's number."""
    from server.db import db
    from server.db.models import Game, Tournament, TournamentRound
    from server.workers.bots import play_seat
    if not app.config.get("PBEM_BOT_SEED"):  # the bots' choices are fixed (the app's
        app.config["PBEM_BOT_SEED"] = "tournament"  # configuration holds the key, as None)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = t.round
        games = db.session.execute(db.select(TournamentRound).filter_by(
            tournament_id=tid, round=r)).scalar_one().games
        for gid in games:
            for _ in range(limit):
                db.session.rollback()
                game = db.session.get(Game, gid)
                db.session.refresh(game)
                if game.status != "playing":
                    break
                owners = {s.seat: s.player.name for s in game.seats}
                seat = game.to_act[0]
                assert play_seat(game, seat, level, keys[owners[seat]]) != "failed"
            else:
                raise AssertionError(f"game {gid} did not end in {limit} moves")
        db.session.remove()
    return r


def play_out(app, player, tid, keys, level="random"):
    """Play every round to the end of the tournament; its last summary."""
    for _ in range(40):
        info = player.get(f"/api/tournaments/{tid}").get_json()
        if info["status"] == "over":
            return info
        play_round(app, tid, keys, level)
    raise AssertionError("the tournament did not end")
