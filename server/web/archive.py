"""The archive stepper's use of the verifier: the same checks as ``pbem verify`` (shared.archive).

Everything the pages ask of ``shared.archive`` goes through :func:`verdict` (verify a document)
and :func:`board_at` (the position after the first ``n`` moves), so a change of the archive
format touches this file only.
"""

import hashlib
import json
import logging
import threading
from collections import OrderedDict

from shared import archive as archive_lib
from shared.archive import ArchiveError, replay, replay_log, verify_archive

MAX_ARCHIVE_BYTES = 8 * 1024 * 1024
log = logging.getLogger("pbem.web")

_cache = OrderedDict()
_lock = threading.Lock()


class Unreadable(ValueError):
    """The upload is not a JSON document at all (before any verification)."""


def load(data):
    """Parse an uploaded archive (bytes or str) into a document; raises Unreadable."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise Unreadable("the file is not UTF-8 text: a pbem archive is a JSON document") \
                from None
    loader = getattr(archive_lib, "load_archive", None)  # the strict parser of format v2
    try:
        return loader(data) if loader is not None else json.loads(data)
    except (ValueError, RecursionError) as exc:
        message = getattr(exc, "message", None) or "the file is not a JSON document"
        raise Unreadable(message) from None


def verdict(doc):
    """The verifier's verdict on ``doc``, for the page.  Never raises.

    Returns a dict: ``outcome`` ("complete", "prefix" or "refused"), ``message`` (one
    sentence), ``index`` (the seq of a refused entry, or None), ``entries`` (count),
    ``replayed`` (bool), ``game`` (the Game or None), ``result`` and ``envelopes`` (the parsed
    envelopes of a verified archive, for stepping).
    """
    try:
        key = hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()
    except (RecursionError, ValueError):
        return _refused("the archive is nested too deeply")
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    try:
        report = verify_archive(doc)
    except ArchiveError as exc:
        out = dict(_refused(exc.message), index=exc.index)
    except RecursionError:
        out = _refused("the archive is nested too deeply")
    except Exception:  # noqa: BLE001 - a verifier bug on odd input must not be a 500 page
        log.exception("verify_archive failed on an uploaded archive")
        out = _refused("the archive is malformed: the verifier could not read it")
    else:
        # format v2 reports ``complete``; a v1 report is a verified prefix at best, unless
        # it replayed a finished game (what v1 called verified)
        complete = report.get("complete") if "complete" in report else report.get("replayed")
        note = report.get("note")
        if complete:
            message = "signatures, hash links and the seed hold, and every move replays to " \
                      "the stated result"
        else:
            message = "every check holds" + (f", but {note}" if note else
                                             ", but the archive does not show a whole game")
        out = {"outcome": "complete" if complete else "prefix", "message": message,
               "index": None, "entries": report.get("entries", 0),
               "replayed": bool(report.get("replayed")), "game": report.get("game"),
               "result": report.get("result"),
               # who signed it: any key makes a consistent archive (the page names the key)
               "server_key": report.get("server_key"),
               # v4: the server signed which messages and orders it holds (or a v3's note)
               "documents": report.get("documents") or {},
               "messages": len(report.get("messages") or []),
               "envelopes": [json.loads(e["envelope"]) for e in doc["entries"]]}
    with _lock:
        _cache[key] = out
        while len(_cache) > 16:
            _cache.popitem(last=False)
    return out


def _refused(message):
    return {"outcome": "refused", "message": message, "index": None, "entries": 0,
            "replayed": False, "game": None, "result": None, "server_key": None,
            "envelopes": []}


def signer(checked):
    """Whose key signed a verified archive: {fingerprint, ours, our_fingerprint}, or None.

    A verified archive proves only what the holder of the key in its header signed: anyone
    can rewrite a game and sign it all with a key of their own.  The page says whether that
    key is this server's."""
    from shared.delegation import fingerprint

    from ..db.keys import server_key
    key = checked.get("server_key")
    if checked["outcome"] == "refused" or not isinstance(key, str):
        return None
    ours = server_key()[1]
    return {"fingerprint": fingerprint(key), "ours": key == ours,
            "our_fingerprint": fingerprint(ours)}


def board_at(doc, checked, n):
    """(spectator view, public event texts) after the first ``n`` moves of a verified archive.

    Only for an archive whose seed is revealed (``checked["replayed"]``); raises ValueError
    otherwise.
    """
    if not checked["replayed"] or checked["game"] is None:
        raise ValueError("the seed is not revealed: the moves cannot be replayed")
    game = checked["game"]
    header = doc["header"]
    envelopes = checked["envelopes"]
    if not n:
        return game.view(replay(game, header, bytes.fromhex(doc["seed"]), envelopes, upto=0),
                         None), []
    # the events of move n are those its own step made: a table entry's (a takeback asked)
    # are not in the rules' state, which still holds the last rules move's
    log = replay_log(game, header, bytes.fromhex(doc["seed"]), envelopes, upto=n - 1)
    events = log.step(envelopes[n - 1])
    return game.view(log.state, None), game.events_for(events, None)
