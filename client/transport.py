"""The CLI's HTTP on the standard library: one kept-alive connection per server.

``requests`` (with urllib3, idna, charset detection and certifi) took longer to import than
a move's round trip to a local server: about half of a ``pbem play`` process
(bench/ANALYSIS.md).  The CLI sends a few JSON requests to one server, which
``http.client`` does as well.  :func:`session` returns a :class:`Session` (``request`` with
the signature of ``requests.Session.request`` that client/api.py uses), or a real
``requests.Session`` when the environment names a proxy (``HTTP_PROXY``, ``HTTPS_PROXY``,
``ALL_PROXY``), which only requests follows.  HTTPS checks the server's certificate against
the CA bundle that ``REQUESTS_CA_BUNDLE`` or ``CURL_CA_BUNDLE`` names, as requests does,
else the system's CAs (``SSL_CERT_FILE`` names others).
"""

import http.client
import json
import os
import socket
from urllib.parse import urljoin, urlsplit

USER_AGENT = "pbem-cli/0.1"
_REQUESTS_ONLY = ("http_proxy", "https_proxy", "all_proxy")
_REDIRECTS = 5


class TransportError(Exception):
    """No HTTP answer came back."""


class InvalidUrl(TransportError):
    """The URL cannot be requested (no http(s) scheme, no host, a bad port)."""


class Timeout(TransportError):
    """The server did not answer in time."""


def session():
    """The session the CLI sends its requests on (see the module's docstring)."""
    if any(os.environ.get(k) or os.environ.get(k.upper()) for k in _REQUESTS_ONLY):
        import requests
        s = requests.Session()
        s.headers["User-Agent"] = USER_AGENT
        return s
    return Session()


class Response:
    """What client/api.py reads of an answer: ``status_code``, ``reason``, ``headers`` (a
    case-insensitive ``get``), ``content``, ``text``, ``json()``, ``url``."""

    def __init__(self, status, reason, headers, content, url):
        self.status_code, self.reason, self.headers = status, reason, headers
        self.content, self.url = content, url

    @property
    def text(self):
        charset = self.headers.get_content_charset() if hasattr(
            self.headers, "get_content_charset") else None
        return self.content.decode(charset or "utf-8", "replace")

    def json(self):
        return json.loads(self.content)  # ValueError when it is not JSON, as with requests


def _connect(address, *args):
    """``socket.create_connection`` with an ASCII host name given as bytes: a str goes
    through the "idna" codec, whose import (stringprep, unicodedata) costs a ``pbem``
    command ~2.5 ms for a name that needs no conversion."""
    host, port = address
    if isinstance(host, str) and host.isascii():
        host = host.encode("ascii")
    return socket.create_connection((host, port), *args)


class Session:
    """``request(method, url, data=None, headers=None, timeout=None)`` over http.client, a
    connection kept per (scheme, host, port); redirects followed as requests follows them."""

    def __init__(self):
        self.headers = {"User-Agent": USER_AGENT}
        self._conns = {}

    def close(self):
        for conn in self._conns.values():
            conn.close()
        self._conns.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _connection(self, scheme, host, port, timeout):
        key = (scheme, host, port)
        conn = self._conns.get(key)
        if conn is None:
            if scheme == "https":
                import ssl
                bundle = os.environ.get("REQUESTS_CA_BUNDLE") or \
                    os.environ.get("CURL_CA_BUNDLE") or None
                conn = http.client.HTTPSConnection(
                    host, port, timeout=timeout, context=ssl.create_default_context(cafile=bundle))
            else:
                conn = http.client.HTTPConnection(host, port, timeout=timeout)
                conn._create_connection = _connect
            self._conns[key] = conn
        conn.timeout = timeout
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        return key, conn

    def _drop(self, key):
        conn = self._conns.pop(key, None)
        if conn is not None:
            conn.close()

    def request(self, method, url, data=None, headers=None, timeout=None, **_ignored):
        for _ in range(_REDIRECTS + 1):
            resp = self._once(method, url, data, headers, timeout)
            location = resp.headers.get("Location")
            if resp.status_code not in (301, 302, 303, 307, 308) or not location:
                return resp
            url = urljoin(url, location)
            if resp.status_code == 303 or (resp.status_code in (301, 302)
                                           and method not in ("GET", "HEAD")):
                method, data = "GET", None  # as browsers and requests do
        return resp

    def _once(self, method, url, data, headers, timeout):
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as exc:
            raise InvalidUrl(f"{url!r}: {exc}") from None
        scheme = (parts.scheme or "").lower()
        if scheme not in ("http", "https") or not parts.hostname:
            raise InvalidUrl(f"{url!r} is not an http(s) URL with a host")
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        sent = {**self.headers, **(headers or {})}
        if data is not None and not isinstance(data, bytes):
            data = str(data).encode("utf-8")
        for attempt in (0, 1):
            key, conn = self._connection(scheme, parts.hostname, port, timeout)
            reused = conn.sock is not None
            try:
                conn.request(method, target, body=data, headers=sent)
                answer = conn.getresponse()
                content = answer.read()
            except TimeoutError:
                self._drop(key)
                raise Timeout(f"{url}: no answer within {timeout} s") from None
            except (http.client.RemoteDisconnected, ConnectionResetError,
                    BrokenPipeError) as exc:
                self._drop(key)
                if reused and attempt == 0:  # the server closed the kept connection: once more
                    continue
                raise TransportError(f"{url}: {exc.__class__.__name__}: {exc}") from None
            except (OSError, http.client.HTTPException) as exc:
                self._drop(key)
                raise TransportError(f"{url}: {exc.__class__.__name__}: {exc}") from None
            if answer.will_close:
                self._drop(key)
            return Response(answer.status, answer.reason, answer.headers, content, url)
        raise TransportError(f"{url}: the connection kept closing")  # pragma: no cover
