"""``pbem``: play slow board games from a terminal or a script.

The click group and its global options live here; the commands live in
``commands_games``, ``commands_play`` and ``commands_archive``, and what they
share (errors, the context object) in ``context``.
"""

import click

from . import commands_archive, commands_games, commands_play
from .context import DEFAULT_SERVER, Context, PbemGroup

# --- the group ------------------------------------------------------------------------------

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 90}


@click.group(cls=PbemGroup, context_settings=CONTEXT_SETTINGS)
@click.option("--server", envvar="PBEM_SERVER", default=DEFAULT_SERVER, show_default=True,
              metavar="URL", help="The pbem server (env PBEM_SERVER).")
@click.option("--home", envvar="PBEM_HOME", default=None, metavar="DIR",
              type=click.Path(file_okay=False),
              help="Where your key and config live (env PBEM_HOME; default: a per-user "
                   "data directory).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON on stdout.")
@click.option("--debug", is_flag=True, help="Show tracebacks on errors.")
@click.version_option("0.1.0", prog_name="pbem")
@click.pass_context
def cli(ctx, server, home, as_json, debug):
    """Play slow board games by turns against people in other time zones.

    \b
    Example, a whole session:
      pbem register ann --tz Europe/Paris
      pbem new zarahemla --seats 3         # prints the game id
      pbem show GAME                       # the board and whose move it is
      pbem moves GAME                      # your legal moves
      pbem play GAME "road 14-22"          # sign and send a move
      pbem wait GAME && pbem show GAME     # block until it is your move

    Exit codes: 0 ok, 1 refused or failed, 2 usage, 3 wait timed out.
    """
    # a caller (a test, an embedding program) may inject a requests.Session-like object:
    # cli.main(obj={"session": session})
    session = ctx.obj.get("session") if isinstance(ctx.obj, dict) else None
    ctx.obj = Context(server, home, as_json, debug, session=session)


for _module in (commands_games, commands_play, commands_archive):
    for _command in vars(_module).values():
        if isinstance(_command, click.Command):
            cli.add_command(_command)


def main(argv=None):
    """The console script ``pbem``."""
    return cli.main(args=argv, prog_name="pbem")


if __name__ == "__main__":  # pragma: no cover
    main()
