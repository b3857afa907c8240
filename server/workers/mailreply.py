"""Moves in plain words by mail: a reply to a turn notice whose first line is a move.

A mail with no armoured block comes here from ``server/workers/mailin.py``.  It is appended
only when all of this holds:

- its From is a registered address (mail from any other address gets no answer at all: no
  backscatter), and, when the operator turns DKIM on (``PBEM_MAIL_DKIM``), a valid DKIM
  signature of the From's domain covers it;
- it carries a reply token (in the address it was sent to, ``pbem+TOKEN@...``, or in
  In-Reply-To / References naming the notice's Message-ID) that the server gave that same
  player, unspent, for the move the seat owes now;
- the player moves by mail: their mail key is on, in force and delegated by their current
  main key (server/game/mailkeys.py);
- its first line that is not empty, not quoted (``>``) and not an "On ... wrote:" line,
  before any signature (``-- ``), is a move the rules library accepts.

The move is signed by the player's mail key, its delegation in the envelope, and appended
through the one append path.  The answer (the confirmation, or why the mail was refused and
how to move) goes to the player's registered address only.
"""

import logging
import re
from email.utils import getaddresses, parseaddr

from shared.envelope import EnvelopeError

from ..db import db
from ..db.models import Game, Player
from ..game import mailkeys
from ..game.append import append_move
from ..game.domain import DomainError
from .outbox import enqueue

log = logging.getLogger("pbem.mailin")

#: the longest first line read as a move
MAX_MOVE_LINE = 200
_TOKEN = r"[0-9a-fA-F]{%d}" % mailkeys.TOKEN_LENGTH
_IN_ADDRESS = re.compile(r"\+(" + _TOKEN + r")@")
_IN_MESSAGE_ID = re.compile(r"<pbem\.(" + _TOKEN + r")@")
_WROTE = re.compile(r"^(on\b.*\bwrote:|le\b.*\ba écrit\s*:|am\b.*\bschrieb\b.*:)$", re.I)
#: the most refusals answered to one player in an hour: forged mail in their name cannot
#: make the server flood them (the refusals past it are logged, not answered)
MAX_ANSWERS_PER_HOUR = 20
#: the headers a reply's token may be read from
_ADDRESS_HEADERS = ("To", "Cc", "Delivered-To", "X-Original-To", "Envelope-To")

HOW_TO_MOVE = (
    "How to move by mail: reply to your latest turn notice (keep its subject and the address "
    "it asks you to reply to) with your move alone on the first line, from this address. A "
    "signed block still works as before: pbem play --armor GAME 'MOVE', pasted into any mail "
    "to the server.")


def _clean(text):
    return "".join(ch for ch in str(text) if ch >= " " or ch == "\t")[:998]


def tokens_of(msg):
    """The reply tokens a mail names (lowercase), in the order found: in the addresses it was
    sent to, then in In-Reply-To and References."""
    found = []
    for name in _ADDRESS_HEADERS:
        for value in msg.get_all(name) or []:
            for _, address in getaddresses([_clean(value)]):
                found += _IN_ADDRESS.findall(address)
    for name in ("In-Reply-To", "References"):
        for value in msg.get_all(name) or []:
            found += _IN_MESSAGE_ID.findall(_clean(value))
    return list(dict.fromkeys(t.lower() for t in found))


def first_line(msg):
    """The first line of the mail's plain text that is not empty, not quoted and not an
    "On ... wrote:" line, before any signature; None when there is none."""
    try:
        part = msg.get_body(preferencelist=("plain", "html"))
        text = part.get_content() if part is not None else ""
    except (LookupError, ValueError, KeyError, AttributeError):
        return None
    if not isinstance(text, str):
        return None
    if part.get_content_subtype() == "html":
        text = html_text(text)
    for line in text.splitlines():
        if line.rstrip() == "--" or line == "-- ":
            return None
        stripped = line.strip()
        if not stripped or stripped.startswith(">") or _WROTE.match(stripped):
            continue
        return stripped
    return None


#: how DKIM looks up a domain's key (None: dkimpy's DNS lookup); tests set a resolver of
#: their own
DKIM_DNS = None


