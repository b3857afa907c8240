"""Commands about the table (shared/table.py): takebacks, the table's decisions (resign, draw,
abort, pause, resume), and the player's key (rotation with the old key or with the recovery
code printed at registration)."""

import secrets

import click

from shared.table import MAX_PAUSE_DAYS

from ..completion import complete_game
from ..context import GAME_ID, PbemError, pass_ctx

# --- takebacks --------------------------------------------------------------------------------

def _post_entry(c, game_id, seat, text, wanted_seat):
    """Sign ``text`` for ``seat`` at the game's head and post it (client/poster.py)."""
    from ..api import ApiError
    from ..numbers import shown_text
    from ..poster import Poster, entry_json, entry_line
    try:
        entry = Poster(c).post(game_id, seat, text, wanted_seat=wanted_seat)
    except ApiError as exc:
        raise PbemError(f"{shown_text(text)!r} refused: {exc.message}") from None
    c.emit(entry_json(entry), entry_line(entry))
    return entry


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@click.option("--moves", type=click.IntRange(1, 1000), default=1, show_default=True,
              help="How many of your last moves to take back.")
@click.option("--accept", "answer", flag_value="accept",
              help="Consent to the pending request of another seat.")
@click.option("--refuse", "answer", flag_value="refuse",
              help="Refuse the pending request (it ends; its seat may ask again only once "
                   "another seat has moved).")
@click.option("--seat", metavar="S", help="Act for this seat (if you hold several).")
@pass_ctx
def takeback(c, game_id, moves, answer, seat):
    """Ask to take back your last moves in GAME, or answer a request (--accept, --refuse).

    A seat may take back its own last moves while nothing hidden was revealed since (no
    roll, draw, steal or chip turned) and no other seat has moved; every other seat must
    accept.  The request, the answers and the takeback are entries of the log.

    \b
    Examples:
      pbem takeback k7m2q9xa3b                # ask to take back my last move
      pbem takeback k7m2q9xa3b --moves 2
      pbem takeback k7m2q9xa3b --accept       # or: pbem play k7m2q9xa3b "@accept takeback"
    """
    c.identity()  # only a registered player signs entries
    table = c.signed_api().table(game_id, seat)
    me = table.get("seat")
    if me is None:
        raise PbemError(f"you hold no seat in game {game_id}")
    pending = table.get("pending")
    if answer:
        if not pending:
            raise PbemError(f"there is no takeback request to answer in game {game_id}")
        if me not in pending.get("owed", []):
            raise PbemError(f"{me} owes no answer to {pending['seat']}'s takeback request")
        _post_entry(c, game_id, me, f"@{answer} takeback", seat)
        return
    if pending:
        raise PbemError(f"{pending['seat']}'s takeback request waits for answers from "
                        f"{', '.join(pending['owed'])}")
    can = table.get("takeback_moves") or []
    if len(can) < moves:
        raise PbemError(f"{me} may take back {len(can) or 'no'} move{'s' if len(can) != 1 else ''}"
                        " now: a seat can take back only moves it made itself since another "
                        "seat last moved and since anything hidden was last revealed")
    _post_entry(c, game_id, me, f"@takeback {can[-moves]}", seat)


# --- the table's decisions: resign, draw, abort, pause -----------------------------------------

def _my_table(c, game_id, seat):
    """(my seat, the game's table) for a decision; refuses a caller with no seat, a game
    over, a seat that resigned."""
    c.identity()  # only a registered player signs entries
    table = c.signed_api().table(game_id, seat)
    me = table.get("seat")
    if me is None:
        raise PbemError(f"you hold no seat in game {game_id}")
    view = c.signed_api().view(game_id, me).get("view") or {}
    if view.get("status") == "over":
        reason = (view.get("result") or {}).get("reason")
        raise PbemError(f"game {game_id} is over" + (f": {reason}" if reason else ""),
                        code="game_over")
    decisions = table.get("decisions") or {}
    if me in (decisions.get("resigned") or ()):
        raise PbemError(f"{me} has resigned in game {game_id}: it takes no part in the "
                        "table's decisions any more")
    return me, table, decisions


def _confirmed(yes, question):
    if yes:
        return
    if not click.confirm(question, default=False, err=True):
        raise PbemError("nothing was sent", code="cancelled")


def _waits(what, asked, game_id):
    owed = ", ".join(asked.get("owed") or []) or "nobody"
    return f"the {what} {asked['seat']} asked in game {game_id} waits for {owed}"


