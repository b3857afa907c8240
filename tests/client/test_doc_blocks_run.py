"""docs/CLI.md's shell blocks that no walk-through runs, run as written against one real
server for the module: the ``while pbem wait`` loop (against a game that ends), the game of
bots only followed by ``pbem watch`` (and ``pbem watch --help``'s examples), the completion
set-up sourced in bash and asked to complete, and ``pbem device add --browser`` with the
browser's half done by a test client through the HTTP the page uses (server/web/static/keys.js:
``POST /api/device-links/TOKEN/key``, then ``GET /api/device-links/TOKEN/delegation``).

Only what a reader fills in is replaced: the demo folder, the server's address, and, where a
block names "$GAME" of the walk-through, a game in the state the block's text describes."""

import re
import secrets
import shutil
import subprocess
import time

import pytest
import requests

from shared.delegation import fingerprint
from shared.envelope import public_key_hex
from tests.client.conftest import ROOT, Player, Server, child_env
from tests.helpers.cli_examples import ALL

# end-to-end: starts real server processes (left out of the default run)
pytestmark = pytest.mark.e2e

DOC = (ROOT / "docs" / "CLI.md").read_text()
BLOCKS = re.findall(r"```sh\n(.*?)```", DOC, re.S)


def _block(marker):
    found = [b for b in BLOCKS if marker in b]
    assert len(found) == 1, marker
    return found[0]


