"""``pbem device``: keys of other devices (a second home, a browser) that may move for you.

Your main key (this home's ``key.ed25519``) signs a *delegation* for a device's key: player,
device key, label, and a date after which it ends (``shared/delegation.py``).  Each move the
device signs carries that delegation, so the server, archives and other players check it
against your seat's key; the server never holds a private key.

- ``pbem device add --label laptop`` makes a key for another home and writes FILE; in the
  other home, ``pbem device import FILE`` (then delete FILE: it holds the device's private key).
- ``pbem device add --browser --label phone`` prints a one-time link; open it in the browser,
  compare the fingerprint it shows with the one printed here, answer yes, and the page gets its
  delegation.  The browser's key never leaves it.
- ``pbem device claim LINK``, the other way round: a browser signed in as you (its settings
  page) makes a one-time link; this new home makes its own key, shows its fingerprint, and
  the browser's main key signs its delegation once you confirm there.
- ``pbem device list``; ``pbem device revoke LABEL`` (the server refuses the device at once, and
  an ``@revoke KEY`` entry signed by your main key is appended to each of your running games so
  that archives show it).
"""

import json
import os
import re
import time
from datetime import datetime, timezone

import click

from ..context import DEFAULT_SERVER, PbemError, UsageProblem, pass_ctx

MAX_DAYS = 3650
FILE_FORMAT = "pbem-device-v1"


def _when(ts):
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _main_key(c):
    """(name, main private key) of this home; a device home cannot manage devices."""
    if not c.home.has_main_key():
        if c.home.device() is not None:
            raise PbemError("this is a device home: add and revoke devices from the home that "
                            "holds your main key")
        c.identity()  # raises "register first"
    return c.home.name(), c.home.private_key()


def _check_label(label):
    from shared.delegation import MAX_LABEL, valid_label
    if not valid_label(label):
        raise UsageProblem(f"{label[:40]!r} is not a device label: 1 to {MAX_LABEL} characters, "
                           "no control characters, no spaces at either end")
    return label


def _not_after(days):
    if not 1 <= days <= MAX_DAYS:
        raise UsageProblem(f"--days must be 1 to {MAX_DAYS}")
    return int(time.time()) + days * 86400


@click.group("device")
def device():
    """Let another device (a second home, a browser) move for you: add, import, claim, list,
    revoke."""


def _subcommand(fn):
    from ..cli import with_global_options
    return with_global_options(fn)


@device.command("add")
@click.option("--label", default="device", show_default=True,
              help="A name for the device (what pbem device revoke takes).")
@click.option("--days", default=90, show_default=True, type=int,
              help="How long the device may move for you.")
@click.option("--browser", is_flag=True,
              help="Delegate a browser's own key through a one-time link.")
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None,
              help="Where to write the other home's file (default: pbem-device-LABEL.json).")
@click.option("--yes", is_flag=True,
              help="With --browser: do not ask to compare the fingerprint (scripts).")
@pass_ctx
def add(c, label, days, browser, out, yes):
    """Delegate a new device key, for another home (writes FILE) or a browser (--browser).

    \b
    Examples:
      pbem device add --label laptop --days 30   # then, in the laptop's home:
                                                 #   pbem device import pbem-device-laptop.json
      pbem device add --browser --label phone    # open the link on the phone
    """
    _check_label(label)
    not_after = _not_after(days)
    name, main = _main_key(c)
    api = c.signed_api()
    if browser:
        return _add_browser(c, api, name, main, label, not_after, yes)
    import secrets

    from shared.delegation import fingerprint, make_delegation
    from shared.envelope import public_key_hex

    from ..home import atomic_write
    key = secrets.token_bytes(32)
    delegation = make_delegation(main, name, public_key_hex(key), label, not_after)
    path = out or f"pbem-device-{re.sub(r'[^A-Za-z0-9_-]+', '_', label)}.json"
    if os.path.exists(path):
        raise PbemError(f"{path} exists: choose another --out")
    api.request("POST", "/api/devices", {"delegation": delegation})
    document = {"format": FILE_FORMAT, "server": c.server, "player": name,
                "private_key": key.hex(), "delegation": delegation}
    try:
        atomic_write(path, json.dumps(document, indent=1, sort_keys=True) + "\n", mode=0o600)
    except OSError as exc:
        raise PbemError(f"cannot write {path}: {exc.strerror or exc}") from None
    fp = fingerprint(delegation["device_key"])
    c.emit({"label": label, "device_key": delegation["device_key"], "fingerprint": fp,
            "not_after": not_after, "file": path},
           [f"device {label!r} added (key {fp}), good until {_when(not_after)}",
            f"In the other home run: pbem device import {path}",
            f"then delete {path}: it holds the device's private key."])


