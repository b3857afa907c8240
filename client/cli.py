"""``pbem``: play slow board games from a terminal or a script.

Exit codes: 0 success, 1 refused or invalid (or the server unreachable),
2 usage, 3 ``pbem wait`` timed out.  Errors are one sentence on stderr;
``--debug`` shows tracebacks.  Heavy modules (requests, cryptography, the
game engines) are imported only by the commands that need them.
"""

import json
import os
import sys
import time

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


# --- register -------------------------------------------------------------------------------

@cli.command()
@click.argument("name")
@click.option("--email", metavar="E", help="Where to mail you when it is your move.")
@click.option("--tz", metavar="ZONE", help="Your time zone, e.g. Europe/Paris (default UTC).")
@pass_ctx
def register(c, name, email, tz):
    """Create your key (if there is none) and register NAME with the server.

    The key is an Ed25519 private key kept in the home (mode 0600); it never
    leaves it.  Registering again with the same key and name is harmless.

    \b
    Example:
      pbem register ann --email ann@example.org --tz America/Denver
    """
    from shared.envelope import public_key_hex
    from .api import Api, Conflict
    home = c.home
    created = not home.has_key()
    key = home.create_key()
    public = public_key_hex(key)
    if created:
        c.note(f"created a new key in {home.path}")
    api = Api(c.server, session=c.session)
    c._api = api
    c.heads.server_key()  # pin the server's key on first use
    try:
        player = api.register(name, key, public, email=email, tz=tz)
        again = False
    except Conflict as exc:
        try:
            player = api.player(name)
        except Exception:  # noqa: BLE001
            player = None
        if not player or player.get("public_key") != public:
            if exc.code == "key_taken":
                raise PbemError(f"the key in {home.path} is already registered under another "
                                "name; use another --home for another player") from None
            raise
        again = True
    config = home.config()
    config.update({"name": name, "email": email or config.get("email"),
                   "tz": tz or player.get("tz") or config.get("tz")})
    home.save_config(config)
    what = "is already registered" if again else "registered"
    c.emit({"name": name, "public_key": public, "tz": player.get("tz"), "server": c.server,
            "home": home.path, "already": again},
           f"{name} {what} on {c.server} (key {public[:16]}...)")


# --- new, join, games -------------------------------------------------------------------------

def _parse_options(pairs):
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--option")
        options[key.strip()] = value.strip()
    return options


def _seat_summary(game):
    return ", ".join(f"{s['seat']}={s['player'] or '(free)'}" for s in game["seats"])


@cli.command()
@click.argument("game_type", metavar="TYPE")
@click.option("--seats", "-n", type=click.IntRange(1, 8), required=True, help="Number of seats.")
@click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE",
              help="A game option (repeatable); see pbem rules TYPE.")
@click.option("--seat", metavar="S", help="Take this seat instead of the first.")
@click.option("--move-hours", type=click.IntRange(1, 1440), metavar="H",
              help="Time allowed per move, in hours.")
@pass_ctx
def new(c, game_type, seats, options, seat, move_hours):
    """Create a game of TYPE, take the first seat and print its id.

    The game starts when every seat is filled (others run pbem join ID).

    \b
    Example:
      pbem new zarahemla --seats 3 --option target=12
      GAME=$(pbem new pig --seats 2)
    """
    opts = _parse_options(options)
    game = c.signed_api().create_game(game_type, seats, opts, seat, move_hours)
    if not c.json:
        free = sum(1 for s in game["seats"] if not s["player"])
        c.note(f"created {game['type']} game {game['id']}; you hold {', '.join(game['you'])}; "
               + (f"waiting for {free} more player(s): pbem join {game['id']}" if free
                  else "the game has started"))
    c.emit(game, game["id"])


@cli.command()
@click.argument("game_id", metavar="GAME")
@click.option("--seat", metavar="S", help="Take this seat (default: the first free one).")
@pass_ctx
def join(c, game_id, seat):
    """Take a free seat in GAME; the game starts when all seats are filled.

    \b
    Example:
      pbem join k7m2q9xa3b --seat east
    """
    game = c.signed_api().join(game_id, seat)
    if game["status"] == "open":
        free = sum(1 for s in game["seats"] if not s["player"])
        text = f"joined game {game['id']} as {', '.join(game['you'])}; waiting for {free} more " \
               "player(s)"
    else:
        text = f"joined game {game['id']} as {', '.join(game['you'])}; the game has started " \
               f"({_seat_summary(game)})"
    c.emit(game, text)


