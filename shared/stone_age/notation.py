"""Move notation: ``parse_move(text) -> Move`` and ``format_move(Move) -> text``.

Every move is one short line of lowercase words.  Crossings are the numbers
printed on the map, hexes their row letter and column (``e3``), resources
``meat bone flint hide`` written as count+name joined by ``+`` (``2meat+1bone``).

>>> format_move(parse_move("MOVE 100 - 93-85"))
'move 100-93-85'
"""

import re

from .. import InvalidMove
from ..base import remembered_parse
from ..bundles import notation
from ..move import Move as BaseMove
from ..move import unknown_move_text
from ..trade import trade_text
from . import board

RES = board.RESOURCES
SEAT_ORDER = ("red", "blue", "white", "orange")
TRACKS = ("food", "hunting", "construction", "clothing")
FIGURES = ("neanderthal", "predator")
_SIMPLE = ("roll", "end", "accept", "decline", "withdraw")
_DIGITS = re.compile(r"[0-9]+", re.ASCII)


def _bundle_text(b):
    return notation(b, RES)


def parse_bundle(text):
    """``"2meat+1bone"`` -> (2, 1, 0, 0); raises InvalidMove."""
    counts = [0, 0, 0, 0]
    if not text:
        raise InvalidMove("a list of cards is missing, e.g. 2meat+1bone", code="bad_cards")
    for part in text.split("+"):
        m = re.fullmatch(r"([0-9]{1,6})\s*([a-z]+)", part.strip(), flags=re.ASCII)
        if not m:
            raise InvalidMove(f"cannot read {part.strip()!r} as cards: write a count and a "
                              "resource, e.g. 2meat+1bone", code="bad_cards")
        n, name = int(m.group(1)), m.group(2)
        if name.endswith("s") and name[:-1] in RES:
            name = name[:-1]
        if name not in RES:
            raise InvalidMove(f"{name!r} is not a resource: use meat, bone, flint or hide",
                              code="bad_cards")
        if n == 0 or n > 99:
            raise InvalidMove(f"{part.strip()!r}: a count must be between 1 and 99",
                              code="bad_cards")
        counts[RES.index(name)] += n
    return tuple(counts)


def _crossing(word):
    # ASCII digits only: str.isdigit() also takes superscripts and other scripts' digits,
    # which int() refuses or reads otherwise; and int() refuses very long digit strings
    if not _DIGITS.fullmatch(word):
        raise InvalidMove(f"{word!r} is not a crossing: crossings are the numbers on the map",
                          code="bad_crossing")
    word = word.lstrip("0") or "0"
    if len(word) > 4:
        raise InvalidMove(f"there is no crossing {word[:8]}...: they run from 1 to "
                          f"{board.NUM_CROSSINGS}", code="bad_crossing")
    x = int(word)
    if x < 1 or x > board.NUM_CROSSINGS:
        raise InvalidMove(f"there is no crossing {x}: they run from 1 to {board.NUM_CROSSINGS}",
                          code="bad_crossing")
    return x


def _hex(word):
    if word not in board.HEXES:
        raise InvalidMove(f"there is no landscape {word!r}: landscapes are named like e3 "
                          "on the map", code="bad_hex")
    return word


def _seat(word):
    if word not in SEAT_ORDER:
        raise InvalidMove(f"{word!r} is not a player colour: use red, blue, white or orange",
                          code="bad_seat")
    return word


def _trade(rest, kind):
    give, sep, get = rest.partition(" for ")
    if not sep:
        raise InvalidMove(f"write the {kind} as '{kind} 2meat+1bone for 1flint'", code="bad_trade")
    return parse_bundle(give.replace(" ", "")), parse_bundle(get.replace(" ", ""))


