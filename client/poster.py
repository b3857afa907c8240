"""Sign, post and retry one log entry (a move or a table entry), and check what comes back.

Every command that sends something to a game's log goes through :class:`Poster`: ``pbem
play``, ``pbem sync`` (the offline outbox), ``pbem bot``, takeback requests and answers,
``pbem leave`` (the @handover entry), the @rotate entries of ``pbem key rotate`` and the
@revoke entries of ``pbem device revoke``.  One retry policy:

* 409 ``stale_seq`` (the game moved on between fetching and posting): the current view
  (the one the refusal carries, else fetched) is checked against the last head seen, and
  the entry is signed again on it and posted while it still stands: a move while its seat
  owes one and it is among the seat's legal moves on the fresh state (the server's list,
  judged by the rules library's notation when this client has the game: client/precheck.py);
  a table entry always (the server judges it).  At most ``STALE_RETRIES`` times.
* no answer, 5xx or 429: the same signed body is posted again after a bounded back-off
  (``BACKOFF``), at least the ``Retry-After`` the server gave.  A repeat of an entry the
  server already appended answers that entry (server/append.py), so a retry never plays a
  move twice.
* any other refusal is raised as it came (the server's reason).

The entry is posted with ``answer=view``: it comes back with the view after it and that
view's signed head, which is checked (client/heads.py: history only grows) and kept as the
game's cached view, so that the next ``pbem play`` signs against it without fetching.
"""

import time

from .api import ApiError, Conflict, RateLimited, ServerError, ServerUnreachable

#: seconds to wait before each repeat of a post that got no answer (or a 5xx, or a 429)
BACKOFF = (1.0, 2.0, 4.0)
#: a Retry-After longer than this is not waited for: the post fails with the server's reason
MAX_RETRY_AFTER = 60.0
#: how often a stale entry is signed again on the fresh state
STALE_RETRIES = 3


class MovedOn(ApiError):
    """The game moved on and the entry no longer stands: it was not posted again.  ``code``
    "moved_on": its seat owes no move now; "refused_now": the rules refuse it on the fresh
    state (``message`` is their sentence)."""


def _sleep(seconds):  # tests replace it: no test waits for a back-off
    time.sleep(seconds)


def entry_line(entry):
    """One posted entry as the commands print it: ``move 15: red settle 14  (events)``
    (moves are numbered from 1, as on the game's pages; see client/numbers.py)."""
    from .numbers import joined_events, shown_text
    events = joined_events(entry)
    return f"move {entry['seq'] + 1}: {entry['seat']} {shown_text(entry['move'])}" + \
        (f"  ({events})" if events else "")


def entry_json(entry):
    """The fields of a posted entry that ``--json`` prints."""
    return {k: entry.get(k) for k in ("seq", "seat", "move", "events", "hash")}


