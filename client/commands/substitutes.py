"""Substitutes: ``pbem offer-seat`` (a one-time link for a seat whose player left or timed
out, or the hand-over of a claimed one) and ``pbem claim`` (take the seat a link offers)."""

import re
from urllib.parse import quote, urlsplit

import click

from ..completion import complete_game
from ..context import GAME_ID, PbemError, pass_ctx

_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,128}\Z")


@click.command("offer-seat")
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@click.argument("seat", metavar="SEAT")
@pass_ctx
def offer_seat(c, game_id, seat):
    """Offer SEAT of GAME to a substitute: print a one-time link, or hand the seat over.

    A seat whose player left it to a bot (pbem leave) or missed a deadline may be
    offered by any player of the game or by the seat's own player.  Whoever opens
    the link and claims it (pbem claim URL, or the page) gets the seat: at once
    when a bot took it at a missed deadline (the server signs the hand-over),
    else once the seat's leaving player signs it, by running this command again
    after the claim.  A link is claimed once; a new link voids the seat's older
    one.

    \b
    Examples:
      pbem offer-seat k7m2q9xa3b north     # prints https://.../seat/TOKEN
      pbem offer-seat k7m2q9xa3b north     # after the claim: signs the hand-over
    """
    from ..api import ApiError
    api = c.signed_api()
    g = quote(game_id, safe="")
    try:
        waiting = api.request("GET", f"/api/games/{g}/claims").get("offers") or []
    except ApiError as exc:
        raise PbemError(f"cannot read the claims of game {game_id}: {exc.message}") from None
    claim = next((w for w in waiting if w.get("seat") == seat), None)
    if claim is not None:
        _hand_over(c, game_id, claim)
        return
    try:
        link = api.request("POST", f"/api/games/{g}/seats/{quote(seat, safe='')}/offer", {})
    except ApiError as exc:
        raise PbemError(f"{seat} of game {game_id} is not offered: {exc.message}") from None
    # the link as this client reaches the server (the server may not know its public address)
    url = c.server + link["path"]
    c.emit(dict(link, url=url), url)
    if not c.json:
        who = link.get("signer")
        then = ("the server hands the seat over at once" if who == "server" else
                f"then {who} signs the hand-over (pbem offer-seat {game_id} {seat} again)")
        c.note(f"send this link to the player who takes {seat}; it is claimed once, and {then}")


def _hand_over(c, game_id, claim):
    from ..api import ApiError
    from ..poster import Poster, entry_line
    name, key = claim.get("claimant"), claim.get("claimant_key")
    seat = claim["seat"]
    text = f"@handover {name} {key}"
    try:
        entry = Poster(c).post(game_id, seat, text, at=c.fetch_view(game_id))
    except ApiError as exc:
        raise PbemError(f"{seat} not handed over to {name}: {exc.message}") from None
    if not c.json:
        click.echo(entry_line(entry))
        c.note(f"{seat} of game {game_id} is now {name}'s")
    c.emit({"game": game_id, "seat": seat, "player": name, "seq": entry["seq"],
            "hash": entry["hash"]})


def _token(link):
    """The token of a seat link (the whole URL, its path, or the token alone)."""
    text = str(link).strip()
    path = urlsplit(text).path if "/" in text else text
    token = path.rstrip("/").rsplit("/", 1)[-1]
    if "/" in text and "/seat/" not in path:
        raise PbemError(f"{text[:80]!r} is not a seat link: it looks like https://SERVER/seat/"
                        "TOKEN")
    if not _TOKEN.match(token):
        raise PbemError(f"{text[:80]!r} holds no seat token: copy the whole link")
    return token


@click.command("claim")
@click.argument("link", metavar="URL")
@pass_ctx
def claim(c, link):
    """Take the seat a one-time link (from pbem offer-seat) offers you.

    The seat is yours at once when the server signs the hand-over (a seat a bot
    took at a missed deadline), else once its leaving player signs it: pbem
    games shows it then.  You must hold no seat of the game already.

    \b
    Example:
      pbem claim https://pbem.example/seat/TOKEN
    """
    from ..api import ApiError
    token = _token(link)
    api = c.signed_api()
    try:
        offer = api.request("POST", f"/api/offers/{token}/claim", {})
    except ApiError as exc:
        raise PbemError(f"not claimed: {exc.message}") from None
    game, seat = offer.get("game"), offer.get("seat")
    done = offer.get("status") == "done"
    text = (f"{seat} of game {game} is yours: pbem show {game}" if done else
            f"you claimed {seat} of game {game}; it is yours once {offer.get('signer')} signs "
            "the hand-over")
    c.emit(offer, text)