def _tzinfo(c):
    from zoneinfo import ZoneInfo
    name = c.home.config().get("tz") if c.home.has_key() else None
    if name:
        try:
            return ZoneInfo(name)
        except Exception:  # noqa: BLE001
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


def _deadline(c, game):
    """When the current move is due (aware datetime) or None."""
    from datetime import timedelta
    if game.get("deadline"):
        return _parse_time(game["deadline"])
    if game["status"] != "playing" or not game.get("move_hours"):
        return None
    since = _parse_time(game.get("created_at"))
    if game.get("seq", -1) >= 0:
        try:
            last = c.api.log(game["id"], since=game["seq"], limit=1)["entries"]
            since = _parse_time(last[0].get("received_at")) if last else since
        except Exception:  # noqa: BLE001 - the deadline is a courtesy, not worth failing for
            pass
    return since + timedelta(hours=game["move_hours"]) if since else None


@cli.command()
@click.option("--status", type=click.Choice(["open", "playing", "over"]),
              help="Only games in this state.")
@pass_ctx
def games(c, status):
    """My games: whose move it is and deadlines in my time zone.

    \b
    Example:
      pbem games --status playing
    """
    items = c.signed_api().games(status)
    tz = _tzinfo(c)
    rows = []
    for g in items:
        due = _deadline(c, g)
        g = dict(g, my_move=bool(set(g.get("you") or []) & set(g.get("to_act") or [])),
                 deadline=due.isoformat() if due else g.get("deadline"))
        g["deadline_local"] = due.astimezone(tz).strftime("%a %d %b %H:%M %Z") if due else None
        rows.append(g)
    lines = []
    if rows:
        lines.append(f"{'GAME':<12} {'TYPE':<16} {'STATUS':<8} {'YOU':<8} {'TO ACT':<18} DUE")
    for g in rows:
        if g["status"] == "playing":
            to_act = ("YOU: " if g["my_move"] else "") + ", ".join(g["to_act"])
        elif g["status"] == "over":
            winners = (g.get("result") or {}).get("winners") or []
            to_act = "won by " + ", ".join(winners) if winners else "over"
        else:
            free = sum(1 for s in g["seats"] if not s["player"])
            to_act = f"{free} seat(s) free"
        lines.append(f"{g['id']:<12} {g['type']:<16} {g['status']:<8} "
                     f"{','.join(g.get('you') or []):<8} {to_act:<18} {g['deadline_local'] or ''}"
                     .rstrip())
    if not rows and not c.json:
        c.note("you have no games yet: pbem new TYPE --seats N, or pbem join GAME")
    c.emit(rows, lines)


# --- show, moves ------------------------------------------------------------------------------

def _pick_seat(resp_game, view, wanted):
    """The seat to act as: --seat, else one of mine that owes a move, else my first."""
    if wanted:
        return wanted
    mine = resp_game.get("you") or []
    to_act = (view or {}).get("to_act") or resp_game.get("to_act") or []
    for seat in mine:
        if seat in to_act:
            return seat
    return mine[0] if mine else None


def _stdout_is_tty():
    return sys.stdout.isatty()


def _color_wanted(no_color):
    """Colour only on a terminal, and never with --no-color or NO_COLOR set."""
    return not no_color and not os.environ.get("NO_COLOR") and _stdout_is_tty()


def _render(game_type, view, board, color):
    try:
        game = load_game(game_type)
        return game.render(view, color=color)
    except Exception:  # noqa: BLE001 - an engine missing here: the server's plain board will do
        return board or ""


def _panel(resp, seat):
    game, view = resp["game"], resp["view"]
    lines = []
    if view.get("status") == "over" or game["status"] == "over":
        result = view.get("result") or game.get("result") or {}
        winners = ", ".join(result.get("winners") or []) or "nobody"
        lines.append(f"The game is over; won by {winners}.  Check it: pbem export {game['id']} "
                     f"-o {game['id']}.json && pbem verify {game['id']}.json")
        return lines
    to_act = view.get("to_act") or []
    owes = view.get("owes") or {}
    you = f"You are {seat}." if seat else "You are watching."
    if seat in to_act:
        what = f": {owes[seat]}" if owes.get(seat) else ""
        lines.append(f"{you} It is your move{what}.")
        lines.append(f"  pbem moves {game['id']}   then   pbem play {game['id']} MOVE")
    else:
        waiting = ", ".join(f"{s} ({owes[s]})" if owes.get(s) else s for s in to_act) or "nobody"
        lines.append(f"{you} Waiting for {waiting}.")
    return lines


