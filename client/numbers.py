"""One move numbering for people: moves count from 1, as on the game's pages.

The API and the signed envelopes count from 0 (``seq``: the first move is seq 0, and
``@takeback SEQ`` names the seq of the first move taken back; shared/table.py).  The game's
pages say "Move 15 of 425" for seq 14 and "before move 1" for a message written before any
move.  The CLI shows and reads the pages' numbers and translates at its boundary: the text
it prints (``pbem log``, ``pbem play``, ``pbem say``...) and the takeback notation a player
types (``pbem play GAME "@takeback 15"`` posts ``@takeback 14``).  ``--json`` keeps the
API's fields (``seq`` from 0) unchanged, and adds nothing a script must translate back.
"""

from shared.numbering import TAKEBACK, joined_events, shown, shown_event, shown_events, shown_text

__all__ = ["joined_events", "shown", "shown_event", "shown_events", "shown_text",
           "wire_text"]


def wire_text(text):
    """The entry text to sign for what a player typed: ``@takeback N`` names move N as the
    pages number it, so the envelope carries seq N - 1.  Other texts pass unchanged.

    >>> wire_text("@takeback 15"), wire_text("settle 14"), wire_text("@accept takeback")
    ('@takeback 14', 'settle 14', '@accept takeback')
    """
    match = TAKEBACK.fullmatch(text.strip())
    if match is None:
        return text
    number = int(match.group(1))
    if number < 1:
        from .context import PbemError
        raise PbemError("moves are numbered from 1: @takeback N takes back your moves from "
                        "move N on (pbem log shows the numbers)")
    return f"@takeback {number - 1}"
