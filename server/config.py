"""Configuration from the environment: the one module that reads it.

``from_env`` gives the app's settings (``create_app`` lays its ``config`` argument over them);
the rest of the server reads ``current_app.config``.  ``instance_path`` and
``limit_loopback`` are read before an app exists.
"""

import os


def normalize_database_url(url):
    """Map URLs as hosting platforms give them to the installed driver.

    ``postgres://`` and ``postgresql://`` become ``postgresql+psycopg://``
    (psycopg 3, the ``postgres`` extra); other URLs pass through.
    """
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://"):]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    return url


def _flag(name):
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


#: the rate limits' settings (server/http/limits.py holds their defaults)
LIMIT_SETTINGS = ("PBEM_LIMIT_ADDRESS", "PBEM_LIMIT_KEY", "PBEM_LIMIT_REGISTER",
                  "PBEM_LIMIT_MOVES", "PBEM_LIMIT_UNVERIFIED", "PBEM_LIMIT_TALK")
#: outgoing mail (server/workers/mailer.py); unset: notices are logged
MAIL_SETTINGS = ("PBEM_SMTP_URL", "PBEM_SMTP_HOST", "PBEM_SMTP_PORT", "PBEM_SMTP_TLS",
                 "PBEM_SMTP_USER", "PBEM_SMTP_PASSWORD", "PBEM_MAIL_FROM", "PBEM_SMTP_TIMEOUT")


def instance_path():
    """``PBEM_INSTANCE_PATH``: where the server keeps its files (None: Flask's default)."""
    return os.environ.get("PBEM_INSTANCE_PATH") or None


def limit_loopback():
    """``PBEM_LIMIT_LOOPBACK``: "limit", "spare" or "" (see server/cli.py)."""
    return os.environ.get("PBEM_LIMIT_LOOPBACK", "").strip().lower()


def push_bind():
    """Where the push process listens (``HOST:PORT``): PBEM_PUSH_BIND, else PBEM_PUSH_PORT
    (5001) on loopback behind a proxy (PBEM_PROXY_HOPS), on every address without one
    (docs/DEPLOYMENT.md, "Who may reach the ports")."""
    bind = os.environ.get("PBEM_PUSH_BIND")
    if not bind:
        hops = (os.environ.get("PBEM_PROXY_HOPS") or "0").strip()
        host = "0.0.0.0" if hops in ("", "0") else "127.0.0.1"
        bind = f"{host}:{os.environ.get('PBEM_PUSH_PORT', '5001')}"
    return bind


