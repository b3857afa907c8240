"""Every pbem example in every --help (and the docs' shell lines the walk-throughs of
test_readme.py do not run) *runs*: against one real server for the module, with the homes of
docs/CLI.md's shell functions (ann, bob, cyd), each example gets a game of the type it names
in a state where its command makes sense, then the line runs as written (its placeholders
replaced by the prepared values, as test_examples.py's PLACEHOLDERS) and must exit as its
comment says (0 unless it announces "exit N"), with no traceback and some output where the
command prints.

A line without shell syntax runs in-process (click's runner, the same code as the console
script, and fast); a line with pipes, ``$(...)``, ``&&`` or a loop runs under bash with the
real ``pbem``."""

import json
import re
import shlex
import subprocess

import pytest
from click.testing import CliRunner

from client.cli import cli
from tests.client.conftest import Player, Server, child_env
from tests.helpers.cli_examples import ALL
from tests.helpers.receiver import Receiver

# end-to-end: starts real server processes (left out of the default run)
pytestmark = pytest.mark.e2e

EXAMPLE_ID = "k7m2q9xa3b"          # the game id the --help examples and docs/CLI.md use
OPEN_ID = "g7hk2m4xqp"             # pbem open's
TOURNAMENT_ID = "3f9a6c1d" * 8     # pbem tournament's
SHELLY = re.compile(r"\$\(|\||&&|;|\bwhile\b|>|^\w+=")


class World:
    """The module's server, the three homes and the games made for the examples."""

    def __init__(self, tmp):
        self.tmp = tmp
        (tmp / "srv").mkdir()
        # the example's json hook (https://example.org/hook) is this loopback receiver, which
        # the operator's setting lets notices reach
        self.hook = Receiver(status=204)
        self.server = Server(tmp / "srv", PBEM_WEBHOOK_ALLOW_PRIVATE="1")
        self.work = tmp / "work"            # the folder examples run in (game.json, ...)
        self.work.mkdir()
        self.players = {n: Player(self.server.url, tmp / "demo" / n, n)
                        for n in ("ann", "bob", "cyd")}
        self.recovery = {}
        for n, p in self.players.items():
            out = p.run("register", n).stdout
            self.recovery[n] = re.search(r"pbemrc-[\w-]+", out).group(0)

    def pig(self, seats=("ann", "bob"), target=100, start=True):
        """A pig game made by the first of ``seats``; started when every seat has joined
        (``start``).  Its dice are the server's: each roll mixes the game id and the hash of
        the entry before it into the secret seed, so no test knows them in advance."""
        first, *rest = [self.players[n] for n in seats]
        game = first.run("new", "pig", "--seats", len(seats), "--option",
                         f"target={target}").stdout.strip()
        for p in rest if start else rest[:-1]:
            p.run("join", game)
        return game

    def zarahemla(self, seats=("ann", "bob", "cyd"), start=True):
        first, *rest = [self.players[n] for n in seats]
        game = first.run("new", "zarahemla", "--seats", len(seats)).stdout.strip()
        for p in rest if start else rest[:-1]:
            p.run("join", game)
        return game

    def seats(self, game):
        """{player name: seat} of ``game``, and the seats to act."""
        info = next(g for g in self.players["ann"].json("games") if g["id"] == game) \
            if game in {g["id"] for g in self.players["ann"].json("games")} else None
        if info is None:
            info = next(g for g in self.players["bob"].json("games") if g["id"] == game)
        return {s["player"]: s["seat"] for s in info["seats"]}, info["to_act"]

    def actor(self, game):
        """The name of the player who owes the next move in ``game``."""
        seats, to_act = self.seats(game)
        return next(n for n, s in seats.items() if s in to_act)

    def play(self, game, *moves):
        """Each move by whoever owes it."""
        for move in moves:
            self.players[self.actor(game)].run("play", game, move)

    def finished_pig(self):
        """A pig game ann and bob played to its end (target 1: the first hold of a pot)."""
        game = self.pig(target=1)
        for _ in range(60):      # whatever the dice: roll to a pot, then hold it
            view = self.players["ann"].json("show", game)
            if view["status"] == "over":
                return game
            self.play(game, "hold" if view["pot"] else "roll")
        raise AssertionError("the pig game did not end")


