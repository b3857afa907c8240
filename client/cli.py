"""``pbem``: play slow board games from a terminal or a script.

The click group and its global options live here; the commands live in the modules of
``client/commands/`` (which never import each other), and what they share in the modules
beside this one: errors and the context object in ``context``, signing and posting log
entries in ``poster``, seats in ``seats``, recovery codes in ``recovery``, move numbers in
``numbers``.
"""

import importlib

import click

from .context import DEFAULT_SERVER, Context, PbemGroup

# name -> (module, one-line help).  The modules load only when their command runs, so
# `pbem --help` costs no more than click itself; tests/client/test_cli_lazy.py checks that
# these lines are the commands' own short help.
COMMANDS = {
    "register": ("commands.games", "Create your key (if there is none) and register NAME with "
                 "the server."),
    "new": ("commands.games", "Create a game of TYPE, take the first seat and print its id."),
    "join": ("commands.games", "Take a free seat in GAME; the game starts when all seats are "
             "filled."),
    "games": ("commands.inbox", "My games: what waits for me first, then each game and its "
              "deadline in my time zone."),
    "next": ("commands.inbox", "Print the id of the game where you owe a move that comes first "
             "(exit 3: none)."),
    "show": ("commands.games", "The board and panel of GAME as you may see it."),
    "moves": ("commands.games", "Your legal moves in GAME, one per line, in the game's "
              "notation."),
    "rules": ("commands.games", "How to play TYPE, and its move notation with examples (no "
              "TYPE: list the games)."),
    "play": ("commands.play", "Sign and submit one or several moves in GAME, in order."),
    "bot": ("commands.bots", "Let a local bot play your seat in GAME, signed with your key."),
    "leave": ("commands.bots", "Hand your seat in GAME to one of the server's bots, which "
              "plays it from then on."),
    "offer-seat": ("commands.substitutes", "Offer SEAT of GAME to a substitute: print a "
                   "one-time link, or hand the seat over."),
    "claim": ("commands.substitutes", "Take the seat a one-time link (from pbem offer-seat) "
              "offers you."),
    "watch": ("commands.bots", "Follow GAME to its end, printing each move (a game of bots "
              "only, or any game)."),
    "sync": ("commands.play", "Submit the moves queued with play --offline and report what "
             "happened."),
    "wait": ("commands.play", "Block until you must act in GAME (exit 0); exit 1 if the game "
             "ends, 3 on timeout."),
    "takeback": ("commands.table", "Ask to take back your last moves in GAME, or answer a "
                 "request (--accept, --refuse)."),
    "resign": ("commands.table", "Give up GAME: with two seats the other seat wins; with "
               "more, your seat leaves the race."),
    "draw": ("commands.table", "Offer a draw in GAME, or accept the one offered; --refuse "
             "refuses (or withdraws) it."),
    "abort": ("commands.table", "Abort GAME: it ends unrated, with no winner."),
    "pause": ("commands.table", "Ask the table to stop GAME's clocks for N days, or agree to "
              "the pause asked."),
    "resume": ("commands.table", "End GAME's pause (the clocks run again), or refuse the "
               "pause asked."),
    "key": ("commands.table", "Your main key: rotate it (with the old key, or the recovery "
            "code if it is lost)."),
    "log": ("commands.archive", "The moves of GAME so far, with what they caused as you may "
            "see it."),
    "export": ("commands.archive", "Write the archive of GAME (every signed move; the seed "
               "once it is over) to FILE."),
    "verify": ("commands.archive", "Check an archive offline: seed, signatures, hash links "
               "and a full replay."),
    "rematch": ("commands.ratings", "Offer a rematch of the finished GAME, or accept the one "
                "offered."),
    "ratings": ("commands.ratings", "The ratings of TYPE (a cooperative game: wins by team "
                "size)."),
    "tournament": ("commands.tournament", "Tournaments: new, join, show, next, leave, export "
                   "(and close, start)."),
    "open": ("commands.web", "Print a one-time link that opens GAME's page as you see it, and "
             "open a browser."),
    "settings": ("commands.settings", "Show your settings, or change them: time zone, email, "
                 "quiet hours, notices."),
    "vacation": ("commands.settings", "Take N vacation days from now: your deadlines pause "
                 "that long."),
    "calendar": ("commands.settings", "Print the private address of a calendar feed of "
                 "your deadlines."),
    "notify": ("commands.notify", "Where your notices go: chat channels, webhooks, a game's "
               "channel."),
    "device": ("commands.devices", "Let another device (a second home, a browser) move for "
               "you: add, import, claim, list, revoke."),
    "mail": ("commands.mail", "Moves in plain words by mail: on (a mail key the server "
             "holds), off, or whether it is on."),
    # table talk and standing orders
    "say": ("commands.talk", "Say TEXT at the table of GAME: to everyone, or --to one seat "
            "only."),
    "order": ("commands.talk", "Leave a standing order in GAME (or cancel one): the server "
              "plays it for you."),
    "orders": ("commands.talk", "Your standing orders in GAME: id, status, seat, the order and "
               "how often it played."),
    "mute": ("commands.talk", "Stop reading NAME's messages (in every game): pbem log, pages "
             "and notices leave them out."),
    "unmute": ("commands.talk", "Read NAME's messages again."),
}


