"""Tournaments whose every pairing and standing anyone can recompute offline.

A tournament is a **document** signed by its organiser's main key::

    {"organiser", "organiser_key", "type", "options", "format", "rounds", "table_size",
     "move_hours", "tiebreaks", "start", "seed_commitment", "max_players", "title"}

``format`` is one of :data:`FORMATS`:

``swiss``        two seats a game; each round pairs players of equal score (Monrad: the ranked
                 list top down, each player with the next one it has not met; a bye, worth a
                 win, for the lowest ranked player still without one when the count is odd).
``round_robin``  two seats a game; everyone meets everyone once (the circle method over the
                 seeded order; ``rounds`` is the number of players less one, or the number of
                 players when it is odd).
``tables``       ``table_size`` seats a game (3 or 4): each round seats the ranked list in
                 tables of ``table_size`` (the last ones one seat smaller when the count does
                 not divide), seat order drawn.
``challenge``    the cooperative Title of Liberty: each round groups the ranked list in teams
                 of ``table_size`` (1-5), each team plays its own game; ranked by games won,
                 then by rounds used (fewer is better).

Its identity is the hash of the document (:func:`tournament_id`).  Players **join** by signing
that hash with their main key (:func:`entry_message`); the organiser **closes** entry by signing
the sorted list of names (:func:`close_message`).  A player may **withdraw**, signing from which
round on it is not paired (:func:`withdraw_message`).

**Scoring** is one rule for every format: at each game, every pair of seats is compared by their
places (``shared.base.Game.standings``): the better place scores 2, an equal place 1 each (a
draw by agreement, a game no one won), the worse 0.  In a two-seat game that is 2 for a win, 1
for a draw and 0 for a loss; a bye scores 2.  A game that has no result (aborted, or unfinished
when the round was scored) scores nothing.  A cooperative game scores 2 to every seat when the
table won, 0 when it lost; the challenge's tiebreak is the rounds used.

**Randomness** (the seeded order of round one, byes' ties, seat order) comes from a *draw
seed* that no single party chooses: the organiser's secret seed, committed in the document
(:func:`seed_commitment`) before anyone enters, hashed with every entry's signature
(:func:`draw_seed`).  The organiser cannot pick a seed that favours anyone, since the
players' signatures (by keys the organiser does not hold) are not known when it commits;
the players cannot aim theirs, since the organiser's seed stays secret until the tournament
is over.  (An organiser who also enters accounts of its own, or times the close of entry,
gains one choice among the entry lists it could close on; the seed is fixed at the close.)

Each round draws with its own key, ``round_key(draw seed, round)`` (round 0: the seeding),
as ``HMAC(key, tournament | round | what)`` (``shared.rng``).  While the tournament runs, its
export reveals the keys of the rounds paired so far (``round_keys``) but not the seed, so a
running tournament verifies as a *prefix*: every pairing so far is recomputed from those
keys, but later rounds' draws stay unknown.  Once it is over, the export reveals the seed:
the commitment, the draw seed and every round key are then checked in full.  Pairings
depend only on the document, the entries, the withdrawals, the earlier rounds' results and
the draws, so :func:`verify_tournament` recomputes every one of them.

Pure: no clock, no I/O, no global randomness.
"""

import hashlib
import re

from .envelope import canonical_json, sign, valid_public_key, verify
from .rng import Rng

FORMATS = ("swiss", "round_robin", "tables", "challenge")
TIEBREAKS = ("buchholz", "sonneborn_berger", "wins", "rounds_used")
EXPORT_FORMAT = "pbem-tournament-v1"
DOCUMENT_DOMAIN = b"pbem-tournament-v1\n"
ENTRY_DOMAIN = b"pbem-tournament-entry-v1\n"
CLOSE_DOMAIN = b"pbem-tournament-close-v1\n"
WITHDRAW_DOMAIN = b"pbem-tournament-withdraw-v1\n"
SEED_DOMAIN = b"pbem-tournament-seed-v1\n"
DRAW_DOMAIN = b"pbem-tournament-draw-v1\n"
ROUND_KEY_DOMAIN = b"pbem-tournament-round-key-v1\n"
#: the header option a tournament game carries: "ID:ROUND:TABLE" (text, as every option's
#: value in an archive header is a scalar)
OPTION = "tournament"
_OPTION_RE = re.compile(r"[0-9a-f]{64}:[1-9][0-9]{0,1}:[1-9][0-9]{0,2}")
BYE = 2


