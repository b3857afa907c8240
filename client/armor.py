"""Armoured moves for email: the pure functions live in ``shared.armor`` (the server reads
them too)."""

from shared.armor import (  # noqa: F401
                          BEGIN,
                          END,
                          WIDTH,
                          ArmorError,
                          decode_block,
                          encode_block,
                          extract_blocks,
)
