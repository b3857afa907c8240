"""The latest state of each game: a per-process cache, the snapshot table, the log's replay.

The snapshot table and the cache only save replaying the log: ``rebuild_state`` is the truth.
A snapshot holds the rules' state and the table state (``shared.table``: seat keys after
rotations, revoked device keys, a pending takeback, the seqs taken back) as
``{"pbem_table": table, "state": state}``; a snapshot written before table entries existed
is the bare state, read with a fresh table state.
"""

import json
import threading
from collections import OrderedDict

from flask import current_app
from sqlalchemy import bindparam, update

from shared.archive import replay_log
from shared.games import get_game
from shared.table import LogReplay, new_table

from . import db
from .models import Move, Snapshot

_SNAPSHOTS = Snapshot.__table__
# built once: building a statement costs more than running it on SQLite (the hot path)
_UPDATE_SNAPSHOT = update(_SNAPSHOTS).where(_SNAPSHOTS.c.game_id == bindparam("gid")).values(
    seq=bindparam("new_seq"), state=bindparam("new_state"))


class StateCache:
    """A small per-process cache of the latest state (as JSON text) of recently used games,
    keyed by (game id, seq of the last move)."""

    def __init__(self, size=256):
        self.size = size
        self.items = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            value = self.items.get(key)
            if value is not None:
                self.items.move_to_end(key)
            return value

    def put(self, key, value):
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)


def cache():
    """This app's cache (one per app and process)."""
    found = current_app.extensions.get("pbem_state_cache")
    if found is None:
        found = current_app.extensions["pbem_state_cache"] = StateCache()
    return found


def state_text(state, table=None):
    """The compact JSON text a state (with its table state, when given) is stored and cached
    as."""
    if table is not None:
        state = {"pbem_table": table, "state": state}
    return json.dumps(state, separators=(",", ":"))


def _split(game, text):
    """(state, table) from a snapshot's text."""
    found = json.loads(text)
    if "pbem_table" in found and "state" in found and len(found) == 2:
        return found["state"], found["pbem_table"]
    return found, new_table(game.header)


def _snapshot_text(game):
    key = (game.id, game.head_seq)
    text = cache().get(key)
    if text is None:
        snap = db.session.get(Snapshot, game.id)
        if snap is not None and snap.seq == game.head_seq:
            text = snap.state
        else:
            log = rebuild_log(game)
            text = state_text(log.state, log.table)
        cache().put(key, text)
    return text


def load_state(game):
    """The rules' state after the game's last entry (a fresh copy the caller may mutate).

    From the cache or the snapshot table; rebuilt from the log when the
    snapshot is missing or behind.
    """
    return _split(game, _snapshot_text(game))[0]


def load_log(game):
    """The game's log replayed up to its last entry, as a ``shared.table.LogReplay`` (the
    rules' state, the table state, what is owed) ready to take the next entry."""
    state, table = _split(game, _snapshot_text(game))
    return LogReplay(get_game(game.type), game.header, bytes.fromhex(game.seed), state=state,
                     table=table, history=lambda: _envelopes(game))


def _envelopes(game):
    moves = db.session.execute(db.select(Move.envelope).filter_by(game_id=game.id)
                               .filter(Move.seq <= game.head_seq).order_by(Move.seq)).scalars()
    return [json.loads(m) for m in moves]


def rebuild_log(game):
    """Replay the whole log from the seed (the snapshot is only a cache); the LogReplay."""
    return replay_log(get_game(game.type), game.header, bytes.fromhex(game.seed),
                      _envelopes(game))


def rebuild_state(game):
    """Replay the whole log from the seed (the snapshot is only a cache)."""
    return rebuild_log(game).state


def store_snapshot(game_id, seq, text):
    """Write the state ``text`` after move ``seq`` to the snapshot table (in the caller's
    transaction)."""
    updated = db.session.execute(_UPDATE_SNAPSHOT, {"gid": game_id, "new_seq": seq,
                                                    "new_state": text})
    if updated.rowcount == 0:
        db.session.execute(db.insert(_SNAPSHOTS).values(game_id=game_id, seq=seq, state=text))


def remember(game_id, seq, text):
    """Cache the state after move ``seq`` once its transaction committed."""
    cache().put((game_id, seq), text)
