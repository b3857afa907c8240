"""Table talk and standing orders: say, order, orders, mute and unmute.

Messages and orders are documents signed with the player's key (``shared/messages.py``,
``shared/orders.py``), sent in signed requests; the server keeps them apart from the move log
and puts them in the game's archive.
"""

import secrets
import time

import click

from ..completion import complete_game
from ..context import GAME_ID, PLAYER_NAME, PbemError, UsageProblem, load_game, pass_ctx


def _seat(c, game_id, wanted):
    """(seat, next seq, game summary) for a document about ``game_id``, signed as a seat the
    caller holds (``wanted``, or their first)."""
    resp = c.fetch_view(game_id)
    game = resp["game"]
    mine = game.get("you") or []
    if wanted is not None and wanted not in mine:
        raise PbemError(f"you do not hold seat {wanted!r} in game {game_id}")
    seat = wanted or (mine[0] if mine else None)
    if seat is None:
        raise PbemError(f"you hold no seat in game {game_id}: only its players talk and leave "
                        "orders there")
    return seat, resp["next_seq"], game


def _send(c, game_id, make, post):
    """Sign ``make(at)`` with the player's key and post it; once more at the fresh length when
    the game moved on in between.

    The key is this home's: the seat's current main key (after pbem key rotate), or in a
    device home the device's key, whose delegation then goes into the document's body
    (shared/messages.py) as it goes into a device's move envelopes."""
    from shared.messages import sign_document, with_delegation

    from ..api import Conflict
    key = c.home.private_key()
    delegation = getattr(key, "delegation", None)  # a device home's key (home.DeviceKey)
    if delegation is not None and int(time.time()) > delegation["not_after"]:
        raise PbemError(f"this home's device key ({delegation['label']!r}) may no longer sign: "
                        "its delegation ended; ask your main home for a new one "
                        "(pbem device add)")

    def signed(fresh):
        domain, body = make(fresh)
        return sign_document(key, domain, with_delegation(body, delegation))
    try:
        return post(game_id, signed(None))
    except Conflict as exc:
        fresh = (exc.details or {}).get("seq")
        if exc.code != "stale_seq" or not isinstance(fresh, int):
            raise
    return post(game_id, signed(fresh))


def _line(m):
    from shared.messages import printable
    who = f"{m['seat']} ({m['player']})" if m.get("player") else m["seat"]
    to = f" to {m['to']} only" if m.get("to") else ""
    return printable(f"{who}{to}: ") + printable(m["text"])


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@click.argument("words", metavar="TEXT...", nargs=-1, required=True)
@click.option("--to", "to", metavar="SEAT", help="Only this seat's player reads it (private).")
@click.option("--seat", metavar="S", help="Speak as this seat (if you hold several).")
@pass_ctx
def say(c, game_id, words, to, seat):
    """Say TEXT at the table of GAME: to everyone, or --to one seat only.

    The message is signed with your key and shown, in the order it was written, in pbem log,
    on the game's page and in the readers' notices; it goes into the game's archive.  A
    private message is read by you and that seat's player only.  At most 500 characters.

    \b
    Examples:
      pbem say k7m2q9xa3b "Good luck, all"
      pbem say k7m2q9xa3b --to blue "Wood for your stone next turn?"
    """
    from shared.messages import (
        MAX_MESSAGE_LENGTH,
        MESSAGE_DOMAIN,
        DocumentError,
        check_text,
        make_message,
    )
    text = " ".join(words)
    try:
        check_text(text, MAX_MESSAGE_LENGTH)
    except DocumentError as exc:
        raise PbemError(exc.message) from None
    c.identity()
    me, at, game = _seat(c, game_id, seat)
    seats = [s["seat"] for s in game.get("seats") or []]
    if to is not None and to not in seats:
        raise PbemError(f"game {game_id} has no seat {to!r}: its seats are {', '.join(seats)}")
    if to == me:
        raise PbemError("that is your own seat: write to another seat, or to everyone")

    def make(fresh):
        return MESSAGE_DOMAIN, make_message(game_id, me, to, at if fresh is None else fresh,
                                            text, secrets.token_hex(12), int(time.time()))
    try:
        message = _send(c, game_id, make, c.api.post_message)
    except DocumentError as exc:
        raise PbemError(exc.message) from None
    # "before move N": the page's words and numbering (client/numbers.py)
    c.emit(message, [f"said before move {message['at'] + 1}: " + _line(message)])


def _parse_locally(game, text):
    """The canonical order text when this client knows the game's rules (else the text)."""
    from shared.orders import OrderError, describe, format_order, parse_order
    try:
        rules = load_game(game.get("type"))
    except (KeyError, TypeError):
        return text, None
    try:
        order = parse_order(rules, text)
    except OrderError as exc:
        raise PbemError(exc.message) from None
    return format_order(order), describe(order)