class TournamentError(ValueError):
    """A document, entry or export that does not hold; ``message`` says what, in a sentence."""

    def __init__(self, message, code="bad_tournament"):
        super().__init__(message)
        self.message, self.code = message, code


def _bad(message, code="bad_tournament"):
    raise TournamentError(message, code)


# --- the document and what is signed ------------------------------------------------------

def seed_commitment(seed):
    """The published commitment to a tournament's secret seed (bytes -> hex)."""
    return hashlib.sha256(SEED_DOMAIN + seed).hexdigest()


def check_document(doc):
    """Raise TournamentError unless ``doc`` is a well-formed tournament document."""
    need = {"organiser", "organiser_key", "type", "options", "format", "rounds", "table_size",
            "move_hours", "tiebreaks", "start", "seed_commitment", "max_players", "title"}
    if not isinstance(doc, dict) or set(doc) != need:
        _bad(f"a tournament document has exactly the fields {', '.join(sorted(need))}")
    for name, most in (("organiser", 32), ("type", 32), ("title", 80)):
        if not isinstance(doc[name], str) or len(doc[name]) > most:
            _bad(f"the {name} is a text of at most {most} characters")
    if doc["format"] not in FORMATS:
        _bad(f"the format is one of {', '.join(FORMATS)}, not {str(doc['format'])[:20]!r}")
    if not valid_public_key(doc["organiser_key"]):
        _bad("the organiser's key is not a public key")
    for name in ("rounds", "table_size", "max_players", "start"):
        if type(doc[name]) is not int or doc[name] < 0:
            _bad(f"{name} is a whole number")
    if not 1 <= doc["rounds"] <= 30:
        _bad("a tournament has 1 to 30 rounds")
    lo, hi = {"swiss": (2, 2), "round_robin": (2, 2), "tables": (3, 4),
              "challenge": (1, 5)}[doc["format"]]
    if not lo <= doc["table_size"] <= hi:
        _bad(f"a {doc['format']} tournament seats {lo}-{hi} a game, not {doc['table_size']}")
    if not 2 <= doc["max_players"] <= 256:
        _bad("max_players is 2 to 256")
    if not isinstance(doc["tiebreaks"], list) or any(t not in TIEBREAKS
                                                      for t in doc["tiebreaks"]) \
            or len(set(doc["tiebreaks"])) != len(doc["tiebreaks"]):
        _bad(f"the tiebreaks are some of {', '.join(TIEBREAKS)}, each once")
    if doc["move_hours"] is not None and (type(doc["move_hours"]) is not int
                                          or not 1 <= doc["move_hours"] <= 24 * 60):
        _bad("move_hours is a whole number of hours, 1 to 1440, or null")
    if not isinstance(doc["options"], dict) or OPTION in doc["options"]:
        _bad("the options are the game's (the tournament names itself in each game)")
    if not (isinstance(doc["seed_commitment"], str) and len(doc["seed_commitment"]) == 64):
        _bad("the seed commitment is 64 hex digits")


def new_document(*, organiser, organiser_key, type, options, format, rounds, seed,
                 table_size=2, move_hours=None, tiebreaks=None, start=0, max_players=64,
                 title=""):
    """A checked tournament document (a dict), committed to ``seed`` (bytes)."""
    if tiebreaks is None:
        tiebreaks = ["rounds_used"] if format == "challenge" else ["buchholz",
                                                                   "sonneborn_berger"]
    doc = {"organiser": organiser, "organiser_key": organiser_key, "type": type,
           "options": dict(options or {}), "format": format, "rounds": rounds,
           "table_size": table_size, "move_hours": move_hours, "tiebreaks": list(tiebreaks),
           "start": start, "seed_commitment": seed_commitment(seed),
           "max_players": max_players, "title": title}
    check_document(doc)
    return doc


