"""The CLI's own HTTP (client/transport.py): a kept-alive connection, redirects, failures as
the Api's plain errors, and no requests import on the way."""

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from client import transport
from client.api import Api, ServerUnreachable
from tests.liveserver import free_port


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    peers = []

    def log_message(self, *args):
        pass

    def _answer(self, status, body, extra=None):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802 - http.server's name
        self.peers.append(self.client_address)
        if self.path == "/api/old":
            self._answer(301, {}, {"Location": "/api/health"})
        elif self.path == "/api/close":
            self._answer(200, {"ok": True}, {"Connection": "close"})
            self.close_connection = True
        else:
            self._answer(200, {"ok": True, "path": self.path,
                               "agent": self.headers.get("User-Agent")})

    def do_POST(self):  # noqa: N802
        self.peers.append(self.client_address)
        length = int(self.headers.get("Content-Length") or 0)
        self._answer(201, {"got": json.loads(self.rfile.read(length))})


@pytest.fixture
def server():
    _Handler.peers = []
    httpd = ThreadingHTTPServer(("127.0.0.1", free_port()), _Handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_requests_go_on_one_kept_connection(server):
    s = transport.Session()
    api = Api(server, session=s)
    assert api.health()["agent"] == transport.USER_AGENT
    assert api.request("POST", "/api/x", {"a": 1}, signed=False) == {"got": {"a": 1}}
    assert api.request("GET", "/api/y", signed=False)["path"] == "/api/y"
    assert len(set(_Handler.peers)) == 1  # one client port: one connection for all three
    s.close()


def test_a_connection_the_server_closed_is_opened_again(server):
    s = transport.Session()
    api = Api(server, session=s)
    assert api.request("GET", "/api/close", signed=False) == {"ok": True}
    assert api.health()["ok"] is True
    assert len(set(_Handler.peers)) == 2
    s.close()


def test_a_redirect_is_followed(server):
    api = Api(server, session=transport.Session())
    assert api.request("GET", "/api/old", signed=False)["path"] == "/api/health"


def test_failures_are_the_apis_plain_errors():
    with pytest.raises(ServerUnreachable, match="cannot reach the server"):
        Api(f"http://127.0.0.1:{free_port()}", session=transport.Session()).health()
    with pytest.raises(transport.InvalidUrl):
        transport.Session().request("GET", "ftp://example.org/x")
    with pytest.raises(transport.InvalidUrl):
        transport.Session().request("GET", "http:///nohost")


def test_a_proxy_in_the_environment_gets_requests(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    import requests
    assert isinstance(transport.session(), requests.Session)
    monkeypatch.delenv("HTTPS_PROXY")
    for k in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(k, raising=False)
    assert isinstance(transport.session(), transport.Session)


def test_a_signed_request_imports_no_requests(server):
    """What `pbem play` runs: the API client and a request, without requests' import."""
    code = ("import sys, secrets\nfrom client.api import Api\n"
            f"Api({server!r}, identity=('ann', secrets.token_bytes(32))).health()\n"
            "print('requests' in sys.modules, 'urllib3' in sys.modules)")
    env = {k: v for k, v in __import__("os").environ.items()
           if k.lower() not in ("http_proxy", "https_proxy", "all_proxy")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env).stdout
    assert out.split() == ["False", "False"]
