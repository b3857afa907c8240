"""Events: what a move caused, as text for people and as facts for programs.

An event is a dict kept in ``state["events"]`` (the events of the last move)::

    {"public": "red rolls 4 + 3 = 7.",            # the text every seat may read
     "private": {"blue": "red stole your wool."}, # optional: the text one seat reads instead
     "kind": "roll",                              # optional: what happened, one word
     "data": {"dice": [4, 3], "total": 7},        # optional: the public facts, as fields
     "private_data": {"blue": {"card": "wool"}}}  # optional: facts only that seat may read

A bot or a checker reads ``kind`` and ``data`` (through :func:`facts_for`, which redacts
``private_data`` for the viewer) and never parses the text.

Facts are kept at every rules version, "1" included (the version every new game starts at).
The three built-in games recorded their first version before facts existed: their states of
that version keep no facts, so that replaying an old log gives a byte-identical state (and
hash).  The template strips them there (``shared.base.Game.versions_without_facts``), not
this module: a new game's version "1" keeps its facts.

A move that shows a hidden field to every seat on purpose (a reveal the rules intend: the
dice lifted at a challenge) says so with ``reveals``: ``[(seat, path), ...]`` as
``Game.hidden_fields`` names them.  The contract (``shared.contract``) lets exactly those
fields reach the other seats.
"""


def make_event(state, public, private=None, kind=None, data=None, private_data=None,
               reveals=None):
    """A new event dict for ``state`` (not yet added), its facts kept at every version."""
    ev = {"public": public}
    if private:
        ev["private"] = dict(private)
    if kind is not None:
        ev["kind"] = kind
        if data:
            ev["data"] = dict(data)
        if private_data:
            ev["private_data"] = {seat: dict(facts) for seat, facts in private_data.items()}
    if reveals:
        ev["reveals"] = [[seat, list(path)] for seat, path in reveals]
    return ev


def add_event(state, public, private=None, kind=None, data=None, private_data=None,
              reveals=None):
    """Append :func:`make_event` to ``state["events"]``; returns the event."""
    ev = make_event(state, public, private, kind, data, private_data, reveals)
    state["events"].append(ev)
    return ev


#: the keys of an event that are facts (what a state without facts leaves out)
FACT_KEYS = ("kind", "data", "private_data")


def strip_facts(events):
    """Remove the facts of ``events`` in place (the states of a version without facts)."""
    for ev in events or ():
        for key in FACT_KEYS:
            ev.pop(key, None)


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
