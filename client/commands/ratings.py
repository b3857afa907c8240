"""``pbem rematch`` and ``pbem ratings``."""

import click

from ..completion import complete_game, complete_type
from ..context import GAME_ID, pass_ctx


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@click.option("--decline", is_flag=True, help="Decline the rematch offered (it is withdrawn).")
@pass_ctx
def rematch(c, game_id, decline):
    """Offer a rematch of the finished GAME, or accept the one offered.

    The same players and options play a new game, each moved one seat on.
    The first player to ask offers it; the others accept with the same
    command, and it starts when all have accepted.  --decline withdraws it.

    \b
    Example:
      pbem rematch k7m2q9xa3b              # offer, or accept the offer
      pbem rematch k7m2q9xa3b --decline
    """
    game = c.signed_api().rematch(game_id, decline)
    if decline:
        c.note(f"the rematch of game {game_id} is withdrawn")
        c.emit(game, f"declined: no rematch of {game_id} stands")
        return
    c.home.remember_games(c.server, [game])
    if not c.json:
        waiting = [s["seat"] for s in game["seats"] if not s["player"]]
        seats = ", ".join(f"{s['seat']}={s['player']}" if s["player"] else
                          f"{s['seat']}={s['invited']} (invited)" if s.get("invited") else
                          f"{s['seat']}=(free)" for s in game["seats"])
        c.note(f"rematch of {game_id}: game {game['id']} ({seats}); "
               + (f"waiting for {len(waiting)} player(s) to accept: pbem rematch {game_id}"
                  if game["status"] == "open" else "the game has started: "
                  f"pbem show {game['id']}"))
    c.emit(game, game["id"])


@click.command()
@click.argument("game_type", metavar="TYPE", shell_complete=complete_type)
@pass_ctx
def ratings(c, game_type):
    """The ratings of TYPE (a cooperative game: wins by team size).

    A rating is openskill's ordinal (mu - 3 sigma, Plackett-Luce model): a
    new player starts at 0.  Only rated games count: not games with bots,
    not games made with pbem new --unrated; and a rated game changes ratings
    only when each of its players' accounts has some history (at least 7 days
    old, 3 other games finished: the server's settings), which an empty table
    then says.

    \b
    Example:
      pbem ratings zarahemla
    """
    table = c.api.ratings(game_type)
    if table["cooperative"]:
        lines = [f"{game_type}: a cooperative game, recorded by team size"]
        for team in table["teams"]:
            lines.append(f"  {team['team_size']} players: {team['wins']} won of "
                         f"{team['games']}")
            for p in team["players"]:
                lines.append(f"      {p['player']:<20} {p['wins']:>4} / {p['games']}")
        if not table["teams"]:
            lines.append("  no finished game yet")
    else:
        lines = [f"{'#':>3}  {'player':<20} {'rating':>7} {'games':>6} {'wins':>5}"]
        for i, r in enumerate(table["ratings"], 1):
            lines.append(f"{i:>3}  {r['player']:<20} {r['rating']:>7.1f} {r['games']:>6} "
                         f"{r['wins']:>5}")
        finished = table.get("rated_finished") or 0
        if not table["ratings"] and finished:
            rule = table.get("history") or {}
            import textwrap
            lines = textwrap.wrap(
                f"no rating of {game_type} yet: {finished} rated game(s) finished, but a "
                "game changes ratings only when every one of its players' accounts is at "
                f"least {rule.get('days', 7)} days old and had finished at least "
                f"{rule.get('games', 3)} other games", 79, subsequent_indent="  ")
        elif not table["ratings"]:
            lines = [f"no rated game of {game_type} has finished yet"]
    c.emit(table, lines)
