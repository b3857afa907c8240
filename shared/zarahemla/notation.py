"""Move notation: ``parse_move(text) -> Move`` and ``format_move(Move) -> text``.

A move is a :class:`shared.move.Move`: its ``kind`` and a tuple of ``args`` (the table
writes ``(kind, *args)``); bundles of resources are 5-tuples of counts in RESOURCES order
(wood, brick, water, wheat, stone).

=================================  ==========================================
text                               move
=================================  ==========================================
``roll``                           ("roll",)
``settle 14``                      ("settle", 13)          corner index
``road 14-19``                     ("road", edge)          path index
``city 14``                        ("city", 13)
``temple``                         ("temple",)
``buy``                            ("buy",)                a development card
``start 14``                       ("start", 13)           starting resources
``discard 2wood+2stone``           ("discard", bundle)
``robber F blue`` / ``robber F``   ("robber", hex, seat or None)
``play warrior``                   ("warrior",)
``play liahona 8``                 ("liahona", 8)
``play harvest 1wood+1stone``      ("harvest", bundle)
``play roads``                     ("roads",)
``play temples``                   ("temples",)
``play prosperity wood``           ("prosperity", resource index)
``bank 4wood for 1stone``          ("bank", give, get)
``offer 1wood for 1water``         ("offer", give, get, None)
``offer 1wood for 1water to blue`` ("offer", give, get, ("blue",))
``accept`` / ``decline``           ("accept",) / ("decline",)
``counter 1wood for 1stone``       ("counter", give, get)
``confirm blue``                   ("confirm", "blue")
``withdraw``                       ("withdraw",)
``end``                            ("end",)
=================================  ==========================================
"""

from .. import InvalidMove
from ..base import remembered_parse
from ..bundles import notation
from ..move import Move as BaseMove
from ..move import quoted, unknown_move_text
from ..trade import trade_text
from .board import CORNER_NEIGHBOURS, EDGE_INDEX, EDGE_NAMES, HEX_NAMES, N_CORNERS, RESOURCES
from .state import SEATS

_RES_ALIASES = {}
for _i, _r in enumerate(RESOURCES):
    for _alias in (_r, _r + "s", _r[:2]):
        _RES_ALIASES[_alias] = _i
_RES_ALIASES["bricks"] = 1
_RES_ALIASES["wh"] = 3
_RES_ALIASES["wa"] = 2
_RES_ALIASES["wo"] = 0

_CARD_WORDS = {
    "warrior": "warrior", "stripling": "warrior", "liahona": "liahona",
    "harvest": "harvest", "bountiful": "harvest", "roads": "roads", "road": "roads",
    "temples": "temples", "temple": "temples", "prosperity": "prosperity",
}

_SIMPLE = ("roll", "temple", "buy", "accept", "decline", "withdraw", "end")

_CORNER_NAMES = tuple(str(c + 1) for c in range(N_CORNERS))

#: the path the help texts and the board legend name: corners 14 and 19 are adjacent (the
#: path between hexes E and F), and 14 is a corner a settlement example can name
EXAMPLE_PATH = "14-19"

#: example moves for help texts, by group, in canonical form.  ``rules_help`` is built from
#: these and a test checks that each parses and names real places on the board.
EXAMPLES = (
    ("set-up", ("settle 14", f"road {EXAMPLE_PATH}", "start 14")),
    ("turn", ("roll", "end")),
    ("build", (f"road {EXAMPLE_PATH}", "settle 14", "city 14", "temple", "buy")),
    ("7/warrior", ("discard 2wood+2stone", "robber F blue", "robber F")),
    ("cards", ("play warrior", "play liahona 8", "play harvest 1wood+1stone", "play roads",
               "play temples", "play prosperity wood")),
    ("bank", ("bank 4wood for 1stone", "bank 2water for 1stone", "bank 4water for 2stone")),
    ("offers", ("offer 2wood+1brick for 1stone", "offer 1wood for 1water to blue,white")),
    ("answers", ("accept", "decline", "counter 1wood for 1stone")),
    ("offerer", ("confirm blue", "withdraw")),
)

#: the longest run of digits read as a number (Python refuses to read huge ones)
_MAX_DIGITS = 6


def _bad(msg, code="bad_notation"):
    raise InvalidMove(msg, code=code)


