"""Every pbem example in every --help, in docs/CLI.md and in the README is a command line
``pbem`` accepts: its command exists, its options and arguments parse (click's own parser,
as the real command would), ``--option KEY=VALUE`` names an option of that game, with a
value the game takes, and ``--json``/global options are where they may be.

Examples are extracted, not listed here: a new example is checked the day it is written."""

import click
import pytest

from client.cli import cli
from tests.helpers.cli_examples import ALL, _invocations


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
    # the game's own check of its options, with the table's (on_timeout, time_bank, ...)
    from shared import IllegalMove
    pairs = [rest[i + 1] for i, w in enumerate(rest[:-1]) if w in ("--option", "-o")]
    seats = next((int(rest[i + 1]) for i, w in enumerate(rest[:-1]) if w == "--seats"),
                 game.min_seats)
    try:
        game.normalize_options(dict(p.partition("=")[::2] for p in pairs), seats)
    except IllegalMove as exc:
        return f"{game.name}: {exc.message}"
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
    assert "unknown option 'target'" in _check(["new", "zarahemla", "--seats", "3", "--option",
                                           "target=12"])
    assert "must be one of" in _check(["new", "zarahemla", "--seats", "3", "--option",
                                       "vp_to_win=9"])
    assert "time_bank" in _check(["new", "zarahemla", "--seats", "3", "--option",
                                  "time_bank=lots"])
    assert _check(["new", "pig", "--seats", "2", "--option", "target=20"]) is None


def _raised(args):
    try:
        _check(args)
    except click.ClickException as exc:
        return exc.format_message()
    return ""
