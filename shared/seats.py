"""Seats and seeds: the set-up checks every game makes the same way.

``check_seats(game, seats)`` refuses a seat list that is the wrong size, names a seat the game
does not have or takes one twice; ``seed_bytes(seed)`` is the one way a seed becomes bytes.
"""

from . import IllegalMove


def check_count(game, n):
    """Raise IllegalMove(code="bad_seats") unless ``game`` is played by ``n`` seats."""
    if not isinstance(n, int) or isinstance(n, bool) or \
            not game.min_seats <= n <= game.max_seats:
        if game.min_seats == game.max_seats:
            allowed = str(game.min_seats)
        elif game.max_seats == game.min_seats + 1:
            allowed = f"{game.min_seats} or {game.max_seats}"
        else:
            allowed = f"{game.min_seats} to {game.max_seats}"
        raise IllegalMove(f"{game.title} is played by {allowed} {game.seat_words[1]}, not {n}",
                          code="bad_seats")


def check_seats(game, seats, in_order=False):
    """``seats`` as a list, checked against ``game.seat_names``; raises IllegalMove.

    ``in_order``: the seats must be exactly ``seat_names(n)`` (a game whose seats have a fixed
    order); otherwise any of the game's seats may be taken, each once (any distinct ids, for a
    game with ``any_seat_names``).
    """
    seats = list(seats)
    check_count(game, len(seats))
    allowed = seats if game.any_seat_names else game.seat_names(game.max_seats)
    if in_order:
        if seats != allowed[:len(seats)]:
            raise IllegalMove(f"the seats for {len(seats)} {game.seat_words[1]} are "
                              f"{', '.join(allowed[:len(seats)])}", code="bad_seats")
        return seats
    for s in seats:
        if s not in allowed:
            raise IllegalMove(f"{s!r} is not a seat of {game.title}: the "
                              f"{game.seat_words[1]} are {', '.join(allowed)}",
                              code="bad_seats")
    if len(set(seats)) != len(seats):
        raise IllegalMove(f"each {game.seat_words[0]} can be taken only once", code="bad_seats")
    return seats


def seed_bytes(seed, hex_text=False):
    """The secret seed as bytes: bytes as they are, text as its UTF-8 bytes.

    ``hex_text`` keeps the older reading of one game (Zarahemla's versions 1 and 2): a text
    made of an even number of hex digits is read as hex.  A game must keep the reading its
    recorded games were played under, or their dice change.
    """
    if isinstance(seed, (bytes, bytearray)):
        return bytes(seed)
    if not isinstance(seed, str):
        raise TypeError(f"a seed is bytes or text, not {type(seed).__name__}")
    if hex_text:
        try:
            return bytes.fromhex(seed)
        except ValueError:
            pass
    return seed.encode()
