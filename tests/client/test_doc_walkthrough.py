"""docs/CLI.md's walk-through (two players on one machine) runs as written, as a shell
script against a real server: every line is a command pbem accepts, and it ends with the
archive verified (exit 5: a verified prefix of a running game).

Only the server's address and the demo folder are replaced (a free port, a temporary
folder); the lines the walk-through says may be refused (a roll of 1 ends the turn) may
exit 1, none may be a usage error or a crash."""

import re
import subprocess

from tests.client.conftest import ROOT, child_env


def _walkthrough():
    text = (ROOT / "docs" / "CLI.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    return next(b for b in blocks if "ann register ann" in b)


def test_the_walkthrough_runs_against_a_real_server(server, tmp_path):
    script = _walkthrough().replace("http://127.0.0.1:5000", server.url) \
        .replace("/tmp/pbem-demo", str(tmp_path / "demo"))
    # each line's exit code, after the line: the verdict is read from them
    lines = [line for line in script.splitlines() if line.strip()]
    traced = "\n".join(f"{line}\necho \"exit=$? line={n}\" >&2" if not line.rstrip()
                       .endswith("{") and "()" not in line else line
                       for n, line in enumerate(lines))
    (tmp_path / "demo").mkdir()
    done = subprocess.run(["bash", "-c", traced], env=child_env(), cwd=ROOT, text=True,
                          capture_output=True, timeout=300)
    err = done.stderr
    assert "Usage:" not in err and "unexpected error" not in err and "Traceback" not in err
    assert "command not found" not in err and "No such" not in err
    codes = {int(n): int(code) for code, n in re.findall(r"exit=(\d+) line=(\d+)", err)}
    assert len(codes) >= 20
    for n, code in codes.items():
        allowed = {0, 1} if re.search(r"refused|exit 1", lines[n]) else {0}
        if "pbem verify" in lines[n]:
            allowed = {5}                      # a running game: a verified prefix
        assert code in allowed, (lines[n], code, err[-2000:])
    assert (tmp_path / "demo" / "game.json").exists()
