"""client/poster.py's one retry policy, against a fake API (no server, no clock: the back-off's
sleep is recorded, not slept)."""

import json
import secrets

import pytest

from client import poster as poster_module
from client.api import Conflict, RateLimited, Refused, ServerError, ServerUnreachable
from client.poster import BACKOFF, MovedOn, Poster


class FakeApi:
    """Answers post_move from a script: each item an exception to raise or "ok"."""

    def __init__(self, script, to_act=("north",), legal=("roll", "hold")):
        self.script = list(script)
        self.posted = []
        self.to_act = list(to_act)
        self.legal_moves = list(legal)

    def post_move(self, game_id, envelope, signature, answer=None):
        self.posted.append(json.loads(envelope))
        step = self.script.pop(0)
        if step != "ok":
            raise step
        env = json.loads(envelope)
        return {"seq": env["seq"], "seat": env["seat"], "move": env["move"], "hash": "h" * 64}

    def legal(self, game_id, seat):
        return {"seat": seat, "next_seq": 5, "moves": self.legal_moves}


class FakeHome:
    def __init__(self):
        self.key = secrets.token_bytes(32)

    def private_key(self):
        return self.key

    def cached_view(self, server, game_id):
        return None

    def cache_view(self, server, game_id, view):
        pass


class FakeContext:
    server = "http://fake"

    def __init__(self, api):
        self.api = api
        self.home = FakeHome()
        self.notes = []
        self.fetched = 0

    def note(self, text):
        self.notes.append(text)

    def fetch_view(self, game_id, seat=None, legal=False):
        self.fetched += 1
        return {"game": {"id": game_id, "type": "pig", "rules_version": "1"},
                "next_seq": 5, "prev": "p" * 64, "view": {"to_act": self.api.to_act}}


@pytest.fixture
def slept(monkeypatch):
    waits = []
    monkeypatch.setattr(poster_module, "_sleep", waits.append)
    return waits


AT = {"next_seq": 3, "prev": "a" * 64}


def stale():
    return Conflict("the game has moved on", 409, "stale_seq", {"seq": 5})


def test_no_answer_is_retried_with_the_same_body_after_a_bounded_back_off(slept):
    api = FakeApi([ServerUnreachable("down"), ServerError("busy", 503), "ok"])
    entry = Poster(FakeContext(api)).post("g1", "north", "roll", at=AT)
    assert entry["seq"] == 3 and slept == list(BACKOFF[:2])
    assert api.posted[0] == api.posted[1] == api.posted[2]   # the same signed envelope


def test_retry_after_is_honoured_and_a_long_one_is_not_waited_for(slept):
    limited = RateLimited("slow down", 429)
    limited.retry_after = 7.0
    api = FakeApi([limited, "ok"])
    Poster(FakeContext(api)).post("g1", "north", "roll", at=AT)
    assert slept == [7.0]
    far = RateLimited("slow down", 429)
    far.retry_after = 3600.0
    with pytest.raises(RateLimited):
        Poster(FakeContext(FakeApi([far]))).post("g1", "north", "roll", at=AT)
    assert slept == [7.0]


def test_the_back_off_ends(slept):
    api = FakeApi([ServerUnreachable("down")] * (len(BACKOFF) + 1))
    with pytest.raises(ServerUnreachable):
        Poster(FakeContext(api)).post("g1", "north", "roll", at=AT)
    assert slept == list(BACKOFF) and len(api.posted) == len(BACKOFF) + 1


def test_a_stale_move_still_legal_is_signed_again_on_the_fresh_state(slept):
    api = FakeApi([stale(), "ok"])
    c = FakeContext(api)
    entry = Poster(c).post("g1", "north", "roll", at=AT)
    assert [p["seq"] for p in api.posted] == [3, 5] and entry["seq"] == 5
    assert c.fetched == 1 and slept == []


def test_a_stale_move_no_longer_owed_or_legal_is_not_sent_again(slept):
    api = FakeApi([stale()], to_act=["east"])
    with pytest.raises(MovedOn, match="north owes no move now") as caught:
        Poster(FakeContext(api)).post("g1", "north", "roll", at=AT)
    assert caught.value.code == "moved_on" and len(api.posted) == 1
    # owed, but not among the legal moves of the fresh state: the rules' sentence
    api = FakeApi([stale()], legal=["hold"])
    with pytest.raises(MovedOn) as caught:
        Poster(FakeContext(api)).post("g1", "north", "roll", at=AT)
    assert caught.value.code == "refused_now" and "'roll' is not one of" in caught.value.message
    assert len(api.posted) == 1


def test_a_table_entry_is_sent_again_whoever_owes_a_move(slept):
    api = FakeApi([stale(), "ok"], to_act=["east"])
    Poster(FakeContext(api)).post("g1", "north", "@accept takeback", at=AT)
    assert [p["seq"] for p in api.posted] == [3, 5]


def test_refusals_are_raised_as_they_came_and_stale_retries_end(slept):
    api = FakeApi([Refused("no", 422, "illegal_move")])
    with pytest.raises(Refused):
        Poster(FakeContext(api)).post("g1", "north", "roll", at=AT)
    api = FakeApi([stale()] * 10)
    with pytest.raises(Conflict):
        Poster(FakeContext(api)).post("g1", "north", "roll", at=AT)
    assert len(api.posted) == poster_module.STALE_RETRIES + 1


def test_a_signed_body_is_posted_first_as_it_is(slept):
    from client.signing import signed_move
    c = FakeContext(FakeApi(["ok"]))
    body = signed_move(c.home.key, "g1", 9, "b" * 64, "north", "hold")
    Poster(c).post("g1", "north", "hold", body=body)
    assert c.api.posted[0]["seq"] == 9 and c.fetched == 0
