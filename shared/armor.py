"""Armoured moves: a signed move as a text block that survives being pasted into an email.

::

    -----BEGIN PBEM MOVE-----
    eyJlbnZlbG9wZSI6InsiZ2FtZSI6ImFiYzEyMyIsIm1vdmUiOiJyb2xsIiwibm9u
    ...
    -----END PBEM MOVE-----

The body is the base64 of the canonical JSON object
``{"game": id, "envelope": <canonical envelope text>, "signature": hex}``
wrapped at 64 columns.  Base64 is used (rather than the JSON itself) because
mail clients re-wrap lines, "smart-quote" quotes and escape ``<`` and ``&``;
base64 only loses characters that :func:`extract_blocks` throws away anyway.

Everything here is pure: no I/O, no clock, no keys.
"""

import base64
import binascii
import html
import json
import quopri
import re

BEGIN = "-----BEGIN PBEM MOVE-----"
END = "-----END PBEM MOVE-----"
WIDTH = 64

_BLOCK_RE = re.compile(re.escape(BEGIN) + r"(.*?)" + re.escape(END), re.DOTALL)
_TAG_RE = re.compile(r"<[^>]*>")
_NOT_B64_RE = re.compile(r"[^A-Za-z0-9+/=]")


class ArmorError(ValueError):
    """A block that cannot be decoded into a signed move."""


def encode_block(game, envelope, signature):
    """The armoured text of one signed move (ends with a newline).

    >>> encode_block("g1", '{"game":"g1"}', "ab").splitlines()[0]
    '-----BEGIN PBEM MOVE-----'
    """
    body = json.dumps({"game": game, "envelope": envelope, "signature": signature},
                      sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    b64 = base64.b64encode(body.encode("utf-8")).decode("ascii")
    lines = [b64[i:i + WIDTH] for i in range(0, len(b64), WIDTH)]
    return "\n".join([BEGIN, *lines, END]) + "\n"


def _clean(inner):
    """The base64 text inside a block, whatever mail did to it."""
    if "<" in inner and ">" in inner:
        inner = _TAG_RE.sub("\n", inner)  # HTML: <br>, <div>, <blockquote> ...
    inner = html.unescape(inner)
    # quoted reply prefixes ("> ", ">> ", "> > ") and indentation are not base64 characters
    return _NOT_B64_RE.sub("", inner)


def decode_block(inner):
    """Decode the text between BEGIN and END into {"game", "envelope", "signature"}.

    Raises ArmorError when it is not a well-formed signed move.
    """
    candidates = [_clean(inner)]
    if re.search(r"=\r?\n|=3D", inner):  # forwarded as quoted-printable
        try:
            candidates.append(_clean(quopri.decodestring(inner.encode("utf-8"))
                                     .decode("utf-8", "replace")))
        except ValueError:
            pass
    last = None
    for text in candidates:
        try:
            raw = base64.b64decode(text, validate=True)
            obj = json.loads(raw.decode("utf-8"))
        except (binascii.Error, ValueError, UnicodeDecodeError) as exc:
            last = exc
            continue
        return _check(obj)
    raise ArmorError(f"the block is not valid base64 JSON ({last})")


def _check(obj):
    if not isinstance(obj, dict):
        raise ArmorError("the block does not hold a JSON object")
    for key in ("game", "envelope", "signature"):
        if not isinstance(obj.get(key), str) or not obj[key]:
            raise ArmorError(f"the block lacks {key}")
    try:
        env = json.loads(obj["envelope"])
    except ValueError:
        raise ArmorError("the block's envelope is not JSON") from None
    if not isinstance(env, dict) or env.get("game") != obj["game"]:
        raise ArmorError("the block's envelope is for another game than the block says")
    return {"game": obj["game"], "envelope": obj["envelope"], "signature": obj["signature"]}


def extract_blocks(text, errors=None):
    """Every signed move armoured in ``text``, in order, without duplicates.

    Finds blocks in plain text, in replies quoted with ``> `` prefixes (any
    depth), in HTML mail and in forwarded (even quoted-printable) messages.
    Returns a list of ``{"game", "envelope", "signature"}``.  Blocks that do
    not decode are skipped; when ``errors`` is a list, one message per
    skipped block is appended to it.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if BEGIN not in text and "=\n" in text:
        text = quopri.decodestring(text.encode("utf-8")).decode("utf-8", "replace")
    found, seen = [], set()
    for number, match in enumerate(_BLOCK_RE.finditer(text), 1):
        try:
            block = decode_block(match.group(1))
        except ArmorError as exc:
            if errors is not None:
                errors.append(f"block {number}: {exc}")
            continue
        key = (block["envelope"], block["signature"])
        if key not in seen:
            seen.add(key)
            found.append(block)
    return found
