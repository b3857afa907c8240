"""Commands that move: play (online, --offline, --armor), sync and wait."""

import json
import sys
import time

import click

from ..completion import complete_game, complete_move
from ..context import GAME_ID, PbemError, UsageProblem, WaitTimeout, pass_ctx

# --- play, sync ------------------------------------------------------------------------------

def _check_texts(move_list):
    """Refuse texts no envelope can carry, before anything is fetched or signed."""
    from shared.envelope import MAX_MOVE_LENGTH
    for i, move in enumerate(move_list, 1):
        which = f"move {i}" if len(move_list) > 1 else "the move"
        if not move.strip():
            raise PbemError(f"{which} is empty: give a move in the game's notation "
                            "(pbem moves GAME lists them)")
        if len(move) > MAX_MOVE_LENGTH:
            raise PbemError(f"{which} is {len(move)} characters long; a move is at most "
                            f"{MAX_MOVE_LENGTH}")




def _quoting_hint(c, rules, game_id, move_list):
    """Refuse arguments that only make moves when joined: the player forgot the quotes."""
    from shared import IllegalMove

    from ..precheck import parse, split_hint
    groups = split_hint(rules, move_list)
    if not groups:
        _unparsed_words(rules, game_id, move_list)
        return
    joined = next(g for g in groups if len(g) > 1)
    alone = joined[0]
    for arg in joined:
        try:
            parse(rules, arg)
        except IllegalMove:
            alone = arg
            break
    quoted = " ".join(_shell_quote(" ".join(g)) for g in groups)
    raise UsageProblem(f"{alone!r} is not a move on its own, but {' '.join(joined)!r} is: a "
                       f"move with spaces must be quoted, as in: pbem play {game_id} {quoted}")


def _unparsed_words(rules, game_id, move_list):
    """Refuse two or more neighbouring single words none of which is a move alone and whose
    join is no move either (``road 1 99``, ``settle 99``): the player forgot the quotes as
    well, and the rules' reason for the word alone ("write road and a path") would send
    them looking for the mistake in the wrong place.  The reason given is the join's."""
    from shared import IllegalMove

    from ..precheck import parse

    def lone_word(text):
        if not text.strip() or len(text.split()) != 1:
            return False
        try:
            parse(rules, text)
            return False
        except IllegalMove:
            return True

    if len(move_list) < 2:
        return
    for i, arg in enumerate(move_list):
        if not lone_word(arg):
            continue
        j = i + 1
        while j < len(move_list) and lone_word(move_list[j]):
            j += 1
        if j - i < 2:
            continue
        joined = " ".join(move_list[i:j])
        try:
            parse(rules, joined)
            return  # a move after all: the rules judge it further on
        except IllegalMove as exc:
            reason = str(exc)
        raise UsageProblem(f"{arg!r} is not a move on its own, and {joined!r} is not a move "
                           f"either ({reason}); a move with spaces must be quoted, as in: "
                           f"pbem play {game_id} {_shell_quote(joined)}")


def _shell_quote(text):
    return f'"{text}"' if any(ch.isspace() or ch in "'$`\\!*?;&|<>()[]{}#~" for ch in text) \
        else text


def _precheck(c, rules, resp, me, move_list):
    """Check the moves before signing them offline or as armour (client/precheck.py).

    Raises PbemError with the rules' reason; notes on stderr what could not be checked.
    """
    from shared import IllegalMove

    from ..precheck import check_first, parse
    fresh = resp.get("view_next_seq", resp.get("next_seq")) == resp.get("next_seq")
    legal = resp.get("legal")
    if isinstance(legal, dict) and legal.get("seat") == me and \
            legal.get("next_seq") == resp.get("next_seq") and \
            isinstance(legal.get("moves"), list) and \
            all(isinstance(m, str) for m in legal["moves"]):
        legal = legal["moves"]
    else:
        legal = None
    notes = []
    for i, move in enumerate(move_list):
        try:
            if i == 0 and fresh:
                note = check_first(rules, move, me, resp.get("view"), legal)
                if note:
                    notes.append(note)
            else:
                parse(rules, move)
        except IllegalMove as exc:
            raise PbemError(f"{move!r} refused: {exc.message} (nothing was signed; --force "
                            "signs it anyway)") from None
    if not fresh:
        notes.append(f"checked for notation only: moves were queued or played since the state "
                     f"was last fetched (pbem show {resp['game']['id']} fetches it again)")
    elif len(move_list) > 1:
        notes.append("the moves after the first were checked for notation only: what the first "
                     "one leads to is not known here")
    for note in notes:
        c.note(f"note: {note}")


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@click.argument("move_list", metavar="MOVE...", nargs=-1, required=True,
                shell_complete=complete_move)
