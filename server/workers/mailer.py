"""Sending: SMTP from the environment, webhooks, or the server log when no SMTP is set.

``PBEM_SMTP_URL``: ``smtp://user:password@host:port`` (plain, or STARTTLS with
``?starttls=1``), ``smtps://...`` (implicit TLS).  Or ``PBEM_SMTP_HOST``,
``PBEM_SMTP_PORT``, ``PBEM_SMTP_USER``, ``PBEM_SMTP_PASSWORD``,
``PBEM_SMTP_TLS`` (``starttls`` or ``ssl``).  ``PBEM_MAIL_FROM`` is the sender.
Without any of them, every notice is written to the server log in full.

``PBEM_SMTP_TIMEOUT`` (seconds, default 30) bounds the whole exchange of one mail with the
SMTP server (the connection and its log-in, or the sending of one mail on a kept connection),
not each read: a server that trickles its answers a line at a time, each within a
socket timeout, is hung up on at that deadline (and the notice retried), so the worker is never
held longer, and never past its two-minute claim on the notice (another worker would then
send it again).  Once the server has accepted the message (250 after DATA) it is sent: a
failing QUIT after that does not make it a retry, which would deliver it twice.
"""

import email.policy
import logging
import smtplib
import socket
import threading
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
    """One mail on a connection of its own (see :class:`Mailer` for many)."""
    with Mailer(config) as mailer:
        return mailer.send(to, subject, body, reply_to, headers)


_CRLF = email.policy.compat32.clone(linesep="\r\n")


def _one_line(value):
    """A header value on one line: the compat32 classes write a CR or LF in a value as it
    is, which would start a header (or the body) of the text's choosing."""
    return " ".join(str(value).replace("\r", "\n").split("\n"))


def _notice_headers(headers, reply_to=None):
    """The :data:`NOTICE_HEADERS` of ``headers`` ({name: value}) that have a value, each on
    one line; ``reply_to`` unless they set their own."""
    out = {k: _one_line(v) for k, v in (headers or {}).items() if k in NOTICE_HEADERS and v}
    if reply_to:
        out.setdefault("Reply-To", _one_line(reply_to))
    return out


def _message(sender, to, subject, body, headers):
    """The mail's bytes: plain text, 7bit when ASCII in lines SMTP carries (998 characters),
    else UTF-8 quoted-printable; the subject RFC 2047-encoded when it needs it.  Built with the
    email package's compat32 classes: the default policy's header objects cost more than
    sending the mail (a drain's profile).  ``headers`` (from :func:`_notice_headers`) may
    set its own Message-ID."""
    from email import charset
    from email.header import Header
    from email.mime.text import MIMEText
    if body.isascii() and all(len(line) <= 998 for line in body.splitlines()):
        msg = MIMEText(body, "plain", "us-ascii")
    else:
        utf8 = charset.Charset("utf-8")
        utf8.body_encoding = charset.QP
        msg = MIMEText(body, "plain", utf8)
    headers = dict(headers)
    subject = _one_line(subject)
    msg["From"] = _one_line(sender)
    msg["To"] = _one_line(to)
    msg["Subject"] = subject if subject.isascii() else Header(subject, "utf-8")
    msg["Message-ID"] = headers.pop("Message-ID", None) or make_msgid(
        domain=sender.rpartition("@")[2].strip(" >") or "localhost")
    for name, value in headers.items():
        msg[name] = value
    return msg.as_bytes(policy=_CRLF)  # smtplib sends bytes as they are: CRLF line ends


class Mailer:
    """Mail out on one SMTP connection, opened at the first mail and kept for the next ones
    (a drain of the outbox sends thousands: a connection, a TLS handshake and a login each
    cost more than the mail).  ``with Mailer(config) as m: m.send(...)``; the connection is
    closed at the block's end.  A connection the server dropped meanwhile is opened again
    once; any other failure closes it and raises SendError (the notice is retried later)."""

    def __init__(self, config):
        self.sender = config.get("PBEM_MAIL_FROM") or "pbem@localhost"
        self.settings = smtp_settings(config)
        self.deadline = float(config.get("PBEM_SMTP_TIMEOUT") or SMTP_TIMEOUT)
        self.smtp = None
        self.hung_up = False  # the last connection that failed was hung up on at its deadline
        self.connections = 0  # opened so far

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        smtp, self.smtp = self.smtp, None
        if smtp is not None:
            try:
                smtp.arm(self.deadline)  # a QUIT that trickles is hung up on too
                smtp.quit()
            except (OSError, smtplib.SMTPException):
                smtp.close()

    def _connect(self):
        settings = self.settings
        smtp = _bounded(settings["tls"])(timeout=min(10.0, self.deadline))
        smtp.arm(self.deadline)
        try:
            smtp.connect(settings["host"], settings["port"])
            if settings["tls"] == "starttls":
                smtp.starttls()
            if settings["user"]:
                smtp.login(settings["user"], settings["password"] or "")
        except BaseException:
            self.hung_up = smtp.hung_up
            smtp.close()
            raise
        self.connections += 1
        return smtp

    def _sendmail(self, to, data):
        """One mail on the kept connection, within the deadline; accepted (250 after DATA)
        is sent, whatever the connection does next."""
        self.smtp.arm(self.deadline)
        self.smtp.sendmail(self.sender, [to], data)
        self.smtp.disarm()

    def send(self, to, subject, body, reply_to=None, headers=None):
        """Send one mail; ``headers`` ({name: value}) may set :data:`NOTICE_HEADERS` (a
        Message-ID of its own replaces the one made here)."""
        settings = self.settings
        headers = _notice_headers(headers, reply_to)
        if settings is None:
            log.info("notice (no SMTP configured) to %s\nSubject: %s\n%s\n%s", to, subject,
                     "".join(f"{k}: {v}\n" for k, v in headers.items()), body)
            return "logged"
        data = _message(self.sender, to, subject, body, headers)
        reused = self.smtp is not None
        try:
            if self.smtp is None:
                self.smtp = self._connect()
            try:
                self._sendmail(to, data)
            except (smtplib.SMTPServerDisconnected, ConnectionError):
                if not reused or self.smtp.hung_up:
                    raise
                # the kept connection was closed by the server while idle: a new one, once
                self.close()
                self.smtp = self._connect()
                self._sendmail(to, data)
        except (OSError, smtplib.SMTPException) as exc:
            hung_up = self.hung_up or (self.smtp is not None and self.smtp.hung_up)
            self.close()
            why = "no answer within the deadline" if hung_up else exc
            raise SendError(f"SMTP {settings['host']}:{settings['port']}: {why}") from None
        return "sent"


#: the longest one SMTP conversation may take, in seconds (``PBEM_SMTP_TIMEOUT``)
SMTP_TIMEOUT = 30


def _bounded(tls):
    """An SMTP (or SMTP_SSL) class whose connection is shut when the time ``arm(seconds)``
    gave runs out, whatever the server is doing: a blocked read then returns at once
    (``hung_up`` says so).  ``disarm()`` stops the clock; each mail arms it anew."""
    base = smtplib.SMTP_SSL if tls == "ssl" else smtplib.SMTP

    class Bounded(base):
        hung_up, _timer = False, None

        def arm(self, seconds):
            self.disarm()
            self._timer = threading.Timer(seconds, self._hang_up)
            self._timer.daemon = True
            self._timer.start()

        def disarm(self):
            timer, self._timer = self._timer, None
            if timer is not None:
                timer.cancel()

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
            self.disarm()
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