class Poster:
    """Posts entries for the home of context ``c`` (its API, heads and cached views).

    ``signer``: the private key that signs the envelopes (default: the home's main key);
    ``rules``: the rules-library game used to judge whether a stale move still stands
    (default: looked up from the view, when this client has it).
    """

    def __init__(self, c, signer=None, rules=None):
        self.c = c
        self.signer = signer
        self.rules = rules

    def key(self):
        return self.signer if self.signer is not None else self.c.home.private_key()

    def post(self, game_id, seat, text, at=None, body=None, wanted_seat=None):
        """Sign ``text`` for ``seat`` on the state ``at`` (a view answer with ``next_seq``
        and ``prev``; fetched when None) and post it; return the entry.

        ``body``: an envelope signed already ({"envelope", "signature"}, an offline move):
        posted first as it is.  Raises MovedOn, or the ApiError of the server's refusal.
        """
        from .signing import signed_move
        if body is None:
            if at is None:
                at = self.c.fetch_view(game_id, wanted_seat)
            body = signed_move(self.key(), game_id, at["next_seq"], at["prev"], seat, text)
        for attempt in range(STALE_RETRIES + 1):
            try:
                return self._post_repeating(game_id, body)
            except Conflict as exc:
                if exc.code != "stale_seq" or attempt == STALE_RETRIES:
                    raise
                fresh = self._view_of_refusal(game_id, exc.details) or \
                    self.c.fetch_view(game_id, wanted_seat)
            self._still_stands(game_id, seat, text, fresh)
            body = signed_move(self.key(), game_id, fresh["next_seq"], fresh["prev"], seat,
                               text)
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _post_repeating(self, game_id, body):
        """POST ``body``; repeat it after a back-off while no answer, a 5xx or a 429 came."""
        for attempt in range(len(BACKOFF) + 1):
            try:
                return self._posted(game_id, body)
            except (ServerUnreachable, ServerError, RateLimited) as exc:
                if attempt == len(BACKOFF):
                    raise
                wait = max(BACKOFF[attempt], getattr(exc, "retry_after", None) or 0.0)
                if wait > MAX_RETRY_AFTER:
                    raise
                self.c.note(f"pbem: {exc.message}; trying again in {wait:g}s")
                _sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def _posted(self, game_id, body):
        entry = self.c.api.post_move(game_id, body["envelope"], body["signature"],
                                     answer="view")
        view = entry.pop("view", None)
        if is_view(view, game_id):
            self.c.heads.check(game_id, view["head"], entries=[entry])
            keep_view(self.c, game_id, view)
        return entry

    def _view_of_refusal(self, game_id, details):
        """The view a stale_seq refusal carries (its head checked against the remembered one
        with the entry it carries), kept as the cached view; None from an older server."""
        view = details.get("view") if isinstance(details, dict) else None
        if not is_view(view, game_id):
            return None
        entries = details.get("entries")
        self.c.heads.check(game_id, view["head"],
                           entries=entries if isinstance(entries, list) else ())
        keep_view(self.c, game_id, view)
        return view

    def _still_stands(self, game_id, seat, text, fresh):
        """Raise MovedOn unless ``text`` may still be posted for ``seat`` on ``fresh``."""
        from shared.table import is_table_move
        if is_table_move(text):
            return  # a table entry does not wait for a turn: the server judges it
        view = fresh.get("view") or {}
        if seat not in (view.get("to_act") or []):
            raise MovedOn(f"the game moved on and {seat} owes no move now (pbem show "
                          f"{game_id})", 409, "moved_on")
        rules = self.rules
        if rules is None:
            from .precheck import rules_for
            rules = rules_for(fresh, required=False)
        if rules is None:
            return
        from shared import IllegalMove

        from .precheck import check_first
        legal = None
        try:  # the server's list for the fresh state: what "still legal" is judged by
            got = self.c.api.legal(game_id, seat)
            if got.get("seat") == seat and got.get("next_seq") == fresh.get("next_seq") and \
                    isinstance(got.get("moves"), list):
                legal = got["moves"]
        except ApiError:
            legal = None  # the notation and the turn are still checked
        try:
            check_first(rules, text, seat, view, legal)
        except IllegalMove as exc:
            # the rules' own sentence, as the server would refuse it
            raise MovedOn(exc.message, 422, "refused_now") from None


# --- the cached view a move is signed against ------------------------------------------------

def is_view(view, game_id):
    return isinstance(view, dict) and isinstance(view.get("head"), dict) \
        and isinstance(view.get("game"), dict) and view["game"].get("id") == game_id \
        and isinstance(view.get("next_seq"), int) and isinstance(view.get("prev"), str)


def keep_view(c, game_id, view):
    view["view_next_seq"] = view["next_seq"]
    c.home.cache_view(c.server, game_id, view)


def known_view(c, game_id, seat):
    """The cached view of ``game_id`` when it is as new as the last head this home saw
    (remembered by every view, move and refusal the server answered): then ``play`` signs
    against it and needs one round trip; a stale one costs a refusal that carries the
    fresh view (see Poster.post).  None when it cannot serve."""
    resp = c.home.cached_view(c.server, game_id)
    head = c.home.last_head(c.server, game_id)
    if resp is None or head is None or resp.get("view") is None:
        return None
    if resp.get("next_seq") != head.get("length") or resp.get("prev") != head.get("hash") \
            or resp.get("view_next_seq", resp["next_seq"]) != resp["next_seq"]:
        return None
    if seat is not None and resp.get("seat") != seat:
        return None
    return resp


def advance_cache(c, game_id, resp, seq, prev):
    """Sign the next offline move after the ones just queued or played: the cached view is
    kept (it is now older than the chain: ``view_next_seq`` says so).  Nothing changes when
    the cached view is already the one after them (the post's answer: Poster kept it)."""
    kept = c.home.cached_view(c.server, game_id)
    if kept and kept.get("next_seq", -1) >= seq and \
            kept.get("view_next_seq", kept.get("next_seq")) == kept.get("next_seq"):
        return
    c.home.cache_view(c.server, game_id, dict(
        resp, next_seq=seq, prev=prev, view_next_seq=resp.get("view_next_seq",
                                                              resp["next_seq"])))


def sign_chain(c, game_id, seat, move_list, seq, prev):
    """Sign ``move_list`` in order from (seq, prev), linking each to the one before."""
    from shared.envelope import entry_hash

    from .signing import signed_move
    key = c.home.private_key()
    out = []
    for move in move_list:
        body = signed_move(key, game_id, seq, prev, seat, move)
        out.append({"game": game_id, "seat": seat, "move": move, "seq": seq, **body})
        prev = entry_hash(body["envelope"].encode("utf-8"), body["signature"])
        seq += 1
    return out, seq, prev


def queue(c, signed):
    """Add signed offline moves to the home's outbox (sent by ``pbem sync``)."""
    outbox = c.home.outbox()
    outbox.extend(dict(s, server=c.server) for s in signed)
    c.home.save_outbox(outbox)
