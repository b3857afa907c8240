"""What every ``pbem`` command shares: errors, the context object, game loading, colour.

Exit codes: 0 success, 1 refused or invalid (or the server unreachable),
2 usage, 3 ``pbem wait`` timed out.  Errors are one sentence on stderr;
``--debug`` shows tracebacks.  Heavy modules (requests, cryptography, the
game engines) are imported only by the commands that need them.
"""

import json
import os
import sys

import click

DEFAULT_SERVER = "http://127.0.0.1:5000"
EXIT_REFUSED = 1
EXIT_TIMEOUT = 3


# --- errors -----------------------------------------------------------------------------

class PbemError(click.ClickException):
    """A failure explained in one sentence on stderr; exit code 1."""

    exit_code = EXIT_REFUSED

    def show(self, file=None):
        click.echo(f"pbem: {self.format_message()}", err=True)


class WaitTimeout(PbemError):
    exit_code = EXIT_TIMEOUT


def _as_pbem_error(exc):
    """The PbemError for a known exception, or None."""
    from .api import ApiError
    from .armor import ArmorError
    from .heads import HistoryError
    from .home import HomeError
    if isinstance(exc, ApiError):
        return PbemError(exc.message)
    if isinstance(exc, (HomeError, HistoryError, ArmorError)):
        return PbemError(str(exc))
    return None


class PbemGroup(click.Group):
    """Turns API, home and history errors into one-line messages; hides tracebacks."""

    def invoke(self, ctx):
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
                            "(run with --debug to see the traceback)") from None


# --- the context object -------------------------------------------------------------------

class Context:
    """Global options and lazily built helpers, shared by every command."""

    def __init__(self, server, home, as_json, debug, session=None):
        self.server = server.rstrip("/")
        self.session = session
        self.home_path = home
        self.json = as_json
        self.debug = debug
        self._home = self._api = self._heads = None

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
            self._api = Api(self.server, identity=identity, session=self.session)
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

    def fetch_view(self, game_id, seat=None):
        """The view response, its head checked and remembered, cached for --offline.

        Signed when this home holds a registered player, else a spectator's view.
        """
        resp = self.api.view(game_id, seat)
        self.heads.check(game_id, resp.get("head"))
        self.home.cache_view(self.server, game_id, resp)
        return resp


pass_ctx = click.make_pass_decorator(Context)


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
    """The rules-library game ``name``; KeyError if unknown here."""
    from shared.games import get_game
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