@click.option("--seat", metavar="S", help="Play for this seat (if you hold several).")
@click.option("--offline", is_flag=True,
              help="Sign against the last fetched state and queue in the outbox (pbem sync).")
@click.option("--armor", is_flag=True,
              help="Print the signed move(s) as armoured text for an email; do not submit.")
@click.option("--force", is_flag=True,
              help="With --offline or --armor: sign even a move the client's own check "
                   "refuses or cannot make (the server still judges it).")
@pass_ctx
def play(c, game_id, move_list, seat, offline, armor, force):
    """Sign and submit one or several moves in GAME, in order.

    Each MOVE is one argument: quote moves that contain spaces.  A refused
    move prints the rules' reason and exits 1; moves after it are not sent.
    With --offline or --armor nothing reaches the server now, so pbem first
    checks the moves against the state it fetched last (notation, whose turn,
    the legal-move list: see docs/CLI.md) and refuses what the rules refuse.

    \b
    Examples:
      pbem play k7m2q9xa3b roll roll hold
      pbem play k7m2q9xa3b "settle 14" "road 14-19"
      pbem play --offline k7m2q9xa3b hold     # queue now, pbem sync later
      pbem play --armor k7m2q9xa3b hold       # print a block to paste into an email
    """
    from ..numbers import shown_text, wire_text
    from ..poster import advance_cache, known_view, queue, sign_chain
    from ..precheck import rules_for
    from ..seats import pick_seat
    move_list = [wire_text(m) for m in move_list]
    _check_texts(move_list)
    c.identity()  # only a registered player signs moves
    if offline:
        resp = c.home.cached_view(c.server, game_id)
        if resp is None:
            raise PbemError(f"no fetched state of game {game_id} in this home: run pbem show "
                            f"{game_id} once while online")
    else:
        resp = None if armor else known_view(c, game_id, seat)
        resp = resp or c.fetch_view(game_id, seat, legal=armor)
    if resp.get("view") is None:
        raise PbemError(f"game {game_id} has not started yet: seats are still free")
    if (resp.get("view") or {}).get("status") == "over" and not offline:
        raise PbemError(f"game {game_id} is over")
    me = pick_seat(resp["game"], resp["view"], seat)
    if me is None:
        raise PbemError(f"you hold no seat in game {game_id}")
    checking = (offline or armor) and not force
    # the rules library is loaded (~15% of a play's start-up) only when something needs it:
    # the checks before signing, or the quoting hint, which needs two arguments or more
    rules = rules_for(resp, required=checking) \
        if checking or (len(move_list) > 1 and not force) else None
    if rules is not None and not force:
        _quoting_hint(c, rules, game_id, move_list)
    if checking:
        _precheck(c, rules, resp, me, move_list)
    elif (offline or armor) and me not in ((resp.get("view") or {}).get("to_act") or []):
        c.note(f"note: when last fetched, {me} owed no move in game {game_id}; the server "
               "will judge")
    if armor:
        from ..armor import encode_block
        signed, _, _ = sign_chain(c, game_id, me, move_list, resp["next_seq"], resp["prev"])
        blocks = [encode_block(s["game"], s["envelope"], s["signature"]) for s in signed]
        c.emit([{"game": s["game"], "envelope": s["envelope"], "signature": s["signature"]}
                for s in signed], "".join(blocks).rstrip("\n"))
        return
    if offline:
        signed, seq, prev = sign_chain(c, game_id, me, move_list, resp["next_seq"],
                                        resp["prev"])
        queue(c, signed)
        advance_cache(c, game_id, resp, seq, prev)
        if not c.json:
            c.note(f"queued {len(signed)} move(s) for game {game_id} as {me}; "
                   "send them with pbem sync")
        c.emit([{"game": game_id, "seat": me, "move": s["move"], "seq": s["seq"],
                 "queued": True} for s in signed],
               [f"queued move {s['seq'] + 1}: {me} {shown_text(s['move'])}" for s in signed])
        return
    from ..api import ApiError
    from ..poster import Poster, entry_json, entry_line
    poster = Poster(c, rules=rules)
    at = resp
    played = []
    try:
        for move in move_list:
            try:
                entry = poster.post(game_id, me, move, at=at, wanted_seat=seat)
            except ApiError as exc:
                # --json: the moves played before the refusal are in the error's details
                details = dict(exc.details or {}, move=move,
                               played=[entry_json(e) for e in played])
                details.pop("view", None)
                details.pop("entries", None)
                raise PbemError(_refusal(move, exc), exc.code, details) from None
            played.append(entry)
            if not c.json:
                click.echo(entry_line(entry))
            at = {"next_seq": entry["seq"] + 1, "prev": entry["hash"]}
    finally:
        if played:
            advance_cache(c, game_id, resp, at["next_seq"], at["prev"])  # an older server
    c.emit([entry_json(e) for e in played])


