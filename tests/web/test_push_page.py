"""The game page learns of moves through the event stream (Server-Sent Events), and falls back
to polling when the server refuses the stream."""

import pytest

from tests.helpers.browser import csp_violations, log_count, seat_map, start_game, to_act, wait


def _live(tmp_path_factory, waiters):
    from tests.liveserver import LiveServer
    tmp = tmp_path_factory.mktemp("pushpage")
    return LiveServer(f"sqlite:///{tmp}/pbem.sqlite", tmp / "instance", workers=1, threads=8,
                      log=tmp / "server.log", extra_env={"PBEM_NOTIFY_INTERVAL": "0",
                                                         "PBEM_PUSH_WAITERS": str(waiters)})


@pytest.fixture(scope="module", params=[4, 0], ids=["push", "refused"])
def live(request, tmp_path_factory):
    """A server that holds 4 waiters (the page streams), or none (every stream is a 503)."""
    server = _live(tmp_path_factory, request.param)
    server.start()
    server.waiters = request.param
    try:
        yield server
    finally:
        server.stop()


def test_moves_reach_the_open_page_by_push_or_by_polling(browser, live, cli_player):
    game_id, players = start_game(cli_player, "pig", 2)
    by_seat = seat_map(live, game_id, players)
    browser.get(f"{live.url}/g/{game_id}")
    assert log_count(browser) == 0
    for expected in (1, 2):
        seat = to_act(live, game_id)[0]
        by_seat[seat].run("play", game_id, "roll")
        wait(browser, 10, lambda d: log_count(d) == expected,
             f"move {expected} did not appear on the open page")
    how = browser.execute_script("return document.documentElement.getAttribute('data-pbem-live')")
    assert how == ("push" if live.waiters else "poll")
    assert not csp_violations(browser)
