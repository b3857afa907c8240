"""Every pbem example in every --help, in docs/CLI.md and in the README is a command line
``pbem`` accepts: its command exists, its options and arguments parse (click's own parser,
as the real command would), ``--option KEY=VALUE`` names an option of that game, with a
value the game takes, and ``--json``/global options are where they may be.

Examples are extracted, not listed here: a new example is checked the day it is written."""

import re
import shlex

import click
import pytest

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


def test_there_are_examples_everywhere():
    wheres = {w for w, _ in ALL}
    assert "pbem new --help" in wheres and "CLI.md" in wheres and "README.md" in wheres
    assert "CLI.md (inline)" in wheres
    assert len([i for _, line in ALL for i in _invocations(line)]) > 60


def _check(args, names_only=False):
    """Parse ``args`` as pbem would, without running the command; the error's text or None.
    ``names_only``: the command and its options must exist; arguments may be left out."""
    if not args:
        return None
    ctx = cli.make_context("pbem", list(args), resilient_parsing=names_only)
    sub = ctx.protected_args + ctx.args
    if not sub:
        return None
    name, *rest = sub
    command = cli.get_command(ctx, name)
    if command is None:
        return f"no command {name!r}"
    while isinstance(command, click.Group):
        sub_ctx = command.make_context(name, list(rest), parent=ctx,
                                       resilient_parsing=names_only)
        if not sub_ctx.protected_args + sub_ctx.args:
            return None
        name, *rest = sub_ctx.protected_args + sub_ctx.args
        command = command.get_command(sub_ctx, name)
        if command is None:
            return f"no subcommand {name!r}"
    command.make_context(name, list(rest), parent=ctx, resilient_parsing=names_only)
    if names_only:
        known = {o for p in command.params for o in getattr(p, "opts", [])} | {"--help", "-h"}
        unknown = [w for w in rest if w.startswith("--") and w.split("=")[0] not in known]
        if unknown:
            return f"no option {unknown[0]} for {name}"
    return _check_options(name, rest)


def _check_options(name, rest):
    """``pbem new TYPE --option KEY=VALUE``: the game has that option and takes the value."""
    if name != "new" or not rest:
        return None
    from shared.games import get_game
    try:
        game = get_game(rest[0]) if rest[0] != "pig" else None
    except KeyError:
        return f"no game type {rest[0]!r}"
    if game is None:
        from tests.fixtures.pig import GAME as game
    schema = game.options_schema or {}
    pairs = [rest[i + 1] for i, w in enumerate(rest[:-1]) if w in ("--option", "-o")]
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key not in schema:
            return f"{game.name} has no option {key!r} (it has {', '.join(schema)})"
        choices = schema[key].get("choices")
        if choices and type(choices[0])(value) not in choices:
            return f"{game.name} option {key}={value} is not one of {choices}"
    return None


@pytest.mark.parametrize("where,line", ALL)
def test_every_example_parses(where, line):
    for args in _invocations(line):
        try:
            problem = _check(args, names_only=where.endswith("(inline)"))
        except click.exceptions.Exit:
            problem = None          # --help, --version
        except click.ClickException as exc:
            problem = exc.format_message()
        assert problem is None, f"{where}: {line!r}: {problem}"


def test_the_checker_catches_a_bad_example():
    """The checks above can fail: an unknown option, an option the game lacks, a bad value."""
    assert "no such option" in _raised(["play", "--frobnicate", "g", "roll"]).lower()
    assert "no option 'target'" in _check(["new", "zarahemla", "--seats", "3", "--option",
                                           "target=12"])
    assert "not one of" in _check(["new", "zarahemla", "--seats", "3", "--option",
                                   "vp_to_win=9"])
    assert _check(["new", "pig", "--seats", "2", "--option", "target=20"]) is None


def _raised(args):
    try:
        _check(args)
    except click.ClickException as exc:
        return exc.format_message()
    return ""