def tournament_id(doc):
    """The tournament's identity: the hash of its document."""
    return hashlib.sha256(DOCUMENT_DOMAIN + canonical_json(doc)).hexdigest()


def document_message(doc):
    return DOCUMENT_DOMAIN + canonical_json(doc)


def entry_message(tid, player, public_key):
    return ENTRY_DOMAIN + canonical_json({"tournament": tid, "player": player,
                                          "public_key": public_key})


def close_message(tid, players):
    return CLOSE_DOMAIN + canonical_json({"tournament": tid, "players": sorted(players)})


def withdraw_message(tid, player, from_round):
    return WITHDRAW_DOMAIN + canonical_json({"tournament": tid, "player": player,
                                             "from_round": from_round})


def sign_document(private_key, doc):
    return sign(private_key, document_message(doc))


# --- randomness ---------------------------------------------------------------------------

def draw_seed(seed, entries):
    """The seed every draw comes from (bytes): the organiser's ``seed`` hashed with every
    entry's signature (``entries``: [{"player", "signature", ...}]), in the players' order."""
    signed = sorted([e["player"], e["signature"]] for e in entries)
    return hashlib.sha256(DRAW_DOMAIN + bytes(seed) + canonical_json(signed)).digest()


def round_key(draw, round_no):
    """Round ``round_no``'s key (bytes) from the draw seed (round 0 seeds round one)."""
    return hashlib.sha256(ROUND_KEY_DOMAIN + bytes(draw) + str(round_no).encode()).digest()


def round_keys(draw, last_round):
    """The keys of rounds 0 to ``last_round``, hex: what a running tournament reveals."""
    return [round_key(draw, r).hex() for r in range(last_round + 1)]


def _key(seed, round_no):
    """Round ``round_no``'s key: ``seed`` is the draw seed (bytes) or the list of the round
    keys revealed so far (bytes or hex)."""
    if isinstance(seed, (bytes, bytearray)):
        return round_key(seed, round_no)
    if round_no >= len(seed):
        _bad(f"round {round_no}'s key is not revealed", "bad_seed")
    key = seed[round_no]
    return bytes.fromhex(key) if isinstance(key, str) else bytes(key)


def _rng(seed, tid, round_no, what):
    return Rng(_key(seed, round_no), f"tournament|{tid}|{round_no}|{what}".encode("utf-8"))


