"""``pbem mail``: moves in plain words by mail, signed by a mail key the server holds.

- ``pbem mail on [--days N]``: the server makes a key and keeps it; your main key signs a
  delegation of it, labelled "mail" (``shared/delegation.py``), good for N days.  From then on
  a reply to a turn notice whose first line is a move is played for you, signed by that key,
  the delegation in the envelope: every archive shows which moves the server signed for you
  and that you allowed it.  The key signs moves only, never a table entry.
- ``pbem mail off``: the server refuses the key at once and wipes it, and an ``@revoke KEY``
  entry signed by your main key is appended to each of your running games (so archives show
  it).  Exit 1 when a game refused the entry (the server still refuses the key).
- ``pbem mail`` alone says whether it is on.
"""

import time
from datetime import datetime, timezone

import click

from ..context import PbemError, UsageProblem, pass_ctx


def _when(ts):
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _main_key(c):
    """(name, main private key) of this home; a device home cannot delegate."""
    if not c.home.has_main_key():
        if c.home.device() is not None:
            raise PbemError("this is a device home: turn moves by mail on or off from the home "
                            "that holds your main key")
        c.identity()  # raises "register first"
    return c.home.name(), c.home.private_key()


@click.group("mail", invoke_without_command=True)
@click.pass_context
def mail(ctx):
    """Moves in plain words by mail: on (a mail key the server holds), off, or whether it is
    on."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(mail.commands["status"])


@mail.command("status", hidden=True)
@pass_ctx
def status(c):
    """Whether moves by mail are on, and until when."""
    now = c.signed_api().request("GET", "/api/mail/key")
    if now["on"]:
        line = (f"moves by mail are on (mail key {now['fingerprint']}) until "
                f"{_when(now['not_after'])}: reply to a turn notice with your move on its "
                "first line")
    elif now["ended"]:
        line = ("your mail key no longer signs (its date passed, or your key changed): "
                "pbem mail off, then pbem mail on")
    else:
        line = "moves by mail are off (pbem mail on)"
    c.emit(now, line)


@mail.command("on")
@click.option("--days", default=90, show_default=True, type=int,
              help="How long the mail key may move for you.")
@pass_ctx
def on(c, days):
    """Let the server sign the moves you send in plain words by mail, for DAYS days.

    \b
    Example:
      pbem mail on --days 30
    """
    if days < 1:
        raise UsageProblem("--days must be at least 1")
    from shared.delegation import MAIL_LABEL, fingerprint, make_delegation
    name, main = _main_key(c)
    api = c.signed_api()
    made = api.request("POST", "/api/mail/key", {})
    if days > made["max_days"]:
        raise UsageProblem(f"--days must be at most {made['max_days']} on {c.server}")
    if made.get("label") != MAIL_LABEL or made.get("player") != name \
            or fingerprint(made["device_key"]) != made.get("fingerprint"):
        raise PbemError("the server's answer does not describe a mail key of yours: nothing "
                        "was delegated")
    not_after = int(time.time()) + days * 86400
    delegation = make_delegation(main, name, made["device_key"], MAIL_LABEL, not_after)
    now = api.request("POST", "/api/mail/key/delegation", {"delegation": delegation})
    c.emit(now, [f"moves by mail are on until {_when(not_after)} (mail key "
                 f"{now['fingerprint']}, held by {c.server})",
                 "Reply to a turn notice with your move alone on its first line, from your "
                 "registered address; each such move is signed by the mail key and shows so in "
                 "the archive. pbem mail off stops it."])


@mail.command("off")
@pass_ctx
def off(c):
    """Stop moves by mail: the server wipes the mail key, and each running game's log
    records its revocation (an @revoke signed by your main key)."""
    from ..api import ApiError
    from ..poster import Poster
    name, main = _main_key(c)
    api = c.signed_api()
    answer = api.request("POST", "/api/mail/key/revoke", {})
    keys, problems, logged = answer["revoked"], [], []
    for game in api.games(status="playing"):
        for seat in game.get("you") or []:
            for key in keys:
                try:
                    Poster(c, signer=main).post(game["id"], seat, f"@revoke {key}")
                    logged.append(game["id"])
                except (ApiError, PbemError) as exc:
                    problems.append(f"{game['id']} ({seat}): {exc.message}")
    report = {"revoked": keys, "orders_ended": answer.get("orders_ended") or [],
              "logged_in": logged, "refused_in": problems}
    if not (c.json and problems):
        c.emit(report, ["moves by mail are off: the server wiped your mail key"]
               + [f"recorded in game {g}" for g in logged]
               + [f"not recorded in game {p}" for p in problems])
    if problems:
        raise PbemError(f"{len(problems)} game(s) refused the @revoke entry; the server "
                        "refuses the mail key all the same", "refused", report)


def _subcommand(fn):
    from ..cli import with_global_options
    return with_global_options(fn)


for _cmd in (status, on, off):
    _subcommand(_cmd)
# the subcommands live in the group only: ``pbem`` finds top-level commands among this
# module's names (client/cli.py, tests/client/test_cli_lazy.py)
del _cmd, status, on, off
