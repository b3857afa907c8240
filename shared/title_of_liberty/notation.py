"""Move notation: ``parse_move(text) -> Move`` and ``format_move(Move) -> text``.

A move is a small immutable value, ``Move(kind, args)``; its text form is what a
player types.  ``format_move(parse_move(t))`` is the canonical spelling of
``t`` and ``parse_move(format_move(m)) == m``.

Examples::

    give helaman 3 food      pass                  buy 2 archers
    arm 2 archers            move bountiful-v2-w1  move bountiful~lehi-morianton
    move judea-v1-v3 leave   move judea-v1-v3 leave v1
    rest                     attack                starve
    lead 3 infantry 2 archers                      sector palace
    duel infantry archer     duel scout@path infantry
    duel captain archer@tower                      duel infantry king@temple
    wine                     stop                  concede
"""

from .. import InvalidMove
from ..move import Move as BaseMove
from ..move import unknown_move_text
from .board import SEATS, SPACES

NEPHITE_TYPES = ("captain", "scout", "infantry", "archer", "slinger")
LAMANITE_TYPES = ("king", "captain", "infantry", "archer")
#: soldiers the notation lets one buy or arm (``rules`` refuses scouts under rules version 1
#: and captains before rules version 3)
BUYABLE = ("captain", "scout", "infantry", "archer", "slinger")
#: the word after a route that leaves village and town food where it is (rules version 3)
LEAVE = "leave"
ITEMS = ("food", "gold", "weapons")
SECTORS = ("palace", "stockade", "armory", "market")
PLACES = ("tower", "gate", "temple")
LEAD_TYPES = ("captain", "infantry", "archer", "slinger")

_PLURAL = {"captain": "captains", "scout": "scouts", "infantry": "infantry",
           "archer": "archers", "slinger": "slingers", "king": "king"}
_SINGULAR = {}
for _s, _p in _PLURAL.items():
    _SINGULAR[_s] = _s
    _SINGULAR[_p] = _s
_SINGULAR["infantryman"] = "infantry"
_SINGULAR["infantrymen"] = "infantry"
_ITEM_ALIASES = {"food": "food", "gold": "gold", "coin": "gold", "coins": "gold",
                 "weapon": "weapons", "weapons": "weapons"}
_SIMPLE = ("pass", "rest", "attack", "starve", "wine", "stop", "concede")



def plural(kind, n):
    """``"archer", 2`` -> ``"archers"``; infantry never changes."""
    return kind if n == 1 else _PLURAL.get(kind, kind)


def _bad(message):
    raise InvalidMove(message, code="bad_notation")


def _count(word, what):
    # only ASCII digits: str.isdigit() also accepts superscripts and other scripts' digits,
    # which int() refuses or reads as numbers nobody typed on purpose
    if not (word.isascii() and word.isdigit()) or len(word) > 4 or int(word) < 1:
        _bad(f"{what} needs a whole number from 1 to 9999, not {word!r}")
    return int(word)


def _soldier(word, allowed, side, verb=None):
    kind = _SINGULAR.get(word)
    if kind is not None and kind not in allowed and verb:
        _bad(f"you cannot {verb} {plural(kind, 2)}; use {', '.join(allowed)}")
    if kind is None or kind not in allowed:
        _bad(f"{word!r} is not a {side} soldier; use one of {', '.join(allowed)}")
    return kind


def parse_space(word):
    """A space name (case-insensitive; a unique prefix of 3+ letters is enough)."""
    word = word.lower()
    if word in SPACES:
        return word
    if len(word) >= 3:
        found = [s for s in SPACES if s.startswith(word)]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            _bad(f"{word!r} could be {' or '.join(found)}: write more of the name")
    _bad(f"there is no space called {word!r} on the map")


def _parse_route(text):
    tokens = []
    word = ""
    for ch in text:
        if ch in "-~":
            if not word:
                _bad(f"the route {text!r} has a step with no space name")
            tokens.append(parse_space(word))
            tokens.append(ch)
            word = ""
        else:
            word += ch
    if not word:
        _bad(f"the route {text!r} must end with a space name")
    tokens.append(parse_space(word))
    if len(tokens) < 3:
        _bad("a move names its start and at least one more space, e.g. move bountiful-v2")
    return tuple(tokens)


def _parse_counts(words, allowed, what):
    if len(words) % 2:
        _bad(f"{what} lists a number and a kind of soldier, e.g. {what} 3 infantry 2 archers")
    counts = {}
    for i in range(0, len(words), 2):
        n = _count(words[i], what)
        kind = _soldier(words[i + 1], allowed, "Nephite", f"{what} with")
        if kind in counts:
            _bad(f"{what} names {kind} twice")
        counts[kind] = n
    return tuple((k, counts[k]) for k in allowed if k in counts)


