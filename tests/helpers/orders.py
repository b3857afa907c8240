"""Standing orders over the API: a game's log with orders, playing Pig to its end, and
an archive re-signed by the server's key (a forger's)."""

import json

from shared.envelope import entry_hash, final_head_message, sign, sign_envelope


def _log(player, game_id):
    return [(e["seq"], e["seat"], e["move"], json.loads(e["envelope"]).get("order"))
            for e in player.get(f"/api/games/{game_id}/log").get_json()["entries"]]


def _finish(game_id, by_seat):
    """Play to the end: roll once, then hold (Pig to a low target)."""
    ann = next(iter(by_seat.values()))
    for _ in range(400):
        info = ann.get(f"/api/games/{game_id}/view").get_json()
        if info["game"]["status"] == "over":
            return
        seat = info["view"]["to_act"][0]
        move = "hold" if info["view"]["pot"] else "roll"
        r = by_seat[seat].play(game_id, seat, move)
        assert r.status_code in (201, 409), r.get_json()
    raise AssertionError("the game did not end")


def _resign(app, archive, upto):
    """Re-link and re-sign entries from ``upto`` on and the final head with the server's key
    (a malicious server, or anyone who stole its key, forging a consistent archive)."""
    from server.db.keys import server_key
    with app.app_context():
        priv = server_key()[0]
    entries = archive["entries"]
    prev = entries[upto - 1]["hash"] if upto else archive["genesis"]
    for e in entries[upto:]:
        env = json.loads(e["envelope"])
        env["prev"] = prev
        if env.get("forced"):
            text, sig = sign_envelope(priv, env)
        else:
            text, sig = e["envelope"], e["signature"]
            assert json.loads(text)["prev"] == prev, "a seat's own move cannot be re-linked"
        e.update(envelope=text, signature=sig, hash=entry_hash(text.encode(), sig))
        prev = e["hash"]
    head = archive["head"]
    head["length"], head["hash"] = len(entries), prev
    head["signature"] = sign(priv, final_head_message(head["game"], head["length"], prev,
                                                      archive["result"], archive["seed"]))
    if "documents" in archive:  # v4: the set of side documents is signed with the head
        from shared.envelope import documents_digest, documents_message
        block = archive["documents"]
        block["digest"] = documents_digest(archive["messages"], archive["orders"])
        block["signature"] = sign(priv, documents_message(
            head["game"], head["length"], prev, head["status"], block["reader"],
            block["digest"]))
    return archive