def from_env(instance_path):
    url = os.environ.get("PBEM_DATABASE_URL") or os.environ.get("DATABASE_URL")
    if not url:
        url = "sqlite:///" + os.path.join(instance_path, "pbem.sqlite")
    config = {
        "SQLALCHEMY_DATABASE_URI": normalize_database_url(url),
        "MAX_CONTENT_LENGTH": int(os.environ.get("PBEM_MAX_BODY", 64 * 1024)),
        "PBEM_AUTH_WINDOW": int(os.environ.get("PBEM_AUTH_WINDOW", 300)),
        "PBEM_SERVER_KEY": os.environ.get("PBEM_SERVER_KEY"),
        "PBEM_EXTRA_GAMES": os.environ.get("PBEM_EXTRA_GAMES", ""),
        "PBEM_BASE_URL": os.environ.get("PBEM_BASE_URL", ""),
        # unset: the service's database (server/http/ratelimit_storage.py), shared by all workers
        "RATELIMIT_STORAGE_URI": os.environ.get("PBEM_RATELIMIT_STORAGE") or None,
        "PBEM_INBOUND_TOKEN": os.environ.get("PBEM_INBOUND_TOKEN"),
        # without a token, inbound mail is refused unless the operator opens it explicitly
        "PBEM_INBOUND_OPEN": _flag("PBEM_INBOUND_OPEN"),
        # webhooks to loopback, private, link-local, multicast addresses: refused unless set
        "PBEM_WEBHOOK_ALLOW_PRIVATE": _flag("PBEM_WEBHOOK_ALLOW_PRIVATE"),
        # open games one player may have waiting for players (0: no cap)
        "PBEM_MAX_OPEN_GAMES": int(os.environ.get("PBEM_MAX_OPEN_GAMES", 10)),
        # tournaments one organiser may have open for entry at once (0: no cap)
        "PBEM_MAX_OPEN_TOURNAMENTS": int(os.environ.get("PBEM_MAX_OPEN_TOURNAMENTS", 5)),
        # trusted proxies in front (X-Forwarded-For hops): the limits count real addresses
        "PBEM_PROXY_HOPS": int(os.environ.get("PBEM_PROXY_HOPS", 0)),
        # the addresses those proxies connect from (server/http/proxy.py; unset: loopback)
        "PBEM_TRUSTED_PROXIES": os.environ.get("PBEM_TRUSTED_PROXIES") or None,
        "PBEM_VACATION_DAYS": int(os.environ.get("PBEM_VACATION_DAYS", 21)),
        # a rated game changes ratings only between accounts this old, with this many
        # finished games (server/ratings.py)
        "PBEM_RATING_MIN_DAYS": int(os.environ.get("PBEM_RATING_MIN_DAYS") or 7),
        "PBEM_RATING_MIN_GAMES": int(os.environ.get("PBEM_RATING_MIN_GAMES") or 3),
        "PBEM_NOTIFY_INTERVAL": int(os.environ.get("PBEM_NOTIFY_INTERVAL", 5)),
        "RATELIMIT_ENABLED": os.environ.get("PBEM_RATELIMIT", "on") != "off",
        # the pages' sign-in links and sessions (server/web/signin.py)
        "PBEM_LINK_MINUTES": int(os.environ.get("PBEM_LINK_MINUTES") or 10),
        # the push process hangs up on a client that has not sent its headers in this long
        "PBEM_PUSH_HEADER_TIMEOUT": float(os.environ.get("PBEM_PUSH_HEADER_TIMEOUT") or 10),
        # how long a device link (pbem device add --browser, the settings page) stays good
        "PBEM_DEVICE_LINK_MINUTES": int(os.environ.get("PBEM_DEVICE_LINK_MINUTES") or 10),
        "PBEM_SESSION_HOURS": int(os.environ.get("PBEM_SESSION_HOURS") or 12),
        # the bot worker (server/game/bots.py): kept as text, read (and refused when not a number)
        # where they are used: seconds between passes in pbem-server run (0: off), thinking
        # time per move, a fixed seed for the bots' generators (tests only), and the longest a
        # bot's trade offer waits for the humans it addresses, in hours (server/workers/bots.py)
        "PBEM_BOT_INTERVAL": os.environ.get("PBEM_BOT_INTERVAL") or None,
        "PBEM_BOT_SECONDS": os.environ.get("PBEM_BOT_SECONDS") or None,
        "PBEM_BOT_SEED": os.environ.get("PBEM_BOT_SEED") or None,
        "PBEM_BOT_OFFER_HOURS": os.environ.get("PBEM_BOT_OFFER_HOURS") or None,
        # push (server/workers/push.py): waiters one process holds (unset: from the worker
        # model, which gunicorn_conf.py exports as PBEM_GUNICORN_*), and the SQLite watcher's
        # period
        "PBEM_PUSH_WAITERS": os.environ.get("PBEM_PUSH_WAITERS") or None,
        "PBEM_PUSH_POLL": float(os.environ.get("PBEM_PUSH_POLL") or 0.25),
        "PBEM_PUSH_PROBE": float(os.environ.get("PBEM_PUSH_PROBE") or 0.02),
        # PostgreSQL connections a push worker's pool holds (no overflow: waiters queue)
        "PBEM_PUSH_POOL": os.environ.get("PBEM_PUSH_POOL") or None,
        "PBEM_PUSH_PER_ADDRESS": int(os.environ.get("PBEM_PUSH_PER_ADDRESS") or 32),
        # the longest the server holds a long poll or a stream, whatever the client asks (a
        # router that cuts quiet requests at 30 s wants 25); unset: 60 and 600 s
        "PBEM_PUSH_HOLD": float(os.environ["PBEM_PUSH_HOLD"]) if os.environ.get(
            "PBEM_PUSH_HOLD") else None,
        "PBEM_GUNICORN": {k: os.environ.get(f"PBEM_GUNICORN_{k.upper()}") or None
                          for k in ("role", "worker", "threads", "connections")},
        # where the push process answers when the front does not route /wait and /events
        # to it by path (docs/DEPLOYMENT.md): a web worker's 503 for a long poll names it
        "PBEM_PUSH_URL": (os.environ.get("PBEM_PUSH_URL") or "").rstrip("/") or None,
        # Web Push (server/workers/webpush.py): the VAPID private key (raw P-256, base64url); unset:
        # made once and kept in the database
        "PBEM_VAPID_PRIVATE_KEY": os.environ.get("PBEM_VAPID_PRIVATE_KEY") or None,
        # the Telegram Bot API's address (server/workers/channels.py): a local receiver in tests
        "PBEM_TELEGRAM_API": os.environ.get("PBEM_TELEGRAM_API") or None,
        # moves by plain mail (server/game/mailkeys.py): the address a reply to a notice goes
        # to, with "{token}" where the reply token goes (unset: PBEM_MAIL_FROM's with
        # "+{token}" after its local part); DKIM checked on every plain reply when on; the
        # secret that seals the mail keys the server holds (unset: kept unsealed, like the
        # server's own key); the longest a mail key may be delegated for, in days
        "PBEM_MAIL_REPLY_TO": os.environ.get("PBEM_MAIL_REPLY_TO") or None,
        "PBEM_MAIL_DKIM": _flag("PBEM_MAIL_DKIM"),
        "PBEM_MAIL_KEY_SECRET": os.environ.get("PBEM_MAIL_KEY_SECRET") or None,
        "PBEM_MAIL_KEY_DAYS": int(os.environ.get("PBEM_MAIL_KEY_DAYS") or 365),
        # games of bots only (every seat a bot) one player may have being played at once
        "PBEM_MAX_BOT_GAMES": os.environ.get("PBEM_MAX_BOT_GAMES") or None,
    }
    # unset ones are None: server/http/limits.py and server/workers/mailer.py fall back to
    # their defaults
    config.update({name: os.environ.get(name) or None for name in LIMIT_SETTINGS})
    config.update({name: os.environ.get(name) or None for name in MAIL_SETTINGS})
    return config