@cli.command()
@click.argument("game_id", metavar="GAME")
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
    resp = c.fetch_view(game_id, seat)
    game, view = resp["game"], resp["view"]
    if view is None:
        free = [s["seat"] for s in game["seats"] if not s["player"]]
        data = {"game": game["id"], "status": game["status"], "to_act": [],
                "you": resp.get("seat"), "scores": {}, "seats": game["seats"]}
        c.emit(data, [f"{game['type']} game {game['id']} has not started: "
                      f"{len(free)} seat(s) free ({', '.join(free)}).",
                      f"Others join with: pbem join {game['id']}"])
        return
    if c.json:
        c.emit(dict(view, seq=resp["next_seq"] - 1, id=game["id"], type=game["type"]))
        return
    color = _color_wanted(no_color)
    me = resp.get("seat")
    lines = [f"{game['type']} game {game['id']}, {resp['next_seq']} move(s) played"
             + (f", you are {me}" if me else ""),
             _render(game["type"], view, resp.get("board"), color)]
    import textwrap
    for line in _panel(resp, me):
        lines.extend(textwrap.wrap(line, 80, subsequent_indent="  ", break_on_hyphens=False))
    c.emit(None, lines)


@cli.command()
@click.argument("game_id", metavar="GAME")
@click.option("--seat", metavar="S", help="Which of your seats.")
@pass_ctx
def moves(c, game_id, seat):
    """Your legal moves in GAME, one per line, in the game's notation.

    \b
    Example:
      pbem moves k7m2q9xa3b
      pbem play k7m2q9xa3b "$(pbem moves k7m2q9xa3b | head -1)"
    """
    resp = c.signed_api().legal(game_id, seat)
    legal = resp["moves"]
    if not legal and not c.json:
        c.note(f"{resp['seat']} owes no move now in game {game_id} (pbem wait {game_id})")
    c.emit(legal, legal)


# --- play, sync ------------------------------------------------------------------------------

def _entry_line(entry):
    events = "; ".join(entry.get("events") or [])
    return f"move {entry['seq']}: {entry['seat']} {entry['move']}" + \
        (f"  ({events})" if events else "")


def _submit(c, game_id, seat, move, seq, prev, wanted_seat):
    """Sign and post one move; retry once on a stale seq.  Returns the entry."""
    from .api import Conflict, Refused, Forbidden
    from .signing import signed_move
    key = c.home.private_key()
    body = signed_move(key, game_id, seq, prev, seat, move)
    try:
        return c.api.post_move(game_id, body["envelope"], body["signature"])
    except Conflict as exc:
        if exc.code != "stale_seq":
            raise PbemError(f"{move!r} refused: {exc.message}") from None
    except (Refused, Forbidden) as exc:
        raise PbemError(f"{move!r} refused: {exc.message}") from None
    # the game moved on: refetch, and retry once if this seat still owes a move
    resp = c.fetch_view(game_id, wanted_seat)
    if seat not in ((resp.get("view") or {}).get("to_act") or []):
        raise PbemError(f"{move!r} not played: the game moved on and {seat} owes no move now "
                        f"(pbem show {game_id})")
    body = signed_move(key, game_id, resp["next_seq"], resp["prev"], seat, move)
    try:
        return c.api.post_move(game_id, body["envelope"], body["signature"])
    except (Conflict, Refused, Forbidden) as exc:
        raise PbemError(f"{move!r} refused: {exc.message}") from None


def _sign_chain(c, game_id, seat, move_list, seq, prev):
    """Sign ``move_list`` in order from (seq, prev), linking each to the one before."""
    from shared.envelope import entry_hash
    from .signing import signed_move
    key = c.home.private_key()
    out = []
    for move in move_list:
        body = signed_move(key, game_id, seq, prev, seat, move)
        out.append({"game": game_id, "seat": seat, "move": move, "seq": seq, **body})
        prev = entry_hash(body["envelope"].encode("utf-8"), body["signature"])
        seq += 1
    return out, seq, prev