_q = quoted  # ``word`` quoted for an error message, at most 32 characters


def _number(word):
    """The number ``word`` writes, or None when it is not a plain number.

    Digits Python reads as a decimal number are accepted, as they always were (``int`` of
    any script's decimal digits); digit-like characters it refuses (superscripts such as
    ``²``, circled digits) and overlong numbers give None, never a ValueError.
    """
    if not word.isdigit() or len(word) > _MAX_DIGITS or not word.isdecimal():
        return None
    try:
        return int(word)
    except ValueError:      # pragma: no cover - isdecimal() digits always convert
        return None


def parse_corner(word):
    """``"14"`` -> 13; raises InvalidMove for anything but 1..54."""
    n = _number(word)
    if n is None or not 1 <= n <= N_CORNERS:
        _bad(f"{_q(word)} is not a corner: corners are numbered 1 to {N_CORNERS}")
    return n - 1


def parse_edge(word):
    """``"14-19"`` (either order) -> path index; explains non-adjacent corners."""
    a, sep, b = word.partition("-")
    if not sep:
        _bad(f"{_q(word)} is not a path: write its two corners like {EXAMPLE_PATH}")
    ca, cb = parse_corner(a), parse_corner(b)
    key = (ca, cb) if ca < cb else (cb, ca)
    e = EDGE_INDEX.get(key)
    if e is None:
        if cb in CORNER_NEIGHBOURS[ca] or ca == cb:
            _bad(f"no road can go from {ca + 1} to {cb + 1}: it needs two different corners")
        raise InvalidMove(f"no road can go from {ca + 1} to {cb + 1}: they are not adjacent",
                          code="not_adjacent")
    return e


def parse_resource(word):
    r = _RES_ALIASES.get(word)
    if r is None:
        _bad(f"{_q(word)} is not a resource: use wood, brick, water, wheat or stone")
    return r


def parse_bundle(text):
    """``"2wood+1brick"`` -> (2, 1, 0, 0, 0).  A missing count means 1."""
    counts = [0] * 5
    if not text:
        _bad("a list of resources is missing, e.g. 2wood+1brick")
    for part in text.split("+"):
        i = 0
        while i < len(part) and part[i].isdigit():
            i += 1
        n = _number(part[:i]) if i else 1
        if n is None or n <= 0 or n > 99:
            _bad(f"{_q(part)}: a count must be between 1 and 99")
        counts[parse_resource(part[i:])] += n
    return tuple(counts)


def _seat(word):
    if word not in SEATS:
        _bad(f"{_q(word)} is not a player colour: use red, blue, white or orange")
    return word


#: the trades written exactly ``GIVE for GET`` (an offer may add ``to SEATS``), with an example
_TWO_SIDES = {"bank": "4wood for 1stone", "counter": "1wood for 1stone"}


def _trade_sides(words, verb):
    # words: ["2wood+1brick", "for", "1stone", ...]
    if len(words) < 3 or words[1] != "for":
        _bad(f"write {verb} like: {verb} 2wood+1brick for 1stone")
    return parse_bundle(words[0]), parse_bundle(words[2])


def _parse_move(text):
    """Parse one move; raises InvalidMove with a plain sentence when the text is wrong.

    >>> parse_move("road 19-14")
    Move('road', (20,))
    """
    if not isinstance(text, str):
        _bad("a move must be text")
    return _parse(text)


parse_move = remembered_parse(_parse_move)


