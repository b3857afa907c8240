"""The push server's shortcuts past the schema layers (server/http/pushserver.py) answer
exactly what the schemas answer: the wait query read by hand only when it is plain (else the
schema reads it, and refuses what it always refused), the wait answer built without
WaitSchema's dump, the NUL check skipped only for a request that cannot hold one."""

import h11
import pytest
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Request

from server.http.errors import Blueprint, has_nul
from server.http.pushserver import _may_hold_nul, plain_wait_query, wait_answer
from server.http.schemas import WaitQuerySchema, WaitSchema

PLAIN = [
    b"after=-1", b"after=0", b"after=7&timeout=25", b"after=12&status=playing&timeout=25.00",
    b"timeout=0&after=3", b"status=open&after=2", b"after=2147483647", b"after=5&timeout=60",
    b"after=5&timeout=0.5", b"after=5&", b"after=1&status=over&timeout=59.999",
]

NOT_PLAIN = [
    b"", b"after=", b"after=01", b"after=-0", b"after=-2", b"after=2147483648",
    b"after=99999999999", b"after=1&after=2", b"after=1&timeout=2&timeout=3",
    b"after=1;timeout=2", b"after=%31", b"after=+1", b"after=1&timeout=60.5",
    b"after=1&timeout=61", b"after=1&timeout=1e1", b"after=1&timeout=nan",
    b"after=1&timeout=inf", b"after=1&timeout=-1", b"after=1&status=Playing",
    b"after=1&status=", b"after=1&seat=north", b"timeout=25", b"status=open",
    b"after=1&&timeout=2", b"&after=1", b"after=1%00", b"after=1\x00",
    "after=\u0661".encode(), "after=\uff11".encode(), "after=1&status=\u043epen".encode(),
    b"after=1&timeout=25.", b"after=1&timeout=.5", b"after=1&timeout=1.2345",
    b"AFTER=1", b"after==1",
]


def _schema(raw):
    req = Request(EnvironBuilder(path="/api/games/g/wait",
                                 query_string=raw.decode("latin-1")).get_environ())
    return Blueprint.ARGUMENTS_PARSER.parse(WaitQuerySchema(), req, location="query")


@pytest.mark.parametrize("raw", PLAIN)
def test_a_plain_query_reads_as_the_schema_reads_it(raw):
    fast = plain_wait_query(raw)
    assert fast is not None
    assert fast == _schema(raw)
    assert type(fast["timeout"]) is float and type(fast["after"]) is int


@pytest.mark.parametrize("raw", NOT_PLAIN)
def test_anything_else_is_left_to_the_schema(raw):
    """Duplicates, encodings, other alphabets, out-of-range values: the fast path declines,
    so the schema's own answer (a value or its 422) is what the client gets."""
    assert plain_wait_query(raw) is None


@pytest.mark.parametrize("head", [
    {"game": "abc", "status": "open", "seq": -1, "head": "0" * 64, "to_act": [],
     "result": None, "seats_taken": 1},
    {"game": "abc", "status": "playing", "seq": 41, "head": "f" * 64,
     "to_act": ["north", "east"], "result": None, "seats_taken": 2},
    {"game": "abc", "status": "over", "seq": 900, "head": "a" * 64, "to_act": [],
     "result": {"winner": "north", "scores": {"north": 100, "east": 3}}, "seats_taken": 2},
    {"game": "abc", "status": "open", "seq": -1, "head": None, "to_act": [], "result": None,
     "seats_taken": 0},
])
@pytest.mark.parametrize("changed", [True, False])
def test_the_wait_answer_is_the_schemas_dump(head, changed):
    assert wait_answer(head, changed) == WaitSchema().dump({**head, "changed": changed})


def _event(target, headers=()):
    conn = h11.Connection(h11.SERVER)
    lines = [b"GET " + target + b" HTTP/1.1", b"Host: x", *headers, b"", b""]
    conn.receive_data(b"\r\n".join(lines))
    return conn.next_event()


def _request(event):
    path, _, query = event.target.partition(b"?")
    from urllib.parse import unquote_to_bytes
    environ = EnvironBuilder(path=unquote_to_bytes(path).decode("latin-1"),
                             query_string=query.decode("latin-1"),
                             headers=[(k.decode("latin-1"), v.decode("latin-1"))
                                      for k, v in event.headers]).get_environ()
    return Request(environ)


@pytest.mark.parametrize("target", [
    b"/api/games/g/wait?after=1", b"/api/games/g%00/wait?after=1",
    b"/api/games/g/wait?after=1%00", b"/api/games/g/wait?af%00ter=1",
    b"/api/games/g/wait?after=1&x=%2500", b"/api/games/%C0%80/wait?after=1",
])
def test_the_nul_check_is_skipped_only_where_no_nul_can_be(target):
    event = _event(target, [b"X-Note: 100%00 sure"])
    nul = b"%00" in target   # a header's "%00" is not decoded: no NUL there
    assert has_nul(_request(event)) is nul
    assert _may_hold_nul(event) is nul


def test_h11_already_refuses_a_nul_byte_in_a_header():
    with pytest.raises(h11.RemoteProtocolError):
        _event(b"/api/games/g/wait?after=1", [b"X-Evil: a\x00b"])
