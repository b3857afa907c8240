"""Notice channels: one notice, written in each chat service's own format, sent through the
guard against private addresses.

A channel is a kind and a target:

``discord``   ``{"url", "mention"}``: an execute-webhook URL (Discord's channel settings,
              Integrations, Webhooks) and the player's Discord user id (digits) to mention.
``slack``     ``{"url", "mention"}``: an incoming-webhook URL and the player's Slack member id
              (``U...``) to mention.
``matrix``    ``{"homeserver", "room", "token", "mention"}``: a room message sent through the
              homeserver's client API with an access token; ``mention`` a Matrix user id
              (``@ann:example.org``).
``telegram``  ``{"token", "chat_id"}``: a bot's token (from BotFather) and the chat it writes
              to (Bot API ``sendMessage``).
``json``      ``{"url", "secret"}``: pbem's own JSON body, signed as the Standard Webhooks
              specification says (``webhook-id``, ``webhook-timestamp``, ``webhook-signature``;
              ``secret`` is ``whsec_`` and base64, made by the server and shown once).

What a channel says is a :class:`PublicNotice`: only what a spectator of the game may know
(the game, whose move it is, the public line of the last move, the deadline), plus "your move"
for the player it is for. No hand, no private message and no legal move list ever goes to a
chat room, whoever reads it there.

Nothing here touches the database: :func:`check_target` refuses a target that cannot work,
:func:`build_request` writes the HTTP request, :func:`send` sends it (raising
:class:`ChannelError` with ``permanent`` for an answer that retrying will not change).

Why plain HTTP and not the services' own SDKs: ``slack-sdk``'s webhook client and
``python-telegram-bot`` open their own connections, which would bypass the check of the address
actually connected to (``server.workers.mailer``); the bodies below follow each service's documented
shape and limits instead (tests check them).
"""

import base64
import html
import json
import re
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone
from urllib.parse import quote, urlparse

KINDS = ("discord", "slack", "matrix", "telegram", "json")

#: Discord's documented limits (execute webhook): message content, embed title, description,
#: field value
DISCORD_CONTENT, DISCORD_TITLE, DISCORD_DESCRIPTION, DISCORD_FIELD = 2000, 256, 4096, 1024
#: Slack: a section block's text, and the top-level fallback text
SLACK_SECTION, SLACK_TEXT = 3000, 4000
#: Telegram sendMessage: 1-4096 characters of text
TELEGRAM_TEXT = 4096
#: the Telegram Bot API's address (PBEM_TELEGRAM_API changes it, for a local receiver)
TELEGRAM_API = "https://api.telegram.org"
TIMEOUT = (5, 10)  # connect, read (seconds)

_DISCORD_HOSTS = ("discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com")
_SLACK_HOSTS = ("hooks.slack.com",)
_DIGITS = re.compile(r"[0-9]{5,25}\Z")
_SLACK_ID = re.compile(r"[UW][A-Z0-9]{4,20}\Z")
_MATRIX_USER = re.compile(r"@[a-z0-9._=\-/+]+:[A-Za-z0-9.\-]+(:[0-9]{1,5})?\Z")
_MATRIX_ROOM = re.compile(r"![A-Za-z0-9._=\-/+]+:[A-Za-z0-9.\-]+(:[0-9]{1,5})?\Z")
_TELEGRAM_TOKEN = re.compile(r"[0-9]{3,15}:[A-Za-z0-9_\-]{20,60}\Z")
_TELEGRAM_CHAT = re.compile(r"(-?[0-9]{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})\Z")
_TOKEN = re.compile(r"[\x21-\x7e]{8,512}\Z")


class ChannelError(Exception):
    """A target that cannot work, or a send that failed; ``message`` says why in a sentence.

    ``permanent``: the service's answer will not change by retrying (a deleted webhook, a
    revoked token); ``retry_after``: seconds the service asked us to wait, when it did.
    """

    def __init__(self, message, permanent=False, retry_after=None):
        super().__init__(message)
        self.message, self.permanent, self.retry_after = message, permanent, retry_after


