"""Commands about players and games: register, new, join, show, moves, rules."""


import click

from ..completion import complete_game, complete_type
from ..context import (
    GAME_ID,
    PLAYER_NAME,
    PbemError,
    UsageProblem,
    color_wanted,
    known_types,
    load_game,
    parse_options,
    pass_ctx,
    terminal_width,
    wrap_lines,
)
from ..seats import note_unloadable

# --- register -------------------------------------------------------------------------------

@click.command()
@click.argument("name", type=PLAYER_NAME)
@click.option("--email", metavar="E", help="Where to mail you when it is your move.")
@click.option("--tz", metavar="ZONE", help="Your time zone, e.g. Europe/Paris (default UTC).")
@pass_ctx
def register(c, name, email, tz):
    """Create your key (if there is none) and register NAME with the server.

    The key is an Ed25519 private key kept in the home (mode 0600); it never
    leaves it.  Registering again with the same key and name is harmless.
    A new key is written to the home only once the server registered it; when
    the server cannot be reached (or limits requests), it is kept so that
    registering again finishes the job.  A refused registration (a taken
    name, a bad time zone) leaves the home as it was.

    \b
    Example:
      pbem register ann --email ann@example.org --tz America/Denver
    """
    import secrets

    from shared.envelope import public_key_hex

    from ..api import Api, ApiError, Conflict, RateLimited, ServerError, ServerUnreachable
    from ..context import _as_pbem_error
    home = c.home
    created = not home.has_main_key()
    if created:
        home.create_key(dry=True)  # a device home is refused here, before anything is sent
    # a new key stays in memory until the server has it (a refused registration leaves the
    # home as it was); an existing one is read
    key = secrets.token_bytes(32) if created else home.private_key()
    public = public_key_hex(key)
    api = Api(c.raw_server, session=c.session)
    c._api = api
    server_key = api.server_info()["public_key"]  # a pbem server? (pinned once registered)

    def keep():
        if created:
            home.save_key(key)
            c.note(f"created a new key in {home.path}")
        if home.pinned_key(c.server) is None:
            home.pin_key(c.server, server_key)
    # a recovery code, printed once, can rotate a lost key away (client/recovery.py)
    from ..recovery import new_recovery_code, recovery_fields
    code, recovery = new_recovery_code()
    try:
        player = api.register(name, key, public, email=email, tz=tz,
                              recovery=recovery_fields(name, key, recovery))
        again = False
    except (RateLimited, ServerError, ServerUnreachable) as exc:
        # nothing was registered: say so, and that the kept key finishes it later
        keep()
        error = _as_pbem_error(exc)
        when = " once the limit allows" if isinstance(exc, RateLimited) else ""
        raise type(error)(f"{error.message}; {name} is not registered, and the key in "
                          f"{home.path} is kept: pbem register {name} again{when} registers "
                          "it") from None
    except Conflict as exc:
        try:
            player = api.player(name)
        except Exception:  # noqa: BLE001
            player = None
        if not player or player.get("public_key") != public:
            if exc.code == "key_taken":
                raise PbemError(f"the key in {home.path} is already registered under another "
                                "name; use another --home for another player") from None
            raise PbemError(f"{exc.message}; " + ("no key was written: the home is as it was"
                                                   if created else f"the key in {home.path} is "
                                                   "unchanged"), exc.code, exc.details) \
                from None
        again = True
    except ApiError as exc:  # refused (a bad name, time zone or email): nothing was written
        raise PbemError(f"{exc.message}; " + ("no key was written: the home is as it was"
                                               if created else f"the key in {home.path} is "
                                               "unchanged"), exc.code, exc.details) from None
    keep()
    config = home.config()
    config.update({"name": name, "email": email or config.get("email"),
                   "tz": tz or player.get("tz") or config.get("tz")})
    home.save_config(config)
    what = "is already registered" if again else "registered"
    lines = [f"{name} {what} on {c.server} (key {public[:16]}...)"]
    if not again:
        lines += ["", "Your recovery code (shown only this once: write it down and keep it "
                  "apart from this computer;", "pbem key rotate --recovery-code CODE replaces a "
                  "lost key with it):", f"  {code}"]
    c.emit({"name": name, "public_key": public, "tz": player.get("tz"), "server": c.server,
            "home": home.path, "already": again, "recovery_code": None if again else code},
           lines)


# --- new, join -------------------------------------------------------------------------

def _seat_summary(game):
    return ", ".join(f"{s['seat']}={s['player'] or '(free)'}" for s in game["seats"])


@click.command()
@click.argument("game_type", metavar="TYPE", shell_complete=complete_type)
@click.option("--seats", "-n", type=click.IntRange(1, 8), required=True, help="Number of seats.")
@click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE",
              help="A game option (repeatable); see pbem rules TYPE.")
