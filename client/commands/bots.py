"""``pbem bot``: play your own seat with a local bot, signed with your own key.

The bot sees exactly what ``pbem show`` fetches (your seat's view) and the legal moves the
server lists for your seat (``pbem moves``), nothing else, and chooses with the rules
library's bots (``shared.bots.choose_move``).  Each move is signed with your key and sent
like ``pbem play`` (or queued in the outbox with ``--offline``, like ``pbem play --offline``).
"""

import random
import secrets
import time

import click

from ..completion import complete_game
from ..context import GAME_ID, PbemError, UsageProblem, pass_ctx

LEVELS = ("random", "greedy", "strong")


def _legal_for(c, resp, me, game_id, online):
    """The legal moves the server listed for ``me`` at the fetched state, or None."""
    legal = resp.get("legal")
    if isinstance(legal, dict) and legal.get("seat") == me and \
            legal.get("next_seq") == resp.get("next_seq") and \
            isinstance(legal.get("moves"), list) and \
            all(isinstance(m, str) for m in legal["moves"]):
        return list(legal["moves"])
    if not online:
        return None
    got = c.api.legal(game_id, me)
    if got.get("seat") == me and got.get("next_seq") == resp.get("next_seq"):
        return list(got.get("moves") or [])
    return None  # the game moved on between the two requests: fetch again


