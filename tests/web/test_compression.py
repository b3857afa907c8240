"""Pages travel compressed (a first load transfers at most 100 KB): public pages,
CSS and scripts are gzip- or deflate-encoded when the browser accepts it and decode to exactly
what an uncompressed request gets; a signed-in reader's page never is (BREACH); JSON (the
API) and the event stream are never encoded; the live part's 304 still works with the ETag the page
carries."""

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


def test_a_signed_in_readers_page_is_never_compressed_but_its_scripts_are(app, make_player):
    """BREACH: a signed-in page carries its reader's hand beside text other players chose
    (table talk); compressed, its size would tell an eavesdropper how much of that text
    matches the hand.  So pages asked with a session cookie go uncompressed, live part
    included, even with a forged or stale cookie; the public CSS and scripts stay compressed."""
    game_id, (ann, bob) = start_pig(make_player)
    ann.play(game_id, "north", "peek")  # a secret only north sees is on north's page now
    browser = sign_in(app, ann, game_id)
    for path in (f"/g/{game_id}", f"/g/{game_id}/live", "/"):
        mine = browser.get(path, headers=GZIP)
        assert mine.status_code == 200, path
        assert "Content-Encoding" not in mine.headers, path
    page = browser.get(f"/g/{game_id}", headers=GZIP).get_data()
    assets = set(re.findall(rb'(?:href|src)="(/assets/[^"]+)"', page))
    assert assets
    for ref in assets:
        assert browser.get(ref.decode(), headers=GZIP).headers.get("Content-Encoding") in (
            "gzip", "deflate"), ref
    stranger = app.test_client()
    stranger.set_cookie("pbem_session", "forged")
    assert "Content-Encoding" not in stranger.get(f"/g/{game_id}", headers=GZIP).headers


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
