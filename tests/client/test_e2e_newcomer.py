"""A newcomer's first hour against a real ``pbem-server run``: Zarahemla and Pig."""

import json

import pytest
import requests

from shared.games import game_types
from tests.helpers.cli import start as start_pig

needs_zarahemla = pytest.mark.skipif("zarahemla" not in game_types(),
                                     reason="the zarahemla engine is not in this checkout")


def start_zarahemla(make_player):
    """A 2-seat beginner-board game; returns (game, {seat: player}, the seat to act)."""
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.run("new", "zarahemla", "--seats", 2, "--option", "board=beginner").stdout.strip()
    bob.run("join", game)
    players = {p.json("show", game)["you"]: p for p in (ann, bob)}
    first = ann.json("show", game)["to_act"][0]
    return game, players, first


def other(players, seat):
    return next(p for s, p in players.items() if s != seat)


# ---------------------------------------------------------------------------------------

def test_json_after_the_command_live(make_player):
    game, (ann, bob) = start_pig(make_player)
    after = json.loads(ann.run("games", "--json").stdout)
    before = ann.json("games")
    assert [g["id"] for g in after] == [g["id"] for g in before] == [game]
    assert json.loads(ann.run("show", game, "--json").stdout)["to_act"] == ["north"]
    assert json.loads(ann.run("moves", game, "--json").stdout) == ["roll", "hold", "peek"]


# ---------------------------------------------------------------------------------------

@needs_zarahemla
def test_offline_and_armor_check_zarahemla_moves_before_signing(make_player):
    game, players, first = start_zarahemla(make_player)
    me, them = players[first], other(players, first)
    me.run("show", game)  # fetches the state and, as it is my move, my legal moves
    # the issue's two examples: refused with the rules' reason, nothing signed or queued
    armored = me.run("play", "--armor", game, "settle 99", ok=1)
    assert armored.stdout == "" and "'99' is not a corner: corners are numbered 1 to 54" in \
        armored.stderr
    queued = me.run("play", "--offline", game, "city 99", ok=1)
    assert "'99' is not a corner" in queued.stderr
    assert not (me.home / "outbox.json").exists()
    # parses, but not on the list: a city during set-up
    city = me.run("play", "--offline", game, "city 14", ok=1).stderr
    assert "'city 14' is not one of" in city and "may play only settle moves now" in city
    # not my turn
    them.run("show", game)
    idle = them.run("play", "--armor", game, "settle 14", ok=1).stderr
    assert "owes no move now" in idle
    # a legal first move signs, in any spelling the notation accepts; the second is
    # checked for notation only (said on stderr), and the server takes both
    ok = me.run("play", "--offline", game, "SETTLE 14", "road 19-14")
    assert "checked for notation only" in ok.stderr
    # the queue is ahead of the fetched state now: notation only, and said so
    later = me.run("play", "--armor", "--offline", game, "end")
    assert "moves were queued or played since the state was last fetched" in later.stderr
    bad_later = me.run("play", "--offline", game, "road 14-22", ok=1).stderr
    assert "'road 14-22' refused" in bad_later and "not adjacent" in bad_later
    synced = me.json("sync")
    assert [a["move"] for a in synced["accepted"]] == ["SETTLE 14", "road 19-14"]
    # --force signs what the client refuses; the server still judges
    forced = them.run("play", "--offline", "--force", game, "city 99")
    assert "queued" in forced.stderr
    refused = them.json("sync", ok=1)["error"]["details"]["refused"]
    assert refused[0]["reason"].startswith("'99' is not a corner")


# ---------------------------------------------------------------------------------------