class World:
    def __init__(self, tmp):
        self.tmp = tmp
        (tmp / "srv").mkdir()
        # the bots answer quickly: a strong bot thinks 0.05 s, the worker passes 20 times a
        # second (the block's game is the same, only shorter to wait for)
        self.server = Server(tmp / "srv", PBEM_BOT_INTERVAL="0.05", PBEM_BOT_SECONDS="0.05",
                             PBEM_NOTIFY_INTERVAL="0", PBEM_BOT_SEED="29")
        self.demo = tmp / "demo"
        self.demo.mkdir()
        self.players = {n: Player(self.server.url, self.demo / n, n) for n in ("ann", "bob")}
        for n, p in self.players.items():
            p.run("register", n)

    def bash(self, script, timeout=300, wait=True, **env):
        """``script`` under bash, with the docs' shell functions and PBEM_SERVER set; the
        finished process, or (``wait=False``) the running one, for :meth:`finish`."""
        head = [f"export PBEM_SERVER={self.server.url}"] + [
            f"{n}() {{ pbem --home {p.home} \"$@\"; }}" for n, p in self.players.items()]
        proc = subprocess.Popen(["bash", "-c", "\n".join(head + [script])], cwd=self.tmp,
                                env=child_env(HOME=str(self.tmp), **env), text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if not wait:
            return proc
        code, out, err = self.finish(proc, timeout)
        return subprocess.CompletedProcess(proc.args, code, out, err)

    @staticmethod
    def finish(proc, timeout):
        try:
            out, err = proc.communicate(timeout=timeout)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert "Traceback" not in out + err, err
        return proc.returncode, out, err


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    w = World(tmp_path_factory.mktemp("docblocks"))
    try:
        yield w
    finally:
        w.server.stop()


def test_the_while_loop_plays_a_seat_to_the_end(world):
    """"A script plays unattended the same way": the loop runs as written for ann's seat of
    a game against a server bot, and ends by itself when the game is over (pbem wait exits
    1), having played every move ann owed."""
    block = _block("while ann wait")
    ann = world.players["ann"]
    # the loop plays the first move listed (roll) and never holds: the bot wins, the first
    # time it holds a pot (target 1)
    game = ann.run("new", "pig", "--seats", 2, "--bots", 1, "--bot-level", "random",
                   "--option", "target=1").stdout.strip()
    done = world.bash(f"GAME={game}\n{block}echo LOOP-ENDED $?")
    assert "LOOP-ENDED" in done.stdout, done.stderr
    assert "Usage:" not in done.stderr
    view = ann.json("show", game)
    assert view["status"] == "over"
    mine = [e for e in ann.json("log", game) if e.get("seat") == "north"]
    assert mine, "the loop played no move of ann's"
    # every move the loop sent was accepted: pbem play prints nothing on stderr but notes
    assert "refused" not in done.stderr


def test_the_games_of_bots_only_are_watched_to_their_end(world):
    """"A game of bots only (you watch)", and pbem watch --help's lines in order in one shell
    (the game its first line makes is the one the others follow), side by side (each game
    plays some hundred moves).  The block's last line is the one its comment shows (the
    winner and the number of moves being the game's own); of the help's, the second follows
    every move and the third, over already, prints the result at once."""
    block = _block("pbem watch")
    lines = [line for where, line in ALL if where == "pbem watch --help"]
    assert len(lines) == 3 and lines[0].startswith("GAME=$(pbem new")
    runs = [world.bash(block, PBEM_HOME=str(world.players["ann"].home), wait=False),
            world.bash("set -e\n" + "\n".join(lines), PBEM_HOME=str(world.players["bob"].home),
                       wait=False)]
    (doc_code, doc_out, doc_err), (help_code, help_out, help_err) = \
        [world.finish(proc, timeout=600) for proc in runs]
    assert doc_code == 0, doc_err
    last = doc_out.strip().splitlines()[-1]
    comment = re.search(r"# (game .*)", block).group(1)
    shape = re.escape(comment).replace(r"\.\.\.", r"\w+").replace("red", r"\w+") \
        .replace("214", r"\d+")
    assert re.fullmatch(shape, last), (last, comment)
    assert help_code == 0, help_err
    out = help_out.strip().splitlines()
    assert out[0].split()[0] == "1"                          # moves numbered from 1
    over = [line for line in out if re.match(r"game \w+ is over", line)]
    assert len(over) == 2 and over[0] == over[1]


def test_the_completion_set_up_completes_in_bash(world):
    """The bash line of "Shell completion", and the faster variant with the file, sourced in
    bash: the function they register completes game types, the game ids the home has seen
    and the legal moves fetched last; zsh's and fish's scripts are printed (and run where
    the shell is installed)."""
    ann = world.players["ann"]
    game = ann.run("new", "pig", "--seats", 2).stdout.strip()
    world.players["bob"].run("join", game)
    ann.run("show", game)          # the game's state and legal moves, kept in the home
    block = _block("bash_source")
    bash_line = next(line for line in block.splitlines() if "bash_source" in line)
    inline = re.search(r"`(_PBEM_COMPLETE=bash_source pbem > [^`]+)` and\s+`([^`]+)`", DOC)
    assert inline, "the faster variant is not in docs/CLI.md"
    make_file, source_file = (s.replace("~/", str(world.tmp) + "/") for s in inline.groups())

    def ask(*words):
        # what bash does on Tab: COMP_WORDS and COMP_CWORD set, the registered function run
        quoted = " ".join(f"'{w}'" for w in words)
        return (f"COMP_WORDS=(pbem {quoted}); COMP_CWORD={len(words)}; COMPREPLY=(); "
                "$(complete -p pbem | awk '{print $(NF-1)}') pbem; "
                "printf '%s\\n' \"${COMPREPLY[@]}\"; echo ---")

    for setup in (bash_line, f"{make_file}\n{source_file}"):
        done = world.bash("\n".join([setup, "complete -p pbem", ask("new", "zar"),
                                     ask("show", game[:3]), ask("play", game, "")]),
                          PBEM_HOME=str(ann.home))
        assert done.returncode == 0 and not done.stderr, done.stderr
        registered, types, ids, moves = done.stdout.split("---")[0].split("\n", 1)[0], \
            *[part.split() for part in done.stdout.split("---")[:3]]
        assert "complete" in registered and registered.endswith(" pbem")
        assert types[-1] == "zarahemla"
        assert ids == [game]
        assert {"roll", "hold"} <= set(moves), moves
    for shell in ("zsh", "fish"):
        line = next(x for x in block.splitlines() if f"{shell}_source" in x)
        source = subprocess.run(["pbem"], env=child_env(_PBEM_COMPLETE=f"{shell}_source"),
                                capture_output=True, text=True, timeout=60)
        assert source.returncode == 0 and "pbem" in source.stdout, source.stderr
        if shutil.which(shell):
            done = subprocess.run([shell, "-c", line], env=child_env(HOME=str(world.tmp)),
                                  capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, done.stderr


def test_device_add_browser_with_the_page_played_by_a_test_client(world):
    """`pbem device add --browser --label phone`, as docs/CLI.md's Devices says: the link it
    prints is opened (the page), a key is posted to it as the page posts its own, the
    terminal shows the fingerprint the page shows, the player answers y, the page receives
    the delegation of its key, and the device is listed."""
    example = next(line for where, line in ALL if where == "CLI.md (inline)"
                   and line.startswith("pbem device add --browser"))
    ann = world.players["ann"]
    proc = subprocess.Popen(["pbem", *example.split()[1:]], text=True,
                            env=child_env(**ann.env()), cwd=world.tmp, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        link = proc.stdout.readline().strip()
        assert link.startswith(world.server.url + "/device/"), link
        token = link.rsplit("/", 1)[1]
        page = requests.get(link, timeout=30)
        assert page.status_code == 200 and 'data-player="ann"' in page.text
        assert requests.get(f"{world.server.url}/api/device-links/{token}/delegation",
                            timeout=30).json() == {"status": "no_key"}
        public = public_key_hex(secrets.token_bytes(32))
        posted = requests.post(f"{world.server.url}/api/device-links/{token}/key",
                               json={"public_key": public}, timeout=30)
        assert posted.status_code == 201, posted.text
        shown = posted.json()["fingerprint"]       # what the page shows
        assert shown == fingerprint(public)
        out, err = proc.communicate("y\n", timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert f"It must read: {shown}" in err
    assert out.strip().splitlines()[-1].startswith(f"browser 'phone' added (key {shown})")
    got = None
    for _ in range(50):          # the page polls until the delegation is there
        got = requests.get(f"{world.server.url}/api/device-links/{token}/delegation",
                           timeout=30).json()
        if got["status"] == "done":
            break
        time.sleep(0.1)
    assert got["status"] == "done" and got["delegation"]["device_key"] == public
    assert got["delegation"]["player"] == "ann" and got["delegation"]["label"] == "phone"
    assert shown in ann.run("device", "list").stdout
