"""One move numbering for people: moves count from 1, as on the game's pages.

The API and the signed envelopes count from 0 (``seq``: the first move is seq 0, and
``@takeback SEQ`` names the seq of the first move taken back; shared/table.py, whose event
texts name seqs too).  People read the pages' numbers: "Move 15 of 425" for seq 14, "before
move 1" for a message written before any move, "@takeback 15" for the entry ``@takeback 14``.
The CLI (client/numbers.py) and the pages (server/web) both show entries through these
functions, so a move has one number wherever a player reads it.

Pure: text in, text out.
"""

import re

TAKEBACK = re.compile(r"@takeback[ \t]+(\d+)")
# the table's event and duty texts name seqs (shared/table.py, _moves_text):
# "asks to take back 2 moves (moves 14-15)", "takes back 1 move (move 14)"
_TABLE_MOVES = re.compile(r"(\d+ moves? \()(moves?) (\d+)(?:-(\d+))?\)")


def shown(seq):
    """The number people read for the entry at ``seq``."""
    return seq + 1


def shown_text(text):
    """An entry's text as people read it (the inverse of the CLI's ``wire_text``).

    >>> shown_text("@takeback 14"), shown_text("roll")
    ('@takeback 15', 'roll')
    """
    match = TAKEBACK.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None:
        return text
    return f"@takeback {int(match.group(1)) + 1}"


def shown_event(text):
    """A table event or duty text with its seqs as move numbers.

    >>> shown_event("red asks to take back 2 moves (moves 14-15)")
    'red asks to take back 2 moves (moves 15-16)'
    >>> shown_event("blue takes back 1 move (move 0)")
    'blue takes back 1 move (move 1)'
    """
    if not isinstance(text, str):
        return text

    def renumber(m):
        first = int(m.group(3)) + 1
        last = f"-{int(m.group(4)) + 1}" if m.group(4) else ""
        return f"{m.group(1)}{m.group(2)} {first}{last})"
    return _TABLE_MOVES.sub(renumber, text)


def shown_events(entry):
    """The events of a log entry as people read them (a table entry's seqs as numbers),
    each without its closing full stop: the CLI joins them with "; " and a text's own stop
    would double the punctuation."""
    events = entry.get("events") or []
    if str(entry.get("move", "")).startswith("@"):
        events = [shown_event(e) for e in events]
    return [str(e).rstrip(".") for e in events]


#: the first words of an event that begin a sentence, not a name: lower-cased when the event
#: follows another after "; " (a seat's name, Red or moroni, stays as the game writes it)
_SENTENCE_WORDS = ("The", "Round", "Set-up", "A", "An")


def joined_events(entry):
    """The events of a log entry as one text, joined with "; " as the CLI prints them.

    >>> joined_events({"move": "duel", "events": ["helaman's captain is killed.",
    ...                "The army of helaman is lost: its captain was killed."]})
    "helaman's captain is killed; the army of helaman is lost: its captain was killed"
    >>> joined_events({"move": "road 33-38", "events": ["Red placed a road on 33-38.",
    ...                "Set-up done: every player now chooses."]})
    'Red placed a road on 33-38; set-up done: every player now chooses'
    """
    out = []
    for i, text in enumerate(shown_events(entry)):
        word = text.split(" ", 1)[0].rstrip(":")
        if i and word in _SENTENCE_WORDS:
            text = text[0].lower() + text[1:]
        out.append(text)
    return "; ".join(out)