@needs_zarahemla
def test_unquoted_moves_get_the_quoted_command(make_player):
    game, players, first = start_zarahemla(make_player)
    me = players[first]
    for mode in ([], ["--offline"], ["--armor"]):
        if mode == ["--offline"]:
            me.run("show", game)
        out = me.run("play", *mode, game, "settle", "14", ok=2)
        assert out.stderr == (f"pbem: 'settle' is not a move on its own, but 'settle 14' is: a "
                              f"move with spaces must be quoted, as in: pbem play {game} "
                              '"settle 14"\n')
    assert me.json("log", game) == []  # nothing was sent
    two = me.run("play", game, "settle", "14", "road", "14-19", ok=2).stderr
    assert f'pbem play {game} "settle 14" "road 14-19"' in two
    me.run("play", game, "settle 14", "road 14-19")  # quoted: played
    assert [e["move"] for e in me.json("log", game)] == ["settle 14", "road 14-19"]


# ---------------------------------------------------------------------------------------

class Flaky(requests.Session):
    """A real session whose requests fail for a while after the first ``up`` ones; ``then``
    runs once when the server answers again."""

    def __init__(self, up, down, then):
        super().__init__()
        self.up, self.down, self.then, self.calls = up, down, then, 0

    def request(self, *a, **kw):
        self.calls += 1
        if self.up < self.calls <= self.up + self.down:
            raise requests.ConnectionError("the wifi went away")
        if self.calls == self.up + self.down + 1:
            self.then()
        return super().request(*a, **kw)


def test_wait_rides_out_an_outage_once_it_reached_the_server(make_player):
    game, (ann, bob) = start_pig(make_player)
    session = Flaky(up=1, down=2, then=lambda: ann.run("play", game, "hold"))
    out = bob.run("wait", game, "--interval", 0.05, "--timeout", 60, obj={"session": session})
    assert out.stdout.startswith(f"your move in game {game}")
    assert "cannot reach the server" in out.stderr and "still trying" in out.stderr
    assert "the server answers again" in out.stderr
    assert session.calls > 3


def test_wait_exit_codes_tell_an_outage_from_the_end(make_player, server):
    game, (ann, bob) = start_pig(make_player, target=1)
    down = bob.run("--server", "http://127.0.0.1:9", "wait", game, "--timeout", 1, ok=4)
    assert "cannot reach the server at http://127.0.0.1:9" in down.stderr
    for _ in range(200):  # roll then hold: a 1 passes the turn, anything else wins
        view = ann.json("show", game)
        if view["status"] == "over":
            break
        player = ann if view["to_act"] == ["north"] else bob
        player.run("play", game, "roll")
        if player.json("show", game)["to_act"] == view["to_act"]:
            player.run("play", game, "hold")
    else:
        pytest.fail("the game did not end")
    over = bob.run("wait", game, "--timeout", 1, ok=1)
    assert "is over" in over.stderr
    gone = bob.run("wait", "nosuchgame", ok=1)
    assert "there is no game 'nosuchgame'" in gone.stderr


# ---------------------------------------------------------------------------------------

def test_wrong_path_on_a_real_server(make_player, server):
    ann = make_player("ann")
    out = ann.run("--server", server.url + "/pbem", "games", ok=1)
    assert out.stderr.startswith(f"pbem: the server at {server.url}/pbem has no pbem API at "
                                 "/api/games (HTTP 404)")
    assert "If you entered the URL manually" not in out.stderr
    api_suffix = ann.run("show", "k7m2q9xa3b", "--server", server.url + "/api", ok=1).stderr
    assert "has no pbem API at /api/games/k7m2q9xa3b/view" in api_suffix
    no_scheme = ann.run("--server", server.url.split("://")[1], "games", ok=2).stderr
    assert f"has no scheme: write {server.url}" in no_scheme


# ------------------------------------------------------------------------