def _refusal(move, exc):
    """The sentence for a move the server refused (or that no longer stands)."""
    from ..numbers import shown_text
    from ..poster import MovedOn
    if isinstance(exc, MovedOn) and exc.code == "moved_on":
        return f"{shown_text(move)!r} not played: {exc.message}"
    return f"{shown_text(move)!r} refused: {exc.message}"


@click.command()
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
    from ..api import ApiError, ServerUnreachable
    outbox = c.home.outbox()
    mine = [item for item in outbox if item.get("server", c.server) == c.server]
    others = [item for item in outbox if item.get("server", c.server) != c.server]
    if not mine:
        c.emit({"accepted": [], "refused": [], "skipped": []}, None)
        if not c.json:
            c.note("the outbox is empty: nothing to send")
        return
    from ..poster import Poster, entry_line
    c.signed_api()
    poster = Poster(c)
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
                entry = _sync_one(c, poster, item, chain.get(game_id))
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
                lines.append(f"accepted {game_id} " + entry_line(entry))
        remaining.pop(0)
        c.home.save_outbox(others + remaining)
    report = {"accepted": accepted, "refused": refused, "skipped": skipped}
    if refused or skipped:
        if not c.json:
            c.emit(report, lines)
        # --json: the report is the error's details
        raise PbemError(f"{len(refused)} queued move(s) refused, {len(skipped)} skipped; "
                        f"{len(accepted)} accepted", "refused", report)
    c.emit(report, lines)


def _sync_one(c, poster, item, chain):
    """Post one queued move (re-signed on ``chain`` = (seq, prev) when the game moved on)."""
    game_id, seat, move = item["game"], item["seat"], item["move"]
    env = json.loads(item["envelope"])
    body = {"envelope": item["envelope"], "signature": item["signature"]}
    if chain is not None and (env["seq"], env["prev"]) != chain:
        return poster.post(game_id, seat, move, at={"next_seq": chain[0], "prev": chain[1]})
    return poster.post(game_id, seat, move, body=body)


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


LONG_POLL = 25.0  # seconds one /wait request may wait on the server