def seeded_order(players, seed, tid):
    """The players in the order round one seeds them (a draw from the seed)."""
    order = sorted(players)
    rng = _rng(seed, tid, 0, "seeding")
    for i in range(len(order) - 1, 0, -1):  # Fisher-Yates
        j = rng.randbelow(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


# --- scoring and standings ----------------------------------------------------------------

def table_points(seats_players, places):
    """{player: points} of one finished competitive game (the module's scoring rule).

    ``seats_players`` is [(seat, player)] in seat order; ``places`` {seat: place} (1 best),
    or None for a game without a result (nobody scores).

    >>> table_points([("red", "ann"), ("blue", "bob")], {"red": 1, "blue": 2})
    {'ann': 2, 'bob': 0}
    >>> table_points([("a", "x"), ("b", "y"), ("c", "z")], {"a": 1, "b": 2, "c": 2})
    {'x': 4, 'y': 1, 'z': 1}
    """
    points = {p: 0 for _, p in seats_players}
    if places is None:
        return points
    for i, (si, pi) in enumerate(seats_players):
        for sj, pj in seats_players[i + 1:]:
            a, b = places[si], places[sj]
            if a < b:
                points[pi] += 2
            elif a > b:
                points[pj] += 2
            else:
                points[pi] += 1
                points[pj] += 1
    return points


def _records(players, rounds):
    rec = {p: {"score": 0, "opponents": [], "results": [], "wins": 0, "byes": 0,
               "first_seats": 0, "rounds_used": 0, "games": 0} for p in players}
    for rnd in rounds:
        for p in rnd.get("byes", ()):
            if p in rec:
                rec[p]["score"] += BYE
                rec[p]["byes"] += 1
        for table in rnd["tables"]:
            seated = table["players"]
            pts = table.get("points") or {}
            for k, p in enumerate(seated):
                if p not in rec:
                    continue
                r = rec[p]
                r["score"] += pts.get(p, 0)
                r["games"] += 1
                if k == 0:
                    r["first_seats"] += 1
                if table.get("rounds_used") is not None:
                    r["rounds_used"] += table["rounds_used"]
                others = [q for q in seated if q != p]
                r["opponents"] += others
                # per opponent: what p scored against it (2, 1, 0), for Sonneborn-Berger
                for q in others:
                    r["results"].append((q, table.get("pair", {}).get(f"{p}>{q}", 0)))
                if pts.get(p, 0) == 2 * (len(seated) - 1) and len(seated) > 1 \
                        and table.get("points") is not None:
                    r["wins"] += 1
    return rec


def standings(doc, players, rounds, seed, tid):
    """The ranked standings after ``rounds`` (each {"tables": [...], "byes": [...]}, tables
    with ``players`` in seat order and ``points``): a list of {"player", "rank", "score",
    "tiebreaks": [...]} best first.

    Order: score, then the document's tiebreaks in order (Buchholz: the sum of the opponents'
    scores; Sonneborn-Berger: the sum over opponents of the opponent's score times what was
    scored against it, halved; wins; rounds used, fewer first), then the seeded order.
    Equal on all of them share a rank.
    """
    rec = _records(players, rounds)
    seeded = {p: i for i, p in enumerate(seeded_order(players, seed, tid))}

    def tiebreak(p, name):
        r = rec[p]
        if name == "buchholz":
            return sum(rec[q]["score"] for q in r["opponents"] if q in rec)
        if name == "sonneborn_berger":
            return sum(rec[q]["score"] * got for q, got in r["results"] if q in rec) // 2
        if name == "wins":
            return r["wins"]
        return -r["rounds_used"]

    rows = []
    for p in players:
        tbs = [tiebreak(p, name) for name in doc["tiebreaks"]]
        rows.append({"player": p, "score": rec[p]["score"], "tiebreaks": tbs})
    rows.sort(key=lambda row: (-row["score"], [-t for t in row["tiebreaks"]],
                               seeded[row["player"]]))
    for i, row in enumerate(rows):
        same = i and (row["score"], row["tiebreaks"]) == (rows[i - 1]["score"],
                                                            rows[i - 1]["tiebreaks"])
        row["rank"] = rows[i - 1]["rank"] if same else i + 1
    return rows


# --- pairings -----------------------------------------------------------------------------

def _monrad(ranked, met):
    """Pair ``ranked`` top down, each with the next one not met yet (backtracking); None when
    no such pairing exists."""
    if not ranked:
        return []
    first, rest = ranked[0], ranked[1:]
    for i, other in enumerate(rest):
        if other in met[first]:
            continue
        tail = _monrad(rest[:i] + rest[i + 1:], met)
        if tail is not None:
            return [(first, other)] + tail
    return None


def _seat_order(a, b, rec, rng):
    """Who takes the first seat: the one who had it less often; then a draw."""
    fa, fb = rec[a]["first_seats"], rec[b]["first_seats"]
    if fa != fb:
        return [a, b] if fa < fb else [b, a]
    return [a, b] if rng.randbelow(2) == 0 else [b, a]


def _chunks(ranked, size, smallest):
    n = len(ranked)
    if n < smallest:
        return [], list(ranked)
    tables = -(-n // size)
    while tables * smallest > n:
        tables -= 1
    sizes = [size] * tables
    over = size * tables - n
    for k in range(over):  # the last tables one seat smaller
        sizes[-1 - k % tables] -= 1
    if min(sizes) < smallest:
        return [], list(ranked)
    out, i = [], 0
    for s in sizes:
        out.append(ranked[i:i + s])
        i += s
    return out, ranked[i:]


def pair_round(doc, players, rounds, seed, tid, round_no, withdrawn=()):
    """The tables and byes of round ``round_no`` (1-based) from the rounds before it.

    Returns {"round", "tables": [[player, ...] in seat order], "byes": [player]}. Withdrawn
    players ({player: from_round}) are not paired from their round on.
    """
    withdrawn = dict(withdrawn or {})
    active = [p for p in players if withdrawn.get(p, round_no + 1) > round_no]
    ranked = [row["player"] for row in standings(doc, players, rounds, seed, tid)
              if row["player"] in active]
    if round_no == 1:
        ranked = [p for p in seeded_order(players, seed, tid) if p in active]
    rng = _rng(seed, tid, round_no, "seats")
    rec = _records(players, rounds)
    fmt = doc["format"]
    if fmt == "round_robin":
        return _round_robin(players, withdrawn, seed, tid, round_no, rec, rng)
    if fmt in ("tables", "challenge"):
        smallest = doc["table_size"] - 1 if fmt == "tables" else 1
        groups, left = _chunks(ranked, doc["table_size"], max(smallest, 1))
        tables = []
        for group in groups:
            order = list(group)
            for i in range(len(order) - 1, 0, -1):
                j = rng.randbelow(i + 1)
                order[i], order[j] = order[j], order[i]
            tables.append(order)
        return {"round": round_no, "tables": tables, "byes": left}
    byes = []
    if len(ranked) % 2:
        fewest = min(rec[p]["byes"] for p in ranked)
        bye = next(p for p in reversed(ranked) if rec[p]["byes"] == fewest)
        byes.append(bye)
        ranked = [p for p in ranked if p != bye]
    met = {p: set(rec[p]["opponents"]) for p in ranked}
    pairs = _monrad(ranked, met)
    if pairs is None:  # everyone has met everyone it could: pair down the list again
        pairs = [(ranked[i], ranked[i + 1]) for i in range(0, len(ranked), 2)]
    return {"round": round_no, "tables": [_seat_order(a, b, rec, rng) for a, b in pairs],
            "byes": byes}


def _round_robin(players, withdrawn, seed, tid, round_no, rec, rng):
    order = seeded_order(players, seed, tid)
    if len(order) % 2:
        order.append(None)
    n = len(order)
    fixed, ring = order[0], order[1:]
    k = (round_no - 1) % (n - 1)
    ring = ring[-k:] + ring[:-k] if k else ring
    line = [fixed] + ring
    tables, byes = [], []
    for i in range(n // 2):
        a, b = line[i], line[n - 1 - i]
        if i == 0 and round_no % 2 == 0:
            a, b = b, a
        pair = [p for p in (a, b) if p is not None and withdrawn.get(p, round_no + 1) >
                round_no]
        if len(pair) == 2:
            tables.append(pair)
        else:
            byes += pair
    return {"round": round_no, "tables": tables, "byes": sorted(byes)}


def rounds_in(doc, n_players):
    """How many rounds the tournament plays with ``n_players``."""
    if doc["format"] == "round_robin":
        return min(doc["rounds"], n_players - 1 if n_players % 2 == 0 else n_players)
    return doc["rounds"]


# --- one game's part ----------------------------------------------------------------------

def game_option(tid, round_no, table):
    """The header option that names the tournament in each of its games: "ID:ROUND:TABLE"."""
    return f"{tid}:{round_no}:{table}"


def check_game_option(value):
    """``value`` if it is a tournament game option, else TournamentError (the rules library's
    ``normalize_options`` keeps it beside the game's own options, as it keeps on_timeout)."""
    if not isinstance(value, str) or not _OPTION_RE.fullmatch(value):
        _bad(f"option {OPTION} is ID:ROUND:TABLE (a tournament's id, its round and table)",
             "bad_option")
    return value


def read_game_option(value):
    """(tournament id, round, table) of a game's tournament option."""
    tid, round_no, table = check_game_option(value).split(":")
    return tid, int(round_no), int(table)


def score_game(game, header, result):
    """(points {player: int}, rounds used or None) of one tournament game from its verified
    archive's header and result (None for a game with no result)."""
    seated = [(s["seat"], s["player"]) for s in header["seats"]]
    if result is None or result.get("aborted"):
        return table_points(seated, None), None
    if getattr(game, "cooperative", False):
        won = bool(result.get("winners"))
        return {p: 2 if won else 0 for _, p in seated}, result.get("round")
    places = game.standings(result, [s for s, _ in seated])
    return table_points(seated, places), None


def _pair_results(players, points):
    """{"p>q": what p scored against q} of one table, for Sonneborn-Berger (two-seat games:
    the points themselves; larger tables: 2, 1 or 0 by the two players' points)."""
    out = {}
    for p in players:
        for q in players:
            if p != q:
                a, b = points.get(p, 0), points.get(q, 0)
                out[f"{p}>{q}"] = 2 if a > b else 1 if a == b else 0
    return out


def scored_round(pairing, games):
    """The round as standings read it: each table with its players, ``points``, ``pair`` and
    ``rounds_used`` (``games``: [(points, rounds_used)] by table, or None for an unscored
    table)."""
    tables = []
    for seats, scored in zip(pairing["tables"], games):
        points, used = scored if scored is not None else (None, None)
        tables.append({"players": list(seats), "points": points, "rounds_used": used,
                       "pair": _pair_results(seats, points) if points else {}})
    return {"tables": tables, "byes": list(pairing["byes"])}


# --- the export and its verification ------------------------------------------------------

def _check_entries(export, doc, tid):
    entries = export.get("entries")
    if not isinstance(entries, list) or not entries:
        _bad("the export has no entries")
    keys, names = {}, []
    for e in entries:
        if not isinstance(e, dict) or set(e) != {"player", "public_key", "signature"}:
            _bad("an entry is {player, public_key, signature}")
        if e["player"] in keys:
            _bad(f"{e['player']} entered twice")
        if not verify(e["public_key"], entry_message(tid, e["player"], e["public_key"]),
                      e["signature"]):
            _bad(f"{e['player']}'s entry is not signed by the key it names", "bad_signature")
        keys[e["player"]] = e["public_key"]
        names.append(e["player"])
    if len(names) > doc["max_players"]:
        _bad(f"{len(names)} entries, over the document's {doc['max_players']}")
    close = export.get("close")
    if not isinstance(close, dict) or sorted(close.get("players") or []) != sorted(names):
        _bad("entry was not closed on exactly the players who entered")
    if not verify(doc["organiser_key"], close_message(tid, names), close.get("signature")):
        _bad("the close of entry is not signed by the organiser", "bad_signature")
    withdrawn = {}
    for w in export.get("withdrawals") or []:
        if w.get("player") not in keys or type(w.get("from_round")) is not int:
            _bad("a withdrawal names a player who entered and a round")
        if not verify(keys[w["player"]], withdraw_message(tid, w["player"], w["from_round"]),
                      w.get("signature")):
            _bad(f"{w['player']}'s withdrawal is not signed by {w['player']}", "bad_signature")
        withdrawn[w["player"]] = w["from_round"]
    return sorted(names), keys, withdrawn


def verify_tournament(export, verify_game, get_game):
    """Verify a tournament export; a report, or TournamentError with the first fault.

    ``verify_game(archive)`` verifies one game's archive (``shared.archive.verify_archive``)
    and returns its report; ``get_game(type)`` the rules library's Game.  Checks, in order:
    the document and its organiser's signature; every entry and the close of entry; the seed
    against its commitment (a finished tournament; a running one reveals the round keys so
    far instead, which are checked against it once it is over); for every round, that its
    pairing is the one the standings before it give, and that each table's archive verifies
    (complete, but for the current round of a running tournament), is the tournament's game
    of that round and table, seats those players in that order, with the document's type and
    options; then that the standings the export states are the ones its games give.

    The report: ``tournament`` (its id), ``players``, ``rounds`` (verified), ``games``,
    ``standings``, ``final`` (the seed revealed and checked), ``complete`` (final, and every
    round played and scored).
    """
    if not isinstance(export, dict) or export.get("format") != EXPORT_FORMAT:
        _bad(f"not a tournament export (format {EXPORT_FORMAT})")
    doc = export.get("document")
    check_document(doc)
    tid = tournament_id(doc)
    if export.get("tournament") not in (None, tid):
        _bad("the export's tournament id is not its document's hash")
    if not verify(doc["organiser_key"], document_message(doc), export.get("signature")):
        _bad("the document is not signed by its organiser", "bad_signature")
    players, _keys, withdrawn = _check_entries(export, doc, tid)
    rounds = export.get("rounds") or []
    if not isinstance(rounds, list) or len(rounds) > rounds_in(doc, len(players)):
        _bad(f"the export has more rounds than the tournament plays "
             f"({rounds_in(doc, len(players))})", "bad_pairing")
    seed_hex = export.get("seed")
    final = seed_hex is not None
    if final:
        if not isinstance(seed_hex, str) or seed_commitment(
                bytes.fromhex(seed_hex) if _hex(seed_hex) else b"") != doc["seed_commitment"]:
            _bad("the revealed seed does not match the document's commitment", "bad_seed")
        seed = draw_seed(bytes.fromhex(seed_hex), export["entries"])
    else:
        # a running tournament: the keys of the rounds paired so far, not the seed
        seed = export.get("round_keys") or []
        if not isinstance(seed, list) or len(seed) != len(rounds) + 1 \
                or not all(isinstance(k, str) and len(k) == 64 and _hex(k) for k in seed):
            _bad("a running tournament's export reveals one key (64 hex digits) for each "
                 "round paired so far and one for the seeding, and no seed", "bad_seed")
    game_def = get_game(doc["type"])
    archives = export.get("archives") or {}
    played, games = [], 0
    for r, rnd in enumerate(rounds, start=1):
        want = pair_round(doc, players, played, seed, tid, r, withdrawn)
        got = {"round": rnd.get("round"), "tables": [t.get("players") for t in
                                                     rnd.get("tables") or []],
               "byes": sorted(rnd.get("byes") or [])}
        want_cmp = dict(want, byes=sorted(want["byes"]))
        if got != want_cmp:
            _bad(f"round {r}'s pairing is not the one its standings give: it should be "
                 f"{_describe(want)}, the export says {_describe(got)}", "bad_pairing")
        scored = []
        for i, table in enumerate(rnd["tables"], start=1):
            archive = archives.get(table.get("game"))
            if archive is None:
                _bad(f"round {r} table {i}: the archive of game {table.get('game')!r} is "
                     "missing", "missing_game")
            report = verify_game(archive)
            header = archive["header"]
            where = f"round {r} table {i} (game {table.get('game')})"
            if header.get("game") != table.get("game"):
                _bad(f"{where}: the archive is of another game", "wrong_game")
            options = dict(header.get("options") or {})
            if options.pop(OPTION, None) != game_option(tid, r, i):
                _bad(f"{where}: the game does not name this tournament, round and table",
                     "wrong_game")
            if header.get("type") != doc["type"] or options != doc["options"]:
                _bad(f"{where}: the game's type or options are not the document's",
                     "wrong_game")
            if [s["player"] for s in header["seats"]] != table["players"]:
                _bad(f"{where}: the game seats {[s['player'] for s in header['seats']]}, "
                     f"not {table['players']}", "wrong_game")
            if report.get("complete"):
                scored.append(score_game(game_def, header, report.get("result")))
            elif final or r < len(rounds):  # only the current round of a running one plays
                _bad(f"{where}: the game's archive is not complete", "unfinished")
            else:
                scored.append(None)
            games += 1
        played.append(scored_round(want, scored))
    table = standings(doc, players, played, seed, tid)
    stated = export.get("standings")
    if stated != table:
        _bad("the standings the export states are not the ones its games give: "
             f"{_describe_standings(table)}", "bad_standings")
    return {"tournament": tid, "players": players, "rounds": len(played), "games": games,
            "standings": table, "final": final,
            "complete": final and len(played) == rounds_in(doc, len(players))}


def _hex(text):
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return len(text) % 2 == 0


def _describe(pairing):
    tables = "; ".join(" v ".join(map(str, t)) for t in pairing["tables"])
    byes = f"; bye {', '.join(pairing['byes'])}" if pairing["byes"] else ""
    return tables + byes


def _describe_standings(rows):
    return ", ".join(f"{row['rank']}. {row['player']} {row['score']}" for row in rows[:8])
