"""What a seat cannot see, changed: another seed, other seats' hidden cards swapped (a bot's
move, or a preview, must not change with them)."""


def _other_seed(state):
    state["seed"] = "ab" * 32 if state["seed"] != "ab" * 32 else "cd" * 32


def _swap_hands(hands, seat, kinds):
    """One card of one kind for one of another between two other seats' hands."""
    others = [s for s in sorted(hands) if s != seat]
    for x in others:
        for y in others:
            if x == y:
                continue
            a = next((r for r in range(kinds) if hands[x][r]), None)
            b = next((r for r in range(kinds) if r != a and hands[y][r]), None)
            if a is not None and b is not None:
                hands[x][a] -= 1
                hands[y][a] += 1
                hands[y][b] -= 1
                hands[x][b] += 1
                return True
    return False


def _swap_zarahemla(state, seat):
    """Change other seats' hidden cards: resources between two of them, and an unplayed
    development card of one of them for another kind from the deck (its size is public)."""
    changed = _swap_hands({s: p["hand"] for s, p in state["players"].items()}, seat, 5)
    for other, p in sorted(state["players"].items()):
        if other == seat:
            continue
        dev, new, deck = p["dev"], p["new"], state["deck"]
        a = next((k for k in range(1, 7) if dev[k] - new[k] > 0), None)
        b = next((k for k in range(1, 7) if k != a and deck[k]), None)
        if a is not None and b is not None:
            dev[a] -= 1
            deck[a] += 1
            dev[b] += 1
            deck[b] -= 1
            return True
    return changed


def _swap_stone_age(state, seat):
    """Change other seats' hidden cards: resources between two of them."""
    return _swap_hands(state["hands"], seat, 4)


SWAP = {"zarahemla": _swap_zarahemla, "stone_age": _swap_stone_age,
        "title_of_liberty": lambda state, seat: True}   # nothing is hidden but the seed