def html_text(html):
    """The text of an HTML mail body, without what it quotes (``<blockquote>``), one line
    per paragraph or line break."""
    import html as entities
    text = re.sub(r"(?is)<(head|style|script|blockquote)\b.*?</\1\s*>", "\n", html[:200_000])
    text = re.sub(r"(?i)<br\s*/?>|</(p|div|li|tr|h\d)\s*>", "\n", text)
    return entities.unescape(re.sub(r"<[^>]*>", "", text))


def _dkim_ok(raw, sender):
    """True when a valid DKIM signature of the From address's domain covers ``raw``."""
    import dkim
    import dkim.util
    lookup = {"dnsfunc": DKIM_DNS} if DKIM_DNS is not None else {}
    domain = sender.rpartition("@")[2].encode("ascii", "replace")
    try:
        parsed = dkim.DKIM(raw)
        headers = [v for k, v in parsed.headers if k.lower() == b"dkim-signature"]
        for index in range(len(headers)):
            tags = dkim.util.parse_tag_value(re.sub(rb"\s+", b"", headers[index]))
            if tags.get(b"d", b"").lower() == domain.lower() and parsed.verify(idx=index, **lookup):
                return True
    except Exception:  # noqa: BLE001 - a broken signature, a missing key: not verified
        return False
    return False


def _registered(sender):
    if not sender or len(sender) > 254:
        return None
    return db.session.execute(db.select(Player).where(
        db.func.lower(Player.email) == sender).order_by(Player.id)).scalars().first()


def process(msg, raw, config):
    """Read a plain reply; return what became of it ({status, code, ...}).  Every refusal of
    a mail from a registered address is answered (at that address); others are not."""
    sender = parseaddr(_clean(msg.get("From", "")))[1].lower()
    player = _registered(sender)
    if player is None:
        log.info("plain mail from %r: not a registered address; no answer", sender[:254])
        return {"status": "ignored", "code": "unknown_sender"}
    reply = _Answer(player, msg)
    if config.get("PBEM_MAIL_DKIM") and not _dkim_ok(raw, sender):
        return reply.refuse("dkim_failed", "This mail carries no valid DKIM signature of your "
                            "address's domain, so this server cannot tell it came from you; "
                            "nothing was played.")
    found = [(t, mailkeys.token_row(t)) for t in tokens_of(msg)]
    rows = [row for _, row in found if row is not None]
    for row in rows:  # two accounts may share an address: the token's owner is the one
        owner = db.session.get(Player, row.player_id)
        if owner is not None and (owner.email or "").lower() == sender:
            player = reply.player = owner
            break
    keyed = mailkeys.live_key(player)
    if not rows and keyed is None:
        return reply.refuse("mail_off", "Moves by mail are off for you, so a plain reply "
                            "plays nothing. Turn them on with pbem mail on (or the switch on "
                            "your settings page).")
    if not found:
        return reply.refuse("no_token", "This mail is not a reply to a turn notice (it carries "
                            "no reply token), so it plays nothing.")
    if not rows:
        return reply.refuse("unknown_token", "The reply token of this mail is not one this "
                            "server gave, so it plays nothing.")
    token = next((row for row in rows if row.player_id == player.id), None)
    if token is None:
        return reply.refuse("not_your_token", "This mail answers a notice that was sent to "
                            "another player, so it plays nothing.")
    game = db.session.get(Game, token.game_id)
    reply.game = game
    if keyed is None:
        return reply.refuse("mail_off", "Moves by mail are off for you (turned off, or your "
                            "mail key ended), so a plain reply plays nothing. Turn them on "
                            "again with pbem mail on.")
    if token.spent_at is not None:
        return reply.refuse("token_spent", "This notice's reply was used already: a notice "
                            "plays one move. Reply to the newest mail about this game.")
    owes = game is not None and game.status == "playing" and token.seat in (game.to_act or []) \
        and _holds(game, token.seat, player)
    if game is None or game.head_seq + 1 != token.seq or not owes:
        return reply.refuse("token_stale", f"This notice was about move {token.seq + 1} of game "
                            f"{token.game_id}, and the game has moved on since, so this mail "
                            "plays nothing.", fresh=owes, seat=token.seat)
    move = first_line(msg)
    if move is None:
        return reply.refuse("no_move", "The first line of this mail (above the quoted notice) "
                            "is empty, so it plays nothing.", fresh=True, seat=token.seat)
    if len(move) > MAX_MOVE_LINE:
        return reply.refuse("no_move", f"The first line of this mail is longer than "
                            f"{MAX_MOVE_LINE} characters: it is not a move, and plays nothing.",
                            fresh=True, seat=token.seat)
    if not mailkeys.spend(token):
        db.session.rollback()
        return reply.refuse("token_spent", "This notice's reply was used already: a notice "
                            "plays one move.")
    move = canonical(game, move)
    private, delegation = keyed
    try:
        text, signature = mailkeys.sign_move(private, delegation, game, token.seat, move)
        entry, _ = append_move(game.id, text, signature)
    except (DomainError, EnvelopeError) as exc:
        db.session.rollback()
        db.session.expire_all()
        game = db.session.get(Game, token.game_id)
        reply.game = game
        still = game.status == "playing" and token.seat in (game.to_act or [])
        return reply.refuse(getattr(exc, "code", "refused"), f"The move {move[:80]!r} was not "
                            f"played: {exc.message}", fresh=still, seat=token.seat)
    db.session.expire_all()
    game = db.session.get(Game, token.game_id)
    reply.game = game
    return reply.played(entry, token.seat)


