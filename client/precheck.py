"""What the client can check about a move before it signs one, from what it last fetched.

The client never holds a game's state: the server sends it a *view* (the
seat's own hand, the public board, whose move it is) and, on request, the
list of the seat's legal moves.  ``Game.check`` needs the whole state
(other hands, the decks, the seed), so a full check is only possible on the
server.  Before ``play --offline`` and ``play --armor`` sign, the client checks
what it can, in this order (docs/CLI.md, "What pbem checks before signing"):

1. every move parses in the game's notation (the rules library's own parser
   and its sentence when it does not);
2. for the first move, and only when the view it signs against is the one
   last fetched (no move queued or played since): the seat owes a move now;
3. for that first move, when the server's legal-move list for exactly that
   state was fetched with it: the move is on the list, compared in canonical
   notation.  Some kinds of move the rules list only by examples (trade
   offers, counters, bank trades, discards in Zarahemla; nomad paths, offers
   and counters in the Stone Age; routes in Title of Liberty): a move of such
   a kind passes the list check (the game declares them: ``Game.open_ended_kinds``).

Later moves of one command are checked for notation only: what the first
move leads to (dice, cards) is not known here.  ``split_hint`` also tells a
player who forgot the quotes around a move with spaces.
"""

from shared import IllegalMove, InvalidMove


def open_ended_kinds(game):
    """The kinds of move ``game`` lists only by examples (``Game.open_ended_kinds``)."""
    return frozenset(getattr(game, "open_ended_kinds", ()) or ())


def parse(game, text):
    """The game's parsed value for ``text``, or ``text`` when the game has no parser.

    Raises InvalidMove (with the rules' own sentence when the parser gives one).
    """
    from shared.table import is_table_move, parse_table_move
    if is_table_move(text):  # a table entry (@takeback 12, @accept takeback): never the rules'
        return parse_table_move(text)
    parser = getattr(game, "parse_move", None)
    if parser is None:
        return text.strip()
    try:
        return parser(text)
    except IllegalMove:
        raise
    except Exception:  # noqa: BLE001 - a parser that crashes still means "does not parse"
        raise InvalidMove(f"{text!r} is not a move of {game.name}") from None


def canonical(game, text):
    """``text`` in the game's canonical notation (InvalidMove when it does not parse)."""
    value = parse(game, text)
    from shared.table import format_table_move, is_table_move
    if is_table_move(text):
        return format_table_move(value)
    formatter = getattr(game, "format_move", None)
    if formatter is None:
        return " ".join(text.split())
    try:
        return formatter(value)
    except Exception:  # noqa: BLE001 - no canonical form: compare the text as typed
        return " ".join(text.split())


def kind_of(game, text):
    """The kind of a move as its notation shows it: the first word of its canonical text
    ("road", "offer", "move"), or the first two for a card ("play warrior")."""
    words = canonical(game, text).split()
    if not words:
        return ""
    return " ".join(words[:2]) if words[0] == "play" and len(words) > 1 else words[0]


def _parses(game, text):
    try:
        parse(game, text)
        return True
    except IllegalMove:
        return False


def split_hint(game, args, limit=24):
    """The moves ``args`` probably meant when some do not parse alone but a join of neighbours
    does: a list of groups of consecutive arguments (the longest join that parses first), or
    None when every argument parses alone or no grouping parses.

    >>> split_hint(load_game("zarahemla"), ["robber", "F", "blue", "end"])  # doctest: +SKIP
    [['robber', 'F', 'blue'], ['end']]
    """
    args = list(args)
    if len(args) < 2 or len(args) > limit or all(_parses(game, a) for a in args):
        return None
    memo = {}

    def from_(i):
        if i == len(args):
            return []
        if i not in memo:
            memo[i] = None
            for j in range(len(args), i, -1):
                if _parses(game, " ".join(args[i:j])):
                    rest = from_(j)
                    if rest is not None:
                        memo[i] = [args[i:j]] + rest
                        break
        return memo[i]

    groups = from_(0)
    if groups is None or len(groups) == len(args):
        return None
    return groups


def check_first(game, text, seat, view, legal):
    """Check the first move against the last fetched view and legal list.

    ``legal`` is the server's list for this seat at this state, or None when
    it was not fetched.  Returns a note (str) when something could not be
    checked, else None.  Raises IllegalMove / InvalidMove with the reason.
    """
    from shared.table import ANSWERS, is_table_move
    if is_table_move(text):
        parse(game, text)
        if text in ANSWERS:
            if seat not in ((view or {}).get("to_act") or []) or \
                    not (view or {}).get("takeback"):
                raise IllegalMove(f"{seat} owes no answer to a takeback request now",
                                  code="not_your_turn")
            return None
        return (f"{text!r} was checked for notation only: the server judges whether it may be "
                "made now")
    canon = canonical(game, text)
    to_act = (view or {}).get("to_act") or []
    if not isinstance(to_act, list) or seat not in to_act:
        raise IllegalMove(f"{seat} owes no move now", code="not_your_turn")
    if legal is None:
        return (f"{text!r} was checked for notation and turn only: no legal-move list was "
                "fetched for this state (pbem moves GAME fetches one)")
    listed = {}
    for move in legal:
        try:
            listed[canonical(game, move)] = kind_of(game, move)
        except IllegalMove:  # a list from a newer library than this one: compare as text
            words = move.split()
            listed[" ".join(words)] = words[0] if words else ""
    if canon in listed:
        return None
    kind = kind_of(game, text)
    same = [m for m, k in listed.items() if k == kind]
    if kind in open_ended_kinds(game):
        return (f"{text!r} was checked for notation and turn only: the rules list {kind} "
                "moves only by examples, so the server will judge the rest")
    if same:
        shown = ", ".join(same[:6]) + (f" and {len(same) - 6} more" if len(same) > 6 else "")
        reason = f"the {kind} moves {seat} may play now are {shown}"
    elif 0 < len(listed) <= 8:
        reason = f"{seat} may play only {', '.join(listed)} now"
    elif listed:
        kinds = sorted(set(listed.values()))
        reason = f"{seat} may play only {', '.join(kinds)} moves now"
    else:
        reason = f"{seat} has no legal move now"
    raise IllegalMove(f"{text!r} is not one of {seat}'s legal moves now: {reason}",
                      code="not_legal_now")


def rules_for(resp, required):
    """The rules-library game of ``resp``'s game, or None when this client cannot play it.

    With ``required`` (a move is about to be signed unchecked otherwise), an unknown game
    or rules version is refused with a hint at --force.
    """
    from .context import PbemError, load_game
    game = resp.get("game") or {}
    try:
        rules = load_game(game.get("type"))
    except (KeyError, TypeError):
        if required:
            raise PbemError(f"this client does not know the rules of {game.get('type')!r}, so "
                            "it cannot check the move before signing it; --force signs it "
                            "unchecked") from None
        return None
    version = str(game.get("rules_version") or "1")
    if version not in tuple(str(v) for v in rules.rules_versions):
        if required:
            raise PbemError(f"game {game.get('id')} is played under {rules.name} rules version "
                            f"{version}, which this client's rules library does not have "
                            f"(it has {', '.join(rules.rules_versions)}): update pbem, or "
                            "--force signs the move unchecked")
        return None
    return rules