class LazyPbemGroup(PbemGroup):
    """Commands are imported when used; the command list in --help comes from COMMANDS."""

    def list_commands(self, ctx):
        return list(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        module = importlib.import_module(f"{__package__}.{COMMANDS[name][0]}")
        command = next(c for c in vars(module).values()
                       if isinstance(c, click.Command) and c.name == name)
        return with_global_options(command)

    def format_commands(self, ctx, formatter):
        rows = [(name, help_) for name, (_, help_) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

# --- global options, before or after the command ----------------------------------------------

def _set_global(ctx, param, value):
    """Store a global option given after the command in the Context the group made."""
    from .context import Context
    obj = ctx.find_object(Context)
    if obj is None or value is None or value is False:
        return
    if param.name == "as_json":
        obj.json = True
    elif param.name == "debug":
        obj.debug = True
    elif param.name == "server":
        obj.set_server(value)
    elif param.name == "home":
        obj.home_path = value
        obj._home = obj._api = obj._heads = None


# (flags, attribute, is_flag, metavar, help); the same options as on the group
GLOBAL_OPTIONS = (
    (("--server",), "server", False, "URL", "The pbem server (also before the command)."),
    (("--home",), "home", False, "DIR", "Your home folder (also before the command)."),
    (("--json",), "as_json", True, None, "Machine-readable JSON on stdout (also before "
                                          "the command)."),
    (("--debug",), "debug", True, None, "Show tracebacks on errors (also before the command)."),
)


def with_global_options(command):
    """``command`` accepting the group's --server, --home, --json and --debug after its name.

    ``pbem games --json`` then means ``pbem --json games`` (and a group's subcommands take
    them too: ``pbem tournament show ID --json``).  The options only set the
    Context the group built; a command's own option of the same name would win (none has one).
    """
    if getattr(command, "_pbem_globals", False):
        return command
    taken = {opt for p in command.params for opt in getattr(p, "opts", [])}
    for flags, name, is_flag, metavar, help_ in GLOBAL_OPTIONS:
        if taken & set(flags):
            continue
        command.params.append(click.Option(
            (*flags, name), is_flag=is_flag, default=False if is_flag else None, metavar=metavar,
            expose_value=False, callback=_set_global, help=help_,
            hidden=name != "as_json"))
    command._pbem_globals = True
    for sub in getattr(command, "commands", {}).values():  # a group's (pbem tournament show)
        with_global_options(sub)
    return command


# --- the group ------------------------------------------------------------------------------

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 90}


@click.group(cls=LazyPbemGroup, context_settings=CONTEXT_SETTINGS)
@click.option("--server", envvar="PBEM_SERVER", default=DEFAULT_SERVER, show_default=True,
              metavar="URL", help="The pbem server (env PBEM_SERVER).")
@click.option("--home", envvar="PBEM_HOME", default=None, metavar="DIR",
              type=click.Path(file_okay=False),
              help="Where your key and config live (env PBEM_HOME; default: a per-user "
                   "data directory).")
@click.option("--json", "as_json", is_flag=True,
              help="Machine-readable JSON on stdout (also after the command).")
@click.option("--debug", is_flag=True, help="Show tracebacks on errors.")
@click.version_option("0.1.0", prog_name="pbem")
@click.pass_context
def cli(ctx, server, home, as_json, debug):
    """Play slow board games by turns against people in other time zones.

    \b
    Example, a whole session:
      pbem register ann --tz Europe/Paris
      pbem new zarahemla --seats 3             # prints the game id
      pbem show GAME                           # the board and whose move it is
      pbem moves GAME                          # your legal moves
      pbem play GAME "settle 14" "road 14-19"  # sign and send moves, each quoted
      pbem wait GAME && pbem show GAME         # block until it is your move

    Global options may also follow the command (pbem games --json).  With
    --json a failure prints {"error": {"code", "message", "details"}} on
    stdout.  Moves are numbered from 1, as on the game's pages.

    \b
    Exit codes: 0 ok, 1 refused or failed (pbem wait: the game is over),
    2 usage, 3 you owe nothing (pbem wait timed out; pbem moves, pbem next),
    4 the server cannot be reached,
    5 pbem verify: a verified prefix of a game, not a whole one,
    6 pbem moves: the game is over.
    """
    # a caller (a test, an embedding program) may inject a requests.Session-like object:
    # cli.main(obj={"session": session})
    session = ctx.obj.get("session") if isinstance(ctx.obj, dict) else None
    ctx.obj = Context(server, home, as_json, debug, session=session)


def main(argv=None):
    """The console script ``pbem``."""
    return cli.main(args=argv, prog_name="pbem")


if __name__ == "__main__":  # pragma: no cover
    main()
