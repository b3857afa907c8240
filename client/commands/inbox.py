"""What waits for the player: ``pbem games`` (the inbox first, then every game) and ``pbem
next`` (the game to play now)."""

import click

from ..context import NothingOwed, pass_ctx

# What may wait for a player's answer, in the order the inbox shows it: moves and takeback
# answers, the table's decisions asked of the player's seat (shared/table.py), rematches.
WAITING_KINDS = ("move", "takeback", "draw", "abort", "pause", "rematch")
_ASKED = {"draw": ("offers a draw", "pbem draw {game} (or --refuse)"),
          "abort": ("asks to abort the game", "pbem abort {game} (or --refuse)"),
          "pause": ("asks to pause the game for {days} days",
                    "pbem pause {game} (or pbem resume {game} to refuse)")}


def _tzinfo(c):
    from zoneinfo import ZoneInfo
    name = c.home.config().get("tz") if c.home.has_key() else None
    if name:
        try:
            return ZoneInfo(name)
        except Exception:  # noqa: BLE001 - an unknown zone in the config: the local one
            pass
    return None  # the system's local zone


def _parse_time(text):
    from datetime import datetime, timezone
    if not text:
        return None
    try:
        when = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def _deadline(game):
    """When my earliest move in this game is due (aware datetime), from the server, or None."""
    mine = set(game.get("you") or ())
    times = [_parse_time(t) for seat, t in (game.get("deadlines") or {}).items() if seat in mine]
    times = [t for t in times if t is not None]
    return min(times) if times else None


def _owed(game):
    return game.get("status") == "playing" and \
        bool(set(game.get("you") or ()) & set(game.get("to_act") or ()))


def _last_move_at(c, game):
    """When the last entry of ``game`` was signed (its envelope's ts), or None."""
    import json
    seq = game.get("seq")
    if not isinstance(seq, int) or seq < 0:
        return None
    try:
        entries = c.api.log(game["id"], since=seq, limit=1).get("entries") or []
        ts = json.loads(entries[0]["envelope"]).get("ts") if entries else None
    except (ValueError, KeyError, TypeError, IndexError):
        return None
    return ts if isinstance(ts, (int, float)) else None


def owed_in_order(c, items):
    """The games of ``items`` where the player owes a move (or an answer), the one to play
    first first: by the deadline that comes first; games without a deadline after them, the
    one whose last move is oldest first (fetched from the log: the listing has no time)."""
    owed = [g for g in items if _owed(g)]
    timed = sorted((g for g in owed if _deadline(g) is not None),
                   key=lambda g: (_deadline(g), g["id"]))
    untimed = [g for g in owed if _deadline(g) is None]
    last = {g["id"]: _last_move_at(c, g) for g in untimed}
    untimed.sort(key=lambda g: (last[g["id"]] is None, last[g["id"]] or 0, g["id"]))
    return timed + untimed


def _waiting(c, items, owed):
    """What waits for the player: [{"kind", "game", "text", "command"}], in the inbox's
    order (moves and takeback answers by deadline, then rematches offered)."""
    from ..api import ApiError
    from ..numbers import shown_event
    mine = {g["id"] for g in items}
    out = []
    # what each table asks came with the listing (asked=true); an older server's listing
    # lacks it, and then each game's table is asked for
    tables = {g["id"]: g["asked"] for g in items if isinstance(g.get("asked"), dict)}
    for g in owed:
        pending = None
        try:
            table = tables.get(g["id"])
            if table is None:
                table = tables[g["id"]] = c.api.table(g["id"])
            pending = table.get("pending")
            seat = table.get("seat")
        except ApiError:  # an older server: an answer owed reads as a move owed
            seat = None
        if pending and seat in (pending.get("owed") or []):
            moves = pending.get("moves") or []
            text = shown_event(f"{pending['seat']} asks to take back {len(moves)} move"
                               f"{'s' if len(moves) != 1 else ''} ("
                               + (f"move {moves[0]}" if len(moves) == 1 else
                                  f"moves {moves[0]}-{moves[-1]}" if moves else "move ?")
                               + ")")
            out.append({"kind": "takeback", "game": g["id"], "text": text,
                        "command": f"pbem takeback {g['id']} --accept (or --refuse)"})
        else:
            out.append({"kind": "move", "game": g["id"], "text": "your move",
                        "command": f"pbem show {g['id']}"})
    out += _decisions_asked(c, [g for g in items if g.get("status") == "playing"], tables)
    for g in items:
        offered = g.get("rematch")
        if g.get("status") == "over" and offered and offered not in mine:
            out.append({"kind": "rematch", "game": g["id"],
                        "text": f"a rematch is offered to you (game {offered})",
                        "command": f"pbem rematch {g['id']} (or --decline)"})
    return out


def _decisions_asked(c, playing, tables):
    """The table's decisions (a draw offered, an abort or a pause asked) that wait for the
    answer of the player's seat, in the playing games ``playing``."""
    from ..api import ApiError
    out = []
    for g in playing:
        table = tables.get(g["id"])
        if table is None and not g.get("you"):
            continue  # a game the player holds no seat in (bots it watches): nothing asked
        if table is None:
            try:
                table = c.api.table(g["id"])
            except ApiError:  # an older server: it has no decisions
                continue
        seat = table.get("seat")
        for kind, (words, command) in _ASKED.items():
            asked = (table.get("decisions") or {}).get(kind)
            if asked and seat in (asked.get("owed") or []):
                out.append({"kind": kind, "game": g["id"],
                            "text": f"{asked['seat']} " + words.format(days=asked.get("days")),
                            "command": command.format(game=g["id"])})
    return out