_SEAT = click.option("--seat", metavar="S", help="Act for this seat (if you hold several).")
_YES = click.option("--yes", is_flag=True, help="Do not ask for confirmation.")


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@_YES
@_SEAT
@pass_ctx
def resign(c, game_id, yes, seat):
    """Give up GAME: with two seats the other seat wins; with more, your seat leaves the race.

    A seat that left the race keeps its pieces on the board, the server plays its turns with
    the game's timeout move, and its points no longer win (each game's RULES.md says what its
    rulebook makes of it).  A cooperative game (Title of Liberty) has no resignation: play
    the move concede for the team.  Asks for confirmation unless --yes.

    \b
    Examples:
      pbem resign k7m2q9xa3b
      pbem resign k7m2q9xa3b --yes
    """
    me, _table, _ = _my_table(c, game_id, seat)
    _confirmed(yes, f"Resign {me} in game {game_id}? This cannot be taken back")
    _post_entry(c, game_id, me, "@resign", seat)


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@click.option("--refuse", is_flag=True,
              help="Refuse the draw offered (or withdraw your own offer).")
@_SEAT
@pass_ctx
def draw(c, game_id, refuse, seat):
    """Offer a draw in GAME, or accept the one offered; --refuse refuses (or withdraws) it.

    Every other seat still in the race must accept (each with this same command); the game
    then ends with no winner, drawn by agreement.  Any move of the seat that offered
    withdraws its offer.

    \b
    Examples:
      pbem draw k7m2q9xa3b            # offer, or accept the offer of another seat
      pbem draw k7m2q9xa3b --refuse
    """
    me, _table, decisions = _my_table(c, game_id, seat)
    offer = decisions.get("draw")
    if refuse:
        if not offer:
            raise PbemError(f"there is no draw offer to refuse in game {game_id}")
        _post_entry(c, game_id, me, "@draw refuse", seat)
        return
    if offer and (offer["seat"] == me or me in offer.get("accepted", ())):
        raise PbemError(_waits("draw", offer, game_id))
    _post_entry(c, game_id, me, "@draw accept" if offer else "@draw offer", seat)


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@click.option("--refuse", is_flag=True,
              help="Refuse the request to abort (or withdraw your own).")
@_YES
@_SEAT
@pass_ctx
def abort(c, game_id, refuse, yes, seat):
    """Abort GAME: it ends unrated, with no winner.

    While some seat has made fewer than two moves of its own, one seat aborts alone; later
    this asks the table, and every other seat still in the race must agree (each with this
    same command).  Asks for confirmation unless --yes.

    \b
    Examples:
      pbem abort k7m2q9xa3b
      pbem abort k7m2q9xa3b --refuse
    """
    me, table, decisions = _my_table(c, game_id, seat)
    asked = decisions.get("abort")
    if refuse:
        if not asked:
            raise PbemError(f"there is no request to abort game {game_id} to refuse")
        _post_entry(c, game_id, me, "@abort refuse", seat)
        return
    if asked:
        if asked["seat"] == me or me in asked.get("accepted", ()):
            raise PbemError(_waits("abort", asked, game_id))
        _confirmed(yes, f"Agree to abort game {game_id}? It ends unrated once every seat "
                        "agrees")
        _post_entry(c, game_id, me, "@abort accept", seat)
        return
    need = (table.get("limits") or {}).get("abort_moves", 2)
    alone = any(n < need for n in (table.get("own_moves") or {}).values())
    _confirmed(yes, f"Abort game {game_id}? It ends now, unrated, with no winner" if alone
               else f"Ask the table to abort game {game_id}? Every seat has made {need} moves, "
               "so every other seat must agree")
    _post_entry(c, game_id, me, "@abort", seat)


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@click.option("--days", type=click.IntRange(1, MAX_PAUSE_DAYS), metavar="N",
              help="How many days the clocks stop (1 to 14; to agree, the days asked).")
@_SEAT
@pass_ctx
def pause(c, game_id, days, seat):
    """Ask the table to stop GAME's clocks for N days, or agree to the pause asked.

    When every seat still in the race has signed the same pause, the deadlines stop until
    the days run out or a seat resumes (pbem resume GAME).  A game takes at most 3 pauses,
    of at most 14 days each.  Moves may still be played while it is paused.

    \b
    Examples:
      pbem pause k7m2q9xa3b --days 7
      pbem pause k7m2q9xa3b           # agree to the pause another seat asked
    """
    me, table, decisions = _my_table(c, game_id, seat)
    asked = decisions.get("pause")
    if asked:
        if asked["seat"] == me or me in asked.get("accepted", ()):
            raise PbemError(_waits("pause", asked, game_id))
        if days is not None and days != asked["days"]:
            raise PbemError(f"{asked['seat']} asked to pause game {game_id} for "
                            f"{asked['days']} days: agree with pbem pause {game_id} (or "
                            f"--days {asked['days']}), refuse with pbem resume {game_id}")
        days = asked["days"]
    elif days is None:
        raise PbemError(f"say how long the clocks stop: pbem pause {game_id} --days N "
                        "(1 to 14)", code="usage")
    limit = (table.get("limits") or {}).get("pauses", 3)
    if not asked and decisions.get("pauses", 0) >= limit:
        raise PbemError(f"game {game_id} has taken its {limit} pauses, the most allowed")
    _post_entry(c, game_id, me, f"@pause {days}", seat)


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@_SEAT
@pass_ctx
def resume(c, game_id, seat):
    """End GAME's pause (the clocks run again), or refuse the pause asked.

    \b
    Example:
      pbem resume k7m2q9xa3b
    """
    me, _table, decisions = _my_table(c, game_id, seat)
    if not decisions.get("pause") and not decisions.get("paused"):
        raise PbemError(f"game {game_id} is not paused, and no pause is asked")
    _post_entry(c, game_id, me, "@resume", seat)