def _while_spinning(call, spinner, game, started):
    """``call()`` in a daemon thread (Ctrl-C is not held up) while the spinner turns."""
    import threading
    out = {}

    def run():
        try:
            out["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            out["error"] = exc
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    waiting_for = ", ".join(game.get("to_act") or []) or "players to join"
    while worker.is_alive():
        spinner.tick(f"waiting for {waiting_for} ({int(time.monotonic() - started)}s)")
        worker.join(0.25)
    if "error" in out:
        raise out["error"]
    return out["value"]


def _long_poll(api, game_id, game, seconds, spinner, started):
    """``Api.wait`` for ``game`` (its seq and status as last seen) while the spinner turns
    (on a terminal): the game's public head, None from a server without push, Api.BUSY."""
    def call():
        return api.wait(game_id, after=game.get("seq"), status=game.get("status"),
                        timeout=seconds)
    if not spinner.enabled:
        return call()
    return _while_spinning(call, spinner, game, started)


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@click.option("--timeout", type=click.FloatRange(0), metavar="SECONDS",
              help="Give up after this long (exit 3).  Default: wait for ever.")
@click.option("--interval", type=click.FloatRange(0.05), default=2.0, show_default=True,
              metavar="SECONDS", help="First polling interval against a server without push; "
                                      "it grows to 60s while nothing happens.")
@click.option("--seat", metavar="S", help="Wait for this seat only.")
@pass_ctx
def wait(c, game_id, timeout, interval, seat):
    """Block until you must act in GAME (exit 0); exit 1 if the game ends, 3 on timeout.

    The server tells pbem wait of a move as it happens (a long poll: one
    request waits up to 25 s on the server); against a server without push it
    polls politely, backing off while nothing changes.  A spinner turns on a
    terminal.  Once the server has answered, an outage is waited out (with
    back-off, noted once on stderr); if the server cannot be reached at the
    start, pbem wait exits 4 at once.  Other failures (no such game, no seat
    in it) exit 1 like the end of the game, with a sentence on stderr.

    \b
    Example:
      while pbem wait k7m2q9xa3b; do pbem play k7m2q9xa3b hold; done
      pbem wait k7m2q9xa3b --timeout 3600 || echo "not yet"
    """
    from ..api import RateLimited, ServerError, ServerUnreachable
    api = c.signed_api()
    start = time.monotonic()
    delay = interval
    spinner = _Spinner(sys.stderr.isatty() and not c.json)
    game = api.game(game_id)
    if not game.get("you"):
        raise PbemError(f"you hold no seat in game {game_id}")
    last_seq = game.get("seq")
    warned = False
    push = True  # until the server shows it has no /wait
    try:
        while True:
            mine = [seat] if seat else game.get("you") or []
            if game["status"] == "over":
                winners = ", ".join((game.get("result") or {}).get("winners") or []) or "nobody"
                spinner.clear()
                raise PbemError(f"game {game_id} is over (won by {winners})", "game_over",
                                {"game": game_id, "status": "over",
                                 "result": game.get("result")})
            due = [s for s in mine if s in (game.get("to_act") or [])]
            if game["status"] == "playing" and due:
                spinner.clear()
                resp = c.fetch_view(game_id, due[0], legal=True)
                c.emit({"game": game_id, "seat": due[0], "to_act": resp["view"]["to_act"],
                        "next_seq": resp["next_seq"]},
                       f"your move in game {game_id} ({due[0]})")
                return
            elapsed = time.monotonic() - start
            if timeout is not None and elapsed >= timeout:
                spinner.clear()
                raise WaitTimeout(f"timed out after {timeout:g}s waiting for your move in game "
                                  f"{game_id}", details={"game": game_id, "status": "timeout",
                                                         "to_act": game.get("to_act")})
            left = None if timeout is None else timeout - elapsed
            try:
                if push and not warned:
                    head = _long_poll(api, game_id, game, LONG_POLL if left is None
                                      else min(LONG_POLL, left), spinner, start)
                    if head is not None and head != api.BUSY:
                        game.update({k: head[k] for k in ("status", "seq", "to_act", "result")
                                     if k in head})
                        continue
                    push = head == api.BUSY  # BUSY: poll once, then ask again
                pause = delay if left is None else min(delay, left)
                waiting_for = ", ".join(game.get("to_act") or []) or "players to join"
                end = time.monotonic() + pause
                while time.monotonic() < end:
                    spinner.tick(f"waiting for {waiting_for} ({int(time.monotonic() - start)}s)")
                    time.sleep(max(0.0, min(0.25, end - time.monotonic())))
                game = api.game(game_id)
            except (ServerUnreachable, ServerError, RateLimited) as exc:
                if not warned:
                    spinner.clear()
                    c.note(f"pbem: {exc.message}; still trying")
                    warned = True
                retry = getattr(exc, "retry_after", None)
                delay = min(60.0, max(delay * 2, retry or 0))
                continue
            if warned:
                spinner.clear()
                c.note("pbem: the server answers again")
                warned = False
            if game.get("seq") != last_seq:
                last_seq, delay = game.get("seq"), interval
            else:
                delay = min(60.0, delay * 1.5)
    finally:
        spinner.clear()