@dataclass(frozen=True)
class PublicNotice:
    """What every channel says: a spectator's knowledge of the game, plus whose move it is.

    ``kind``: turn, reminder, forced, move (a game channel's line per move), test or stopped.
    ``headline``: one plain sentence (``Your move in The Settlers of Zarahemla k7m2q9xa3b``).
    ``lines``: public lines (the last move's public text, whose move it is, the scores).
    ``deadline``: the deadline as Unix time, or None; ``url``: the game's page.
    ``mentions``: for a game channel, the chat ids of the players who owe a move.
    """

    kind: str
    headline: str
    game_id: str | None = None
    title: str = "pbem"
    lines: tuple = ()
    deadline: int | None = None
    url: str | None = None
    seq: int | None = None
    mentions: tuple = field(default_factory=tuple)

    def data(self):
        """The JSON form (the ``json`` channel's ``data``)."""
        return {"kind": self.kind, "headline": self.headline, "game": self.game_id,
                "title": self.title, "lines": list(self.lines), "deadline": self.deadline,
                "url": self.url, "seq": self.seq}


# --- targets ------------------------------------------------------------------------------

def _https_url(url, hosts, what, allow_private, plain=False):
    if not isinstance(url, str) or len(url) > 500 or any(c.isspace() for c in url):
        raise ChannelError(f"a {what} URL is one address of at most 500 characters")
    u = urlparse(url)
    # the host is the one the sender (urllib3) connects to: a backslash or a user part
    # ("https://evil.example\\@discord.com/...") reads as discord.com here and is sent to
    # evil.example
    if "\\" in url or "@" in u.netloc or _sent_to(url) != (u.hostname or "").lower():
        raise ChannelError(f"a {what} URL names its host plainly: no user part, no backslash")
    if (allow_private or plain) and u.scheme in ("http", "https") and u.hostname:
        return url
    if u.scheme != "https" or not u.hostname:
        raise ChannelError(f"a {what} URL begins with https://")
    if hosts and u.hostname.lower() not in hosts:
        raise ChannelError(f"a {what} URL is on {' or '.join(hosts)}, not {u.hostname}")
    return url


def _sent_to(url):
    from urllib3.util import parse_url
    try:
        return (parse_url(url).host or "").lower().strip("[]")
    except ValueError:
        return None


def _optional(value, pattern, what):
    if value in (None, ""):
        return None
    if not isinstance(value, str) or not pattern.match(value):
        raise ChannelError(f"{what} is not one I can read")
    return value


