"""Events: what a move caused, as text for people and as facts for programs.

An event is a dict kept in ``state["events"]`` (the events of the last move)::

    {"public": "red rolls 4 + 3 = 7.",            # the text every seat may read
     "private": {"blue": "red stole your wool."}, # optional: the text one seat reads instead
     "kind": "roll",                              # optional: what happened, one word
     "data": {"dice": [4, 3], "total": 7},        # optional: the public facts, as fields
     "private_data": {"blue": {"card": "wool"}}}  # optional: facts only that seat may read

A bot or a checker reads ``kind`` and ``data`` (through :func:`facts_for`, which redacts
``private_data`` for the viewer) and never parses the text.  States of rules version "1"
predate facts: :func:`make_event` leaves them out there, so that replaying an old log gives
a byte-identical state.
"""

from .base import FIRST_RULES_VERSION


def make_event(state, public, private=None, kind=None, data=None, private_data=None):
    """A new event dict for ``state`` (not yet added); facts only from rules version 2 on."""
    ev = {"public": public}
    if private:
        ev["private"] = dict(private)
    # rules_version_of(state) != FIRST_RULES_VERSION, written out: every event asks
    if kind is not None and state.get("rules_version", FIRST_RULES_VERSION) != FIRST_RULES_VERSION:
        ev["kind"] = kind
        if data:
            ev["data"] = dict(data)
        if private_data:
            ev["private_data"] = {seat: dict(facts) for seat, facts in private_data.items()}
    return ev


def add_event(state, public, private=None, kind=None, data=None, private_data=None):
    """Append :func:`make_event` to ``state["events"]``; returns the event."""
    ev = make_event(state, public, private, kind, data, private_data)
    state["events"].append(ev)
    return ev


def texts_for(events, seat):
    """The texts of ``events`` as ``seat`` (None = spectator) may read them (a view's log)."""
    out = []
    for ev in events or ():
        private = ev.get("private") or {}
        out.append(private.get(seat, ev["public"]) if seat is not None else ev["public"])
    return out


def facts_for(events, seat):
    """The facts of ``events`` as ``seat`` (None = spectator) may see them.

    One dict per event, in order: ``{"kind": kind or None, "data": {...}}``, the public data
    merged with the viewer's own private data.  Another seat's private data never appears.
    """
    out = []
    for ev in events or ():
        data = dict(ev.get("data") or {})
        if seat is not None:
            data.update((ev.get("private_data") or {}).get(seat) or {})
        out.append({"kind": ev.get("kind"), "data": data})
    return out