def canonical(game, text):
    """``text`` in the game's own notation ("HOLD" is "hold"), or as written when the rules
    library does not read it (the append path then gives the rules' refusal)."""
    if text.startswith("@"):
        return text
    from shared.games import get_game
    try:
        game_def = get_game(game.type)
        return game_def.format_move(game_def.parse_move(text))
    except Exception:  # noqa: BLE001 - not a move: append_move says why, in the rules' words
        return text


def _holds(game, seat, player):
    return any(s.seat == seat and s.player_id == player.id for s in game.seats)


class _Answer:
    """The answer to one plain mail, queued to the player's registered address."""

    def __init__(self, player, msg):
        self.player, self.game = player, None
        self.subject = _clean(msg.get("Subject", ""))
        incoming = _clean(msg.get("Message-ID", "")).strip()
        self.thread = {"In-Reply-To": incoming, "References": incoming} \
            if incoming.startswith("<") and incoming.endswith(">") and len(incoming) < 250 \
            else {}

    def _subject(self):
        subject = self.subject or "[pbem] your move by mail"
        return (subject if subject.lower().startswith("re:") else "Re: " + subject)[:200]

    def _send(self, lines, seat=None, fresh=False):
        headers = dict(self.thread)
        body = "\n".join(lines) + "\n"
        if fresh and self.game is not None and seat is not None \
                and mailkeys.opted_in(self.player):
            from .notify import turn_text
            headers.update(mailkeys.issue_token(self.player, self.game.id, seat,
                                                self.game.head_seq + 1))
            _, notice, _ = turn_text(self.game, seat, self.player, "turn", headers)
            body += ("\nThis mail is your turn notice now: reply to it with your move alone on "
                     "its first line.\n\n" + notice)
        enqueue(self.player, self.game.id if self.game is not None else None, "mail-reply",
                self._subject(), body, headers=headers)
        db.session.commit()

    def refuse(self, code, why, fresh=False, seat=None):
        log.info("plain mail from %s refused: %s", self.player.name, code)
        if self._answered_lately() >= MAX_ANSWERS_PER_HOUR:
            log.warning("plain mail from %s refused (%s), not answered: %d answers in the "
                        "last hour", self.player.name, code, MAX_ANSWERS_PER_HOUR)
            db.session.rollback()
            return {"status": "refused", "code": code, "reason": why, "answered": False}
        self._send([why, "", HOW_TO_MOVE], seat, fresh)
        return {"status": "refused", "code": code, "reason": why}

    def _answered_lately(self):
        from datetime import timedelta

        from ..clock import now
        from ..db.models import Notice
        return db.session.execute(db.select(db.func.count(Notice.id)).where(
            Notice.player_id == self.player.id, Notice.kind == "mail-reply",
            Notice.created_at > now() - timedelta(hours=1))).scalar_one()

    def played(self, entry, seat):
        game = self.game
        lines = [f"Played in game {game.id}: move {entry['seq'] + 1} ({seat}: {entry['move']}), "
                 "signed by your mail key."]
        still = game.status == "playing" and seat in (game.to_act or [])
        if game.status != "playing":
            lines.append("The game is over.")
        elif not still:
            lines.append("A notice comes when it is your move again.")
        self._send(lines, seat, fresh=still)
        return {"status": "accepted", "code": "played", "game": game.id, "seq": entry["seq"],
                "seat": seat, "move": entry["move"]}