def _parse(text):
    words = text.strip().lower().replace(",", " , ").split()
    if not words:
        _bad("the move is empty")
    verb, args = words[0], words[1:]
    if verb in _SIMPLE and not args:
        return Move(verb)
    if verb in ("settle", "settlement", "city", "start"):
        if len(args) != 1:
            _bad(f"write {verb} and one corner number, like: {verb} 14")
        kind = "settle" if verb == "settlement" else verb
        return Move(kind, (parse_corner(args[0]),))
    if verb == "road":
        if len(args) == 2 and _number(args[0]) is not None:
            args = [args[0] + "-" + args[1]]
        if len(args) != 1:
            _bad("write road and a path, like: road 14-19")
        return Move("road", (parse_edge(args[0]),))
    if verb == "discard":
        if len(args) != 1:
            _bad("write discard and the cards, like: discard 2wood+2stone")
        return Move("discard", (parse_bundle(args[0]),))
    if verb == "robber":
        if not 1 <= len(args) <= 2:
            _bad("write robber, a hex letter and whom to rob, like: robber F blue")
        h = args[0].upper()
        if len(h) != 1 or h not in HEX_NAMES:
            _bad(f"{_q(args[0])} is not a hex: hexes are the letters A to S")
        victim = _seat(args[1]) if len(args) == 2 else None
        return Move("robber", (HEX_NAMES.index(h), victim))
    if verb == "play":
        if not args or args[0] not in _CARD_WORDS:
            _bad("write play and a card: warrior, liahona 8, harvest 1wood+1stone, roads, "
                 "temples or prosperity wood")
        card, rest = _CARD_WORDS[args[0]], args[1:]
        if card == "liahona":
            n = _number(rest[0]) if len(rest) == 1 else None
            if n is None or not 2 <= n <= 12:
                _bad("Liahona needs the roll you choose, 2 to 12, like: play liahona 8")
            return Move("liahona", (n,))
        if card == "harvest":
            if len(rest) > 1:
                _bad("write play harvest and two resources, like: play harvest 1wood+1stone")
            return Move("harvest", (parse_bundle(rest[0]) if rest else (0, 0, 0, 0, 0),))
        if card == "prosperity":
            if len(rest) != 1:
                _bad("Prosperity needs one resource, like: play prosperity wood")
            return Move("prosperity", (parse_resource(rest[0]),))
        if rest:
            _bad(f"play {card} takes nothing after it")
        return Move(card)
    if verb in _TWO_SIDES:
        give, get = _trade_sides(args, verb)
        if len(args) != 3:
            _bad(f"write {verb} like: {verb} {_TWO_SIDES[verb]}")
        return Move(verb, (give, get))
    if verb == "offer":
        give, get = _trade_sides(args, "offer")
        rest = args[3:]
        if not rest:
            return Move("offer", (give, get, None))
        if rest[0] != "to" or len(rest) < 2:
            _bad("write offer like: offer 1wood for 1water to blue,white")
        names = [w for w in rest[1:] if w != ","]
        seen = []
        for w in names:
            s = _seat(w)
            if s not in seen:
                seen.append(s)
        return Move("offer", (give, get, tuple(sorted(seen, key=SEATS.index))))
    if verb == "confirm":
        if len(args) != 1:
            _bad("write confirm and the player you trade with, like: confirm blue")
        return Move("confirm", (_seat(args[0]),))
    if verb in _SIMPLE:
        _bad(f"{verb} takes nothing after it")
    _bad(unknown_move_text(verb, MOVE_WORDS))


#: the move words an unknown one is answered with
MOVE_WORDS = ("roll", "settle", "road", "city", "temple", "buy", "bank", "offer", "play",
              "robber", "discard", "end")


def bundle_notation(bundle):
    return notation(bundle, RESOURCES)


def format_move(mv):
    """The canonical text of a Move (``format_move(parse_move(t))`` is canonical)."""
    kind, a = mv.kind, mv.args
    if kind in _SIMPLE:
        return kind
    if kind in ("settle", "city", "start"):
        return f"{kind} {_CORNER_NAMES[a[0]]}"
    if kind == "road":
        return "road " + EDGE_NAMES[a[0]]
    if kind == "discard":
        return "discard " + bundle_notation(a[0])
    if kind == "robber":
        h = HEX_NAMES[a[0]]
        return f"robber {h} {a[1]}" if a[1] else f"robber {h}"
    if kind == "liahona":
        return f"play liahona {a[0]}"
    if kind == "harvest":
        return ("play harvest " + bundle_notation(a[0])).rstrip()
    if kind == "prosperity":
        return "play prosperity " + RESOURCES[a[0]]
    if kind in ("warrior", "roads", "temples"):
        return "play " + kind
    if kind in ("bank", "offer", "counter"):
        return trade_text(kind, a[0], a[1], RESOURCES, a[2] if kind == "offer" else None)
    if kind == "confirm":
        return "confirm " + a[0]
    raise ValueError(f"not a Zarahemla move: {mv!r}")


#: one Zarahemla move (``shared.move.Move``)
Move = BaseMove.bind("Move", parse_move, format_move)
