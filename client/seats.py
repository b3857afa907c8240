"""Which of the viewer's seats a command acts for, and who owes a move as the viewer reads it
(shared by the commands: client/commands/ modules never import each other)."""


def pick_seat(resp_game, view, wanted):
    """The seat to act as: --seat, else one of mine that owes a move, else my first."""
    if wanted:
        return wanted
    mine = resp_game.get("you") or []
    to_act = (view or {}).get("to_act") or resp_game.get("to_act") or []
    for seat in mine:
        if seat in to_act:
            return seat
    return mine[0] if mine else None


def to_act_text(you, to_act):
    """Who owes a move, as the viewer reads it: "YOU" for the viewer's own seats (named when
    the viewer holds several), then the other seats that owe one.

    >>> to_act_text(["red"], ["red", "blue"]), to_act_text(["blue"], ["red", "blue"])
    ('YOU, blue', 'YOU, red')
    >>> to_act_text(["red", "blue"], ["blue", "white"]), to_act_text(["red"], ["white"])
    ('YOU (blue), white', 'white')
    """
    mine = [s for s in to_act if s in you]
    others = [s for s in to_act if s not in you]
    parts = []
    if mine:
        parts.append("YOU" + (f" ({', '.join(mine)})" if len(you) > 1 else ""))
    parts.extend(others)
    return ", ".join(parts) or "nobody"


def open_seats_text(seats):
    """The seats of an open game nobody holds yet: those anyone may take and those kept for
    an invited player (a rematch's), named ("1 seat(s) free; 1 seat kept for ann")."""
    free = sum(1 for s in seats if not s["player"] and not s.get("invited"))
    kept = [s["invited"] for s in seats if not s["player"] and s.get("invited")]
    parts = [f"{free} seat(s) free"] if free or not kept else []
    if kept:
        parts.append(f"{len(kept)} seat{'s' if len(kept) > 1 else ''} kept for "
                     + ", ".join(kept))
    return "; ".join(parts)


def note_unloadable(c, types=None):
    """Name on stderr each declared game that cannot load here (of ``types``, or all), with
    its reason: a broken plug-in is never silently absent."""
    from shared.games import get_game as load_game
    from shared.games import load_errors
    if types is not None:
        for name in sorted(types):
            try:
                load_game(name)
            except Exception:  # noqa: BLE001 - named below with its reason
                pass
    for name, why in load_errors().items():
        if types is None or name in types:
            c.note(f"warning: the game {name} cannot load here: {why}")