@cli.command()
@click.argument("game_id", metavar="GAME")
@click.argument("move_list", metavar="MOVE...", nargs=-1, required=True)
@click.option("--seat", metavar="S", help="Play for this seat (if you hold several).")
@click.option("--offline", is_flag=True,
              help="Sign against the last fetched state and queue in the outbox (pbem sync).")
@click.option("--armor", is_flag=True,
              help="Print the signed move(s) as armoured text for an email; do not submit.")
@pass_ctx
def play(c, game_id, move_list, seat, offline, armor):
    """Sign and submit one or several moves in GAME, in order.

    Each MOVE is one argument: quote moves that contain spaces.  A refused
    move prints the rules' reason and exits 1; moves after it are not sent.

    \b
    Examples:
      pbem play k7m2q9xa3b roll roll hold
      pbem play k7m2q9xa3b "road 14-22"
      pbem play --offline k7m2q9xa3b hold     # queue now, pbem sync later
      pbem play --armor k7m2q9xa3b hold       # print a block to paste into an email
    """
    from .armor import encode_block
    c.identity()  # only a registered player signs moves
    if offline:
        resp = c.home.cached_view(c.server, game_id)
        if resp is None:
            raise PbemError(f"no fetched state of game {game_id} in this home: run pbem show "
                            f"{game_id} once while online")
    else:
        resp = c.fetch_view(game_id, seat)
    if resp.get("view") is None:
        raise PbemError(f"game {game_id} has not started yet: seats are still free")
    if (resp.get("view") or {}).get("status") == "over" and not offline:
        raise PbemError(f"game {game_id} is over")
    me = _pick_seat(resp["game"], resp["view"], seat)
    if me is None:
        raise PbemError(f"you hold no seat in game {game_id}")
    if armor:
        signed, _, _ = _sign_chain(c, game_id, me, move_list, resp["next_seq"], resp["prev"])
        blocks = [encode_block(s["game"], s["envelope"], s["signature"]) for s in signed]
        c.emit([{"game": s["game"], "envelope": s["envelope"], "signature": s["signature"]}
                for s in signed], "".join(blocks).rstrip("\n"))
        return
    if offline:
        if me not in ((resp.get("view") or {}).get("to_act") or []):
            c.note(f"note: when last fetched, {me} owed no move in game {game_id}; the server "
                   "will judge when you sync")
        signed, seq, prev = _sign_chain(c, game_id, me, move_list, resp["next_seq"],
                                        resp["prev"])
        outbox = c.home.outbox()
        outbox.extend(dict(s, server=c.server) for s in signed)
        c.home.save_outbox(outbox)
        c.home.cache_view(c.server, game_id, dict(resp, next_seq=seq, prev=prev))
        if not c.json:
            c.note(f"queued {len(signed)} move(s) for game {game_id} as {me}; "
                   "send them with pbem sync")
        c.emit([{"game": game_id, "seat": me, "move": s["move"], "seq": s["seq"],
                 "queued": True} for s in signed],
               [f"queued move {s['seq']}: {me} {s['move']}" for s in signed])
        return
    seq, prev = resp["next_seq"], resp["prev"]
    played = []
    try:
        for move in move_list:
            entry = _submit(c, game_id, me, move, seq, prev, seat)
            played.append(entry)
            if not c.json:
                click.echo(_entry_line(entry))
            seq, prev = entry["seq"] + 1, entry["hash"]
    finally:
        if c.json:
            c.emit([{k: e.get(k) for k in ("seq", "seat", "move", "events", "hash")}
                    for e in played])


