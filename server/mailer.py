"""Sending: SMTP from the environment, webhooks, or the server log when no SMTP is set.

``PBEM_SMTP_URL``: ``smtp://user:password@host:port`` (plain, or STARTTLS with
``?starttls=1``), ``smtps://...`` (implicit TLS).  Or ``PBEM_SMTP_HOST``,
``PBEM_SMTP_PORT``, ``PBEM_SMTP_USER``, ``PBEM_SMTP_PASSWORD``,
``PBEM_SMTP_TLS`` (``starttls`` or ``ssl``).  ``PBEM_MAIL_FROM`` is the sender.
Without any of them, every notice is written to the server log in full.
"""

import logging
import os
import smtplib
from email.message import EmailMessage
from email.utils import make_msgid
from urllib.parse import parse_qs, unquote, urlparse

log = logging.getLogger("pbem.notices")


class SendError(Exception):
    """Sending failed; the notice is retried later."""


def smtp_settings(config):
    url = config.get("PBEM_SMTP_URL") or os.environ.get("PBEM_SMTP_URL")
    if url:
        u = urlparse(url)
        tls = "ssl" if u.scheme == "smtps" else (
            "starttls" if parse_qs(u.query).get("starttls", ["0"])[0] in ("1", "true", "yes")
            else None)
        return {"host": u.hostname, "port": u.port or (465 if tls == "ssl" else 25),
                "user": unquote(u.username) if u.username else None,
                "password": unquote(u.password) if u.password else None, "tls": tls}
    host = config.get("PBEM_SMTP_HOST") or os.environ.get("PBEM_SMTP_HOST")
    if not host:
        return None
    tls = (config.get("PBEM_SMTP_TLS") or os.environ.get("PBEM_SMTP_TLS") or "").lower() or None
    return {"host": host,
            "port": int(config.get("PBEM_SMTP_PORT") or os.environ.get("PBEM_SMTP_PORT")
                        or (465 if tls == "ssl" else 25)),
            "user": config.get("PBEM_SMTP_USER") or os.environ.get("PBEM_SMTP_USER"),
            "password": config.get("PBEM_SMTP_PASSWORD") or os.environ.get("PBEM_SMTP_PASSWORD"),
            "tls": tls}


def send_email(config, to, subject, body, reply_to=None):
    sender = config.get("PBEM_MAIL_FROM") or os.environ.get("PBEM_MAIL_FROM") \
        or "pbem@localhost"
    settings = smtp_settings(config)
    if settings is None:
        log.info("notice (no SMTP configured) to %s\nSubject: %s\n\n%s", to, subject, body)
        return "logged"
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or "localhost")
    if reply_to:
        msg["Reply-To"] = reply_to
    msg.set_content(body)
    try:
        cls = smtplib.SMTP_SSL if settings["tls"] == "ssl" else smtplib.SMTP
        with cls(settings["host"], settings["port"], timeout=10) as smtp:
            if settings["tls"] == "starttls":
                smtp.starttls()
            if settings["user"]:
                smtp.login(settings["user"], settings["password"] or "")
            smtp.send_message(msg)
    except (OSError, smtplib.SMTPException) as exc:
        raise SendError(f"SMTP {settings['host']}:{settings['port']}: {exc}") from None
    return "sent"


def post_webhook(url, payload):
    import requests
    try:
        r = requests.post(url, json=payload, timeout=5)
    except requests.RequestException as exc:
        raise SendError(f"webhook: {exc.__class__.__name__}") from None
    if r.status_code >= 300:
        raise SendError(f"webhook answered {r.status_code}")
    return "sent"
