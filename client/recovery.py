"""Recovery codes: printed once at registration, they rotate a lost main key away
(``pbem key rotate --recovery-code``).  The code is the private half of a recovery key whose
public half the main key certifies at registration (shared/table.py, recovery_message)."""

import base64
import hashlib
import secrets

from .context import PbemError

RECOVERY_PREFIX = "pbemrc"


# --- recovery codes ------------------------------------------------------------------------

def new_recovery_code():
    """(code text, private key bytes): 32 random bytes written as base32 in groups of four."""
    raw = secrets.token_bytes(32)
    return format_recovery_code(raw), raw


def _check(raw):
    """Four check letters (base32, as the code): a mistyped code is caught before use."""
    return base64.b32encode(hashlib.sha256(raw).digest()[:5]).decode("ascii")[:4].lower()


def format_recovery_code(raw):
    text = base64.b32encode(raw).decode("ascii").rstrip("=").lower()
    check = _check(raw)
    groups = [text[i:i + 4] for i in range(0, len(text), 4)]
    return "-".join([RECOVERY_PREFIX, *groups, check])


def read_recovery_code(code):
    """The private key bytes a recovery code stands for; PbemError for a mistyped code."""
    words = code.strip().lower().replace(" ", "-").split("-")
    words = [w for w in words if w]
    if len(words) < 3 or words[0] != RECOVERY_PREFIX:
        raise PbemError(f"that is not a recovery code (they begin with {RECOVERY_PREFIX}-)")
    body, check = "".join(words[1:-1]), words[-1]
    try:
        raw = base64.b32decode(body.upper() + "=" * (-len(body) % 8))
    except ValueError:
        raw = b""
    if len(raw) != 32 or _check(raw) != check:
        raise PbemError("the recovery code is mistyped (its check letters do not match)")
    return raw


def recovery_fields(name, main_key, recovery_key):
    """The registration fields that bind ``recovery_key`` (private bytes) to ``name``'s
    ``main_key`` (private bytes): its public half and the main key's certificate."""
    from shared.envelope import public_key_hex, sign
    from shared.table import recovery_message
    rpub = public_key_hex(recovery_key)
    return {"recovery_key": rpub, "recovery_cert": sign(main_key, recovery_message(name, rpub))}