def _add_browser(c, api, name, main, label, not_after, yes):
    from shared.delegation import fingerprint, make_delegation
    link = api.request("POST", "/api/devices/links", {"label": label})
    c.note(f"Open this link in the browser to add (one use, until {link['expires_at']}):")
    click.echo(link["url"])
    while True:
        seen = api.request("GET", f"/api/devices/links/{link['id']}")
        if seen["status"] == "key":
            break
        if seen["status"] != "waiting":
            raise PbemError(f"the link is {seen['status']}: no browser posted its key in time "
                            "(pbem device add --browser again)")
        time.sleep(1)
    fp = seen["fingerprint"]
    if fingerprint(seen["public_key"]) != fp:
        raise PbemError("the server's fingerprint does not match the key it sent")
    c.note(f"The page shows the fingerprint of its key. It must read: {fp}")
    if not yes and not click.confirm("Is it the same on the page?", default=False,
                                     err=True):
        raise PbemError("not delegated: the fingerprints differ (or you said no)")
    delegation = make_delegation(main, name, seen["public_key"], label, not_after)
    api.request("POST", f"/api/devices/links/{link['id']}/delegation",
                {"delegation": delegation})
    c.emit({"label": label, "device_key": seen["public_key"], "fingerprint": fp,
            "not_after": not_after},
           f"browser {label!r} added (key {fp}), good until {_when(not_after)}")


@device.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@pass_ctx
def import_(c, file):
    """Make this (new) home sign as your device, with FILE from pbem device add."""
    from shared.delegation import DelegationError, check_shape
    from shared.envelope import public_key_hex
    try:
        with open(file, encoding="utf-8") as fh:
            document = json.load(fh)
    except (OSError, ValueError) as exc:
        raise PbemError(f"cannot read {file}: {exc}") from None
    if not isinstance(document, dict) or document.get("format") != FILE_FORMAT:
        raise PbemError(f"{file} is not a device file from pbem device add")
    try:
        delegation = check_shape(document.get("delegation"))
        key = bytes.fromhex(document.get("private_key") or "")
    except (DelegationError, ValueError, TypeError):
        raise PbemError(f"{file} is damaged: its delegation or key is malformed") from None
    if len(key) != 32 or public_key_hex(key) != delegation["device_key"]:
        raise PbemError(f"{file} is damaged: its key is not the delegated one")
    home = c.home
    if home.has_main_key():
        raise PbemError(f"{home.path} holds a main key of its own: import the device into a "
                        "new home (--home DIR)")
    known = home.config().get("name")
    if known and known != delegation["player"]:
        raise PbemError(f"{home.path} belongs to {known}, not {delegation['player']}")
    _become_device(c, key, delegation, f"{file}'s delegation")
    c.emit({"player": delegation["player"], "label": delegation["label"],
            "not_after": delegation["not_after"], "home": home.path},
           [f"{home.path} now moves for {delegation['player']} as device "
            f"{delegation['label']!r} until {_when(delegation['not_after'])}",
            f"Delete {file}: it holds this device's private key."])


def _become_device(c, key, delegation, what):
    """Check ``delegation`` (of ``key``) against its player's key on the server, then make
    this home that player's device home.  ``what`` names the delegation in errors."""
    from shared.delegation import DelegationError, verify_delegation
    player = c.api.player(delegation["player"])
    try:
        verify_delegation(delegation, player.get("public_key"), delegation["player"])
    except DelegationError as exc:
        raise PbemError(f"{what} does not hold on {c.server}: {exc.message}") from None
    if delegation["not_after"] < time.time():
        raise PbemError(f"{what} ended on {_when(delegation['not_after'])}")
    c.home.save_device(key, delegation, c.server)
    config = c.home.config()
    config["name"] = delegation["player"]
    c.home.save_config(config)
    c._api = c._heads = None