def new_secret():
    """A Standard Webhooks secret: ``whsec_`` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def check_target(kind, target, allow_private=False):
    """The canonical target of a ``kind`` channel, or ChannelError saying what is wrong.

    ``allow_private`` (the operator's PBEM_WEBHOOK_ALLOW_PRIVATE) also lets plain http and
    any host through, for receivers on the operator's own network (and the tests').
    """
    if kind not in KINDS:
        raise ChannelError(f"a channel is one of {', '.join(KINDS)}, not {str(kind)[:20]!r}")
    if not isinstance(target, dict):
        raise ChannelError("a channel's target is an object")
    t = dict(target)
    if kind == "discord":
        return {"url": _https_url(t.get("url"), _DISCORD_HOSTS, "Discord webhook",
                                  allow_private),
                "mention": _optional(t.get("mention"), _DIGITS,
                                     "the Discord user id (digits, from Copy User ID)")}
    if kind == "slack":
        return {"url": _https_url(t.get("url"), _SLACK_HOSTS, "Slack webhook", allow_private),
                "mention": _optional(t.get("mention"), _SLACK_ID,
                                     "the Slack member id (U and capitals, from the profile)")}
    if kind == "matrix":
        room = _optional(t.get("room"), _MATRIX_ROOM, "the Matrix room id (!room:server)")
        token = _optional(t.get("token"), _TOKEN, "the Matrix access token")
        if room is None or token is None:
            raise ChannelError("a Matrix channel needs the room id and an access token")
        return {"homeserver": _https_url(t.get("homeserver"), (), "Matrix homeserver",
                                         allow_private).rstrip("/"),
                "room": room, "token": token,
                "mention": _optional(t.get("mention"), _MATRIX_USER,
                                     "the Matrix user id (@name:server)")}
    if kind == "telegram":
        token = _optional(t.get("token"), _TELEGRAM_TOKEN, "the Telegram bot token")
        chat = _optional(str(t["chat_id"]) if isinstance(t.get("chat_id"), int)
                         else t.get("chat_id"), _TELEGRAM_CHAT, "the Telegram chat id")
        if token is None or chat is None:
            raise ChannelError("a Telegram channel needs the bot's token and the chat id")
        return {"token": token, "chat_id": chat}
    secret = t.get("secret") or new_secret()
    if not isinstance(secret, str) or not secret.startswith("whsec_"):
        raise ChannelError("a webhook secret begins with whsec_")
    # pbem's own body is public and signed: a receiver on plain http can still check it
    return {"url": _https_url(t.get("url"), (), "webhook", allow_private, plain=True),
            "secret": secret}


def public_target(kind, target):
    """The target as its owner may see it again: secrets cut to their first characters."""
    def cut(text, keep=12):
        return None if text is None else text[:keep] + "..."
    if kind in ("discord", "slack"):
        u = urlparse(target["url"])
        # the last part of a webhook's path is its token
        return {"url": f"{u.scheme}://{u.netloc}{u.path.rsplit('/', 1)[0]}/...",
                "mention": target["mention"]}
    if kind == "matrix":
        return {"homeserver": target["homeserver"], "room": target["room"],
                "token": cut(target["token"], 4), "mention": target["mention"]}
    if kind == "telegram":
        return {"token": cut(target["token"], 6), "chat_id": target["chat_id"]}
    return {"url": target["url"], "secret": cut(target["secret"], 10)}


# --- writing ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Request:
    method: str
    url: str
    headers: dict
    body: bytes


def _clip(text, limit):
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def _utc(ts):
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%a %d %b %Y %H:%M UTC")


def _json(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _discord_escape(text):
    # markdown and mention syntax typed by players (names, log text) shows as written
    return re.sub(r"([\\*_~`|<>\[\]@])", r"\\\1", text)


def _slack_escape(text):
    # Slack's three control characters; with them escaped no <!everyone> or link can be made
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _mentions(target, notice):
    own = [target["mention"]] if target.get("mention") else []
    return list(dict.fromkeys(own + [m for m in notice.mentions if m]))


def discord_body(target, notice):
    """An execute-webhook body: ``content`` with the mentions, one embed with the public
    summary and the deadline (``<t:TS:F>`` shows in each reader's own time zone), and
    ``allowed_mentions`` naming only those users, so no text can ping @everyone or a role."""
    users = [m for m in _mentions(target, notice) if _DIGITS.match(m)]
    ping = " ".join(f"<@{u}>" for u in users)
    content = _clip(f"{ping} {_discord_escape(notice.headline)}".strip(), DISCORD_CONTENT)
    embed = {"title": _clip(notice.title, DISCORD_TITLE),
             "description": _clip("\n".join(_discord_escape(x) for x in notice.lines)
                                  or _discord_escape(notice.headline), DISCORD_DESCRIPTION)}
    if notice.url:
        embed["url"] = notice.url
    if notice.deadline:
        embed["fields"] = [{"name": "Deadline", "value": _clip(
            f"<t:{notice.deadline}:F> (<t:{notice.deadline}:R>)", DISCORD_FIELD)}]
    return {"content": content, "embeds": [embed],
            "allowed_mentions": {"parse": [], "users": users[:100]}}


def slack_body(target, notice):
    """An incoming-webhook body: ``text`` (the fallback for notifications) and ``blocks``
    (a section with the summary, a context line with the deadline, which Slack's
    ``<!date^...>`` shows in each reader's own time zone)."""
    ids = [m for m in _mentions(target, notice) if _SLACK_ID.match(m)]
    ping = " ".join(f"<@{u}>" for u in ids)
    head = f"{ping} {_slack_escape(notice.headline)}".strip()
    text = head
    if notice.url:
        text += f" <{notice.url}|open the game>"
    lines = "\n".join(_slack_escape(x) for x in notice.lines)
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": _clip(
        f"*{_slack_escape(notice.title)}*\n{text}" + (f"\n{lines}" if lines else ""),
        SLACK_SECTION)}}]
    if notice.deadline:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": (
            f"Deadline: <!date^{notice.deadline}^{{date_short_pretty}} at {{time}}|"
            f"{_utc(notice.deadline)}>")}]})
    return {"text": _clip(text, SLACK_TEXT), "blocks": blocks}


def matrix_body(target, notice):
    """An ``m.room.message``: plain ``body``, escaped HTML, and ``m.mentions`` naming only the
    player (never ``room``)."""
    users = _mentions(target, notice)
    plain = [f"{' '.join(users)} {notice.headline}".strip(), *notice.lines]
    if notice.deadline:
        plain.append(f"Deadline: {_utc(notice.deadline)}")
    if notice.url:
        plain.append(notice.url)
    pills = " ".join(f'<a href="https://matrix.to/#/{quote(u)}">{html.escape(u)}</a>'
                     for u in users)
    formatted = "<br>".join([f"{pills} <b>{html.escape(notice.headline)}</b>".strip(),
                             *(html.escape(x) for x in plain[1:])])
    return {"msgtype": "m.text", "body": "\n".join(plain), "format": "org.matrix.custom.html",
            "formatted_body": formatted, "m.mentions": {"user_ids": users}}


