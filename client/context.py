"""What every ``pbem`` command shares: errors, the context object, game loading, colour.

Exit codes: 0 success, 1 refused or invalid, 2 usage (a wrong option,
argument or server URL), 3 ``pbem wait`` timed out, 4 the server could not
be reached (nothing was sent), 5 ``pbem verify``: a verified prefix of a game,
not a whole one.  Errors are one sentence on stderr;
``--debug`` shows tracebacks.  Heavy modules (http.client, PyNaCl, the
game engines) are imported only by the commands that need them.
"""

import json
import os
import re
import sys

import click

DEFAULT_SERVER = "http://127.0.0.1:5000"
EXIT_REFUSED = 1
EXIT_USAGE = 2
EXIT_TIMEOUT = 3
EXIT_UNREACHABLE = 4
#: ``pbem verify``: every check holds, but the archive is a prefix of a game, not a whole one
EXIT_PREFIX = 5
#: ``pbem moves``: the game is over (nothing will ever be owed in it)
EXIT_OVER = 6
#: ``pbem moves``, ``pbem next``: nothing is owed by you now (the same code as a ``pbem wait``
#: that timed out: in all three, you owe nothing yet)
EXIT_NOTHING_OWED = EXIT_TIMEOUT


# --- errors -----------------------------------------------------------------------------

class PbemError(click.ClickException):
    """A failure explained in one sentence on stderr; exit code 1.

    With --json, the failure is also printed on stdout in the API's shape,
    ``{"error": {"code", "message", "details"}}`` (see PbemGroup.invoke): ``code`` is the
    server's error code when the server refused, else the class's ``CODE``.
    """

    exit_code = EXIT_REFUSED
    CODE = "refused"

    def __init__(self, message, code=None, details=None):
        super().__init__(message)
        self.code = code or self.CODE
        self.details = details or {}

    def show(self, file=None):
        click.echo(f"pbem: {self.format_message()}", err=True)


class WaitTimeout(PbemError):
    exit_code = EXIT_TIMEOUT
    CODE = "timeout"


class NothingOwed(PbemError):
    """You owe nothing now (pbem moves, pbem next): exit code 3."""

    exit_code = EXIT_NOTHING_OWED
    CODE = "not_your_move"


class GameOver(PbemError):
    """The game is over (pbem moves): exit code 6."""

    exit_code = EXIT_OVER
    CODE = "game_over"


class UsageProblem(PbemError):
    """Wrong usage explained in one sentence (no usage block); exit code 2."""

    exit_code = EXIT_USAGE
    CODE = "usage"


class Unreachable(PbemError):
    exit_code = EXIT_UNREACHABLE
    CODE = "unreachable"


def _as_pbem_error(exc):
    """The PbemError for a known exception, or None."""
    from shared import IllegalMove
    from shared.envelope import EnvelopeError

    from .api import ApiError, BadServerUrl, ServerUnreachable
    from .armor import ArmorError
    from .heads import HistoryError
    from .home import HomeError
    if isinstance(exc, ServerUnreachable):
        return Unreachable(exc.message)
    if isinstance(exc, BadServerUrl):
        return UsageProblem(exc.message, "bad_server_url")
    if isinstance(exc, ApiError):
        return PbemError(exc.message, exc.code, exc.details)
    if isinstance(exc, (EnvelopeError, IllegalMove)):
        return PbemError(exc.message)
    if isinstance(exc, (HomeError, HistoryError, ArmorError)):
        return PbemError(str(exc))
    return None


def terminal_width():
    """The width to wrap text to: the terminal's on a terminal, else 80 (at least 40)."""
    if not _stdout_is_tty():
        return 80
    import shutil
    return max(40, shutil.get_terminal_size((80, 24)).columns)


def wrap_lines(lines, width, indent="  ", hang=None):
    """Each line of ``lines`` wrapped to ``width``; continuation lines start with ``hang``
    if given, else with the line's own indentation plus ``indent``.  Words are never split
    (a word longer than the width stays whole on its own line)."""
    import textwrap
    out = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        lead = line[:len(line) - len(line.lstrip(" "))]
        more = hang if hang is not None else lead + indent
        out.extend(textwrap.wrap(line, width, initial_indent="", subsequent_indent=more,
                                 break_long_words=False, break_on_hyphens=False,
                                 drop_whitespace=True) or [line])
    return out


class PbemGroup(click.Group):
    """Turns API, home and history errors into one-line messages; hides tracebacks."""

    def invoke(self, ctx):
        try:
            return self._invoke(ctx)
        except click.ClickException as exc:
            if not (isinstance(ctx.obj, Context) and ctx.obj.json):
                raise
            # --json: the failure in the API's shape on stdout too, then the usual sentence
            # on stderr and exit code
            click.echo(json.dumps({"error": error_json(exc)}, indent=2, ensure_ascii=False,
                                  default=str))
            exc.show()
            raise click.exceptions.Exit(exc.exit_code) from None

    def _invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except KeyboardInterrupt:
            raise click.Abort() from None
        except Exception as exc:  # noqa: BLE001 - the one place that turns bugs into a line
            debug = isinstance(ctx.obj, Context) and ctx.obj.debug
            known = _as_pbem_error(exc)
            if debug:
                raise
            if known is not None:
                raise known from None
            raise PbemError(f"unexpected error: {exc.__class__.__name__}: {exc} "
                            "(run with --debug to see the traceback)", "unexpected") from None


def error_json(exc):
    """``{"code", "message", "details"}`` for a failure (a PbemError or click's own usage
    errors: code "usage")."""
    if isinstance(exc, PbemError):
        return {"code": exc.code, "message": exc.format_message(), "details": exc.details}
    code = "usage" if exc.exit_code == EXIT_USAGE else "refused"
    return {"code": code, "message": exc.format_message(), "details": {}}