@click.command()
@click.argument("args", metavar="GAME ORDER... | cancel GAME ID", nargs=-1, required=True)
@click.option("--seat", metavar="S", help="The order is for this seat (if you hold several).")
@pass_ctx
def order(c, args, seat):
    """Leave a standing order in GAME (or cancel one): the server plays it for you.

    \b
    Orders (in the game's own notation; secret from the other seats until the game ends):
      decline offers             decline every trade offer made to you
      decline greedy offers      decline offers that ask for more cards than they give
      roll                       roll at the start of your turn
      discard stone,wheat        when you must discard, discard these first, in this order
      accept takeback            once: accept the next takeback request you must answer
      if MOVE then REPLY         once: if the next move of another seat that stands (is not
                                 taken back) is MOVE, play REPLY

    The server plays an order's move as an entry marked with the order (pbem log shows it);
    the archive carries the signed order, and pbem verify checks that each such entry
    follows from it.

    \b
    Examples:
      pbem order k7m2q9xa3b decline greedy offers
      pbem order k7m2q9xa3b "if offer 1wood for 1stone then accept"
      pbem order k7m2q9xa3b accept takeback
      pbem orders k7m2q9xa3b
      pbem order cancel k7m2q9xa3b 3
    """
    if args[0] == "cancel":
        if len(args) != 3:
            raise UsageProblem("write: pbem order cancel GAME ID (the ID pbem orders shows)")
        return _cancel(c, GAME_ID.convert(args[1], None, None), args[2], seat)
    if len(args) < 2:
        raise UsageProblem("write: pbem order GAME ORDER... (pbem order --help lists them)")
    game_id = GAME_ID.convert(args[0], None, None)
    from shared.orders import ORDER_DOMAIN, make_order
    c.identity()
    me, at, game = _seat(c, game_id, seat)
    text, meaning = _parse_locally(game, " ".join(args[1:]))

    def make(fresh):
        return ORDER_DOMAIN, make_order(game_id, me, at if fresh is None else fresh, text,
                                        secrets.token_hex(12), int(time.time()))
    answer = _send(c, game_id, make, c.api.post_order)
    row = answer["order"]
    lines = [f"order {row['id']} in force for {row['seat']}: {row['text']}"
             + (f" ({row['meaning']})" if row.get("meaning") else "")]
    if answer.get("played"):
        lines.append(f"the server played {answer['played']} move(s) for your orders at once "
                     f"(pbem log {game_id})")
    c.emit(answer, lines)


def _cancel(c, game_id, ident, seat):
    from shared.orders import CANCEL_DOMAIN, make_cancel
    c.identity()
    rows = c.api.orders(game_id)["orders"]
    found = [r for r in rows if str(r["id"]) == ident or
             (len(ident) >= 8 and r["hash"].startswith(ident.lower()))]
    if seat is not None:
        found = [r for r in found if r["seat"] == seat]
    if len(found) != 1:
        raise PbemError(f"you have no order {ident!r} in game {game_id} (pbem orders {game_id} "
                        "lists yours)")
    row = found[0]
    if row["status"] == "cancelled":
        raise PbemError(f"order {row['id']} is already cancelled")
    resp = c.fetch_view(game_id)

    def make(fresh):
        at = resp["next_seq"] if fresh is None else fresh
        return CANCEL_DOMAIN, make_cancel(game_id, row["seat"], at, row["hash"],
                                          secrets.token_hex(12), int(time.time()))
    answer = _send(c, game_id, make, c.api.cancel_order)
    c.emit(answer, [f"order {answer['id']} cancelled: {answer['text']}"])


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@pass_ctx
def orders(c, game_id):
    """Your standing orders in GAME: id, status, seat, the order and how often it played.

    \b
    Example:
      pbem orders k7m2q9xa3b
    """
    rows = c.api.orders(game_id)["orders"]
    lines = [f"{r['id']:>4}  {r['status']:<9} {r['seat']:<8} {r['text']}"
             + (f"  ({r['meaning']})" if r.get("meaning") else "")
             + (f"  played {r['played']}x" if r.get("played") else "") for r in rows]
    if not rows and not c.json:
        c.note(f"you have no standing orders in game {game_id} (pbem order --help)")
    c.emit(rows, lines)


@click.command()
@click.argument("name", metavar="NAME", type=PLAYER_NAME)
@pass_ctx
def mute(c, name):
    """Stop reading NAME's messages (in every game): pbem log, pages and notices leave them out.

    \b
    Example:
      pbem mute bob
    """
    answer = c.api.mute(name)
    c.emit(answer, [f"muted: {', '.join(answer['muted'])}"])


@click.command()
@click.argument("name", metavar="NAME", type=PLAYER_NAME)
@pass_ctx
def unmute(c, name):
    """Read NAME's messages again.

    \b
    Example:
      pbem unmute bob
    """
    answer = c.api.unmute(name)
    muted = ", ".join(answer["muted"]) or "nobody"
    c.emit(answer, [f"unmuted {name}; muted: {muted}"])
