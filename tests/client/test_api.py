"""The API client's error tree and request signing, over an injected fake session."""

import json
import secrets

import pytest
import requests

from client.api import (
    Api,
    ApiError,
    BadRequest,
    Conflict,
    NotFound,
    NotPbemServer,
    RateLimited,
    Refused,
    ServerError,
    ServerUnreachable,
    Unauthorized,
)
from shared.envelope import public_key_hex, request_message, verify


class FakeResponse:
    def __init__(self, status, body=None, text=None, headers=None):
        self.status_code = status
        self.reason = {200: "OK", 422: "UNPROCESSABLE ENTITY"}.get(status, "")
        self._body, self._text = body, text
        self.text = text if text is not None else json.dumps(body)
        self.headers = headers or {}

    def json(self):
        if self._body is None:
            return json.loads(self._text or "")
        return self._body


class FakeSession:
    def __init__(self, *responses, raises=None):
        self.responses = list(responses)
        self.raises = raises
        self.sent = []

    def request(self, method, url, data=None, headers=None, timeout=None):
        self.sent.append({"method": method, "url": url, "data": data, "headers": headers})
        if self.raises:
            raise self.raises
        return self.responses.pop(0)


def error(status, code, message, details=None):
    return FakeResponse(status, {"error": {"code": code, "message": message,
                                           "details": details or {}}})


@pytest.mark.parametrize("status,cls", [(400, BadRequest), (401, Unauthorized),
                                        (404, NotFound), (409, Conflict), (422, Refused),
                                        (429, RateLimited), (500, ServerError),
                                        (503, ServerError), (418, ApiError)])
def test_error_tree_carries_status_code_and_message(status, cls):
    api = Api("http://x", session=FakeSession(error(status, "some_code", "one sentence.",
                                                    {"seq": 4})))
    with pytest.raises(cls) as info:
        api.game("g1")
    assert isinstance(info.value, ApiError)
    message = "the server failed (one sentence); try again later" if status >= 500 \
        else "one sentence."
    assert (info.value.status, info.value.code, info.value.message, info.value.details) == \
        (status, "some_code", message, {"seq": 4})


def test_error_without_a_json_body():
    api = Api("http://x", session=FakeSession(FakeResponse(502, text="<html>bad gateway")))
    with pytest.raises(ServerError, match="the server failed .the server answered HTTP 502"):
        api.health()


def test_rate_limit_retry_after():
    resp = error(429, "rate_limited", "too many requests")
    resp.headers = {"Retry-After": "7"}
    with pytest.raises(RateLimited) as info:
        Api("http://x", session=FakeSession(resp)).games()
    assert info.value.retry_after == 7


@pytest.mark.parametrize("exc,words", [(requests.ConnectionError("refused"), "cannot reach"),
                                       (requests.Timeout("slow"), "did not answer")])
def test_unreachable(exc, words):
    with pytest.raises(ServerUnreachable, match=words):
        Api("http://127.0.0.1:9", session=FakeSession(raises=exc)).health()


def test_not_json_success():
    api = Api("http://x", session=FakeSession(FakeResponse(200, text="<html>")))
    with pytest.raises(NotPbemServer,
                       match="with a web page .HTML. where the pbem API answers JSON"):
        api.health()


def test_signed_request_signs_path_query_and_body():
    key = secrets.token_bytes(32)
    session = FakeSession(FakeResponse(200, {"entries": [], "head": None}),
                          FakeResponse(201, {"id": "g1"}))
    api = Api("http://x/", identity=("ann", key), session=session)
    api.log("g/1", since=3, limit=1)
    sent = session.sent[0]
    assert sent["url"] == "http://x/api/games/g%2F1/log?since=3&limit=1"
    h = sent["headers"]
    assert h["X-Pbem-Player"] == "ann"
    assert verify(public_key_hex(key), request_message(
        "GET", "/api/games/g%2F1/log?since=3&limit=1", h["X-Pbem-Timestamp"],
        h["X-Pbem-Nonce"], b""), h["X-Pbem-Signature"])
    api.create_game("pig", 2, {"target": "10"})
    sent = session.sent[1]
    assert json.loads(sent["data"]) == {"type": "pig", "seats": 2, "options": {"target": "10"}}
    h = sent["headers"]
    assert verify(public_key_hex(key), request_message(
        "POST", "/api/games", h["X-Pbem-Timestamp"], h["X-Pbem-Nonce"], sent["data"]),
        h["X-Pbem-Signature"])


def test_moves_and_archives_are_signed_requests_when_there_is_an_identity():
    """The server renders a move's answer for the seat only on the seat's signed request;
    an archive is public, and a signed request adds the caller's private
    messages and own standing orders to it (pbem-archive-v3)."""
    session = FakeSession(FakeResponse(201, {"seq": 0}), FakeResponse(200, {}),
                          FakeResponse(201, {"seq": 1}), FakeResponse(200, {}))
    api = Api("http://x", identity=("ann", secrets.token_bytes(32)), session=session)
    api.post_move("g1", "{}", "ab")
    api.archive("g1")
    Api("http://x", session=session).post_move("g1", "{}", "ab")
    Api("http://x", session=session).archive("g1")
    assert ["X-Pbem-Signature" in s["headers"] for s in session.sent] == \
        [True, True, False, False]
