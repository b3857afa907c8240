"""Pages travel compressed (issue #17: a first load transfers at most 100 KB): the HTML, CSS
and scripts are gzip- or deflate-encoded when the browser accepts it and decode to exactly
what an uncompressed request gets; JSON (the API) and the event stream are never encoded; the
live part's 304 still works with the ETag the page carries."""

import re
import zlib

from .helpers import sign_in, start_pig

GZIP = {"Accept-Encoding": "gzip, deflate"}


def _decoded(response):
    data = response.get_data()
    encoding = response.headers.get("Content-Encoding")
    if encoding == "gzip":
        return zlib.decompress(data, 16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompress(data)
    assert encoding is None, encoding
    return data


def test_the_game_page_and_its_assets_are_compressed_and_decode_to_the_same_bytes(
        app, client, make_player):
    game_id, (ann, bob) = start_pig(make_player)
    plain = client.get(f"/g/{game_id}")
    packed = client.get(f"/g/{game_id}", headers=GZIP)
    assert plain.status_code == packed.status_code == 200
    assert "Content-Encoding" not in plain.headers
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert len(packed.get_data()) < len(plain.get_data()) / 2
    html = _decoded(packed)
    # the same page (a nonce-free render: both answers are byte-identical once decoded)
    assert html == plain.get_data()
    assets = set(re.findall(rb'(?:href|src)="(/assets/[^"]+)"', html))
    assert assets, "the page links its CSS and scripts"
    for ref in assets:
        raw = client.get(ref.decode()).get_data()
        enc = client.get(ref.decode(), headers=GZIP)
        assert enc.status_code == 200
        assert enc.headers.get("Content-Encoding") in ("gzip", "deflate"), ref
        assert _decoded(enc) == raw
    # a signed-in player's page (the play panel and its scripts) too
    browser = sign_in(app, ann, game_id)
    mine = browser.get(f"/g/{game_id}", headers=GZIP)
    assert mine.headers["Content-Encoding"] == "gzip"
    assert b"<svg" in _decoded(mine) or b"<pre" in _decoded(mine)


def test_the_api_and_the_event_stream_are_never_encoded(client, make_player):
    game_id, (ann, bob) = start_pig(make_player)
    for path in (f"/api/games/{game_id}", f"/api/games/{game_id}/log",
                 f"/api/games/{game_id}/archive", "/api/openapi.json"):
        r = client.get(path, headers=GZIP)
        assert r.status_code == 200, path
        assert "Content-Encoding" not in r.headers, path
    stream = client.get(f"/api/games/{game_id}/events?timeout=1", headers=GZIP,
                        buffered=False)
    try:
        assert stream.mimetype == "text/event-stream"
        assert "Content-Encoding" not in stream.headers
    finally:
        stream.close()


def test_the_live_part_still_answers_304_to_a_compressing_browser(client, make_player):
    game_id, (ann, bob) = start_pig(make_player)
    page = _decoded(client.get(f"/g/{game_id}", headers=GZIP)).decode()
    etag = re.search(r'data-etag="([^"]+)"', page).group(1)
    first = client.get(f"/g/{game_id}/live", headers={**GZIP, "If-None-Match": f'"{etag}"'})
    assert first.status_code == 304
    ann.play(game_id, "north", "roll")
    changed = client.get(f"/g/{game_id}/live", headers={**GZIP, "If-None-Match": f'"{etag}"'})
    assert changed.status_code == 200
    assert b"roll" in _decoded(changed) or b"rolled" in _decoded(changed)