# --- keys ---------------------------------------------------------------------------------------

@click.group()
def key():
    """Your main key: rotate it (with the old key, or the recovery code if it is lost)."""


def _rotate_command():
    """``pbem key rotate`` (made here so the module's top level holds only the commands that
    client/cli.py lists)."""

    @click.command("rotate")
    @click.option("--recovery-code", metavar="CODE",
                  help="The code pbem register printed: rotate a lost key (or 'ask' to type "
                       "it).")
    @pass_ctx
    def rotate(c, recovery_code):
        """Replace your main key with a new one, in every running game and on the server.

        The server learns the new key from a proof signed by the old key (or by the recovery
        key); each running game gets an @rotate entry for each of your seats, from which on
        the seat signs with the new key (the archive shows it; the game's header keeps the key
        it started with).  The old key is kept in the home as key.ed25519.old.

        \b
        Examples:
          pbem key rotate
          pbem key rotate --recovery-code pbemrc-abcd-...
        """
        rotate_key(c, recovery_code)

    return rotate


def rotate_key(c, recovery_code):
    """What ``pbem key rotate`` does (see its help)."""
    from shared.envelope import public_key_hex, sign
    from shared.table import key_rotation_message, recovery_message

    from ..api import ApiError
    from ..home import atomic_write
    from ..recovery import read_recovery_code
    home = c.home
    name = home.name()
    if not name:
        raise PbemError(f"no player is registered in {home.path}: run pbem register NAME")
    if recovery_code == "ask":
        recovery_code = click.prompt("Recovery code", hide_input=True)
    recovery = read_recovery_code(recovery_code) if recovery_code else None
    old = None if recovery is not None else home.private_key()
    profile = c.api.player(name)
    rpub = profile.get("recovery_key")
    if recovery is not None and public_key_hex(recovery) != rpub:
        raise PbemError(f"that recovery code is not the one registered for {name}")
    new = secrets.token_bytes(32)
    new_pub = public_key_hex(new)
    body = {"public_key": new_pub, "by": "recovery" if recovery else "main",
            "proof": sign(recovery or old, key_rotation_message(
                name, profile["public_key"], new_pub, profile.get("key_rotations", 0)))}
    if rpub:
        body["recovery_cert"] = sign(new, recovery_message(name, rpub))
    try:
        c.api.rotate_key(name, body)
    except ApiError as exc:
        raise PbemError(f"the server refused the new key: {exc.message}") from None
    if home.has_key():
        atomic_write(home.file(home.KEY + ".old"), home.private_key().hex() + "\n", mode=0o600)
    atomic_write(home.file(home.KEY), new.hex() + "\n", mode=0o600)
    c._api = c._heads = None  # sign as the new key from now on
    certs = profile.get("recovery_certs") or {}
    old_pub = public_key_hex(old) if old else None
    lines, done = [f"{name}'s main key is now {new_pub[:16]}... on {c.server}"], []
    for game in c.signed_api().games(status="playing"):
        table = c.api.table(game["id"])
        for seat in game.get("you") or []:
            current = table["keys"].get(seat)
            if current == new_pub:
                continue
            if recovery is not None and current in certs:
                text, signer = (f"@rotate {new_pub} recovery {rpub} {certs[current]}",
                                recovery)
            elif old is not None and current == old_pub:
                text, signer = f"@rotate {new_pub}", old
            else:
                lines.append(f"game {game['id']} ({seat}): its key {str(current)[:16]}... is "
                             "neither the old key nor one the recovery key covers: not rotated")
                continue
            try:
                entry = _rotate_in(c, game["id"], seat, text, signer)
            except ApiError as exc:
                lines.append(f"game {game['id']} ({seat}): not rotated: {exc.message}")
                continue
            done.append({"game": game["id"], "seat": seat, "seq": entry["seq"]})
            lines.append(f"game {game['id']} ({seat}): @rotate appended as move "
                         f"{entry['seq'] + 1}")
    c.emit({"name": name, "public_key": new_pub, "games": done}, lines)


key.add_command(_rotate_command())


def _rotate_in(c, game_id, seat, text, signer):
    from ..poster import Poster
    return Poster(c, signer=signer).post(game_id, seat, text)