@cli.command()
@pass_ctx
def sync(c):
    """Submit the moves queued with play --offline and report what happened.

    Moves are sent in the order they were queued.  If a game moved on
    meanwhile, a move is re-signed on the fresh state and sent once more
    while its seat still owes a move.  After a refused move the later
    queued moves of that game are dropped (they assumed it).  Exits 1 if any
    move was refused.

    \b
    Example:
      pbem play --offline k7m2q9xa3b roll && pbem sync
    """
    from .api import ApiError, ServerUnreachable
    outbox = c.home.outbox()
    mine = [item for item in outbox if item.get("server", c.server) == c.server]
    others = [item for item in outbox if item.get("server", c.server) != c.server]
    if not mine:
        c.emit({"accepted": [], "refused": [], "skipped": []}, None)
        if not c.json:
            c.note("the outbox is empty: nothing to send")
        return
    c.signed_api()
    key = c.home.private_key()
    accepted, refused, skipped = [], [], []
    chain, failed = {}, set()
    remaining = list(mine)
    lines = []
    while remaining:
        item = remaining[0]
        game_id, seat, move = item["game"], item["seat"], item["move"]
        if game_id in failed:
            skipped.append(dict(_public(item), reason="an earlier queued move of this game was "
                                                      "refused"))
            lines.append(f"skipped {game_id} {seat} {move}: an earlier move was refused")
        else:
            try:
                entry = _sync_one(c, key, item, chain.get(game_id))
            except ServerUnreachable:
                c.home.save_outbox(others + remaining)
                raise
            except ApiError as exc:
                failed.add(game_id)
                refused.append(dict(_public(item), reason=exc.message))
                lines.append(f"refused {game_id} {seat} {move}: {exc.message}")
            else:
                chain[game_id] = (entry["seq"] + 1, entry["hash"])
                accepted.append(dict(_public(item), seq=entry["seq"],
                                     events=entry.get("events") or []))
                lines.append(f"accepted {game_id} " + _entry_line(entry))
        remaining.pop(0)
        c.home.save_outbox(others + remaining)
    c.emit({"accepted": accepted, "refused": refused, "skipped": skipped}, lines)
    if refused or skipped:
        raise PbemError(f"{len(refused)} queued move(s) refused, {len(skipped)} skipped; "
                        f"{len(accepted)} accepted")


def _sync_one(c, key, item, chain):
    """Post one queued move (re-signed on ``chain`` = (seq, prev) when the game moved on)."""
    from .api import ApiError, Conflict
    from .signing import signed_move
    game_id, seat, move = item["game"], item["seat"], item["move"]
    env = json.loads(item["envelope"])
    body = {"envelope": item["envelope"], "signature": item["signature"]}
    if chain is not None and (env["seq"], env["prev"]) != chain:
        body = signed_move(key, game_id, chain[0], chain[1], seat, move)
    try:
        return c.api.post_move(game_id, body["envelope"], body["signature"])
    except Conflict as exc:
        if exc.code != "stale_seq":
            raise
    resp = c.fetch_view(game_id)
    if seat not in ((resp.get("view") or {}).get("to_act") or []):
        raise ApiError(f"the game moved on and {seat} owes no move now")
    body = signed_move(key, game_id, resp["next_seq"], resp["prev"], seat, move)
    return c.api.post_move(game_id, body["envelope"], body["signature"])


def _public(item):
    return {"game": item["game"], "seat": item["seat"], "move": item["move"]}


# --- wait -------------------------------------------------------------------------------------

class _Spinner:
    FRAMES = "|/-\\"

    def __init__(self, enabled):
        self.enabled = enabled
        self.i = 0
        self.shown = False

    def tick(self, text):
        if self.enabled:
            self.i += 1
            click.echo(f"\r{self.FRAMES[self.i % 4]} {text}\033[K", err=True, nl=False)
            self.shown = True

    def clear(self):
        if self.shown:
            click.echo("\r\033[K", err=True, nl=False)
            self.shown = False


@cli.command()
@click.argument("game_id", metavar="GAME")
@click.option("--timeout", type=click.FloatRange(0), metavar="SECONDS",
              help="Give up after this long (exit 3).  Default: wait for ever.")
@click.option("--interval", type=click.FloatRange(0.05), default=2.0, show_default=True,
              metavar="SECONDS", help="First polling interval; it grows to 60s while nothing "
                                      "happens.")
