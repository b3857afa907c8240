"""The README walk-through (client/README-cli.md) runs as written, on a free port."""

import re
import subprocess

from tests.client.conftest import ROOT, child_env, free_port

README = ROOT / "client" / "README-cli.md"


def test_walk_through_runs(tmp_path):
    blocks = re.findall(r"```sh\n(.*?)```", README.read_text(), re.S)
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
    env = child_env()
    env.pop("PBEM_EXTRA_GAMES", None)
    env.pop("PYTHONPATH", None)
    result = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, text=True,
                            capture_output=True, timeout=120)
    assert "WALKTHROUGH-OK" in result.stdout, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    # the only failures are the ones the walk-through announces (refused moves)
    failures = [line for line in result.stderr.splitlines() if line.startswith("pbem:")]
    assert all("refused" in line for line in failures), failures