# --- argument types ----------------------------------------------------------------------

class _Pattern(click.ParamType):
    """A text argument that must match ``PATTERN``; ``WHAT`` ends the usage error."""

    PATTERN = WHAT = None

    def convert(self, value, param, ctx):
        if isinstance(value, str) and self.PATTERN.fullmatch(value):
            return value
        shown = repr(value) if len(str(value)) <= 40 else repr(str(value)[:40]) + "..."
        self.fail(f"{shown} {self.WHAT}", param, ctx)


class GameId(_Pattern):
    """A game id as servers make them (letters, digits, '_' or '-'); anything else is a usage
    error here rather than a request the server could only misread."""

    name = "GAME"
    PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
    WHAT = ("is not a game id: ids are letters and digits like k7m2q9xa3b (pbem games lists "
            "yours)")


class PlayerName(_Pattern):
    """A player name as the server takes it (it travels in a request header)."""

    name = "NAME"
    PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{1,31}")
    WHAT = ("is not a player name: a name is 2 to 32 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit")


GAME_ID = GameId()
PLAYER_NAME = PlayerName()


# --- the context object -------------------------------------------------------------------

class Context:
    """Global options and lazily built helpers, shared by every command."""

    def __init__(self, server, home, as_json, debug, session=None):
        self.set_server(server)
        self.session = session
        self.home_path = home
        self.json = as_json
        self.debug = debug
        self._home = self._api = self._heads = None

    def set_server(self, server):
        """Use ``server`` (checked when the API is first used: see ``api.check_server_url``).

        ``self.server`` (without a trailing slash) names the server in the home's files.
        """
        self.raw_server = str(server).strip()
        self.server = self.raw_server.rstrip("/")
        self._api = self._heads = None

    @property
    def home(self):
        if self._home is None:
            from .home import Home, default_home
            self._home = Home(self.home_path or default_home())
        return self._home

    def identity(self):
        return self.home.name(), self.home.private_key()

    @property
    def api(self):
        """The API client, signing as this home's player when one is registered."""
        if self._api is None:
            from .api import Api
            identity = None
            if self.home.has_key() and self.home.config().get("name"):
                identity = self.identity()
            self._api = Api(self.raw_server, identity=identity, session=self.session)
        return self._api

    def signed_api(self):
        if self.api.identity is None:
            self.identity()  # raises the "register first" HomeError
        return self.api

    @property
    def heads(self):
        if self._heads is None:
            from .heads import HeadKeeper
            self._heads = HeadKeeper(self.api, self.home)
        return self._heads

    def emit(self, data, text=None):
        """Data to stdout: JSON with --json, else ``text`` (a string or list of lines)."""
        if self.json:
            click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
        elif isinstance(text, str):
            click.echo(text)
        elif text:
            click.echo("\n".join(text))

    def note(self, text):
        """A diagnostic to stderr (never mixed with data)."""
        click.echo(text, err=True)

    def fetch_view(self, game_id, seat=None, legal=False):
        """The view response, its head checked and remembered, cached for --offline.

        Signed when this home holds a registered player, else a spectator's view.
        With ``legal``, when the viewer's seat owes a move, the legal moves the
        server lists for it are fetched too and kept with the cached view as
        ``resp["legal"] = {"seat", "next_seq", "moves"}`` (what ``play --offline``
        and ``play --armor`` check a move against, and what completion offers).
        ``resp["view_next_seq"]`` is the ``next_seq`` the view was fetched at.
        """
        resp = self.api.view(game_id, seat)
        self.heads.check(game_id, resp.get("head"))
        resp["view_next_seq"] = resp.get("next_seq")
        me = resp.get("seat")
        view = resp.get("view") or {}
        if legal and me and self.api.identity is not None and me in (view.get("to_act") or []):
            from .api import ApiError
            try:
                got = self.api.legal(game_id, me)
            except ApiError:  # the list only helps later checks: the view is what was asked
                got = {}
            if got.get("next_seq") == resp.get("next_seq") and got.get("seat") == me:
                resp["legal"] = {"seat": me, "next_seq": got["next_seq"],
                                 "moves": list(got.get("moves") or [])}
        self.home.cache_view(self.server, game_id, resp)
        game = resp.get("game") or {}
        self.home.remember_games(self.server, [game])
        return resp


pass_ctx = click.make_pass_decorator(Context)


def parse_options(pairs):
    """{key: value} of ``--option KEY=VALUE`` pairs (pbem new, pbem tournament new)."""
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--option")
        options[key.strip()] = value.strip()
    return options


def _register_extra_games():
    """Register the games named in PBEM_EXTRA_GAMES ("module:attr,..."), as the server does."""
    from shared.games import register_path
    for path in filter(None, (p.strip() for p in os.environ.get("PBEM_EXTRA_GAMES",
                                                                  "").split(","))):
        try:
            register_path(path)
        except Exception:  # noqa: BLE001 - an unloadable extra game is just not available
            pass


def load_game(name):
    """The rules-library game ``name``; KeyError if unknown here.  A built-in or installed
    game is loaded alone: the PBEM_EXTRA_GAMES modules (a development setting) are imported
    only for a name none of those has (a test fixture imported by every ``pbem show`` cost
    more than the command; bench/ANALYSIS.md)."""
    from shared.games import get_game
    try:
        return get_game(name)
    except KeyError:
        _register_extra_games()
        return get_game(name)


def known_types():
    from shared.games import game_types
    _register_extra_games()
    return game_types()


def _stdout_is_tty():
    return sys.stdout.isatty()


def color_wanted(no_color):
    """Colour only on a terminal, and never with --no-color or NO_COLOR set."""
    return not no_color and not os.environ.get("NO_COLOR") and _stdout_is_tty()
