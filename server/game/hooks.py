"""The after-append hook: what else happens when a move is appended.

The append path (server/game/append.py) knows the log, the snapshot and the duties; the
rest of the service (standing orders, the bots' seats, push) registers here at app start
(``create_app`` calls each one's ``init_app``) instead of the append path importing it.

Contract of a hook ``fn(appended)`` (``appended`` is an :class:`Appended`):

- ``after_append(fn, phase=IN_TRANSACTION)``: ``fn`` runs inside the append's own
  transaction, once the head moved and the entry and the snapshot are written, before the
  duties are and before the commit.  It may read and write rows with ``db.session`` (or
  ``appended.writer``, the append's prepared statements); it must not commit, roll back or
  call anything that does.  An exception aborts the append: the whole move is rolled back
  and the exception reaches the append's caller (raise a DomainError for a refusal).
- ``after_append(fn, phase=COMMITTED)``: ``fn`` runs after the commit, outside the
  transaction, in the caller's request or worker pass; the entry is in the log whatever it
  does, so it must not raise (catch, roll back its own work and log).  It may open
  transactions of its own and append further moves.
- Hooks run only for a newly written entry (never for a repeat of a stored one or a
  refused move), once per entry, in the order they were registered; each phase has its
  own list.  Registering the same function twice keeps the first place (create_app runs
  once per app, and tests make many apps in one process).
- ``appended.notes`` is a dict the hooks of one append share: an in-transaction hook
  leaves there what its committed hook needs (e.g. the standing orders' "an order is in
  force").  Use a key named after your module.
"""

from dataclasses import dataclass, field

IN_TRANSACTION = "in_transaction"
COMMITTED = "committed"

_HOOKS = {IN_TRANSACTION: [], COMMITTED: []}


@dataclass
class Appended:
    """One appended entry, as the hooks see it."""

    game_id: str
    seq: int
    seat: str
    env: dict        # the verified envelope (``move``, ``order`` when an order made it, ...)
    over: bool       # the entry ended the game
    handed_to: int | None  # the bot's player id when the entry is a ``@handover``
    writer: object   # server.db.prepared.Writer of the append's transaction
    notes: dict = field(default_factory=dict)
    revoked_key: str | None = None  # a ``@revoke`` entry: the device key it revokes
    table: dict | None = None  # the table state after the entry (shared/table.py)
    result: dict | None = None  # the game's result when the entry ended it


def after_append(fn, phase=IN_TRANSACTION):
    """Register ``fn(appended)`` for ``phase`` (see the module's docstring); returns ``fn``."""
    if phase not in _HOOKS:
        raise ValueError(f"unknown after-append phase {phase!r}: "
                         f"{IN_TRANSACTION!r} or {COMMITTED!r}")
    if fn not in _HOOKS[phase]:
        _HOOKS[phase].append(fn)
    return fn


def run_after_append(phase, appended):
    """Call the hooks of ``phase`` in order with ``appended``."""
    for fn in list(_HOOKS[phase]):
        fn(appended)


def registered(phase):
    """The hooks of ``phase``, in the order they run (a copy)."""
    return list(_HOOKS[phase])