@click.option("--seat", metavar="S", help="Take this seat instead of the first.")
@click.option("--move-hours", type=click.IntRange(1, 1440), metavar="H",
              help="Time allowed per move, in hours.")
@click.option("--bots", type=click.IntRange(0, 8), default=0, metavar="N",
              help="Give N of the other seats to the server's bots (they play by themselves); "
                   "N = --seats: bots only, you watch.")
@click.option("--bot-level", type=click.Choice(["random", "greedy", "strong"]),
              metavar="LEVEL", help="How the bots play: random, greedy (the default) or "
                                    "strong.")
@click.option("--on-timeout", metavar="WHAT",
              help="What a missed deadline (--move-hours) does: move (the game's timeout "
                   "move, the default), bot or bot:LEVEL (a bot takes the late seat for "
                   "good).")
@click.option("--unrated", is_flag=True, help="The result changes nobody's rating (games are "
                                             "rated by default, but for games with bots and "
                                             "cooperative games).")
@pass_ctx
def new(c, game_type, seats, options, seat, move_hours, bots, bot_level, on_timeout, unrated):
    """Create a game of TYPE, take the first seat and print its id.

    The game starts when every seat is filled (others run pbem join ID).
    With --bots N, N of the other seats go to the server's bot accounts
    (named bot-random, bot-greedy, bot-strong); games with bots are unrated.
    With --bots equal to --seats the bots play alone and you watch
    (pbem watch ID follows the game to its end).

    \b
    Example:
      pbem new zarahemla --seats 3 --option vp_to_win=10
      GAME=$(pbem new pig --seats 2)
      pbem new zarahemla --seats 4 --bots 3 --bot-level strong
      pbem new zarahemla --seats 2 --bots 2 --bot-level strong
      pbem new zarahemla --seats 4 --move-hours 48 --on-timeout bot:strong
    """
    opts = parse_options(options)
    if on_timeout is not None:
        from shared.table import TableError, normalize_on_timeout
        try:
            opts["on_timeout"] = normalize_on_timeout(on_timeout)
        except TableError as exc:
            raise UsageProblem(exc.message.replace("option on_timeout", "--on-timeout")) \
                from None
        if opts["on_timeout"] != "move" and not move_hours:
            raise UsageProblem("--on-timeout bot needs --move-hours H: without a deadline "
                               "no seat is ever late")
    if bot_level and not bots:
        raise UsageProblem("--bot-level needs --bots N (how many seats the bots take)")
    if bots and bots > seats:
        raise UsageProblem(f"--bots {bots} is more than the {seats} seat(s) of the game")
    if bots and bots == seats and seat:
        raise UsageProblem(f"--bots {bots} fills every seat: you watch, so leave out --seat")
    game = c.signed_api().create_game(game_type, seats, opts, seat, move_hours, bots,
                                      bot_level, rated=False if unrated else None)
    c.home.remember_games(c.server, [game])
    if not c.json and not game.get("you"):   # a game of bots only
        c.note(f"created {game['type']} game {game['id']}, played by bots only; watch it "
               f"with: pbem watch {game['id']}")
    elif not c.json:
        free = sum(1 for s in game["seats"] if not s["player"])
        c.note(f"created {game['type']} game {game['id']}; you hold {', '.join(game['you'])}; "
               + (f"waiting for {free} more player(s): pbem join {game['id']}" if free
                  else "the game has started"))
    c.emit(game, game["id"])


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@click.option("--seat", metavar="S", help="Take this seat (default: the first free one).")
@pass_ctx
def join(c, game_id, seat):
    """Take a free seat in GAME; the game starts when all seats are filled.

    \b
    Example:
      pbem join k7m2q9xa3b --seat east
    """
    game = c.signed_api().join(game_id, seat)
    c.home.remember_games(c.server, [game])
    if game["status"] == "open":
        free = sum(1 for s in game["seats"] if not s["player"])
        text = f"joined game {game['id']} as {', '.join(game['you'])}; waiting for {free} more " \
               "player(s)"
    else:
        text = f"joined game {game['id']} as {', '.join(game['you'])}; the game has started " \
               f"({_seat_summary(game)})"
    c.emit(game, text)


# --- show, moves ------------------------------------------------------------------------------


def _render(game_type, view, board, color):
    try:
        game = load_game(game_type)
        return game.render(view, color=color)
    except Exception:  # noqa: BLE001 - an engine missing here: the server's plain board will do
        return board or ""