# --- the states the examples need: each returns the game and who runs the bare `pbem` ---

def _none(w):
    return {"actor": "ann"}


def _pig_ann(w):
    """A running pig game, ann to move (north: the first seat)."""
    game = w.pig()
    assert w.actor(game) == "ann"
    return {"game": game, "actor": "ann"}


def _pig_fetched(w):
    """ann to move, her home holding the game's state (fetched online: offline play)."""
    ctx = _pig_ann(w)
    w.players["ann"].run("show", ctx["game"])
    return ctx


def _pig_played(w):
    game = w.pig()
    w.play(game, "roll", "hold", "hold")
    return {"game": game, "actor": "ann"}


def _pig_vs_bot(w):
    game = w.players["ann"].run("new", "pig", "--seats", 2, "--bots", 1, "--bot-level",
                                "random", "--option", "target=12").stdout.strip()
    return {"game": game, "actor": "ann"}


def _pig_open(w):
    return {"game": w.pig(start=False), "actor": "bob"}


def _zarahemla(w):
    """A three-seat Zarahemla game in its set-up, run by the seat that places first."""
    game = w.zarahemla()
    return {"game": game, "actor": w.actor(game)}


def _zarahemla_not_blue(w):
    game = w.zarahemla()
    seats, _ = w.seats(game)
    return {"game": game, "actor": next(n for n, s in seats.items() if s != "blue")}


def _ann_held(w):
    """ann's last move took nothing hidden out (a hold of an empty pot); bob not yet moved."""
    game = w.pig()
    w.play(game, "hold")
    return {"game": game, "actor": "ann"}


def _placed_twice(w):
    """A Zarahemla set-up whose first seat placed a settlement and its road (two moves of
    its own, nothing hidden revealed): a pig seat cannot make two moves without a roll."""
    game = w.zarahemla()
    first = w.players[w.actor(game)]
    for _ in range(2):
        first.run("play", game, first.run("moves", game).stdout.splitlines()[0])
    return {"game": game, "actor": first.name}


def _bob_asks_takeback(w):
    game = w.pig()
    w.play(game, "hold", "hold")
    w.players["bob"].run("takeback", game)
    return {"game": game, "actor": "ann"}


def _bob_offers_draw(w):
    game = w.pig()
    w.players["bob"].run("draw", game)
    return {"game": game, "actor": "ann"}


def _bob_asks_abort(w):
    game = w.pig()
    w.play(game, "hold", "hold", "hold", "hold")
    w.players["bob"].run("abort", game, "--yes")
    return {"game": game, "actor": "ann"}


def _bob_asks_pause(w):
    game = w.pig()
    w.players["bob"].run("pause", game, "--days", 7)
    return {"game": game, "actor": "ann"}


def _paused(w):
    ctx = _bob_asks_pause(w)
    w.players["ann"].run("pause", ctx["game"])
    return ctx


def _finished(w):
    """A finished game, exported to game.json in the folder examples run in."""
    game = w.finished_pig()
    w.players["ann"].run("export", game, "-o", w.work / "game.json")
    header = json.loads((w.work / "game.json").read_text())["header"]
    return {"game": game, "actor": "ann", "server_key": header["server_key"]}


def _bob_offers_rematch(w):
    game = w.finished_pig()
    w.players["bob"].run("rematch", game)
    return {"game": game, "actor": "ann"}


def _ann_left(w):
    """A running pig game whose north ann left to the server's bot: a seat to offer."""
    game = w.pig()
    w.players["ann"].run("leave", game, "--to-bot", "--yes")
    return {"game": game, "actor": "ann"}


def _seat_offered(w):
    """ann's left seat offered: cyd (seated nowhere in it) claims the link."""
    ctx = _ann_left(w)
    link = w.players["ann"].run("offer-seat", ctx["game"], "north").stdout.strip()
    return {"game": ctx["game"], "actor": "cyd", "seat_link": link}


def _seat_claimed(w):
    """cyd claimed ann's offered seat: ann's key signs the hand-over."""
    ctx = _seat_offered(w)
    w.players["cyd"].run("claim", ctx["seat_link"])
    return {"game": ctx["game"], "actor": "ann"}


