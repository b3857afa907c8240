"""Commands about the table (shared/table.py): takebacks, and the player's key (rotation with
the old key or with the recovery code printed at registration)."""

import base64
import hashlib
import secrets

import click

from .completion import complete_game
from .context import GAME_ID, PbemError, pass_ctx

RECOVERY_PREFIX = "pbemrc"


# --- recovery codes ------------------------------------------------------------------------

def new_recovery_code():
    """(code text, private key bytes): 32 random bytes written as base32 in groups of four."""
    raw = secrets.token_bytes(32)
    return format_recovery_code(raw), raw


def _check(raw):
    """Four check letters (base32, as the code): a mistyped code is caught before use."""
    return base64.b32encode(hashlib.sha256(raw).digest()[:5]).decode("ascii")[:4].lower()


def format_recovery_code(raw):
    text = base64.b32encode(raw).decode("ascii").rstrip("=").lower()
    check = _check(raw)
    groups = [text[i:i + 4] for i in range(0, len(text), 4)]
    return "-".join([RECOVERY_PREFIX, *groups, check])


def read_recovery_code(code):
    """The private key bytes a recovery code stands for; PbemError for a mistyped code."""
    words = code.strip().lower().replace(" ", "-").split("-")
    words = [w for w in words if w]
    if len(words) < 3 or words[0] != RECOVERY_PREFIX:
        raise PbemError(f"that is not a recovery code (they begin with {RECOVERY_PREFIX}-)")
    body, check = "".join(words[1:-1]), words[-1]
    try:
        raw = base64.b32decode(body.upper() + "=" * (-len(body) % 8))
    except ValueError:
        raw = b""
    if len(raw) != 32 or _check(raw) != check:
        raise PbemError("the recovery code is mistyped (its check letters do not match)")
    return raw


def recovery_fields(name, main_key, recovery_key):
    """The registration fields that bind ``recovery_key`` (private bytes) to ``name``'s
    ``main_key`` (private bytes): its public half and the main key's certificate."""
    from shared.envelope import public_key_hex, sign
    from shared.table import recovery_message
    rpub = public_key_hex(recovery_key)
    return {"recovery_key": rpub, "recovery_cert": sign(main_key, recovery_message(name, rpub))}


# --- takebacks --------------------------------------------------------------------------------

def _post_entry(c, game_id, seat, text, wanted_seat):
    """Sign ``text`` for ``seat`` at the game's head and post it; the entry."""
    from .commands_play import _entry_line, _submit
    resp = c.fetch_view(game_id, wanted_seat)
    entry = _submit(c, game_id, seat, text, resp["next_seq"], resp["prev"], wanted_seat)
    c.emit({k: entry.get(k) for k in ("seq", "seat", "move", "events", "hash")},
           _entry_line(entry))
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
    from .api import ApiError
    from .home import atomic_write
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
            "proof": sign(recovery or old, key_rotation_message(name, new_pub))}
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
            lines.append(f"game {game['id']} ({seat}): @rotate appended as move {entry['seq']}")
    c.emit({"name": name, "public_key": new_pub, "games": done}, lines)


key.add_command(_rotate_command())


def _rotate_in(c, game_id, seat, text, signer):
    from .signing import signed_move
    resp = c.fetch_view(game_id)
    body = signed_move(signer, game_id, resp["next_seq"], resp["prev"], seat, text)
    return c.api.post_move(game_id, body["envelope"], body["signature"])