def _panel(resp, seat, board=""):
    game, view = resp["game"], resp["view"]
    lines = []
    if view.get("status") == "over" or game["status"] == "over":
        result = view.get("result") or game.get("result") or {}
        winners = ", ".join(result.get("winners") or []) or "nobody"
        reason = result.get("reason")
        why = f" ({reason.strip().rstrip('.')})" if isinstance(reason, str) and reason.strip() \
            else ""
        # said once: a board that already ends with "Game over: ..." is not repeated here;
        # the commands on lines of their own: wrapping never cuts one a reader would copy
        said = "Game over:" in board
        lines += ["Check the finished game:" if said else
                  f"Game over: {winners} won{why}.  Check the finished game:",
                  f"  pbem export {game['id']} -o {game['id']}.json",
                  f"  pbem verify {game['id']}.json"]
        return lines
    from ..numbers import shown_event
    to_act = view.get("to_act") or []
    owes = {s: shown_event(t) for s, t in (view.get("owes") or {}).items()}
    you = f"You are {seat}." if seat else "You are watching."
    if seat in to_act:
        what = f": {owes[seat]}" if owes.get(seat) else ""
        lines.append(f"{you} It is your move{what}.")
        lines.append(f"  pbem moves {game['id']}   then   pbem play {game['id']} MOVE")
    else:
        waiting = ", ".join(f"{s} ({owes[s]})" if owes.get(s) else s for s in to_act) or "nobody"
        lines.append(f"{you} Waiting for {waiting}.")
    lines += _bank_lines(game)
    return lines + _decisions_lines(view.get("table") or {}, seat, game["id"])


def _decisions_lines(table, seat, game_id):
    """The table's decisions pending or in force (shared/table.py), and how to answer."""
    lines = []
    if table.get("resigned"):
        lines.append(f"Resigned (out of the race): {', '.join(table['resigned'])}.")
    for what, words, answer in (
            ("draw", "offers a draw", f"pbem draw {game_id} (or --refuse)"),
            ("abort", "asks to abort the game", f"pbem abort {game_id} (or --refuse)"),
            ("pause", "asks to pause the game", f"pbem pause {game_id} (or pbem resume)")):
        asked = table.get(what)
        if not asked:
            continue
        days = f" for {asked['days']} days" if what == "pause" else ""
        owed = ", ".join(asked.get("owed") or []) or "nobody"
        lines.append(f"{asked['seat']} {words}{days}; waiting for {owed}.")
        if seat in (asked.get("owed") or []):
            lines.append(f"  {answer}")
    if table.get("paused"):
        from datetime import datetime, timezone
        until = datetime.fromtimestamp(table["paused"]["until"], timezone.utc)
        lines.append(f"The table paused the game for {table['paused']['days']} days, until "
                     f"{until.strftime('%Y-%m-%d %H:%M UTC')}: pbem resume {game_id} ends the "
                     "pause.")
    return lines


def _bank_lines(game):
    """The time bank each seat has left (a game with the option time_bank)."""
    bank = game.get("time_bank") or {}
    left = bank.get("left") or {}
    if not left:
        return []
    shown = ", ".join(f"{seat} {int(s) // 3600}h {int(s) % 3600 // 60:02d}m"
                      for seat, s in left.items())
    return [f"Time bank left ({bank.get('hours')}h per seat for the whole game, spent once a "
            f"deadline passes): {shown}."]


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@click.option("--seat", metavar="S", help="Which of your seats to look from.")
@click.option("--no-color", is_flag=True, help="Plain text even on a terminal.")
@pass_ctx
def show(c, game_id, seat, no_color):
    """The board and panel of GAME as you may see it.

    Coloured on a terminal; plain when piped, with --no-color or NO_COLOR set.

    \b
    Example:
      pbem show k7m2q9xa3b
      pbem --json show k7m2q9xa3b | jq .to_act
    """
    resp = c.fetch_view(game_id, seat, legal=True)
    game, view = resp["game"], resp["view"]
    if view is None:
        from ..seats import open_seats_text
        free = [s["seat"] for s in game["seats"] if not s["player"] and not s.get("invited")]
        data = {"game": game["id"], "status": game["status"], "to_act": [],
                "you": resp.get("seat"), "scores": {}, "seats": game["seats"]}
        c.emit(data, [f"{game['type']} game {game['id']} has not started: "
                      f"{open_seats_text(game['seats'])}"
                      + (f" ({', '.join(free)})." if free else "."),
                      f"Others join with: pbem join {game['id']}" if free else
                      "The invited players take their seats with: pbem join "
                      f"{game['id']}"])
        return
    if c.json:
        extra = {"time_bank": game["time_bank"]} if game.get("time_bank") else {}
        c.emit(dict(view, seq=resp["next_seq"] - 1, id=game["id"], type=game["type"], **extra))
        return
    color = color_wanted(no_color)
    me = resp.get("seat")
    board = _render(game["type"], view, resp.get("board"), color)
    lines = [f"{game['type']} game {game['id']}, {resp['next_seq']} move(s) played"
             + (f", you are {me}" if me else ""), board]
    import textwrap
    for line in _panel(resp, me, board):
        lines.extend(textwrap.wrap(line, 80, subsequent_indent="  ", break_on_hyphens=False))
    c.emit(None, lines)


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@click.option("--seat", metavar="S", help="Which of your seats.")
@pass_ctx
def moves(c, game_id, seat):
    """Your legal moves in GAME, one per line, in the game's notation.

    When there is none, it says why: exit 3 when your seat owes no move now
    (pbem wait GAME waits for it), exit 6 when the game is over.  With
    --json: the list of moves (exit 0), else {"error": {"code", "message",
    "details"}} with code not_your_move or game_over.

    \b
    Example:
      pbem moves k7m2q9xa3b
      pbem play k7m2q9xa3b "$(pbem moves k7m2q9xa3b | head -1)"
    """
    from ..context import GameOver, NothingOwed
    resp = c.signed_api().legal(game_id, seat)
    legal = resp["moves"]
    _keep_legal(c, game_id, resp)
    if not legal:
        game = c.api.game(game_id)
        if game.get("status") == "over":
            winners = ", ".join((game.get("result") or {}).get("winners") or []) or "nobody"
            raise GameOver(f"game {game_id} is over (won by {winners}): there are no moves",
                           details={"game": game_id, "result": game.get("result")})
        raise NothingOwed(f"{resp['seat']} owes no move now in game {game_id} (pbem wait "
                          f"{game_id} waits for it)",
                          details={"game": game_id, "seat": resp.get("seat"),
                                   "to_act": game.get("to_act") or []})
    c.emit(legal, legal)

