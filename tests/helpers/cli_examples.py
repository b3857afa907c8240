"""Every pbem example line of every --help, docs/CLI.md and README.md, extracted (what
tests/client/test_examples.py parses and tests/client/test_examples_run.py runs)."""

import re
import shlex

import click

from client.cli import COMMANDS, cli
from tests.client.conftest import ROOT

# the words examples use for what a reader fills in, and a value of the right shape
PLACEHOLDERS = {"GAME": "k7m2q9xa3b", "$GAME": "k7m2q9xa3b", "TYPE": "zarahemla",
                "NAME": "ann", "FILE": "game.json", "LABEL": "laptop", "TEXT": "hello",
                "CODE": "pbemrc-abcd", "MOVE": "roll", "SEAT": "north", "S": "north",
                "N": "2", "ORDER": "hold", "ID": "k7m2q9xa3b", "DIR": "/tmp/h", "URL":
                "http://127.0.0.1:5000", "ZONE": "Europe/Paris", "E": "ann@example.org",
                "H": "24", "L": "greedy", "TID": "3f9a6c1d" * 8}
SHELL_FUNCTIONS = ("ann", "bob", "cyd")   # docs/CLI.md: ann() { pbem --home ... "$@"; }


def _help_examples():
    """(where, line) for each line of an Example(s): block of every command's --help."""
    out = []
    ctx = click.Context(cli, info_name="pbem")
    commands = [("pbem", cli)] + [(name, cli.get_command(ctx, name)) for name in COMMANDS]
    for group in [c for _, c in commands if isinstance(c, click.Group)]:
        commands += [(f"{group.name} {n}", c) for n, c in group.commands.items()]
    for name, command in commands:
        text = command.help or ""
        if "Example" not in text:
            continue
        # the block: the lines after "Example(s):" up to the next blank line
        block = text[text.index("Example"):].splitlines()[1:]
        block = block[:next((i for i, line in enumerate(block) if not line.strip()),
                            len(block))]
        out += [(f"pbem {name} --help", line.strip()) for line in block if "pbem " in line]
    return out


def _doc_examples(path):
    """(where, line): the lines of the shell blocks and the inline `pbem ...` spans."""
    text = path.read_text()
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            words = line.split()
            if "pbem " in line or (words and words[0] in SHELL_FUNCTIONS):
                out.append((path.name, line))
    for span in re.findall(r"`(pbem [^`]+)`", text):
        # a syntax summary ([--days 90], A|B, ...) is not a command line; a span naming a
        # command (`pbem log`, `pbem wait --timeout`) is checked for its names only
        if not re.search(r"[\[\]|]|\.\.\.|<|COMMAND", span):
            out.append((path.name + " (inline)", span))
    return out


def _invocations(line):
    """The pbem argument lists in one shell line (commands joined by && || | ; and $(...))."""
    line = line.split("  #")[0].split(" # ")[0]
    line = re.sub(r"\$\(([^)]*)\)", lambda m: " ; " + m.group(1) + " ; ", line)
    found = []
    for part in re.split(r"&&|\|\||[|;]", line):
        try:
            words = shlex.split(part)
        except ValueError:
            continue
        while words and ("=" in words[0] and not words[0].startswith("-")
                         or words[0] in ("while", "if", "then", "do", "echo", "!")):
            words = words[1:]
        if not words:
            continue
        if words[0] in SHELL_FUNCTIONS:
            words = ["pbem", "--home", f"/tmp/pbem-demo/{words[0]}"] + words[1:]
        if words[0] != "pbem":
            continue
        if any(w.startswith(">") or w.startswith("2>") for w in words):
            words = [w for w in words if not w.startswith(("2>", ">"))]
        found.append([PLACEHOLDERS.get(w, w) for w in words[1:]])
    return found


ALL = _help_examples() + _doc_examples(ROOT / "docs" / "CLI.md") + \
    _doc_examples(ROOT / "README.md")
