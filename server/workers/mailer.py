"""Sending: SMTP from the environment, webhooks, or the server log when no SMTP is set.

``PBEM_SMTP_URL``: ``smtp://user:password@host:port`` (plain, or STARTTLS with
``?starttls=1``), ``smtps://...`` (implicit TLS).  Or ``PBEM_SMTP_HOST``,
``PBEM_SMTP_PORT``, ``PBEM_SMTP_USER``, ``PBEM_SMTP_PASSWORD``,
``PBEM_SMTP_TLS`` (``starttls`` or ``ssl``).  ``PBEM_MAIL_FROM`` is the sender.
Without any of them, every notice is written to the server log in full.

``PBEM_SMTP_TIMEOUT`` (seconds, default 30) bounds one whole conversation with the SMTP
server, not each read: a server that trickles its answers a line at a time, each within a
socket timeout, is hung up on at that deadline (and the notice retried), so the worker is never
held longer, and never past its two-minute claim on the notice (another worker would then
send it again).  Once the server has accepted the message (250 after DATA) it is sent: a
failing QUIT after that does not make it a retry, which would deliver it twice.
"""

import logging
import smtplib
import socket
import threading
from email.message import EmailMessage
from email.utils import make_msgid
from urllib.parse import parse_qs, unquote, urlparse

log = logging.getLogger("pbem.notices")


class SendError(Exception):
    """Sending failed; the notice is retried later."""


def smtp_settings(config):
    """The SMTP connection the app's settings name (server/config.py), or None."""
    url = config.get("PBEM_SMTP_URL")
    if url:
        u = urlparse(url)
        tls = "ssl" if u.scheme == "smtps" else (
            "starttls" if parse_qs(u.query).get("starttls", ["0"])[0] in ("1", "true", "yes")
            else None)
        return {"host": u.hostname, "port": u.port or (465 if tls == "ssl" else 25),
                "user": unquote(u.username) if u.username else None,
                "password": unquote(u.password) if u.password else None, "tls": tls}
    host = config.get("PBEM_SMTP_HOST")
    if not host:
        return None
    tls = (config.get("PBEM_SMTP_TLS") or "").lower() or None
    port = int(config.get("PBEM_SMTP_PORT") or (465 if tls == "ssl" else 25))
    return {"host": host, "port": port,
            "user": config.get("PBEM_SMTP_USER"), "password": config.get("PBEM_SMTP_PASSWORD"),
            "tls": tls}


#: the headers a notice may set on its mail (server/workers/outbox.py)
NOTICE_HEADERS = ("Reply-To", "Message-ID", "In-Reply-To", "References")


def send_email(config, to, subject, body, reply_to=None, headers=None):
    """Send one mail; ``headers`` ({name: value}) may set :data:`NOTICE_HEADERS` (a
    Message-ID of its own replaces the one made here)."""
    sender = config.get("PBEM_MAIL_FROM") or "pbem@localhost"
    headers = {k: v for k, v in (headers or {}).items() if k in NOTICE_HEADERS and v}
    if reply_to:
        headers.setdefault("Reply-To", reply_to)
    settings = smtp_settings(config)
    if settings is None:
        log.info("notice (no SMTP configured) to %s\nSubject: %s\n%s\n%s", to, subject,
                 "".join(f"{k}: {v}\n" for k, v in headers.items()), body)
        return "logged"
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = headers.pop("Message-ID", None) or make_msgid(
        domain=sender.rpartition("@")[2].strip(" >") or "localhost")
    for name, value in headers.items():
        msg[name] = value
    msg.set_content(body)
    total = float(config.get("PBEM_SMTP_TIMEOUT") or SMTP_TIMEOUT)
    smtp = _bounded(settings["tls"])(timeout=min(10.0, total))
    smtp.deadline = total
    try:
        smtp.connect(settings["host"], settings["port"])
        if settings["tls"] == "starttls":
            smtp.starttls()
        if settings["user"]:
            smtp.login(settings["user"], settings["password"] or "")
        smtp.send_message(msg)
    except (OSError, smtplib.SMTPException) as exc:
        smtp.close()
        why = "no answer within the deadline" if smtp.hung_up else exc
        raise SendError(f"SMTP {settings['host']}:{settings['port']}: {why}") from None
    try:
        smtp.quit()
    except (OSError, smtplib.SMTPException) as exc:  # accepted already: sent, never again
        log.info("SMTP %s: the message was accepted; its QUIT failed (%s)", settings["host"],
                 exc)
    finally:
        smtp.close()
    return "sent"


