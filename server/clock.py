"""The server's clock, replaceable in tests (app.config["PBEM_CLOCK"])."""

import time
from datetime import datetime, timezone

from flask import current_app


def now_ts():
    """Seconds since the epoch, as an int."""
    clock = current_app.config.get("PBEM_CLOCK") or time.time
    return int(clock())


def now():
    return datetime.fromtimestamp(now_ts(), timezone.utc)
