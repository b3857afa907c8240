"""Moves by mail: extract every armoured block from a raw RFC 822 message and append it.

Each block is verified and appended exactly like a POSTed move; a block
already in the log is a no-op.  The sender is answered by email with the
result of every block (to the From address when it is a registered
player's, else to the registered addresses of the seats that moved).
"""

import email
import email.policy
import logging
from email.utils import parseaddr

from shared.armor import extract_blocks

from . import services
from .errors import ApiError
from .extensions import db
from .models import Game, Player
from .notify import enqueue

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
    """Append every block in ``raw``; return a list of per-block results and the reply."""
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
    results = []
    owners = set()
    for block in blocks:
        game = db.session.get(Game, block["game"]) if len(block["game"]) <= 16 else None
        if game is None:
            results.append({"game": block["game"], "status": "refused",
                            "reason": f"there is no game {block['game']!r}"})
            continue
        try:
            entry, created = services.append_move(game.id, block["envelope"], block["signature"])
        except ApiError as exc:
            db.session.rollback()
            results.append({"game": game.id, "status": "refused", "code": exc.error_code,
                            "reason": exc.message})
            continue
        results.append({"game": game.id, "status": "accepted" if created else "already in log",
                        "seq": entry["seq"], "seat": entry["seat"], "move": entry["move"]})
        seat = next((s for s in game.seats if s.seat == entry["seat"]), None)
        if seat is not None and seat.player_id:
            owners.add(seat.player_id)
    sender = parseaddr(msg.get("From", ""))[1].lower()
    _reply(sender, owners, results, errors, msg.get("Subject", ""))
    db.session.commit()
    return {"results": results, "undecodable": errors}


def _reply(sender, owners, results, errors, subject):
    lines = []
    for r in results:
        if r["status"] == "refused":
            lines.append(f"- game {r['game']}: REFUSED: {r['reason']}")
        else:
            lines.append(f"- game {r['game']} move {r['seq']} ({r['seat']}: {r['move']}): "
                         f"{r['status']}")
    lines += [f"- {e} (the block could not be read)" for e in errors]
    if not lines:
        lines = ["No signed move was found in your message. Paste the whole block printed by",
                 "  pbem play --armor GAME MOVE",
                 "including its BEGIN and END lines."]
    body = "Your message was read by the pbem server:\n\n" + "\n".join(lines) + "\n"
    reply_subject = ("Re: " + subject if subject and not subject.lower().startswith("re:")
                     else subject or "[pbem] your moves")[:200]
    player = db.session.execute(db.select(Player).filter(
        db.func.lower(Player.email) == sender)).scalar_one_or_none() if sender else None
    if player is not None:
        enqueue(player, None, "mail-reply", reply_subject, body)
        return
    for pid in owners:
        enqueue(db.session.get(Player, pid), None, "mail-reply", reply_subject, body)
    if not owners:
        log.info("mail-in from an unknown sender %r; answer not sent:\n%s", sender, body)
