"""The command that opens a game's page in a browser: ``pbem open``."""

import sys
from urllib.parse import quote

import click

from ..context import pass_ctx


@click.command("open")
@click.argument("game_id", metavar="GAME")
@click.option("--no-browser", is_flag=True, envvar="PBEM_NO_BROWSER",
              help="Only print the link (env PBEM_NO_BROWSER).")
@pass_ctx
def open_(c, game_id, no_browser):
    """Print a one-time link that opens GAME's page as you see it, and open a browser.

    The link shows your own hand: it is signed for you (the request is signed
    with your key), works once, and expires within minutes; the browser then
    keeps you signed in for some hours.  Without a link the page shows the
    spectator's view.  A browser is opened only from a terminal, and only when
    there is one; otherwise the link is just printed.

    \b
    Example:
      pbem open g7hk2m4xqp                 # prints the link and opens it
      pbem open g7hk2m4xqp --no-browser    # on a server, to paste elsewhere
    """
    api = c.signed_api()
    link = api.request("POST", f"/api/games/{quote(game_id, safe='')}/link", {})
    # the link as this client reaches the server (the server may not know its public address)
    url = c.server + link["path"]
    opened = False
    if not no_browser and not c.json and sys.stdout.isatty():
        opened = _open_browser(url)
    c.emit(dict(link, url=url, opened=opened), url)
    if not opened and not c.json:
        c.note(f"open this link within minutes to see game {game_id} as {link.get('seat')}; "
               "it works once")


def _open_browser(url):
    """Open ``url`` in a graphical or text browser if there is one; never raises."""
    try:
        import webbrowser
        return bool(webbrowser.open(url, new=2))
    except Exception:  # noqa: BLE001 - no browser is not an error: the link is printed
        return False