@click.option("--seat", metavar="S", help="Wait for this seat only.")
@pass_ctx
def wait(c, game_id, timeout, interval, seat):
    """Block until you must act in GAME (exit 0); exit 1 if the game ends, 3 on timeout.

    Polls politely (backing off while nothing changes) and shows a spinner on
    a terminal.

    \b
    Example:
      while pbem wait k7m2q9xa3b; do pbem play k7m2q9xa3b hold; done
      pbem wait k7m2q9xa3b --timeout 3600 || echo "not yet"
    """
    from .api import RateLimited, ServerError, ServerUnreachable
    api = c.signed_api()
    start = time.monotonic()
    delay = interval
    spinner = _Spinner(sys.stderr.isatty() and not c.json)
    game = api.game(game_id)
    if not game.get("you"):
        raise PbemError(f"you hold no seat in game {game_id}")
    last_seq = game.get("seq")
    warned = False
    try:
        while True:
            mine = [seat] if seat else game.get("you") or []
            if game["status"] == "over":
                winners = ", ".join((game.get("result") or {}).get("winners") or []) or "nobody"
                spinner.clear()
                c.emit({"game": game_id, "status": "over", "result": game.get("result")})
                raise PbemError(f"game {game_id} is over (won by {winners})")
            due = [s for s in mine if s in (game.get("to_act") or [])]
            if game["status"] == "playing" and due:
                spinner.clear()
                resp = c.fetch_view(game_id, due[0])
                c.emit({"game": game_id, "seat": due[0], "to_act": resp["view"]["to_act"],
                        "next_seq": resp["next_seq"]},
                       f"your move in game {game_id} ({due[0]})")
                return
            elapsed = time.monotonic() - start
            if timeout is not None and elapsed >= timeout:
                spinner.clear()
                c.emit({"game": game_id, "status": "timeout", "to_act": game.get("to_act")})
                raise WaitTimeout(f"timed out after {timeout:g}s waiting for your move in game "
                                  f"{game_id}")
            pause = delay if timeout is None else min(delay, timeout - elapsed)
            waiting_for = ", ".join(game.get("to_act") or []) or "players to join"
            end = time.monotonic() + pause
            while time.monotonic() < end:
                spinner.tick(f"waiting for {waiting_for} ({int(time.monotonic() - start)}s)")
                time.sleep(max(0.0, min(0.25, end - time.monotonic())))
            try:
                game = api.game(game_id)
            except (ServerUnreachable, ServerError, RateLimited) as exc:
                if not warned:
                    spinner.clear()
                    c.note(f"pbem: {exc.message}; still trying")
                    warned = True
                retry = getattr(exc, "retry_after", None)
                delay = min(60.0, max(delay * 2, retry or 0))
                continue
            if game.get("seq") != last_seq:
                last_seq, delay = game.get("seq"), interval
            else:
                delay = min(60.0, delay * 1.5)
    finally:
        spinner.clear()


# --- log, export, verify ----------------------------------------------------------------------

def _check_log(game_id, entries, head):
    """The log's own links and hashes agree with each other and with the signed head."""
    from shared.envelope import entry_hash
    from .heads import HistoryError
    prev = None
    for e in entries:
        if entry_hash(e["envelope"].encode("utf-8"), e["signature"]) != e["hash"] or \
                (prev is not None and e["prev"] != prev):
            raise HistoryError(f"the log of game {game_id} is inconsistent at move {e['seq']}: "
                               "its hash chain is broken")
        prev = e["hash"]
    if head is not None and entries and (head["length"] != entries[-1]["seq"] + 1
                                         or head["hash"] != prev):
        raise HistoryError(f"the log of game {game_id} does not end at the server's signed head")


@cli.command()
@click.argument("game_id", metavar="GAME")
@pass_ctx
def log(c, game_id):
    """The moves of GAME so far, with what they caused as you may see it.

    \b
    Example:
      pbem log k7m2q9xa3b
      pbem --json log k7m2q9xa3b | jq -r '.[].move'
    """
    resp = c.api.log(game_id)
    c.heads.check(game_id, resp.get("head"))
    entries = resp["entries"]
    _check_log(game_id, entries, resp.get("head"))
    lines = []
    for e in entries:
        events = "; ".join(e.get("events") or [])
        forced = " (forced)" if e.get("forced") else ""
        lines.append(f"{e['seq']:>4}  {e['seat']:<10} {e['move']}{forced}"
                     + (f"  -- {events}" if events else ""))
    if not entries and not c.json:
        c.note(f"no moves yet in game {game_id}")
    c.emit(entries, lines)


@cli.command()
@click.argument("game_id", metavar="GAME")
@click.option("-o", "--output", required=True, metavar="FILE", type=click.Path(dir_okay=False),
              help="Where to write the archive ('-' for stdout).")