#: a one-time link as a browser's settings page (or ``pbem device add --browser``) shows it:
#: SERVER/device/TOKEN, or the TOKEN alone (then the server is --server)
_LINK = re.compile(r"(?P<server>https?://[^\s?#]+?)/device/(?P<token>[A-Za-z0-9_-]{20,100})/?")
_TOKEN = re.compile(r"[A-Za-z0-9_-]{20,100}")


#: what ``pbem device claim`` says when the server refuses its link (one sentence each)
_NEW_LINK = "make a new link on the settings page of a browser signed in as you and claim it"
_CLAIM_REFUSED = {
    "link_cancelled": "the browser answered No: the fingerprint it showed is not this home's, "
                      "so nothing was delegated and the link is cancelled (make a new link if "
                      "that was a mistake)",
    "expired": f"the link has expired: {_NEW_LINK}",
    "used": f"the link was already used, and a link adds one device: {_NEW_LINK}",
    "unknown_link": "the link is not valid: copy it again from the browser's settings page "
                    "(it looks like https://SERVER/device/CODE)",
    "key_already_posted": f"another device already answered this link: {_NEW_LINK}",
}


def _claim_refused(exc):
    """The PbemError for the server's refusal ``exc`` of a claimed link."""
    code = exc.code
    if code == "link_gone":
        code = "expired" if "expired" in exc.message else "used"
    sentence = _CLAIM_REFUSED.get(code)
    return PbemError(sentence or f"the link does not work: {exc.message}", exc.code)


def _parse_link(c, link):
    text = link.strip()
    m = _LINK.fullmatch(text)
    if m:
        return m.group("server"), m.group("token")
    if _TOKEN.fullmatch(text):
        return c.server, text
    raise UsageProblem("give the one-time link the other device shows (it looks like "
                       "https://SERVER/device/CODE), or its CODE alone")


@device.command("claim")
@click.argument("link", metavar="LINK")
@click.option("--timeout", default=600, show_default=True, type=click.IntRange(1, 3600),
              help="Seconds to wait for the other device's permission.")
@pass_ctx
def claim(c, link, timeout):
    """Make this (new) home a device of the player whose browser made LINK.

    On the settings page of a browser signed in as you, make a one-time link ("Play from
    another browser, phone or terminal too"); here, in a new home, give that link.  This
    home makes its own key (the private half never leaves it) and prints its fingerprint;
    compare it with the one the page shows and confirm on the page.  The page's main key then signs
    this home's permission (a delegation, shown in every game's log).

    \b
    Example:
      pbem --home ~/pbem-laptop device claim https://pbem.example/device/Xy3...
    """
    import secrets

    from shared.delegation import DelegationError, check_shape, fingerprint
    from shared.envelope import public_key_hex

    from ..api import ApiError, ServerUnreachable
    server, token = _parse_link(c, link)
    if server.rstrip("/") != c.server:
        c.set_server(server)
    home = c.home
    if home.has_key():
        raise PbemError(f"{home.path} already holds a key: claim the link in a new home "
                        "(--home DIR)")
    key = secrets.token_bytes(32)
    public = public_key_hex(key)
    api = c.api
    try:
        answer = api.request("POST", f"/api/device-links/{token}/key", {"public_key": public},
                             signed=False)
    except ServerUnreachable:
        raise
    except ApiError as exc:
        raise _claim_refused(exc) from None
    fp = fingerprint(public)
    if answer.get("fingerprint") != fp:
        raise PbemError("the server's fingerprint of this home's key differs: nothing was "
                        "delegated")
    c.note(f"This home's key has the fingerprint {fp}")
    c.note("The page that made the link shows a fingerprint: if it is the same, confirm "
           "there. Waiting...")
    deadline = time.monotonic() + timeout
    while True:
        try:
            seen = api.request("GET", f"/api/device-links/{token}/delegation", signed=False)
        except ServerUnreachable:
            raise
        except ApiError as exc:
            if exc.status == 410 and "expired" in exc.message:
                raise PbemError(f"no permission came before the link expired: {_NEW_LINK}",
                                exc.code) from None
            if exc.code in _CLAIM_REFUSED or exc.code == "link_gone":
                raise _claim_refused(exc) from None
            raise PbemError(f"no permission came: {exc.message}") from None
        if seen.get("status") == "done":
            break
        if time.monotonic() > deadline:
            raise PbemError(f"no permission came within {timeout} seconds: make a new link "
                            "and claim it again")
        time.sleep(1)
    try:
        delegation = check_shape(seen.get("delegation"))
    except DelegationError as exc:
        raise PbemError(f"the permission the server gave is malformed: {exc.message}") \
            from None
    if delegation["device_key"] != public:
        raise PbemError("the permission the server gave is for another key: nothing was kept")
    _become_device(c, key, delegation, "the permission the server gave")
    lines = [f"{home.path} now moves for {delegation['player']} as device "
             f"{delegation['label']!r} until {_when(delegation['not_after'])}"]
    if c.server != DEFAULT_SERVER:
        lines.append(f"Use it with --server {c.server} (or PBEM_SERVER={c.server}).")
    c.emit({"player": delegation["player"], "label": delegation["label"],
            "not_after": delegation["not_after"], "home": home.path, "server": c.server,
            "fingerprint": fp}, lines)


