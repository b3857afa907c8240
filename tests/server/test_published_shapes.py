"""Issue item 13, what was left: the published schema says what the server accepts.

schemathesis's positive-data check (``--checks all``) found requests the OpenAPI document
allowed and the server refused with a 400 or a 422: an envelope that is not canonical JSON
(the document said "a string"), the signed documents of ``/messages``, ``/orders`` and
``/orders/cancel`` and the delegations of ``/devices`` (free-form objects: a key with NUL, a
``kind`` that is not the endpoint's), an email address ``format: email`` allows and the
server refused (``0@0.a``), a webhook URL the webhook rules refuse.  Each now has its real
shape (server/http/schemas.py); here bodies generated from the published document itself,
for each of those operations and on a real game, get past every shape check: they are
refused only for what no schema can say (a signature that does not verify: 403; a stale
seq: 409), never as malformed.
"""

import json

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings

from shared.envelope import canonical_json, valid_public_key
from tests.figures import record
from tests.helpers.api import start_pig
from tests.helpers.examples import examples

#: (method, path) of each operation whose body has a shape of its own, and the statuses a
#: valid body may get there besides success
SHAPED = [("POST", "/api/games/{game_id}/moves", {403, 409}),
          ("POST", "/api/games/{game_id}/messages", {403, 409}),
          ("POST", "/api/games/{game_id}/orders", {403, 409}),
          ("POST", "/api/games/{game_id}/orders/cancel", {403, 404, 409}),
          ("POST", "/api/devices", {403}),
          ("PATCH", "/api/players/me", set())]
SEEN = {}


def _for_game(body, game_id):
    """A generated body made to name the real game, as the path does (the one field no
    schema can tie to the path): the envelope's ``game``, a document's ``game``."""
    if "envelope" in body:
        env = json.loads(body["envelope"])
        env["game"] = game_id
        return dict(body, envelope=canonical_json(env).decode("utf-8"))
    if "body" in body:
        return dict(body, body=dict(body["body"], game=game_id))
    return body


def _delegations(body):
    """Every delegation a body carries."""
    if isinstance(body.get("delegation"), dict):
        yield body["delegation"]
    inner = json.loads(body["envelope"]) if "envelope" in body else body.get("body") or {}
    if isinstance(inner.get("delegation"), dict):
        yield inner["delegation"]


@pytest.mark.properties
@pytest.mark.parametrize("method,path,refusals", SHAPED, ids=[f"{m} {p}" for m, p, _ in SHAPED])
def test_bodies_the_published_schema_allows_pass_every_shape_check(app, make_player, method,
                                                                   path, refusals):
    game_id, (ann, bob) = start_pig(make_player)
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    operation = schema[path][method]
    strategy = operation.as_strategy(generation_mode=schemathesis.GenerationMode.POSITIVE)
    url = path.replace("{game_id}", game_id)
    answers = {}

    @given(case=strategy)
    @settings(max_examples=examples(300), derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    def check(case):
        body = _for_game(case.body, game_id)
        # the one rule of a delegation the schema says only in words: its device key is a
        # point of Ed25519 (not every 64 hex digits are one), which no pattern can tell
        if not all(valid_public_key(d["device_key"]) for d in _delegations(body)):
            return
        # and a message's ``to`` is another seat than its sender's (its description says so)
        if body.get("body", {}).get("to") not in (None, *()) and \
                body["body"]["to"] == body["body"].get("seat"):
            return
        answer = ann.request(method, url, body)
        answers[answer.status_code] = answers.get(answer.status_code, 0) + 1
        assert answer.status_code < 300 or answer.status_code in refusals, \
            (body, answer.status_code, answer.get_json())

    check()
    assert sum(answers.values()) >= 20, answers
    SEEN[f"{method} {path}"] = answers
    if len(SEEN) == len(SHAPED):
        record("B13 bodies generated from the published schema on a real game (6 operations)",
               f"{sum(sum(a.values()) for a in SEEN.values())} sent, 0 x 400 or 422")


def test_the_email_rule_is_the_same_in_the_schema_and_the_service(app, client, make_player):
    """One validator: the published pattern is the Regexp the service checks with."""
    import re

    from server.http.schemas import EMAIL_RE, PlayerCreateSchema, SettingsSchema
    spec = client.get("/api/openapi.json").get_json()["components"]["schemas"]
    for name in ("Settings", "PlayerCreate"):
        email = spec[name]["properties"]["email"]
        assert email["pattern"] == EMAIL_RE and "format" not in email, email
    ann = make_player("ann")
    for address, good in (("ann@example.org", True), ("a.b+c@mail.example.co", True),
                          ("0@0.a", False), ("ann@localhost", False), ("ann@example.org\n",
                                                                       False)):
        assert bool(re.fullmatch(EMAIL_RE, address)) is good  # as ECMA-262 reads "$"
        assert (SettingsSchema().validate({"email": address}) == {}) is good
        assert (PlayerCreateSchema().validate({"name": "cyd", "public_key": "a" * 64,
                                               "email": address}) == {}) is good
        r = ann.request("PATCH", "/api/players/me", {"email": address})
        assert r.status_code == (200 if good else 400), (address, r.get_json())


def test_the_published_webhook_urls_are_ones_the_server_takes(app, client, make_player):
    """The webhook pattern leaves out what the private-address rule refuses when set (a
    literal address, a name ending in localhost): each such URL is refused by the pattern
    and by the server (422), and URLs the pattern allows are taken."""
    import re
    spec = client.get("/api/openapi.json").get_json()["components"]["schemas"]
    webhook = spec["Settings"]["properties"]["webhook_url"]
    pattern = webhook["pattern"]
    ann = make_player("ann")
    for url in ("https://hooks.example.org/pbem?x=1", "http://a.bc:8080/",
                "https://x.furnitures"):
        assert re.search(pattern, url), url
        assert ann.request("PATCH", "/api/players/me", {"webhook_url": url}).status_code == 200
    for url in ("http://127.0.0.1/", "http://localhost/", "http://a.localhost/",
                "http://10.0.0.1:8080/x", "http://[::1]/"):
        assert re.search(pattern, url) is None, url
        r = ann.request("PATCH", "/api/players/me", {"webhook_url": url})
        assert r.status_code == 422 and r.get_json()["error"]["code"] == "webhook_refused"


def test_a_value_with_a_final_newline_is_refused_where_a_pattern_ends_in_dollar(client):
    """Python's ``$`` also matches before a final newline; every schema pattern is matched
    over the whole value, as the published (ECMA-262) pattern reads: "ann\\n" is no name, and a
    key with a newline after its 64 digits is no key."""
    from shared.envelope import public_key_hex
    key = public_key_hex(bytes(range(32)))
    r = client.post("/api/players", json={"name": "ann\n", "public_key": key})
    assert r.status_code in (400, 422), r.get_json()
    assert r.get_json()["error"]["code"]
    r = client.post("/api/players", json={"name": "ann", "public_key": key + "\n"})
    assert r.status_code in (400, 422), r.get_json()
