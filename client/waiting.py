"""Waiting for a game to move on: the server's long poll (``Api.wait``) where it has one,
else a pause.  Used by ``pbem watch`` and ``pbem bot --until-end`` between moves
(``pbem wait`` drives ``Api.wait`` itself, with its spinner)."""

import time

LONG_POLL = 25.0  # seconds one long poll may wait on the server


def until_moved(api, game_id, seq, status, pause, push):
    """Return once ``game_id`` is past ``seq`` (or no longer ``status``), or after at most
    ``pause`` seconds when the server has no push.  ``push``: {"on": bool}, turned off for
    good when the server shows it has no long poll.  Returns the public head the long poll
    answered, or None (the caller fetches the game)."""
    if push.get("on", True):
        head = api.wait(game_id, after=seq, status=status, timeout=min(LONG_POLL, pause)
                        if pause is not None else LONG_POLL)
        if head is not None and head != api.BUSY:
            return head
        if head is None:
            push["on"] = False  # a server without push: poll from now on
    time.sleep(pause if pause is not None else 1.0)
    return None