def _keep_legal(c, game_id, resp):
    """Keep a legal-move list with the cached view of the same state (for --offline checks
    and completion)."""
    cached = c.home.cached_view(c.server, game_id)
    if cached and cached.get("next_seq") == resp.get("next_seq") == \
            cached.get("view_next_seq", cached.get("next_seq")) and \
            cached.get("seat") == resp.get("seat"):
        cached["legal"] = {"seat": resp["seat"], "next_seq": resp["next_seq"],
                           "moves": list(resp.get("moves") or [])}
        c.home.cache_view(c.server, game_id, cached)


# --- rules ------------------------------------------------------------------------------------

@click.command()
@click.argument("game_type", metavar="TYPE", required=False, shell_complete=complete_type)
@click.option("--choices", is_flag=True,
              help="The developers' notes instead: the rules as played and every documented "
                   "choice (the game's RULES.md).")
@pass_ctx
def rules(c, game_type, choices):
    """How to play TYPE, and its move notation with examples (no TYPE: list the games).

    \b
    Example:
      pbem rules zarahemla
      pbem rules zarahemla --choices
    """
    if not game_type:
        names = known_types()
        note_unloadable(c)
        c.emit(names, names)
        return
    try:
        game = load_game(game_type)
    except KeyError:
        note_unloadable(c)
        raise PbemError(f"there is no game called {game_type!r}; this client knows "
                        f"{', '.join(known_types()) or 'none'}") from None
    except Exception as exc:  # noqa: BLE001 - a declared game that cannot load, named
        from shared.games import load_errors
        why = load_errors().get(game_type) or f"{type(exc).__name__}: {exc}"
        raise PbemError(f"the game {game_type} cannot load here: {why}") from None
    if choices:
        notes = game.rules_notes()
        if notes is None:
            raise PbemError(f"{game_type} ships no developers' notes (RULES.md)")
        c.emit({"name": game.name, "choices": notes}, notes.rstrip("\n"))
        return
    howto = game.how_to_play()
    data = {"name": game.name, "title": game.title, "min_seats": game.min_seats,
            "max_seats": game.max_seats, "options": game.options_schema,
            "score_label": game.score_label, "bot_levels": game.bot_levels(),
            "how_to_play": howto, "help": game.rules_help()}
    lines = [f"{game.title or game.name} ({game.name}): {game.min_seats} to {game.max_seats} "
             f"players; the score counts {game.score_label}"]
    if howto:
        lines += ["", "How to play", ""] + howto.strip().splitlines()
    lines += ["", "Options:"] if game.options_schema else []
    for key, spec in (game.options_schema or {}).items():
        lines.append(f"  --option {key}=...  {spec.get('help', '')} "
                     f"(default {spec.get('default')!r})")
    lines += ["", "Moves", ""] + game.rules_help().strip().splitlines()
    lines += ["", f"Bots: {', '.join(game.bot_levels())}.  The developers' notes: "
                  f"pbem rules {game.name} --choices"]
    c.emit(data, wrap_lines(lines, terminal_width(), indent="    "))