#: the longest one SMTP conversation may take, in seconds (``PBEM_SMTP_TIMEOUT``)
SMTP_TIMEOUT = 30


def _bounded(tls):
    """An SMTP (or SMTP_SSL) class whose connection is shut at ``deadline`` seconds after
    it opened, whatever the server is doing: a blocked read then returns at once."""
    base = smtplib.SMTP_SSL if tls == "ssl" else smtplib.SMTP

    class Bounded(base):
        deadline, hung_up, _timer = SMTP_TIMEOUT, False, None

        def _get_socket(self, host, port, timeout):
            sock = super()._get_socket(host, port, timeout)
            self._timer = threading.Timer(self.deadline, self._hang_up)
            self._timer.daemon = True
            self._timer.start()
            return sock

        def _hang_up(self):
            sock = self.sock  # the TLS socket after STARTTLS: the one being read
            if sock is None:
                return
            self.hung_up = True
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        def close(self):
            if self._timer is not None:
                self._timer.cancel()
            super().close()

    return Bounded


class PrivateDestination(Exception):
    """A webhook's address is loopback, private, link-local, multicast or otherwise not global."""


def destination_refused(ip):
    """True for an address a webhook may not reach (unless the operator allows it)."""
    import ipaddress
    try:
        addr = ipaddress.ip_address(ip.split("%", 1)[0])
    except ValueError:
        return True
    if addr.version == 6 and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return not addr.is_global or addr.is_multicast


def _checked_session():
    """A requests session whose every connection checks the address it actually reached.

    The check runs on the connected socket's peer, after DNS and connect: a name that
    resolves to a public address when the webhook is set and to 127.0.0.1 when it is sent
    (DNS rebinding) is still refused.  No proxies from the environment, no redirects.
    """
    import requests
    from requests.adapters import HTTPAdapter
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

    class Checked:
        def _new_conn(self):
            sock = super()._new_conn()
            try:
                peer = sock.getpeername()[0]
            except OSError:
                peer = "?"
            if destination_refused(peer):
                sock.close()
                raise PrivateDestination(peer)
            return sock

    class CheckedHTTP(Checked, HTTPConnection):
        pass

    class CheckedHTTPS(Checked, HTTPSConnection):
        pass

    class HTTPPool(HTTPConnectionPool):
        ConnectionCls = CheckedHTTP

    class HTTPSPool(HTTPSConnectionPool):
        ConnectionCls = CheckedHTTPS

    class Adapter(HTTPAdapter):
        def init_poolmanager(self, *args, **kwargs):
            super().init_poolmanager(*args, **kwargs)
            self.poolmanager.pool_classes_by_scheme = {"http": HTTPPool, "https": HTTPSPool}

    session = requests.Session()
    session.trust_env = False
    session.mount("http://", Adapter())
    session.mount("https://", Adapter())
    return session


def post_webhook(url, payload, allow_private=False):
    """POST ``payload`` as JSON to ``url``.  Raises SendError (retried later) on failure.

    Loopback, private, link-local and multicast destinations are refused, checked on the
    address connected to, unless ``allow_private`` (PBEM_WEBHOOK_ALLOW_PRIVATE).
    """
    import requests
    session = requests.Session() if allow_private else _checked_session()
    try:
        with session:
            r = session.post(url, json=payload, timeout=5, allow_redirects=False)
    except PrivateDestination as exc:
        raise SendError(f"webhook: refused destination {exc} (loopback, private, link-local "
                        "or multicast; PBEM_WEBHOOK_ALLOW_PRIVATE=1 allows it)") from None
    except requests.RequestException as exc:
        raise SendError(f"webhook: {exc.__class__.__name__}") from None
    if r.status_code >= 300:
        raise SendError(f"webhook answered {r.status_code}")
    return "sent"