def _parse_move(text):
    """Parse one move; raises :class:`shared.InvalidMove` with a helpful sentence."""
    if not isinstance(text, str):
        raise InvalidMove("a move is a line of text", code="bad_notation")
    t = " ".join(text.strip().lower().split())
    if not t:
        raise InvalidMove("the move is empty; type 'help' to see the notation", code="bad_notation")
    word, _, rest = t.partition(" ")
    if word in _SIMPLE:
        if rest:
            raise InvalidMove(f"'{word}' takes nothing after it", code="bad_notation")
        return Move(word)
    if word == "take" and rest == "none":
        return Move("take", (None,))
    if word in ("nomad", "place", "take"):
        return Move(word, (_crossing(rest),))
    if word == "move":
        steps = [s.strip() for s in rest.split("-")]
        if len(steps) < 2:
            raise InvalidMove("write a move as the path of crossings from the nomad, "
                              "e.g. move 100-93-85", code="bad_path")
        return Move("move", (tuple(_crossing(s) for s in steps),))
    if word == "tribe":
        parts = rest.split()
        if len(parts) == 1:
            return Move("tribe", (_crossing(parts[0]), None))
        if len(parts) == 3 and parts[1] == "remove":
            return Move("tribe", (_crossing(parts[0]), _crossing(parts[2])))
        raise InvalidMove("write 'tribe 45', or 'tribe 45 remove 92' for a sixth tribe",
                          code="bad_notation")
    if word == "develop":
        if rest not in TRACKS:
            raise InvalidMove("develop one of: food, hunting, construction, clothing",
                              code="bad_track")
        return Move("develop", (rest,))
    if word in FIGURES:
        parts = rest.split()
        if len(parts) == 1:
            return Move("figure", (word, _hex(parts[0]), None))
        if len(parts) == 3 and parts[1] == "steal":
            return Move("figure", (word, _hex(parts[0]), _seat(parts[2])))
        raise InvalidMove(f"write '{word} e3', or '{word} e3 steal blue'", code="bad_notation")
    if word == "desert":
        return Move("desert", (_hex(rest),))
    if word == "discard":
        return Move("discard", (parse_bundle(rest.replace(" ", "")),))
    if word == "bank":
        return Move("bank", _trade(rest, "bank"))
    if word == "counter":
        return Move("counter", _trade(rest, "counter"))
    if word == "offer":
        body, sep, to = rest.partition(" to ")
        if not sep and rest.endswith(" to"):
            raise InvalidMove("name the players after 'to', e.g. to blue,white", code="bad_seat")
        give, get = _trade(body, "offer")
        seats = ()
        if sep:
            names = [s.strip() for s in to.replace(" ", ",").split(",") if s.strip()]
            if not names:
                raise InvalidMove("name the players after 'to', e.g. to blue,white",
                                  code="bad_seat")
            seats = tuple(s for s in SEAT_ORDER if s in {_seat(n) for n in names})
        return Move("offer", (give, get, seats))
    if word == "confirm":
        return Move("confirm", (_seat(rest),))
    raise InvalidMove(unknown_move_text(word, MOVE_WORDS), code="bad_notation")


#: the move words an unknown one is answered with
MOVE_WORDS = ("roll", "bank", "offer", "accept", "decline", "counter", "confirm", "withdraw",
              "nomad", "move", "tribe", "develop", "neanderthal", "predator", "desert", "take",
              "discard", "place", "end")


parse_move = remembered_parse(_parse_move)


def format_move(move):
    """The canonical text of a :class:`Move`."""
    k, a = move.kind, move.args
    if k in _SIMPLE:
        return k
    if k == "take" and a[0] is None:
        return "take none"
    if k in ("nomad", "place", "take"):
        return f"{k} {a[0]}"
    if k == "move":
        return "move " + "-".join(map(str, a[0]))
    if k == "tribe":
        return f"tribe {a[0]}" + (f" remove {a[1]}" if a[1] is not None else "")
    if k == "develop":
        return f"develop {a[0]}"
    if k == "figure":
        return f"{a[0]} {a[1]}" + (f" steal {a[2]}" if a[2] else "")
    if k == "desert":
        return f"desert {a[0]}"
    if k == "discard":
        return "discard " + _bundle_text(a[0])
    if k in ("bank", "offer", "counter"):
        return trade_text(k, a[0], a[1], RES, a[2] if k == "offer" else None)
    if k == "confirm":
        return f"confirm {a[0]}"
    raise ValueError(f"unknown move kind {k!r}")


#: one move (``shared.move.Move``): ``kind`` plus a tuple of plain arguments.  Resource
#: bundles are 4-tuples of counts (meat, bone, flint, hide);
#: ``Move("move", ((100, 93, 85),))`` is ``move 100-93-85``.
Move = BaseMove.bind("Move", parse_move, format_move)


def bundle_text(b):
    """Human text of a bundle, ``"2 meat, 1 bone"`` (``"nothing"`` when empty).

    Every production and trade event writes some, from a few hundred distinct bundles: the
    texts are remembered (at most 4096 of them).
    """
    key = tuple(b)
    text = _BUNDLE_TEXTS.get(key)
    if text is None:
        parts = [f"{n} {RES[i]}" for i, n in enumerate(b) if n]
        text = ", ".join(parts) if parts else "nothing"
        if len(_BUNDLE_TEXTS) < 4096:
            _BUNDLE_TEXTS[key] = text
    return text


_BUNDLE_TEXTS = {}


HELP = """Notation (crossings are the numbers on the map, landscapes like e3):
  roll                          roll the dice (starts your turn)
  bank 3meat for 1flint         trade 3 of a kind with the bank (3:1)
  offer 1hide for 1meat [to blue,white]   offer a trade to the others
  accept | decline | counter 1bone for 1hide   answer an offer made to you
  confirm blue | withdraw       complete a trade with blue / take the offer back
  nomad 100                     create a nomad next to your tribe (1 hide + 1 meat)
  move 100-93-85                move a nomad along the path (1 meat per 2+Food steps)
  tribe 45 [remove 92]          turn your nomad on a people chip into a tribe
                                (1 hide + 1 bone + 1 flint)
  develop food|hunting|construction|clothing   advance a progress track
  neanderthal e3 [steal blue]   move a disruption figure (also: predator a8)
  desert g2                     place a desert (Desertification chip)
  take 45 | take none           take a free people chip, or none (second to Spread)
  discard 2meat+2bone           discard after a 7 (half your cards)
  place 92                      advanced set-up: place a tribe on a black crossing
  end                           end your turn"""