@click.command()
@click.option("--status", type=click.Choice(["open", "playing", "over"]),
              help="Only games in this state.")
@pass_ctx
def games(c, status):
    """My games: what waits for me first, then each game and its deadline in my time zone.

    First what waits for your answer: the games where you owe a move (the
    deadline that comes first first; games without a deadline after them,
    the oldest last move first), takeback requests to answer, rematches
    offered to you.  Then every game.  You on vacation: said on top.
    In JSON: the list of games in that order, each with "my_move",
    "deadline", "waiting" (what waits for you in it: kind move, takeback,
    draw, abort, pause or rematch, a text and the command) and
    "vacation_until".

    \b
    Example:
      pbem games
      pbem games --status playing
    """
    from ..seats import note_unloadable, open_seats_text, to_act_text
    api = c.signed_api()
    items = api.games(status, asked=True)
    c.home.remember_games(c.server, items)
    tz = _tzinfo(c)
    owed = owed_in_order(c, items)
    order = {g["id"]: i for i, g in enumerate(owed)}
    rows = []
    for g in sorted(items, key=lambda g: order.get(g["id"], len(order))):
        due = _deadline(g)
        g = dict(g, my_move=_owed(g), deadline=due.isoformat() if due else g.get("deadline"))
        g.pop("asked", None)  # read into "waiting" below
        g["deadline_local"] = due.astimezone(tz).strftime("%a %d %b %H:%M %Z") if due else None
        rows.append(g)
    waiting = _waiting(c, items, owed)
    me = api.me()
    vacation = me.get("vacation_until")
    away = _parse_time(vacation)
    lines = []
    if away is not None:
        lines += [f"You are on vacation until {away.astimezone(tz).strftime('%a %d %b %H:%M %Z')}"
                  f": your deadlines are paused ({me.get('vacation_days_left')} day(s) left "
                  "this year).", ""]
    if waiting:
        lines.append("Waiting for you:")
        for w in waiting:
            line = f"  {w['game']:<10}  {w['text']}: {w['command']}"
            # 80 columns: a long one gives its command a line of its own
            lines += [line] if len(line) <= 80 else [f"  {w['game']:<10}  {w['text']}:",
                                                     f"{'':<14}{w['command']}"]
        lines.append("")
    if rows:
        # 80 columns with a deadline (Fri 04 Dec 06:52 CET); ids are 10 letters
        lines.append(f"{'GAME':<10} {'TYPE':<16} {'STATUS':<7} {'YOU':<7} {'TO ACT':<14} DUE")
    for g in rows:
        if g["status"] == "playing":
            to_act = to_act_text(g.get("you") or [], g.get("to_act") or [])
        elif g["status"] == "over":
            winners = (g.get("result") or {}).get("winners") or []
            to_act = "won by " + ", ".join(winners) if winners else "over"
        else:
            to_act = open_seats_text(g["seats"])
        lines.append(f"{g['id']:<10} {g['type']:<16} {g['status']:<7} "
                     f"{','.join(g.get('you') or []):<7} {to_act:<14} {g['deadline_local'] or ''}"
                     .rstrip())
    if not rows and not c.json:
        c.note(_none_text(api, status))
    note_unloadable(c, {g["type"] for g in rows})
    if c.json:  # a list of games as before; what waits in each game is in its "waiting"
        for g in rows:
            g["waiting"] = [{k: w[k] for k in ("kind", "text", "command")}
                            for w in waiting if w["game"] == g["id"]]
            g["vacation_until"] = vacation
        c.emit(rows)
    else:
        c.emit(None, lines)


def _none_text(api, status):
    """The truth when the listing is empty: no games at all, or none in this state."""
    if status is None:
        return "you have no games yet: pbem new TYPE --seats N, or pbem join GAME"
    total = len(api.games())
    if not total:
        return "you have no games yet: pbem new TYPE --seats N, or pbem join GAME"
    return (f"you have no {status} games (you have {total} game{'s' if total != 1 else ''} "
            "in other states: pbem games lists them)")


@click.command("next")
@pass_ctx
def next_(c):
    """Print the id of the game where you owe a move that comes first (exit 3: none).

    The game whose deadline comes first; games without a deadline after
    them, the one whose last move is oldest first (the order of pbem
    games).  Nothing owed: nothing on stdout and exit 3.

    \b
    Example:
      pbem show "$(pbem next)"
    """
    items = c.signed_api().games("playing")
    owed = owed_in_order(c, items)
    if not owed:
        raise NothingOwed("you owe no move in any game now (pbem games lists them)")
    first = owed[0]
    due = _deadline(first)
    c.emit({"game": first["id"], "type": first.get("type"),
            "deadline": due.isoformat() if due else None,
            "owed": [g["id"] for g in owed]}, first["id"])
