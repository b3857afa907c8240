"""The walk-throughs run as written, on a free port: README.md's and docs/CLI.md's."""

import os
import re
import subprocess
import sys

import pytest

from tests.client.conftest import ROOT, child_env, free_port

CLI_DOC = ROOT / "docs" / "CLI.md"
README = ROOT / "README.md"


def _run(script, tmp_path):
    env = child_env()
    env.pop("PBEM_EXTRA_GAMES", None)
    env.pop("PYTHONPATH", None)
    result = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, text=True,
                            capture_output=True, timeout=180)
    assert "WALKTHROUGH-OK" in result.stdout, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    # the only failures are the ones the walk-through announces (refused moves)
    failures = [line for line in result.stderr.splitlines() if line.startswith("pbem:")]
    assert all("refused" in line for line in failures), failures
    return result


def test_cli_doc_walk_through_runs(tmp_path):
    blocks = re.findall(r"```sh\n(.*?)```", CLI_DOC.read_text(), re.S)
    server, players = blocks[0], blocks[1]
    port = str(free_port())
    demo = str(tmp_path / "demo")
    script = "\n".join([
        "set -u",
        "trap 'kill $(jobs -p) 2>/dev/null' EXIT",  # the server always stops
        (server + players).replace("/tmp/pbem-demo", demo).replace("5000", port),
        'test "$(pbem verify ' + demo + '/game.json | grep -c "hash links of")" = 1',
        "echo WALKTHROUGH-OK",
        "kill %1",
    ])
    _run(script, tmp_path)


@pytest.mark.e2e
def test_readme_walk_through_runs_against_the_first_set_up_command(tmp_path):
    blocks = re.findall(r"```sh\n(.*?)```", README.read_text(), re.S)
    # the set-up command that starts the service, and the walk-through (the block that
    # registers players)
    assert "pip install . && pbem-server run\n" in blocks
    walk = next(b for b in blocks if " register " in b)
    port = str(free_port())
    demo = str(tmp_path / "demo")
    script = "\n".join([
        "set -u",
        f"mkdir -p {demo}",
        f"export PBEM_INSTANCE_PATH={demo}/instance PBEM_NOTIFY_INTERVAL=0",
        "trap 'kill $(jobs -p) 2>/dev/null' EXIT",
        # the installed package is the one under test: run only the server half of the command
        f"pbem-server run --port {port} 2>{demo}/server.log &",
        # polled every 0.2 s for up to two minutes: a busy machine starts a server slowly
        f"for i in $(seq 600); do curl -sf http://127.0.0.1:{port}/api/health >/dev/null && break;"
        " sleep 0.2; done",
        walk.replace("/tmp/pbem-demo", demo).replace("5000", port),
        "echo WALKTHROUGH-OK",
    ])
    result = _run(script, tmp_path)
    assert "settle" in result.stdout and "hash" in result.stdout
    # what the server prints at start: the database in the instance folder it was given
    started = (tmp_path / "demo" / "server.log").read_text()
    assert f"(database sqlite:///{demo}/instance/pbem.sqlite)" in started


def test_readme_names_the_instance_folder_the_server_uses(monkeypatch):
    """The default instance folder is Flask's, and it depends on how pbem was installed."""
    from flask import Flask
    row = next(line for line in README.read_text().splitlines()
               if line.startswith("| `PBEM_INSTANCE_PATH`"))
    assert "`<virtual environment>/var/server-instance` after `pip install .`" in row
    assert "`instance/` at the top of the checkout with `pip install -e .`" in row
    assert "prints the database path" in row
    monkeypatch.delenv("PBEM_INSTANCE_PATH", raising=False)
    # run from this checkout (an editable install): instance/ at its top
    assert Flask("server").instance_path == str(ROOT / "instance")
    # installed into an environment (the package under sys.prefix): PREFIX/var/server-instance
    monkeypatch.setattr(sys, "prefix", str(ROOT.parent))
    assert Flask("server").instance_path == os.path.join(str(ROOT.parent), "var",
                                                          "server-instance")