@pass_ctx
def export(c, game_id, output):
    """Write the archive of GAME (every signed move; the seed once it is over) to FILE.

    \b
    Example:
      pbem export k7m2q9xa3b -o game.json && pbem verify game.json
    """
    from .home import atomic_write
    archive = c.api.archive(game_id)
    c.heads.check(game_id, archive.get("head"))
    text = json.dumps(archive, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if output == "-":
        click.echo(text, nl=False)
    else:
        try:
            atomic_write(output, text, mode=0o644)
        except OSError as exc:
            raise PbemError(f"cannot write {output}: {exc.strerror or exc}") from None
        state = "finished" if archive.get("seed") else "running"
        summary = {"game": game_id, "file": output, "entries": len(archive["entries"]),
                   "finished": bool(archive.get("seed"))}
        if c.json:
            c.emit(summary)
        else:
            c.note(f"wrote {len(archive['entries'])} move(s) of {state} game {game_id} "
                   f"to {output}")


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--no-color", is_flag=True, help="Plain text even on a terminal.")
@pass_ctx
def verify(c, file, no_color):
    """Check an archive offline: seed, signatures, hash links and a full replay.

    Needs no server.  Prints the final board, or exits 1 naming the first
    fault.  For a game still running (no seed revealed yet) it checks the
    signatures and links and says the full replay waits for the end.

    \b
    Example:
      pbem verify game.json
    """
    from shared.archive import ArchiveError, verify_archive
    try:
        with click.open_file(file, encoding="utf-8") as fh:
            archive = json.load(fh)
    except OSError as exc:
        raise PbemError(f"cannot read {file}: {exc.strerror or exc}") from None
    except ValueError:
        raise PbemError(f"{file} is not an archive: it is not JSON") from None
    header = archive.get("header") if isinstance(archive, dict) else None
    if isinstance(header, dict) and header.get("type"):
        try:
            load_game(header["type"])  # registers PBEM_EXTRA_GAMES
        except Exception:  # noqa: BLE001 - verify_archive names an unknown type itself
            pass
    try:
        report = verify_archive(archive)
    except ArchiveError as exc:
        if c.json:
            c.emit({"ok": False, "file": file, "error": exc.message, "index": exc.index})
        raise PbemError(f"{file}: {exc.message}") from None
    game = report["game"]
    data = {"ok": True, "file": file, "game": header["game"], "type": header["type"],
            "entries": report["entries"], "replayed": report["replayed"],
            "result": report["result"]}
    if not report["replayed"]:
        c.emit(data, f"{file}: signatures and hash links of {report['entries']} move(s) hold; "
                     f"game {header['game']} is still running, so the full replay waits for the "
                     "end (the seed is revealed then).")
        return
    color = _color_wanted(no_color)
    winners = ", ".join((report["result"] or {}).get("winners") or []) or "nobody"
    c.emit(data, [game.render(report["view"], color=color),
                  f"{file}: verified {report['entries']} move(s) of {header['type']} game "
                  f"{header['game']}: the seed matches its commitment, every signature and "
                  f"hash link holds, and the replay agrees; won by {winners}."])


# --- rules ------------------------------------------------------------------------------------

@cli.command()
@click.argument("game_type", metavar="TYPE", required=False)
@pass_ctx
def rules(c, game_type):
    """A short help for TYPE's move notation, with examples (no TYPE: list the games).

    \b
    Example:
      pbem rules zarahemla
    """
    if not game_type:
        names = known_types()
        c.emit(names, names)
        return
    try:
        game = load_game(game_type)
    except KeyError:
        raise PbemError(f"there is no game called {game_type!r}; this client knows "
                        f"{', '.join(known_types()) or 'none'}") from None
    data = {"name": game.name, "title": game.title, "min_seats": game.min_seats,
            "max_seats": game.max_seats, "options": game.options_schema,
            "help": game.rules_help()}
    lines = [f"{game.title or game.name} ({game.name}): {game.min_seats} to {game.max_seats} "
             "players"]
    for key, spec in (game.options_schema or {}).items():
        lines.append(f"  --option {key}=...  {spec.get('help', '')} "
                     f"(default {spec.get('default')!r})")
    lines += ["", game.rules_help().strip()]
    c.emit(data, lines)


# --- completion -----------------------------------------------------------------------------

def main(argv=None):
    """The console script ``pbem``."""
    return cli.main(args=argv, prog_name="pbem")


if __name__ == "__main__":  # pragma: no cover
    main()