def _parse_duel(words):
    if len(words) != 2:
        _bad("a duel names one Nephite and one Lamanite, e.g. duel infantry archer@gate")
    nep, _, where = words[0].partition("@")
    if where and where != "path":
        _bad(f"a Nephite soldier can only be marked @path, not @{where}")
    ntype = _soldier(nep, NEPHITE_TYPES, "Nephite")
    lam, _, place = words[1].partition("@")
    ltype = _soldier(lam, LAMANITE_TYPES, "Lamanite")
    if place and place not in PLACES:
        _bad(f"a Lamanite stands @tower, @gate or @temple, not @{place}")
    return Move("duel", (ntype, bool(where), ltype, place or None))


def parse_move(text):
    """The Move for ``text``; raises InvalidMove with a plain sentence when it does not parse."""
    if not isinstance(text, str):
        _bad("a move is a line of text")
    words = text.strip().lower().split()
    if not words:
        _bad("the move is empty; try 'rest', 'move bountiful-v2' or 'stop'")
    verb, rest = words[0], words[1:]
    if verb in _SIMPLE:
        if rest:
            _bad(f"{verb} takes nothing after it")
        return Move(verb)
    if verb == "give":
        if len(rest) != 3:
            _bad("write a gift as: give <army> <number> food|gold|weapons")
        if rest[0] not in SEATS:
            _bad(f"{rest[0]!r} is not an army; armies are {', '.join(SEATS)}")
        n = _count(rest[1], "give")
        item = _ITEM_ALIASES.get(rest[2])
        if item is None:
            _bad(f"you can give food, gold or weapons, not {rest[2]!r}")
        return Move("give", (rest[0], n, item))
    if verb in ("buy", "arm"):
        if len(rest) != 2:
            _bad(f"write it as: {verb} <number> scouts|infantry|archers|slingers")
        n = _count(rest[0], verb)
        kind = _soldier(rest[1], BUYABLE, "new", verb)
        return Move(verb, (n, kind))
    if verb == "move":
        if not rest or (len(rest) > 1 and rest[1] != LEAVE):
            _bad("write a route with no spaces, e.g. move bountiful-v2-w1 or bountiful~lehi "
                 "(then, to leave food where it lies, leave or leave v2 judea)")
        route = _parse_route(rest[0])
        if len(rest) == 1:
            return Move("move", route)
        left = tuple(parse_space(w) for w in rest[2:])
        if len(set(left)) != len(left):
            _bad("leave names each space once")
        return Move("move", route + ((LEAVE,) + left,))
    if verb == "lead":
        return Move("lead", _parse_counts(rest, LEAD_TYPES, "lead"))
    if verb == "sector":
        if len(rest) != 1 or rest[0] not in SECTORS:
            _bad("choose a sector: sector palace|stockade|armory|market")
        return Move("sector", (rest[0],))
    if verb == "duel":
        return _parse_duel(rest)
    _bad(unknown_move_text(verb, MOVE_WORDS))


#: the move words an unknown one is answered with
MOVE_WORDS = ("give", "pass", "buy", "arm", "move", "rest", "attack", "starve", "lead",
              "sector", "duel", "wine", "stop")


def split_route(args):
    """A move's args as (route tokens, spaces whose food is left): None = take every token
    on the way; () = take none; else the named spaces keep theirs (rules version 3)."""
    if args and isinstance(args[-1], tuple):
        return args[:-1], tuple(args[-1][1:])
    return args, None


def format_move(move):
    """The canonical text of a Move."""
    kind, args = move.kind, move.args
    if kind in _SIMPLE:
        return kind
    if kind == "give":
        return f"give {args[0]} {args[1]} {args[2]}"
    if kind in ("buy", "arm"):
        return f"{kind} {args[0]} {plural(args[1], args[0])}"
    if kind == "move":
        route, left = split_route(args)
        text = "move " + "".join(route)
        return text if left is None else " ".join((text, LEAVE) + left)
    if kind == "lead":
        return " ".join(["lead"] + [f"{n} {plural(k, n)}" for k, n in args])
    if kind == "sector":
        return f"sector {args[0]}"
    if kind == "duel":
        ntype, on_path, ltype, place = args
        return (f"duel {ntype}{'@path' if on_path else ''} "
                f"{ltype}{'@' + place if place else ''}")
    raise ValueError(f"not a move: {move!r}")


#: one move (``shared.move.Move``): ``kind`` (a word) and ``args`` (a tuple of plain values)
Move = BaseMove.bind("Move", parse_move, format_move)