def _cyd(w):
    """cyd, whom no other example's game waits for (a vacation, a new key)."""
    return {"actor": "cyd"}


def _unregistered(w):
    """A new home; the name registered is a fresh one (ann is taken on this server)."""
    name = f"ann{len(w.players)}"
    w.players[name] = Player(w.server.url, w.tmp / "demo" / name, name)
    return {"actor": name, "name": name}


STATES = [  # (a pattern of the example line, the state it needs); the first match wins
    (r"settle 14", _zarahemla),
    (r"say .*--to blue", _zarahemla_not_blue),
    (r"pbem order", _zarahemla),
    (r"while pbem wait|--until-end", _pig_vs_bot),
    (r"pbem join", _pig_open),
    (r"--offline", _pig_fetched),
    (r"takeback \S+ +--moves 2", _placed_twice),
    (r"takeback \S+ +--accept", _bob_asks_takeback),
    (r"takeback", _ann_held),
    (r"draw \S+ +--refuse", _bob_offers_draw),
    (r"abort \S+ +--refuse", _bob_asks_abort),
    (r"pause \S+ +#", _bob_asks_pause),
    (r"pbem resume", _paused),
    (r"pbem (log|--json log)", _pig_played),
    (r"export|pbem verify (?!t\.json)", _finished),
    (r"rematch \S+ +--decline", _bob_offers_rematch),
    (r"rematch", _finished),
    (r"offer-seat .*after the claim", _seat_claimed),
    (r"offer-seat", _ann_left),
    (r"pbem claim", _seat_offered),
    (r"vacation|key rotate|calendar", _cyd),
    (r"pbem register", _unregistered),
    (r"GAME=\$\(pbem new", _none),
    (r"[" + EXAMPLE_ID[0] + r"]" + EXAMPLE_ID[1:] + "|" + OPEN_ID + r"|GAME|pbem next", _pig_ann),
    (r".", _none),
]

# examples that build on each other: the lines of one --help run in order, in one state
SEQUENCES = {"pbem order --help": _zarahemla, "pbem tournament --help": _none,
             "pbem notify --help": _pig_ann}


def _state_of(line):
    return next(state for pattern, state in STATES if re.search(pattern, line))


def _expected_exit(line):
    """0, or the exit code the line's comment announces ("... exit 1")."""
    comment = line.partition("  #")[2] or line.partition(" # ")[2]
    found = re.search(r"exit (?:code )?(\d+)", comment)
    return int(found.group(1)) if found else 0


def _fill(w, line, ctx):
    """The line with what a reader fills in replaced by the prepared values."""
    game = ctx.get("game", "")
    for word, value in ((EXAMPLE_ID, game), (OPEN_ID, game),
                        (TOURNAMENT_ID, ctx.get("tournament", TOURNAMENT_ID)),
                        ("-o t.json TID", "-o t.json " + ctx.get("tournament", "")),
                        ("register ann", "register " + ctx.get("name", "ann")),
                        ("3fa0...e1", ctx.get("server_key", "3fa0...e1")),
                        ("pbemrc-abcd-...", w.recovery.get(ctx["actor"], "")),
                        ("https://pbem.example/device/Xy3...", ctx.get("link", "")),
                        ("https://pbem.example/seat/TOKEN", ctx.get("seat_link", "")),
                        ("https://example.org/hook", w.hook.url),
                        ("~/", str(w.tmp) + "/")):
        line = line.replace(word, value)
    # the word GAME (not the shell's $GAME, set to the same id, nor GAME=...)
    return re.sub(r"(?<![$\w])GAME(?![=\w])", game, line)


def _run(w, line, ctx):
    """Run one example line as ``ctx['actor']``; the exit code, stdout and stderr."""
    env = {"PBEM_SERVER": w.server.url, "PBEM_HOME": str(w.players[ctx["actor"]].home),
           "NO_COLOR": "1", "HOME": str(w.tmp), "BROWSER": "true"}
    text = _fill(w, line, ctx)
    command = text.split("  #")[0].split(" # ")[0].strip()
    words = shlex.split(command)
    if SHELLY.search(command) or "$GAME" in command or words[:2] == ["pbem", "open"]:
        script = "\n".join([f"{n}() {{ pbem --home {p.home} \"$@\"; }}"
                            for n, p in w.players.items()] +
                           [f"GAME={ctx.get('game', '')}", command])
        done = subprocess.run(["bash", "-c", script], cwd=w.work, env=child_env(**env),
                              text=True, capture_output=True, timeout=300)
        return done.returncode, done.stdout, done.stderr
    if words[0] in w.players:
        words = ["pbem", "--home", str(w.players[words[0]].home)] + words[1:]
    assert words[0] == "pbem", line
    with _chdir(w.work):
        result = CliRunner().invoke(cli, words[1:], env=env, input="y\n",
                                    catch_exceptions=True)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