def telegram_body(target, notice):
    """A ``sendMessage`` body in plain text (no parse mode: nothing a player typed can be
    markup), without a link preview."""
    plain = [notice.headline, *notice.lines]
    if notice.deadline:
        plain.append(f"Deadline: {_utc(notice.deadline)}")
    if notice.url:
        plain.append(notice.url)
    return {"chat_id": target["chat_id"], "text": _clip("\n".join(plain), TELEGRAM_TEXT),
            "link_preview_options": {"is_disabled": True}}


def json_body(notice, timestamp):
    """pbem's own body, in the shape Standard Webhooks recommends: type, timestamp, data."""
    return {"type": f"pbem.{notice.kind}",
            "timestamp": datetime.fromtimestamp(timestamp, timezone.utc).isoformat(),
            "data": notice.data()}


def build_request(kind, target, notice, *, msg_id, timestamp, telegram_api=None):
    """The HTTP request a ``kind`` channel sends for ``notice``.

    ``msg_id`` is the notice's stable id (the same on every retry, so a receiver can drop a
    repeat: Standard Webhooks' ``webhook-id``, Matrix's transaction id); ``timestamp`` Unix
    time of the attempt.
    """
    headers = {"Content-Type": "application/json", "User-Agent": "pbem-notices/1"}
    if kind == "discord":
        return Request("POST", target["url"], headers, _json(discord_body(target, notice)))
    if kind == "slack":
        return Request("POST", target["url"], headers, _json(slack_body(target, notice)))
    if kind == "matrix":
        url = (f"{target['homeserver']}/_matrix/client/v3/rooms/{quote(target['room'], '')}"
               f"/send/m.room.message/{quote(msg_id, '')}")
        return Request("PUT", url, dict(headers, Authorization=f"Bearer {target['token']}"),
                       _json(matrix_body(target, notice)))
    if kind == "telegram":
        api = (telegram_api or TELEGRAM_API).rstrip("/")
        return Request("POST", f"{api}/bot{target['token']}/sendMessage", headers,
                       _json(telegram_body(target, notice)))
    from standardwebhooks.webhooks import Webhook
    body = _json(json_body(notice, timestamp))
    signature = Webhook(target["secret"]).sign(
        msg_id, datetime.fromtimestamp(timestamp, timezone.utc), body.decode("utf-8"))
    return Request("POST", target["url"], dict(headers, **{
        "webhook-id": msg_id, "webhook-timestamp": str(int(timestamp)),
        "webhook-signature": signature}), body)


# --- sending ------------------------------------------------------------------------------

def _retry_after(resp):
    value = resp.headers.get("Retry-After")
    try:
        return max(0, min(3600, int(float(value))))
    except (TypeError, ValueError):
        return None


def send(request, allow_private=False, timeout=TIMEOUT):
    """Send ``request``; ChannelError when it failed (``permanent`` for a 4xx other than 408
    and 429: a deleted webhook or a revoked token does not come back by retrying).

    Every connection is checked on the address it reached (``server.workers.mailer``): loopback,
    private, link-local and multicast addresses are refused unless ``allow_private``. No
    redirects are followed, no proxy from the environment is used.
    """
    import requests

    from .mailer import PrivateDestination, _checked_session
    session = requests.Session() if allow_private else _checked_session()
    session.trust_env = False
    host = urlparse(request.url).hostname
    try:
        with session:
            resp = session.request(request.method, request.url, data=request.body,
                                   headers=request.headers, timeout=timeout,
                                   allow_redirects=False)
    except PrivateDestination as exc:
        raise ChannelError(f"refused destination {exc} (loopback, private, link-local or "
                           "multicast; PBEM_WEBHOOK_ALLOW_PRIVATE=1 allows it)",
                           permanent=True) from None
    except requests.RequestException as exc:
        raise ChannelError(f"{host}: {exc.__class__.__name__}") from None
    if 200 <= resp.status_code < 300:
        return resp.status_code
    permanent = 400 <= resp.status_code < 500 and resp.status_code not in (408, 429)
    raise ChannelError(f"{host} answered {resp.status_code}", permanent=permanent,
                       retry_after=_retry_after(resp))
