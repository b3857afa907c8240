"""Moves by mail: extract every armoured block from a raw RFC 822 message and append it.

A message without any block is a move in plain words, for the players who move by mail
(server/workers/mailreply.py).

Each block is verified and appended exactly like a POSTed move; a block
already in the log is a no-op.  The result of each block is mailed to the
registered address of the player whose key signed it; the From header,
which anyone can write, is never an address the server mails (20 forged
posts once queued 20 replies to an address the messages only claimed).
"""

import email
import email.policy
import logging
from email.utils import parseaddr

from shared.armor import extract_blocks

from ..db import db
from ..db.models import Game, Player
from ..game.append import append_move
from ..game.domain import DomainError
from .outbox import enqueue

log = logging.getLogger("pbem.mailin")
MAX_MESSAGE = 2 * 1024 * 1024


def message_texts(raw):
    """Every text part of a message (nested and forwarded ones too), decoded, and the raw text."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    texts = []
    for part in msg.walk():
        if part.get_content_maintype() != "text":
            continue
        try:
            texts.append(part.get_content())
        except (LookupError, ValueError):
            payload = part.get_payload(decode=True) or b""
            texts.append(payload.decode("utf-8", "replace"))
    texts.append(raw.decode("utf-8", "replace"))
    return msg, texts


def process(raw):
    """Append every block in ``raw``; return the per-block results (the reply goes by mail).

    Each block's result is mailed to the registered address of the player whose key signed
    it (the seat's player; the rules' reasons are theirs to read), never to the message's
    From header, which anyone can write: a forged message gets no mail at all.  In the
    returned results a rules refusal's reason is replaced by a generic sentence.
    """
    if len(raw) > MAX_MESSAGE:
        return {"results": [], "error": "the message is too large"}
    msg, texts = message_texts(raw)
    errors, blocks, seen = [], [], set()
    for text in texts:
        for block in extract_blocks(text, errors):
            key = (block["envelope"], block["signature"])
            if key not in seen:
                seen.add(key)
                blocks.append(block)
    if not blocks and not errors:  # a move in plain words, by a player who moves by mail
        from flask import current_app

        from . import mailreply
        plain = mailreply.process(msg, raw, current_app.config)
        return {"results": [], "undecodable": [], "plain": plain}
    results, replies = [], {}
    for block in blocks:
        game = db.session.get(Game, block["game"]) \
            if len(block["game"]) <= 16 and "\x00" not in block["game"] else None
        if game is None:
            results.append({"game": block["game"][:32], "status": "refused",
                            "reason": "there is no such game"})
            continue
        try:
            entry, created = append_move(game.id, block["envelope"], block["signature"])
        except DomainError as exc:
            db.session.rollback()
            result = {"game": game.id, "status": "refused", "code": exc.code,
                      "reason": exc.message}
            signer = _owner(game, exc.seat)
            if signer is not None:
                replies.setdefault(signer, []).append(dict(result))
            if exc.private:
                result.update(code="illegal_move", reason="the rules refused this move (the "
                              "reason was mailed to the seat's player)")
            results.append(result)
            continue
        result = {"game": game.id, "status": "accepted" if created else "already in log",
                  "seq": entry["seq"], "seat": entry["seat"], "move": entry["move"]}
        results.append(result)
        signer = _owner(game, entry["seat"])
        if signer is not None:
            replies.setdefault(signer, []).append(result)
    sender = parseaddr(_clean(msg.get("From", "")))[1].lower()
    subject = _clean(msg.get("Subject", ""))
    for player_id, own in replies.items():
        _reply(db.session.get(Player, player_id), own, subject)
    if not replies:
        log.info("mail-in from %r: no block signed by a seat's key (%d blocks, %d unreadable); "
                 "no reply sent", sender[:254], len(results), len(errors))
    db.session.commit()
    return {"results": results, "undecodable": errors}


def _clean(text):
    """A header as text without control characters (NUL cannot be stored or mailed)."""
    return "".join(ch for ch in str(text) if ch >= " " or ch == "\t")[:998]


def _owner(game, seat):
    """The player id holding ``seat`` in ``game`` (None for no seat or a free one)."""
    if seat is None:
        return None
    found = next((s for s in game.seats if s.seat == seat), None)
    return found.player_id if found is not None else None


def _reply(player, results, subject):
    lines = []
    for r in results:
        if r["status"] == "refused":
            lines.append(f"- game {r['game']}: REFUSED: {r['reason']}")
        else:
            lines.append(f"- game {r['game']} move {r['seq']} ({r['seat']}: {r['move']}): "
                         f"{r['status']}")
    body = "Your message was read by the pbem server:\n\n" + "\n".join(lines) + "\n"
    reply_subject = ("Re: " + subject if subject and not subject.lower().startswith("re:")
                     else subject or "[pbem] your moves")[:200]
    enqueue(player, None, "mail-reply", reply_subject, body)