@needs_zarahemla
def test_log_lines_fit_80_columns_when_piped(make_player):
    """The issue saw 158 columns: the end of the Zarahemla set-up says a lot."""
    game, players, first = start_zarahemla(make_player)
    viewer = players[first]
    for _ in range(30):
        to_act = viewer.json("show", game)["to_act"]
        legal = players[to_act[0]].json("moves", game)
        if "roll" in legal:
            break
        players[to_act[0]].run("play", game, legal[0])
    else:
        pytest.fail("the set-up did not end")
    entries = viewer.json("log", game)
    longest = max(len(f"{e['seq']:>4}  {e['seat']:<10} {e['move']}  -- " + "; ".join(e["events"]))
                  for e in entries)
    assert longest > 100  # the unwrapped line would be too long
    lines = viewer.run("log", game).stdout.splitlines()
    assert max(map(len, lines)) <= 80
    assert all(line[:4].strip().isdigit() or line.startswith(" " * 17) for line in lines)
    flat = " ".join(" ".join(lines).split()).lower()
    for entry in entries:  # the whole text is still there (joined by "; ", no full stop; a
        # joined event's first word lower-cased, shared.numbering.joined_events)
        assert all(" ".join(ev.rstrip(".").split()).lower() in flat for ev in entry["events"])
    assert ".;" not in flat


def test_log_follows_the_terminal_width(make_player, monkeypatch):
    import shutil
    game, (ann, bob) = start_pig(make_player)
    ann.run("play", game, "peek", "roll")
    monkeypatch.setattr("client.context._stdout_is_tty", lambda: True)
    monkeypatch.setattr(shutil, "get_terminal_size", lambda fallback=None:
                        shutil.os.terminal_size((40, 24)))
    lines = ann.run("log", game).stdout.splitlines()
    assert max(map(len, lines)) <= 40 and len(lines) > 2


def test_completion_after_show(make_player):
    from tests.helpers.completion import complete
    game, (ann, bob) = start_pig(make_player)
    env = {"PBEM_SERVER": ann.server}
    ann.run("games")
    assert complete(["show", ""], ann.home, env) == [game]
    ann.run("show", game)
    assert complete(["play", game, ""], ann.home, env) == ["roll", "hold", "peek"]
    assert complete(["play", game, "r"], ann.home, env) == ["roll"]
    ann.run("play", game, "hold")  # the list is for an older state now
    assert complete(["play", game, ""], ann.home, env) == []
    bob.run("wait", game, "--timeout", 5)  # wait fetches the list when it is your move
    assert complete(["play", game, ""], bob.home, env) == ["roll", "hold", "peek"]


# --- audit: a refused sign-up leaves nothing half done --------------------------------

@pytest.mark.e2e
def test_a_sign_up_refused_by_the_limit_leaves_no_half_registered_key(tmp_path):
    """"too many requests ... after the key was already created".  The refusal names
    the limit and its setting, says the name is not registered and the key is kept; nothing
    of the player is on the server or in the home's config; and once the limit no longer
    refuses, the same command registers the same key."""
    from tests.client.conftest import Player, Server
    first = Server(tmp_path, PBEM_RATELIMIT="on", PBEM_LIMIT_LOOPBACK="limit",
                   PBEM_LIMIT_REGISTER="1/hour")
    try:
        Player(first.url, tmp_path / "ann", "ann").run("register", "ann")
        bob = Player(first.url, tmp_path / "bob", "bob")
        out = bob.run("register", "bob", ok=1)
        assert "\npbem: too many requests: 1 per 1 hour" in out.stderr, out.stderr
        assert "PBEM_LIMIT_REGISTER" in out.stderr
        assert (f"bob is not registered, and the key in {bob.home} is kept: pbem register bob "
                "again once the limit allows registers it") in out.stderr
        key = (bob.home / "key.ed25519").read_bytes()
        assert requests.get(first.url + "/api/players/bob", timeout=30).status_code == 404
        assert "no player is registered" in bob.run("games", ok=1).stderr
    finally:
        first.stop()
    again = Server(tmp_path)  # the same database, limits off
    try:
        bob.server = again.url
        assert bob.json("register", "bob")["already"] is False
        assert (bob.home / "key.ed25519").read_bytes() == key
        assert bob.json("games") == []
    finally:
        again.stop()