@device.command("list")
@pass_ctx
def list_(c):
    """Your devices the server knows (not revoked), and until when each may move."""
    api = c.signed_api()
    devices = api.request("GET", "/api/devices")["devices"]
    mine = getattr(c.home.private_key(), "public_key", None)
    lines = [f"{d['label']:<20} {d['fingerprint']}  "
             f"{'ended' if d['ended'] else 'until'} {_when(d['not_after'])}"
             + ("  (this home)" if d["device_key"] == mine else "") for d in devices]
    c.emit(devices, lines or ["no devices (pbem device add)"])


@device.command("revoke")
@click.argument("label")
@pass_ctx
def revoke(c, label):
    """Stop device LABEL moving for you: on the server now, and in each running game's log.

    The log entry is ``@revoke KEY``, signed by your main key, appended to each game you play
    (so that archives show it).  Exit 1 when a game refused the entry (the server still
    refuses the device).
    """
    name, main = _main_key(c)
    api = c.signed_api()
    answer = api.request("POST", f"/api/devices/{label}/revoke")
    keys, ended = answer["revoked"], answer.get("orders_ended") or []
    problems, logged = [], []
    for game in api.games(status="playing"):
        for seat in game.get("you") or []:
            for key in keys:
                try:
                    _post_table_entry(c, api, main, game["id"], seat, f"@revoke {key}")
                    logged.append(game["id"])
                except PbemError as exc:
                    problems.append(f"{game['id']} ({seat}): {exc.message}")
    report = {"revoked": keys, "orders_ended": ended, "logged_in": logged,
              "refused_in": problems}
    if not (c.json and problems):  # --json: a refusal's report is the error's details
        c.emit(report, [f"device {label!r} revoked on {c.server}"]
               + [f"standing order ended in game {o['game']} ({o['seat']}): {o['order']}"
                  for o in ended]
               + [f"recorded in game {g}" for g in logged]
               + [f"not recorded in game {p}" for p in problems])
    if problems:
        raise PbemError(f"{len(problems)} game(s) refused the @revoke entry; the server "
                        "refuses the device all the same", "refused", report)


def _post_table_entry(c, api, main, game_id, seat, text):
    """Sign ``text`` as a log entry of ``seat`` with the main key and post it
    (client/poster.py).  Raises PbemError with the server's reason."""
    from ..api import ApiError
    from ..poster import Poster
    try:
        return Poster(c, signer=main).post(game_id, seat, text)
    except ApiError as exc:
        raise PbemError(exc.message) from None


for _cmd in (add, import_, claim, list_, revoke):
    _subcommand(_cmd)
# the subcommands live in the group only: ``pbem`` finds top-level commands among this
# module's names (client/cli.py, tests/client/test_cli_lazy.py)
del _cmd, add, import_, claim, list_, revoke
