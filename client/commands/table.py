"""Commands about the table (shared/table.py): takebacks, and the player's key (rotation with
the old key or with the recovery code printed at registration)."""

import secrets

import click

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
