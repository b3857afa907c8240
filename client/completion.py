"""Shell completion of arguments: game types, game ids and moves, from local files only.

Completion runs on every Tab, so it never talks to a server: game ids come
from the home's list of games seen (``pbem games``, ``new``, ``join``,
``show`` ... remember them), moves from the legal-move list fetched last
with the game's state (``pbem show`` and ``pbem moves`` fetch one when you
owe a move).  Any failure completes nothing rather than printing an error.
"""

import os


def CompletionItem(value, help=None):  # noqa: N802 - click's class, imported on first use
    """click's CompletionItem; click.shell_completion loads only when something completes,
    not with every command whose arguments complete (``pbem play``)."""
    from click.shell_completion import CompletionItem as item
    return item(value, help=help)


def _root(ctx):
    while ctx.parent is not None:
        ctx = ctx.parent
    return ctx


def _home_and_server(ctx):
    """The Home and server URL the command line being completed would use."""
    from .context import DEFAULT_SERVER
    from .home import Home, default_home
    params = _root(ctx).params
    home = params.get("home") or os.environ.get("PBEM_HOME") or default_home()
    server = params.get("server") or os.environ.get("PBEM_SERVER") or DEFAULT_SERVER
    return Home(home), str(server).strip().rstrip("/")


def complete_type(ctx, param, incomplete):
    """The game types this client's rules library knows."""
    try:
        from shared.games import get_game

        from .context import known_types
        out = []
        for name in known_types():
            if name.startswith(incomplete):
                out.append(CompletionItem(name, help=get_game(name).title or None))
        return out
    except Exception:  # noqa: BLE001 - completion never fails loudly
        return []


def complete_game(ctx, param, incomplete):
    """Ids of the games this home has seen on the server in use, newest state first."""
    try:
        home, server = _home_and_server(ctx)
        games = home.known_games(server)
    except Exception:  # noqa: BLE001
        return []
    order = {"playing": 0, "open": 1, "over": 2}
    items = sorted(games.items(), key=lambda kv: (order.get((kv[1] or {}).get("status"), 3),
                                                  kv[0]))
    return [CompletionItem(gid, help=" ".join(filter(None, [(info or {}).get("type"),
                                                              (info or {}).get("status")]))
                           or None)
            for gid, info in items if gid.startswith(incomplete)]


def complete_move(ctx, param, incomplete):
    """The legal moves fetched last for the game on the command line (``pbem show`` and
    ``pbem moves`` fetch them), for the state they were fetched at."""
    try:
        game_id = ctx.params.get("game_id")
        if not game_id:
            return []
        home, server = _home_and_server(ctx)
        resp = home.cached_view(server, game_id) or {}
        legal = resp.get("legal") or {}
        if legal.get("next_seq") != resp.get("next_seq"):
            return []  # moves were queued or played since: the list is for an older state
        moves = legal.get("moves") or []
    except Exception:  # noqa: BLE001
        return []
    return [CompletionItem(m) for m in moves if m.startswith(incomplete)]
