"""Bots from the command line: ``pbem new --bots``, ``pbem bot`` and the ``pbem-server bots``
process, against real server processes."""

import json
import subprocess
import time

import pytest
import requests

from shared.archive import verify_archive

from .conftest import ROOT, Player, Server, _names, child_env


def _done(proc, timeout=120):
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


# --- pbem bot against the ordinary test server (humans only) -------------------------------------

def test_pbem_bot_plays_both_seats_of_a_pig_game_to_the_end(make_player, tmp_path):
    """Two people each hand their seat to a local bot (real ``pbem`` processes): the game
    is played to the end, every move signed with its player's own key."""
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.run("new", "pig", "--seats", 2, "--option", "target=25").stdout.strip()
    bob.run("join", game)
    procs = [p.popen("bot", game, "--until-end", "--level", "random", "--seed", p.name,
                     "--interval", 0.1) for p in (ann, bob)]
    try:
        results = [_done(p) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for code, out, err in results:
        assert code == 0, err
        lines = out.strip().splitlines()
        assert lines[-1].startswith(f"game {game} is over (won by ")
        assert all(line.startswith("move ") for line in lines[:-1])
    # the dice are the game's own (a fresh seed): north may win in its first turn, before
    # east's bot ever moves, so only the two together must have played
    north, east = ([ln for ln in out.splitlines() if ln.startswith("move ")]
                   for _, out, _ in results)
    assert north and all(" north " in ln for ln in north)
    assert all(" east " in ln for ln in east)
    path = tmp_path / "pig.json"
    ann.run("export", game, "-o", path)
    report = " ".join(ann.run("verify", path).stdout.split())  # wrapped to 80 columns
    assert "complete and verified" in report
    assert f"north {ann.name}, east {bob.name}." in report and "bot of the server" not in report
    archive = json.loads(path.read_text())
    keys = {s["seat"]: s["public_key"] for s in archive["header"]["seats"]}
    assert keys["north"] != keys["east"]


def test_pbem_bot_plays_a_short_real_game_alone(make_player):
    """Title of Liberty, solo: pbem bot --until-end takes the one seat to the end."""
    ann = make_player("ann")
    game = ann.run("new", "title_of_liberty", "--seats", 1).stdout.strip()
    result = ann.run("bot", game, "--until-end", "--seed", "7", "--interval", 0.05,
                     "--seconds", 0.2)
    lines = result.stdout.strip().splitlines()
    assert lines[-1].startswith(f"game {game} is over")
    assert len(lines) >= 2
    assert ann.json("show", game)["status"] == "over"


def test_pbem_bot_one_move_and_its_refusals(make_player):
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.run("new", "pig", "--seats", 2).stdout.strip()
    not_started = ann.run("bot", game, ok=1)
    assert "has not started" in not_started.stderr
    bob.run("join", game)
    # one move, printed like pbem play prints it
    out = ann.run("bot", game, "--level", "random", "--seed", "x").stdout.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("move 1: north ")
    # a seat that owes no move: one sentence, exit 1, nothing sent
    while "east" not in ann.json("show", game)["to_act"]:
        ann.run("play", game, "hold")
    refused = ann.run("bot", game, ok=1)
    assert refused.stdout == ""
    assert refused.stderr.strip().startswith("pbem: north owes no move in game")
    assert len(refused.stderr.strip().splitlines()) == 1
    # a spectator holds no seat
    cyd = make_player("cyd")
    assert "you hold no seat" in cyd.run("bot", game, ok=1).stderr
    # --json: the entries played
    played = bob.json("bot", game, "--seed", "y")
    assert len(played) == 1 and played[0]["seat"] == "east"
    # usage
    assert bob.run("bot", game, "--offline", "--until-end", ok=2).exit_code == 2
    assert bob.run("bot", game, "--level", "genius", ok=2).exit_code == 2
    assert "is not a game id" in bob.run("bot", "../x", ok=2).stderr


def test_pbem_bot_offline_queues_the_move_for_sync(make_player):
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.run("new", "pig", "--seats", 2).stdout.strip()
    bob.run("join", game)
    fresh = make_player("ann")
    assert "no fetched state" in fresh.run("bot", "--offline", game, ok=1).stderr
    ann.run("show", game)  # fetches the view and the legal moves
    queued = ann.run("bot", "--offline", game, "--seed", "s")
    assert queued.stdout.startswith("queued move 1: north ")
    assert "pbem sync" in queued.stderr
    # a second offline move would be chosen blind: refused until the state is fetched again
    again = ann.run("bot", "--offline", game, ok=1)
    assert "does not know the state" in again.stderr
    synced = ann.run("sync").stdout
    assert synced.startswith(f"accepted {game} move 1: north ")
    assert len(ann.json("log", game)) == 1


def test_pbem_bot_on_a_finished_game(make_player):
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.run("new", "pig", "--seats", 2, "--option", "target=1").stdout.strip()
    bob.run("join", game)
    # roll, then hold: the first to bank a point wins
    for _ in range(200):
        view = ann.json("show", game)
        if view["status"] == "over":
            break
        player = ann if "north" in view["to_act"] else bob
        player.run("play", game, "roll" if view["pot"] == 0 else "hold")
    assert ann.json("show", game)["status"] == "over"
    over = ann.run("bot", game, ok=1)
    assert over.stderr.strip().startswith(f"pbem: game {game} is over")
    # --until-end on a finished game: nothing to play, exit 0
    assert ann.run("bot", game, "--until-end").stdout.strip().startswith(f"game {game} is over")


def test_new_with_bots_usage_errors(make_player):
    ann = make_player("ann")
    assert "more than the 2 seat(s)" in ann.run("new", "pig", "--seats", 2, "--bots", 3,
                                                ok=2).stderr
    assert "leave out --seat" in ann.run("new", "pig", "--seats", 2, "--bots", 2, "--seat",
                                         "north", ok=2).stderr
    assert "needs --bots" in ann.run("new", "pig", "--seats", 2, "--bot-level", "strong",
                                     ok=2).stderr
    assert ann.run("new", "pig", "--seats", 2, "--bots", 1, "--bot-level", "x", ok=2)


def test_register_refuses_a_bot_name(server, tmp_path):
    name = f"bot-{next(_names)}"
    p = Player(server.url, tmp_path / "impostor", name)
    result = p.run("register", name, ok=1)
    assert "reserved" in result.stderr and "Traceback" not in result.stderr


# --- the pbem-server bots process ----------------------------------------------------------------

class BotServer(Server):
    """``pbem-server run`` without its own bot thread, and two ``pbem-server bots`` processes
    racing for the bot seats on the same database."""

    def __init__(self, tmp):
        self.tmp = tmp
        import os
        os.environ["PBEM_BOT_INTERVAL"] = "0"
        try:
            super().__init__(tmp)
        finally:
            del os.environ["PBEM_BOT_INTERVAL"]
        env = child_env(PBEM_DATABASE_URL=f"sqlite:///{self.tmp}/pbem.sqlite",
                        PBEM_INSTANCE_PATH=str(self.tmp / "instance"))
        self.worker_logs = [open(self.tmp / f"bots{i}.log", "wb") for i in range(2)]
        self.workers = [subprocess.Popen(["pbem-server", "bots", "--interval", "0.2"], env=env,
                                         cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
                        for log in self.worker_logs]

    def stop(self):
        for w in self.workers:
            if w.poll() is None:
                w.terminate()
                try:
                    w.wait(10)
                except subprocess.TimeoutExpired:
                    w.kill()
                    w.wait()
        for log in self.worker_logs:
            log.close()
        super().stop()


@pytest.fixture(scope="module")
def bot_server(tmp_path_factory):
    """One server and its two bot processes for the module's tests (each plays its own game
    with fresh player names): three process start-ups paid once."""
    srv = BotServer(tmp_path_factory.mktemp("botserver"))
    try:
        yield srv
    finally:
        srv.stop()
    for w in srv.workers:
        assert w.poll() is not None  # stopped


def test_a_game_with_server_bots_end_to_end(bot_server, tmp_path):
    """ann makes a Pig game with two server bots (pbem new --bots); two pbem-server bots
    processes race to play them while ann's own seat is played by pbem bot; the archive
    verifies and names the bot accounts."""
    ann = Player(bot_server.url, tmp_path / "ann", f"ann{next(_names)}")
    ann.run("register", ann.name)
    # no --bot-level: the game's strongest up to greedy (Pig has random bots only; asking
    # for greedy is refused, tests/server/test_bots_service.py)
    # a target no seat reaches in its first turn (a random bot rolls or holds at random): the
    # bots always get their moves
    created = ann.json("new", "pig", "--seats", 3, "--bots", 2, "--option", "target=50")
    game = created["id"]
    assert created["status"] == "playing"
    assert [s["player"] for s in created["seats"]] == [ann.name, "bot-random", "bot-random"]
    mine = ann.popen("bot", game, "--until-end", "--level", "random", "--seed", "1",
                     "--interval", 0.1)
    try:
        code, out, err = _done(mine, timeout=180)
    finally:
        if mine.poll() is None:
            mine.kill()
    assert code == 0, err
    assert out.strip().splitlines()[-1].startswith(f"game {game} is over")
    log = ann.json("log", game)
    assert [e["seq"] for e in log] == list(range(len(log)))
    assert {"east", "south"} <= {e["seat"] for e in log}  # the bots did move
    path = tmp_path / "bots.json"
    ann.run("export", game, "-o", path)
    verified = ann.proc("verify", str(path))
    assert verified.returncode == 0, verified.stderr
    assert "complete and verified" in verified.stdout
    assert (f"Seats: north {ann.name}, east bot-random (a bot of the server), south bot-random "
            "(a bot of the server).") in " ".join(verified.stdout.split())
    report = verify_archive(json.loads(path.read_text()))
    assert report["complete"]
    # the workers keep running and stay quiet once the game is over
    time.sleep(0.5)
    assert all(w.poll() is None for w in bot_server.workers)
    assert requests.get(f"{bot_server.url}/api/games/{game}", timeout=5).json()["seq"] == \
        len(log) - 1


def test_a_game_of_bots_only_from_the_shell(bot_server, tmp_path):
    """pbem new --bots N --seats N: the bots play alone, the creator watches with
    pbem watch to the end (exit 0), sees the game in pbem games, cannot play for a bot;
    pbem watch on a game that is over prints the result at once."""
    ann = Player(bot_server.url, tmp_path / "ann", f"ann{next(_names)}")
    ann.run("register", ann.name)
    made = ann.run("new", "pig", "--seats", 2, "--bots", 2, "--option", "target=20")
    game = made.stdout.strip()
    assert f"pbem watch {game}" in made.stderr
    assert game in ann.run("games").stdout
    watched = ann.popen("watch", game, "--interval", 0.1)
    try:
        code, out, err = _done(watched, timeout=180)
    finally:
        if watched.poll() is None:
            watched.kill()
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[-1].startswith(f"game {game} is over (won by ")
    assert len(lines) >= 3 and lines[0].split()[0] == "1"   # moves numbered from 1
    log = ann.json("log", game)
    assert len(lines) - 1 == len(log)
    again = ann.json("watch", game)
    assert again["status"] == "over" and again["moves"] == len(log)
    refused = ann.run("play", game, "hold", ok=None)
    assert refused.exit_code != 0 and "Traceback" not in refused.stderr
    assert "Traceback" not in ann.run("watch", "nosuchgame1", ok=None).stderr


@pytest.mark.e2e
def test_the_bots_walk_through_in_the_cli_doc_runs(tmp_path):
    """docs/CLI.md's Bots block, as written, against pbem-server run (its bot thread plays)."""
    import re

    from .conftest import free_port
    text = (ROOT / "docs" / "CLI.md").read_text()
    section = text.split("## Bots", 1)[1]
    block = re.findall(r"```sh\n(.*?)```", section, re.S)[0]
    port = str(free_port())
    demo = str(tmp_path / "demo")
    script = "\n".join([
        "set -eu -o pipefail",
        f"mkdir -p {demo}",
        f"export PBEM_INSTANCE_PATH={demo}/instance PBEM_NOTIFY_INTERVAL=0 "
        "PBEM_BOT_INTERVAL=0.2",
        f"export PBEM_SERVER=http://127.0.0.1:{port}",
        "trap 'kill $(jobs -p) 2>/dev/null' EXIT",
        f"pbem-server run --port {port} 2>{demo}/server.log &",
        f"for i in $(seq 100); do curl -sf http://127.0.0.1:{port}/api/health >/dev/null && "
        "break; sleep 0.2; done",
        block.replace("/tmp/pbem-demo", demo).replace("--until-end", "--until-end "
                                                       "--interval 0.1"),
        "echo WALKTHROUGH-OK",
    ])
    env = child_env()
    env.pop("PBEM_EXTRA_GAMES", None)
    result = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, text=True,
                            capture_output=True, timeout=240)
    assert "WALKTHROUGH-OK" in result.stdout, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert re.search(r"^Seats: \w+ cyd, \w+ bot-\w+ \(a bot of the server\)\.$",
                     result.stdout, re.M), result.stdout
    assert re.search(r"^game \w+ is over", result.stdout, re.M)


def test_pbem_bot_survives_a_broken_bot_and_a_refused_move(make_player, monkeypatch):
    """A bot that raises, or answers outside the list, is replaced by a random legal move;
    a move the server refuses (it should never) is said, and one other move is tried."""
    import shared.bots
    from client import api as api_module
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.run("new", "pig", "--seats", 2, "--option", "target=99").stdout.strip()
    bob.run("join", game)
    real = shared.bots.choose_move

    def north_to_move():
        if "north" not in ann.json("show", game)["to_act"]:
            bob.run("play", game, "hold")

    def broken(game_, view, seat, legal, rng, level="random", budget=None):
        if level != "random":
            raise RuntimeError("search exploded")
        return real(game_, view, seat, legal, rng, level, budget)

    # Pig has random bots only: here it is given every level, so that pbem bot asks the
    # broken chooser for greedy
    monkeypatch.setattr(shared.bots, "levels", lambda game_: list(shared.bots.LEVELS))
    monkeypatch.setattr(shared.bots, "choose_move", broken)
    north_to_move()
    out = ann.run("bot", game)
    assert "search exploded" in out.stderr and "random legal move instead" in out.stderr
    assert out.stdout.startswith("move ") and " north " in out.stdout

    def off_the_list(game_, view, seat, legal, rng, level="random", budget=None):
        if level != "random":
            return "fly"
        return real(game_, view, seat, legal, rng, level, budget)

    monkeypatch.setattr(shared.bots, "choose_move", off_the_list)
    north_to_move()
    out = ann.run("bot", game)
    assert "'fly', which is not a legal move" in out.stderr
    assert " north " in out.stdout and "fly" not in out.stdout

    monkeypatch.setattr(shared.bots, "choose_move", real)
    north_to_move()
    real_post = api_module.Api.post_move
    calls = []

    def refuse_first(self, game_id, envelope, signature, **kw):
        calls.append(json.loads(envelope)["move"])
        if len(calls) == 1:
            raise api_module.Refused("the rules say no", status=422, code="illegal_move")
        return real_post(self, game_id, envelope, signature, **kw)

    monkeypatch.setattr(api_module.Api, "post_move", refuse_first)
    out = ann.run("bot", game, "--seed", "z")
    assert "refused the bot's move" in out.stderr and "the rules say no" in out.stderr
    assert len(calls) == 2 and calls[0] != calls[1]
    assert f"north {calls[1]}" in out.stdout


def _until_the_bot_offers(ann, game, mine, bot):
    """Play ann's seat with pbem bot (random, seeded) until the server bot's offer to ann
    is open; that offer, or None when the game ended first.  ``pbem log`` is not read while
    the bots move (its answer may then run past the head it signs)."""
    for i in range(3000):
        shown = ann.json("show", game)
        if shown["status"] != "playing":
            return None
        offer = shown.get("offer")
        if offer and offer["from"] == bot and mine in offer["owed"]:
            return offer
        if mine in shown["to_act"]:
            ann.run("bot", game, "--level", "random", "--seed", f"{game}-{i}")
        else:
            time.sleep(0.05)
    raise AssertionError(f"game {game} neither ended nor saw a bot's offer to {mine}")


def test_a_server_bots_offer_waits_for_the_human_it_asks(bot_server, tmp_path):
    """Zarahemla against a greedy server bot, through pbem: when the bot offers a trade to
    ann, the two pbem-server bots processes (a pass every 0.2 s) leave it open while ann
    has not answered (server/workers/bots.py); ann's answer, given seconds later with pbem
    play, lands, and the bot then goes on.  ann's other moves are pbem bot's (random).  A
    game may end without such an offer: then another game is played (at most three)."""
    ann = Player(bot_server.url, tmp_path / "ann", f"ann{next(_names)}")
    ann.run("register", ann.name)
    for _ in range(3):
        created = ann.json("new", "zarahemla", "--seats", 2, "--bots", 1, "--bot-level",
                           "greedy")
        game, mine = created["id"], created["you"][0]
        bot = next(s["seat"] for s in created["seats"] if s["seat"] != mine)
        offer = _until_the_bot_offers(ann, game, mine, bot)
        if offer is not None:
            break
    else:
        raise AssertionError("in three games the bot never offered a trade to ann")
    entries = ann.json("log", game)
    time.sleep(1.5)  # several passes of both bot workers
    assert ann.json("show", game)["offer"] == offer
    assert len(ann.json("log", game)) == len(entries)
    legal = ann.run("moves", game).stdout.split()
    answer = "accept" if "accept" in legal else "decline"
    ann.run("play", game, answer)
    for _ in range(600):  # the bot goes on to the end of its turn: ann owes the next move
        shown = ann.json("show", game)
        if shown["status"] != "playing" or shown["to_act"] == [mine]:
            break
        time.sleep(0.05)
    log = ann.json("log", game)
    assert (log[len(entries)]["seat"], log[len(entries)]["move"]) == (mine, answer)
    assert log[len(entries) + 1]["seat"] == bot   # and the bot went on