class _Bot:
    """Chooses moves for one seat: the level, a generator, a time budget per move."""

    def __init__(self, rules, level, seed, seconds, note):
        self.note = note
        self.rules = rules
        self.level = level
        self.seed = seed
        self.seconds = seconds
        if rules is not None:
            # this command's own bot plays the strongest level the game has up to --level,
            # and says so on stderr when that is a weaker one (never silently)
            from shared.bots import levels
            have = levels(rules)
            playable = [lv for lv in have if LEVELS.index(lv) <= LEVELS.index(level)]
            if playable and playable[-1] != level:
                self.level = playable[-1]
                note(f"pbem: {rules.name} has no {level} bot (its levels are "
                     f"{', '.join(have)}): playing {self.level}")

    def rng(self, game_id, seq):
        if self.seed is None:
            return random.Random(secrets.randbits(64))
        return random.Random(f"{self.seed}:{game_id}:{seq}")

    def choose(self, view, me, legal, rng):
        from shared.bots import BotError, choose_move, legal_or_again, may_play
        budget = {"seconds": self.seconds, "clock": time.monotonic}
        try:
            move = legal_or_again(self.rules, view, me, legal, rng, self.level, budget,
                                  choose=choose_move)
        except BotError as exc:
            raise PbemError(f"the bot cannot move: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - a bug in a bot: a random legal move instead
            self.note(f"pbem: the {self.level} bot failed ({exc.__class__.__name__}: {exc}); "
                      "playing a random legal move instead")
            move = None
        if not may_play(self.rules, move, legal):  # never sign what the rules cannot judge
            if move is not None:
                self.note(f"pbem: the {self.level} bot chose {move!r}, which is not a legal "
                          "move; playing a random legal move instead")
            move = choose_move(self.rules, view, me, legal, rng, "random")
        return move


def _rules(c, resp):
    """The rules library's game: the bot cannot choose without it."""
    from ..precheck import rules_for
    rules = rules_for(resp, required=False)
    if rules is None:
        game = resp.get("game") or {}
        raise PbemError(f"this client's rules library cannot play {game.get('type')!r} under "
                        f"rules version {game.get('rules_version') or '1'}, so its bots "
                        "cannot either: update pbem")
    return rules


def _play_one(c, bot, game_id, resp, me, legal):
    """Choose, sign and post one move at the fetched state.  Returns the entry, or None when
    the game moved on first (the caller fetches again)."""
    from ..api import Conflict, Forbidden, Refused
    from ..poster import MovedOn, Poster
    poster = Poster(c, rules=bot.rules)
    view = resp["view"]
    rng = bot.rng(game_id, resp["next_seq"])
    move = bot.choose(view, me, legal, rng)
    tried = []
    while True:
        try:
            return poster.post(game_id, me, move, at=resp)
        except MovedOn:
            return None
        except Conflict as exc:
            if exc.code in ("stale_seq", "game_over"):
                return None
            raise PbemError(f"the bot's move {move!r} was refused: {exc.message}") from None
        except (Refused, Forbidden) as exc:
            # the rules refused a listed move (should never happen): say so, try another once
            tried.append(move)
            c.note(f"pbem: the server refused the bot's move {move!r}: {exc.message}")
            others = [m for m in legal if m not in tried]
            if len(tried) > 1 or not others or isinstance(exc, Forbidden):
                raise PbemError(f"the bot's move {move!r} was refused: {exc.message}") \
                    from None
            move = rng.choice(sorted(others))
            c.note(f"pbem: playing a random legal move instead: {move}")


def _until_moved(c, game_id, game, pause, push):
    """Wait for the other players: the server's long poll answers when the game moves on;
    without one (or while the server cannot answer), a pause of ``pause`` seconds."""
    from ..api import RateLimited, ServerError, ServerUnreachable
    from ..waiting import until_moved
    try:
        until_moved(c.api, game_id, game.get("seq"), game.get("status"),
                    pause if not push.get("on", True) else None, push)
    except (ServerUnreachable, ServerError, RateLimited):
        time.sleep(pause)


def _over_line(game_id, game, view):
    result = (view or {}).get("result") or game.get("result") or {}
    winners = ", ".join(result.get("winners") or []) or "nobody"
    return f"game {game_id} is over (won by {winners})"


@click.command("bot")
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@click.option("--level", type=click.Choice(LEVELS), default="greedy", show_default=True,
              help="How the bot plays (a game without bots of that level uses the level "
                   "below, said on stderr).")
@click.option("--seat", metavar="S", help="Play this seat (if you hold several).")
@click.option("--until-end", is_flag=True,
              help="Play every move the seat owes until the game ends, waiting for the "
                   "others between.")
@click.option("--offline", is_flag=True,
              help="Choose from the state and legal moves fetched last (pbem show) and queue "
                   "the move in the outbox (pbem sync).")
@click.option("--seed", metavar="TEXT", help="Seed the bot's choices (the same seed and "
                                             "state give the same move).")
@click.option("--seconds", type=click.FloatRange(0.01, 600), default=2.0, show_default=True,
              help="Time a searching bot may think per move.")
@click.option("--interval", type=click.FloatRange(0.05), default=2.0, show_default=True,
              metavar="SECONDS", help="With --until-end: first polling interval while others "
                                      "move; it grows to 30s while nothing happens.")
@pass_ctx
def bot(c, game_id, level, seat, until_end, offline, seed, seconds, interval):
    """Let a local bot play your seat in GAME, signed with your key.

    Without --until-end the bot plays one move, if your seat owes one (exit
    1 if it owes none).  With --until-end it plays every move your seat owes
    until the game is over, waiting for the other players between, and
    exits 0 at the end.  Each move is printed as pbem play prints it.

    \b
    Examples:
      pbem bot k7m2q9xa3b                       # one move, chosen by the greedy bot
      pbem bot k7m2q9xa3b --until-end --level strong
      pbem bot --offline k7m2q9xa3b && pbem sync
    """
    if offline and until_end:
        raise UsageProblem("--offline plays one move (the state after it is not known "
                           "offline): leave out --until-end")
    c.identity()  # only a registered player signs moves
    if offline:
        return _offline(c, game_id, level, seat, seed, seconds)
    from ..api import ApiError, RateLimited, ServerError, ServerUnreachable
    from ..poster import advance_cache, entry_json, entry_line
    from ..seats import pick_seat
    played = []
    bot_ = None
    delay = interval
    warned = failed = False
    push = {"on": True}  # the server's long poll, until it shows it has none
    try:
        while True:
            try:
                resp = c.fetch_view(game_id, seat, legal=True)
            except (ServerUnreachable, ServerError, RateLimited) as exc:
                if not (until_end and played):
                    raise
                if not warned:  # an outage in a long run: wait it out, as pbem wait does
                    c.note(f"pbem: {exc.message}; still trying")
                    warned = True
                time.sleep(delay)
                delay = min(30.0, delay * 2)
                continue
            warned = False
            game, view = resp["game"], resp.get("view")
            if view is None:
                if not until_end:
                    raise PbemError(f"game {game_id} has not started yet: seats are still "
                                    "free")
                _until_moved(c, game_id, game, delay, push)
                delay = min(30.0, delay * 1.5)
                continue
            if view.get("status") == "over" or game.get("status") == "over":
                if until_end:
                    if not c.json:
                        click.echo(_over_line(game_id, game, view))
                    return
                raise PbemError(_over_line(game_id, game, view))
            me = pick_seat(game, view, seat)
            if me is None:
                raise PbemError(f"you hold no seat in game {game_id}")
            if me not in (view.get("to_act") or []):
                if not until_end:
                    raise PbemError(f"{me} owes no move in game {game_id} now (pbem wait "
                                    f"{game_id} waits for it; pbem bot --until-end plays "
                                    "every turn)")
                _until_moved(c, game_id, game, delay, push)
                delay = min(30.0, delay * 1.5)
                continue
            delay = interval
            if bot_ is None:
                bot_ = _Bot(_rules(c, resp), level, seed, seconds, c.note)
            try:
                legal = _legal_for(c, resp, me, game_id, online=True)
            except ApiError as exc:
                raise PbemError(f"cannot fetch the legal moves of {me}: {exc.message}") \
                    from None
            if legal is None:
                continue  # the game moved on between the view and the list: fetch again
            if not legal:
                raise PbemError(f"the server lists no legal move for {me} in game {game_id}, "
                                "though it owes one")
            entry = _play_one(c, bot_, game_id, resp, me, legal)
            if entry is None:
                continue
            played.append(entry)
            advance_cache(c, game_id, resp, entry["seq"] + 1, entry["hash"])
            if not c.json:
                click.echo(entry_line(entry))
            if not until_end:
                return
    except PbemError as exc:
        # --json: the moves the bot played before the failure are in the error's details
        exc.details = dict(exc.details, played=[entry_json(e) for e in played])
        failed = True
        raise
    finally:
        if c.json and not failed:
            c.emit([entry_json(e) for e in played])


def _offline(c, game_id, level, seat, seed, seconds):
    """One move from the fetched state and legal moves, queued in the outbox."""
    from ..poster import advance_cache, queue, sign_chain
    from ..seats import pick_seat
    resp = c.home.cached_view(c.server, game_id)
    if resp is None or resp.get("view") is None:
        raise PbemError(f"no fetched state of game {game_id} in this home: run pbem show "
                        f"{game_id} once while online")
    view = resp["view"]
    if view.get("status") == "over":
        raise PbemError(f"game {game_id} was over when last fetched")
    me = pick_seat(resp["game"], view, seat)
    if me is None:
        raise PbemError(f"you hold no seat in game {game_id}")
    if resp.get("view_next_seq", resp.get("next_seq")) != resp.get("next_seq"):
        raise PbemError(f"moves were queued or played since game {game_id} was last fetched, "
                        f"so the bot does not know the state: pbem sync, then pbem show "
                        f"{game_id}")
    if me not in (view.get("to_act") or []):
        raise PbemError(f"when last fetched, {me} owed no move in game {game_id}")
    legal = _legal_for(c, resp, me, game_id, online=False)
    if not legal:
        raise PbemError(f"no legal moves of {me} were fetched with the state of game "
                        f"{game_id}: run pbem show {game_id} once while online")
    bot_ = _Bot(_rules(c, resp), level, seed, seconds, c.note)
    move = bot_.choose(view, me, legal, bot_.rng(game_id, resp["next_seq"]))
    signed, seq, prev = sign_chain(c, game_id, me, [move], resp["next_seq"], resp["prev"])
    queue(c, signed)
    advance_cache(c, game_id, resp, seq, prev)
    if not c.json:
        c.note(f"queued the bot's move for game {game_id} as {me}; send it with pbem sync")
    c.emit([{"game": game_id, "seat": me, "move": s["move"], "seq": s["seq"], "queued": True}
            for s in signed], [f"queued move {s['seq'] + 1}: {me} {s['move']}" for s in signed])


@click.command("watch")
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@click.option("--quiet", "-q", is_flag=True, help="Print only the end of the game, not each "
                                                   "move.")
@click.option("--timeout", type=click.FloatRange(0), metavar="SECONDS",
              help="Give up after this long (exit 3).  Default: watch to the end.")
@click.option("--interval", type=click.FloatRange(0.05), default=1.0, show_default=True,
              metavar="SECONDS", help="First polling interval; it grows to 30s while "
                                      "nothing happens.")
@pass_ctx
def watch(c, game_id, quiet, timeout, interval):
    """Follow GAME to its end, printing each move (a game of bots only, or any game).

    Prints every move as pbem log does (as you may see it: a game you hold no
    seat in is shown as to a spectator), then the result, and exits 0 when the
    game is over (3 on --timeout).  With pbem new TYPE --seats N --bots N the
    server's bots play every seat, so this tests a strategy from the shell.

    \b
    Examples:
      GAME=$(pbem new zarahemla --seats 2 --bots 2 --bot-level strong)
      pbem watch "$GAME"
      pbem watch "$GAME" --quiet --timeout 600
    """
    from ..api import RateLimited, ServerError, ServerUnreachable
    from ..context import WaitTimeout
    from ..numbers import joined_events, shown_text
    from ..waiting import until_moved
    push = {"on": True}
    start = time.monotonic()
    delay = interval
    since = 0
    seen = []
    warned = False
    while True:
        try:
            game = c.api.game(game_id)
            resp = c.api.log(game_id, since=since)
        except (ServerUnreachable, ServerError, RateLimited) as exc:
            if not seen and not warned and isinstance(exc, ServerUnreachable):
                raise
            if not warned:
                c.note(f"pbem: {exc.message}; still trying")
                warned = True
            time.sleep(delay)
            delay = min(30.0, delay * 2)
            continue
        warned = False
        entries = [e for e in resp.get("entries") or [] if e.get("seq", -1) >= since]
        for e in entries:
            seen.append(e)
            if not quiet and not c.json:
                events = joined_events(e)
                click.echo(f"{e['seq'] + 1:>4}  {e['seat']:<10} {shown_text(e['move'])}"
                           + (f"  -- {events}" if events else ""))
        if entries:
            since = entries[-1]["seq"] + 1
            delay = interval
        if game.get("status") == "over" and not entries:
            result = game.get("result") or {}
            if c.json:
                c.emit({"game": game_id, "status": "over", "result": result,
                        "moves": len(seen)})
            else:
                click.echo(_over_line(game_id, game, None) + f" after {since} move(s)")
            return
        if timeout is not None and time.monotonic() - start >= timeout:
            raise WaitTimeout(f"timed out after {timeout:g}s watching game {game_id} "
                              f"({since} move(s) played)",
                              details={"game": game_id, "status": game.get("status"),
                                       "moves": since})
        if not entries:
            pause = delay if timeout is None else \
                max(0.0, min(delay, timeout - (time.monotonic() - start)))
            # the server's long poll answers when the game moves on (Api.wait); without one,
            # a pause that grows while nothing happens
            if push.get("on", True):
                left = None if timeout is None else \
                    max(0.0, timeout - (time.monotonic() - start))
                try:
                    until_moved(c.api, game_id, since - 1, game.get("status"), left, push)
                except (ServerUnreachable, ServerError, RateLimited):
                    time.sleep(pause)
                continue
            time.sleep(pause)
            delay = min(30.0, delay * 1.5)


@click.command("leave")
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@click.option("--to-bot", is_flag=True,
              help="Give the seat to the server's bot (required: a started game's seat goes "
                   "to a bot, never empty).")
@click.option("--level", type=click.Choice(LEVELS), default="greedy", show_default=True,
              help="The bot that takes the seat (a game without bots of that level gets the "
                   "level below).")
@click.option("--seat", metavar="S", help="The seat to hand over (if you hold several).")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation (it cannot be undone).")
@pass_ctx
def leave(c, game_id, to_bot, level, seat, yes):
    """Hand your seat in GAME to one of the server's bots, which plays it from then on.

    Signs a @handover entry with your key: from it on, the seat belongs to the
    server's bot account (bot-random, bot-greedy or bot-strong), which plays
    every move the seat owes within seconds.  You owe nothing in the game any
    more and get no notices for the seat; you can still follow it as anyone
    can (pbem show GAME, pbem watch GAME).  A rated game becomes unrated.  It
    cannot be undone.

    \b
    Examples:
      pbem leave k7m2q9xa3b --to-bot
      pbem leave k7m2q9xa3b --to-bot --level strong --yes
    """
    if not to_bot:
        raise UsageProblem("a started game's seat can only be handed to a bot: pbem leave "
                           f"{game_id} --to-bot")
    c.identity()  # only a registered player signs the handover
    from ..api import ApiError
    from ..poster import Poster, advance_cache, entry_line
    from ..seats import pick_seat
    resp = c.fetch_view(game_id, seat)
    game, view = resp["game"], resp.get("view")
    if game.get("status") == "open" or view is None:
        raise PbemError(f"game {game_id} has not started yet: seats are still free, and a "
                        "seat is handed to a bot only once the game is played")
    if view.get("status") == "over" or game.get("status") == "over":
        raise PbemError(f"game {game_id} is over: there is no seat to hand over")
    mine = game.get("you") or []
    me = pick_seat(game, view, seat)
    if me is None or me not in mine:
        raise PbemError(f"you hold no seat {seat} in game {game_id}" if seat else
                        f"you hold no seat in game {game_id}")
    accounts = c.api.bots(game.get("type"))
    have = [lv for lv in accounts.get("levels") or [] if lv in LEVELS]
    below = [lv for lv in have if LEVELS.index(lv) <= LEVELS.index(level)]
    if not below:
        raise PbemError(f"the server has no bot for {game.get('type')} up to level {level}")
    chosen = below[-1]
    bot_ = next((b for b in accounts.get("bots") or [] if b.get("level") == chosen), None)
    if bot_ is None:
        raise PbemError(f"the server did not send the {chosen} bot's key")
    if chosen != level and not c.json:
        c.note(f"pbem: {game.get('type')} has no {level} bot; {bot_['player']} takes the seat")
    if not yes:
        try:
            sure = click.confirm(f"Hand {me} in game {game_id} to {bot_['player']} for good?",
                                 default=False, err=True)
        except click.Abort:  # no answer (end of input): nothing is handed over
            sure = False
        if not sure:
            raise PbemError(f"not handed over: {me} is still yours (pbem leave {game_id} "
                            "--to-bot --yes does it without asking)")
    text = f"@handover {bot_['player']} {bot_['public_key']}"
    try:
        entry = Poster(c).post(game_id, me, text, at=resp)
    except ApiError as exc:
        raise PbemError(f"not handed over: {exc.message}") from None
    advance_cache(c, game_id, resp, entry["seq"] + 1, entry["hash"])
    if not c.json:
        click.echo(entry_line(entry))
        c.note(f"{me} in game {game_id} is now played by {bot_['player']}; you hold no seat "
               f"in it any more (follow it with pbem watch {game_id})")
    c.emit({"game": game_id, "seat": me, "bot": bot_["player"], "seq": entry["seq"],
            "hash": entry["hash"]})
