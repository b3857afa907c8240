"""`pbem play` needs one round trip when the home's view is as new as the last head it saw
and still checks every head the server shows (history only grows)."""

from client.api import Api
from tests.helpers.cli import start


def _counting(monkeypatch):
    calls = []
    real = Api.request

    def request(self, method, path, *args, **kw):
        calls.append((method, path.split("?")[0].rsplit("/", 1)[-1]))
        return real(self, method, path, *args, **kw)
    monkeypatch.setattr(Api, "request", request)
    return calls


def test_play_on_a_current_view_is_one_post(make_player, monkeypatch):
    game, (ann, bob) = start(make_player)
    ann.run("show", game)
    calls = _counting(monkeypatch)
    assert ann.run("play", game, "peek").stdout.startswith("move 1: north peek")
    assert calls == [("POST", "moves")]
    calls.clear()
    # the answer's view is the new cached view: the next play is one request again
    assert ann.run("play", game, "hold").stdout.startswith("move 2: north hold")
    assert calls == [("POST", "moves")]


def test_a_stale_view_costs_one_refusal_that_carries_the_fresh_one(make_player, monkeypatch):
    game, (ann, bob) = start(make_player)
    bob.run("show", game)            # bob's home: the view at seq 0
    ann.run("play", game, "hold")    # the turn passes to bob
    calls = _counting(monkeypatch)
    assert bob.run("play", game, "hold").stdout.startswith("move 2: east hold")
    # no GET of the view or log; the server's legal list for the fresh state says the move
    # still stands before it is signed again (client/poster.py)
    assert calls == [("POST", "moves"), ("GET", "legal"), ("POST", "moves")]
    calls.clear()
    # a seat that owes no move: the server's refusal, as before
    assert "refused" in bob.run("play", game, "hold", ok=1).stderr


def test_entries_in_a_refusal_are_checked_not_trusted(make_player, monkeypatch):
    """The entry a stale_seq refusal carries must show the remembered head; one that does
    not (forged here) is not taken: the client fetches the log entry to check the head."""
    game, (ann, bob) = start(make_player)
    bob.run("show", game)
    ann.run("play", game, "hold")
    real = Api.post_move

    def forged(self, game_id, envelope, signature, **kw):
        try:
            return real(self, game_id, envelope, signature, **kw)
        except Exception as exc:  # noqa: BLE001
            for entry in (getattr(exc, "details", None) or {}).get("entries") or []:
                entry["hash"] = "0" * 64      # the entry no longer hashes to the head seen
            raise
    monkeypatch.setattr(Api, "post_move", forged)
    calls = _counting(monkeypatch)
    assert bob.run("play", game, "hold").stdout.startswith("move 2: east hold")
    assert ("GET", "log") in calls


def test_play_with_no_cached_view_fetches_it_first(make_player, monkeypatch):
    game, (ann, bob) = start(make_player)
    calls = _counting(monkeypatch)
    ann.run("play", game, "hold")
    assert calls[0] == ("GET", "view") and calls[-1] == ("POST", "moves")
