"""History only grows: check every signed log head the server shows against the last one seen.

The server signs each game's log head ``{"game", "length", "hash",
"signature"}`` with its key (``GET /api/server``), which the client pins in
the home on first use.  A later head must extend the remembered one: not
shorter, not the same length with another hash, and when longer, the entry
at the old ``length - 1`` must still have the remembered hash (for an old
length of 0, entry 0 must link to the remembered genesis hash).
"""

from shared.envelope import EnvelopeError, head_message, verify, verify_entry


class HistoryError(Exception):
    """The server showed a head that does not extend what this home saw before."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class HeadKeeper:
    """Checks and remembers heads for one server, using ``api`` and ``home``."""

    def __init__(self, api, home):
        self.api = api
        self.home = home
        self.server = api.base_url

    def server_key(self):
        """The pinned server key (pinning it now on first use)."""
        key = self.home.pinned_key(self.server)
        if key is None:
            key = self.api.server_info()["public_key"]
            self.home.pin_key(self.server, key)
        return key

    def check(self, game_id, head, entries=()):
        """Verify ``head`` and remember it; raise HistoryError when it rewrites history.

        ``entries``: log entries the server sent with the head (the one just appended, or
        the one a refused move linked to); when one of them shows the remembered head is
        still in the log, no log entry is fetched to check it (see :meth:`_extends`).
        """
        if head is None:
            return
        if not isinstance(head, dict) or head.get("game") != game_id \
                or not isinstance(head.get("length"), int) or not isinstance(head.get("hash"),
                                                                             str):
            raise HistoryError(f"the server sent a malformed log head for game {game_id}")
        key = self.server_key()
        if not verify(key, head_message(game_id, head["length"], head["hash"]),
                      head.get("signature") or ""):
            raise HistoryError(f"the log head of game {game_id} is not signed by the server key "
                               f"pinned in this home ({key[:16]}...); the server or its key "
                               "changed")
        old = self.home.last_head(self.server, game_id)
        if old is not None:
            self._extends(game_id, old, head, entries)
        if old is None or old != {"length": head["length"], "hash": head["hash"]}:
            self.home.remember_head(self.server, game_id, head)

    def check_archive(self, game_id, archive):
        """An archive the server sent (already checked by ``shared.archive.check_chain``): it
        must be signed by the pinned key and its head extend the last one seen, which the
        archive's own entries show.  Remembers its head; raises HistoryError."""
        key = self.server_key()
        if archive["header"]["server_key"] != key:
            raise HistoryError(f"the archive of game {game_id} is signed by server key "
                               f"{archive['header']['server_key'][:16]}..., not by the key "
                               f"pinned in this home ({key[:16]}...)")
        head = archive["head"]
        old = self.home.last_head(self.server, game_id)
        if old is not None:
            told = f"game {game_id}'s history was rewritten: "
            if head["length"] < old["length"]:
                raise HistoryError(told + f"the archive has {head['length']} moves where the "
                                   f"server showed {old['length']} before")
            seen = archive["genesis"] if old["length"] == 0 else \
                archive["entries"][old["length"] - 1]["hash"]
            if seen != old["hash"]:
                raise HistoryError(told + (f"move {old['length']} now has another hash "
                                           "than the one seen before" if old["length"] else
                                           "the game's header is not the one seen before"))
        if old is None or old != {"length": head["length"], "hash": head["hash"]}:
            self.home.remember_head(self.server, game_id, head)

    def _extends(self, game_id, old, new, entries=()):
        """``new`` extends ``old``: the entry at ``old["length"] - 1`` still has the old hash
        (for length 0: entry 0 links to the genesis hash).  One of ``entries`` shows it when
        it is that entry, or the entry after it linking to the old hash; else it is fetched."""
        told = f"game {game_id}'s history was rewritten: "
        if new["length"] < old["length"]:
            raise HistoryError(told + f"the server now shows {new['length']} moves where it "
                               f"showed {old['length']} before")
        if new["length"] == old["length"]:
            if new["hash"] != old["hash"]:
                raise HistoryError(told + f"move {old['length']} now has another hash than "
                                   "the one seen before")
            return
        if any(isinstance(e, dict) and e.get("seq") == old["length"]
               and _entry_holds(e, game_id, old["length"], prev=old["hash"]) for e in entries) \
                or old["length"] and any(
                    isinstance(e, dict) and e.get("seq") == old["length"] - 1
                    and _entry_holds(e, game_id, old["length"] - 1, expected_hash=old["hash"])
                    for e in entries):
            return
        if old["length"] == 0:
            entries = self.api.log(game_id, since=0, limit=1)["entries"]
            if not entries or not _entry_holds(entries[0], game_id, 0, prev=old["hash"]):
                raise HistoryError(told + "the first move no longer links to the game's "
                                   "original header")
            return
        entries = self.api.log(game_id, since=old["length"] - 1, limit=1)["entries"]
        if not entries or not _entry_holds(entries[0], game_id, old["length"] - 1,
                                           expected_hash=old["hash"]):
            raise HistoryError(told + f"move {old['length']} now has another hash than the "
                               "one seen before")


def _entry_holds(entry, game_id, seq, prev=None, expected_hash=None):
    """True when the log entry's envelope is move ``seq`` of ``game_id`` (linking to ``prev``
    when given), and its hash is the hash of its envelope and signature, ``expected_hash``
    when given and the hash the entry states."""
    try:
        _, digest = verify_entry(entry["envelope"], entry["signature"], game_id=game_id,
                                 seq=seq, prev=prev, expected_hash=expected_hash)
        return digest == entry["hash"]
    except (EnvelopeError, KeyError, TypeError):
        return False