class _chdir:
    def __init__(self, path):
        self.path, self.old = path, None

    def __enter__(self):
        import os
        self.old = os.getcwd()
        os.chdir(self.path)

    def __exit__(self, *exc):
        import os
        os.chdir(self.old)


def _check(w, where, line, ctx):
    code, out, err = _run(w, line, ctx)
    return _check_outcome(where, line, code, out, err)


def _check_outcome(where, line, code, out, err):
    expected = _expected_exit(line)
    assert code == expected, f"{where}: {line!r} exited {code}, not {expected}:\n{out}\n{err}"
    assert "Traceback" not in out + err, (where, line, err)
    if expected == 0:
        assert (out + err).strip() or line.rstrip().endswith(("sync", "--quiet")), \
            f"{where}: {line!r} printed nothing"
    return out


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    w = World(tmp_path_factory.mktemp("examples"))
    try:
        yield w
    finally:
        w.server.stop()
        w.hook.close()


HELP = [(where, line) for where, line in ALL if where.endswith("--help")]
# not run here: the device link waits for the phone that opens it (device claim; device add
# --browser runs in test_doc_blocks_run.py, its page played by a test client); the all-bot
# games of pbem watch --help play to their end (test_doc_blocks_run.py, beside the doc's)
NOT_HERE = ("pbem device add --browser", "pbem --home ~/pbem-laptop device claim")
SINGLE = [(where, line) for where, line in HELP if where not in SEQUENCES
          and where != "pbem watch --help" and not line.startswith(("#",) + NOT_HERE)]


#: fresh games an example that rolls dice may take: a 1 ends a pig turn, so ``roll roll
#: hold`` runs as written only on dice that allow it (each try: a 1 in two rolls, 11 in 36)
DICE_TRIES = 8


@pytest.mark.parametrize("where,line", SINGLE)
def test_every_help_example_runs(world, where, line):
    for _ in range(DICE_TRIES):
        ctx = _state_of(line)(world)
        code, out, err = _run(world, line, ctx)
        if not (_expected_exit(line) == 0 and code == 1 and " rolled 1)" in out + err):
            break
    # a roll of 1 in every try cannot happen by chance (under 2 in 10,000): it is a bug
    _check_outcome(where, line, code, out, err)


@pytest.mark.parametrize("where", [w for w in SEQUENCES if SEQUENCES[w]])
def test_help_examples_that_build_on_each_other_run(world, where):
    """The lines of one --help in order: the tournament that ``new`` made is the one joined,
    the orders listed are the ones given, the device link claimed is the one added."""
    ctx = SEQUENCES[where](world)
    lines = [line for w, line in HELP if w == where]
    for line in lines:
        step = dict(ctx)
        if line.startswith("#"):
            # "then, in the laptop's home": the file device add wrote, in another home
            line = line.lstrip("# ")
            step["actor"] = _unregistered(world)["actor"]
        elif "tournament join" in line or "tournament next" in line:
            step["actor"] = "bob"
        if "notify --test 3" in line:     # 3: the id of the channel added above
            line = line.replace("--test 3", "--test " + ctx["channel"])
        out = _check(world, where, line, step)
        if "tournament new" in line:
            ctx["tournament"] = out.split()[-1]
            # the state a swiss tournament needs to close: a second entrant (bob joins below)
            world.players["cyd"].run("tournament", "join", ctx["tournament"])
        channel = re.search(r"channel (\d+)", out)
        if "notify --add" in line and channel:
            ctx["channel"] = channel.group(1)
        found = re.search(r"https?://\S+/device/\S+", out)
        if found:
            ctx["link"] = found.group(0)
