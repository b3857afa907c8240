"""Armoured moves for email: the pure functions live in ``shared.armor`` (the server reads them too)."""

from shared.armor import (BEGIN, END, WIDTH, ArmorError, decode_block, encode_block,  # noqa: F401
                          extract_blocks)
