"""Device keys on the server: delegated moves accepted and refused, requests signed by a
device key, the registry, and the one-time links that delegate a browser's key, attacked."""

import json
import secrets

from client.signing import request_headers
from shared.archive import verify_archive
from shared.delegation import fingerprint, make_delegation
from shared.envelope import canonical_json, envelope_message, public_key_hex, sign, sign_envelope
from tests.helpers.api import start_pig
from tests.helpers.devices import DAY, Device, _code

# --- delegated moves --------------------------------------------------------------------------

def test_a_device_move_is_accepted_and_the_archive_verifies(make_player, clock):
    game_id, (ann, bob) = start_pig(make_player, target=6)
    phone = Device(ann)
    r = phone.play(game_id, "north", "roll")
    assert r.status_code == 201, r.get_json()
    entry = r.get_json()
    assert json.loads(entry["envelope"])["delegation"] == phone.delegation
    # to the end, north by the phone (unregistered: the delegation in the envelope suffices)
    for _ in range(400):
        game = ann.get(f"/api/games/{game_id}").get_json()
        if game["status"] == "over":
            break
        seat = game["to_act"][0]
        move = "hold" if secrets.randbelow(3) == 0 else "roll"
        r = phone.play(game_id, seat, move) if seat == "north" else bob.play(game_id, seat, move)
        assert r.status_code == 201, r.get_json()
    archive = ann.get(f"/api/games/{game_id}/archive").get_json()
    report = verify_archive(archive)
    assert report["complete"]
    assert sum("delegation" in json.loads(e["envelope"]) for e in archive["entries"]) >= 1


def test_a_delegation_past_its_date_is_refused_by_the_server_clock(make_player, clock):
    game_id, (ann, bob) = start_pig(make_player)
    phone = Device(ann, days=1)
    body = phone.move_body(game_id, "north", "roll")  # signed in time...
    clock.advance(DAY + 1)                               # ...received after the end
    r = ann.post(f"/api/games/{game_id}/moves", body)
    assert r.status_code == 403 and _code(r) == "delegation_expired"
    r = phone.play(game_id, "north", "roll")             # and signed after it
    assert r.status_code == 403 and _code(r) == "delegation_expired"


def test_a_revoked_device_is_refused(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    phone = Device(ann)
    assert phone.register().status_code == 201
    r = ann.post("/api/devices/phone/revoke")
    assert r.status_code == 200 and r.get_json()["revoked"] == [phone.public_key]
    r = phone.play(game_id, "north", "roll")
    assert r.status_code == 403 and _code(r) == "device_revoked"
    assert phone.request("GET", "/api/players/me").status_code == 401
    assert ann.get("/api/devices").get_json()["devices"] == []


def test_forged_delegations_are_refused(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    # bob delegates his device for ann's seat
    forged = Device(ann, signer=bob.key)
    r = forged.play(game_id, "north", "roll")
    assert r.status_code == 403 and _code(r) == "bad_delegation"
    # bob's genuine device on ann's seat
    bobs = Device(bob)
    r = bobs.play(game_id, "north", "roll")
    assert r.status_code == 403 and _code(r) == "bad_delegation"
    # ann's device, the envelope signed by a stranger
    phone = Device(ann)
    body = phone.move_body(game_id, "north", "roll")
    env = json.loads(body["envelope"])
    text, sig = sign_envelope(secrets.token_bytes(32), env)
    r = ann.post(f"/api/games/{game_id}/moves", {"envelope": text, "signature": sig})
    assert r.status_code == 403 and _code(r) == "bad_signature"
    # a malformed delegation
    env["delegation"] = dict(env["delegation"], not_after="soon")
    raw = canonical_json(env)
    text, sig = raw.decode(), sign(phone.key, envelope_message(raw))
    r = ann.post(f"/api/games/{game_id}/moves", {"envelope": text, "signature": sig})
    assert r.status_code == 400 and _code(r) == "bad_delegation"


# --- the registry and device-signed requests --------------------------------------------------

def test_device_requests_and_the_registry(make_player):
    ann, bob = make_player("ann"), make_player("bob")
    phone = Device(ann)
    # unregistered: a device cannot sign requests
    r = phone.request("GET", "/api/players/me")
    assert r.status_code == 401 and _code(r) == "unknown_device"
    assert phone.register().status_code == 201
    assert phone.request("GET", "/api/players/me").get_json()["name"] == "ann"
    # a device key does not manage devices
    r = phone.request("POST", "/api/devices/links", {"label": "tablet"})
    assert r.status_code == 403 and _code(r) == "main_key_only"
    r = phone.request("POST", "/api/devices/phone/revoke")
    assert r.status_code == 403
    # the same label twice, the same key twice, another player's delegation
    r = Device(ann).register()
    assert r.status_code == 409 and _code(r) == "label_taken"
    r = bob.post("/api/devices", {"delegation": phone.delegation})
    assert r.status_code == 403 and _code(r) == "bad_delegation"  # well-formed, not bob's
    other = Device(ann, label="tablet", key=phone.key)
    r = other.register()
    assert r.status_code == 409 and _code(r) == "device_taken"
    # bob cannot sign as ann with ann's device key header and his own key
    headers = request_headers(bob.key, "ann", "GET", "/api/players/me", ts=bob.clock())
    headers["X-Pbem-Device"] = phone.public_key
    assert bob.client.get("/api/players/me", headers=headers).status_code == 401
    # bob cannot use ann's device for himself
    headers = request_headers(phone.key, "bob", "GET", "/api/players/me", ts=bob.clock())
    headers["X-Pbem-Device"] = phone.public_key
    assert bob.client.get("/api/players/me", headers=headers).status_code == 401
    listed = ann.get("/api/devices").get_json()["devices"]
    assert [d["label"] for d in listed] == ["phone"]
    assert listed[0]["fingerprint"] == fingerprint(phone.public_key)
    assert ann.post("/api/devices/tablet/revoke").status_code == 404
    assert bob.post("/api/devices/phone/revoke").status_code == 404


def test_an_ended_device_signs_no_requests(make_player, clock):
    ann = make_player("ann")
    phone = Device(ann, days=1)
    assert phone.register().status_code == 201
    clock.advance(DAY + 1)
    assert phone.request("GET", "/api/players/me").status_code == 401
    r = Device(ann, days=0).register()
    assert r.status_code == 400 and _code(r) == "delegation_expired"


# --- the one-time links -----------------------------------------------------------------------

def _link(ann, label="browser"):
    r = ann.post("/api/devices/links", {"label": label})
    assert r.status_code == 201, r.get_json()
    link = r.get_json()
    return link, link["path"].rsplit("/", 1)[1]


def _browser_key():
    key = secrets.token_bytes(32)
    return key, public_key_hex(key)


def test_the_link_flow(make_player, client):
    ann = make_player("ann")
    link, token = _link(ann)
    assert link["status"] == "waiting" and link["url"].endswith(link["path"])
    page = client.get(link["path"])
    assert page.status_code == 200 and b'data-player="ann"' in page.data
    assert client.get(f"/api/device-links/{token}/delegation").get_json()["status"] == "no_key"
    key, pub = _browser_key()
    r = client.post(f"/api/device-links/{token}/key", json={"public_key": pub})
    assert r.status_code == 201 and r.get_json()["fingerprint"] == fingerprint(pub)
    # a second key for the same link is refused
    r = client.post(f"/api/device-links/{token}/key", json={"public_key": _browser_key()[1]})
    assert r.status_code == 409 and _code(r) == "key_already_posted"
    seen = ann.get(f"/api/devices/links/{link['id']}").get_json()
    assert seen["status"] == "key" and seen["fingerprint"] == fingerprint(pub)
    assert client.get(f"/api/device-links/{token}/delegation").get_json()["status"] == "waiting"
    delegation = make_delegation(ann.key, "ann", pub, "browser", ann.clock() + 90 * DAY)
    r = ann.post(f"/api/devices/links/{link['id']}/delegation", {"delegation": delegation})
    assert r.status_code == 200 and r.get_json()["status"] == "delegated"
    got = client.get(f"/api/device-links/{token}/delegation").get_json()
    assert got == {"status": "done", "delegation": delegation}
    # spent: the page, the key and the delegation are refused from now on
    assert client.get(link["path"]).status_code == 410
    assert client.get(f"/api/device-links/{token}/delegation").status_code == 410
    assert client.post(f"/api/device-links/{token}/key",
                       json={"public_key": pub}).status_code == 410
    assert ann.get(f"/api/devices/links/{link['id']}").get_json()["status"] == "done"
    assert [d["device_key"] for d in ann.get("/api/devices").get_json()["devices"]] == [pub]


def test_a_no_to_the_fingerprint_cancels_the_link_at_once(make_player, client):
    """The player answers No on the page that made the link: the link is cancelled on the
    server, so the device waiting on it hears so at once (410 link_cancelled), not when the
    link expires; only its own player may cancel it, and a spent link has nothing to cancel."""
    ann, bob = make_player("ann"), make_player("bob")
    link, token = _link(ann)
    key, pub = _browser_key()
    client.post(f"/api/device-links/{token}/key", json={"public_key": pub})
    assert bob.post(f"/api/devices/links/{link['id']}/cancel", {}).status_code == 404
    assert client.post(f"/api/devices/links/{link['id']}/cancel", json={}).status_code == 401
    r = ann.post(f"/api/devices/links/{link['id']}/cancel", {})
    assert r.status_code == 200 and r.get_json()["status"] == "cancelled"
    r = client.get(f"/api/device-links/{token}/delegation")
    assert r.status_code == 410 and _code(r) == "link_cancelled"
    assert "answered No" in r.get_json()["error"]["message"]
    assert client.get(link["path"]).status_code == 410
    delegation = make_delegation(ann.key, "ann", pub, "browser", ann.clock() + DAY)
    r = ann.post(f"/api/devices/links/{link['id']}/delegation", {"delegation": delegation})
    assert r.status_code == 409 and _code(r) == "link_cancelled"
    r = ann.post(f"/api/devices/links/{link['id']}/cancel", {})
    assert r.status_code == 409 and _code(r) == "link_cancelled"
    assert ann.get("/api/devices").get_json()["devices"] == []
    # a link delegated and fetched is done: there is nothing to cancel
    link, token = _link(ann, "other")
    client.post(f"/api/device-links/{token}/key", json={"public_key": pub})
    ann.post(f"/api/devices/links/{link['id']}/delegation", {"delegation": make_delegation(
        ann.key, "ann", pub, "other", ann.clock() + DAY)})
    r = ann.post(f"/api/devices/links/{link['id']}/cancel", {})
    assert r.status_code == 409 and _code(r) == "link_delegated"


def test_links_are_bound_to_their_player_and_their_key(make_player, client):
    ann, bob = make_player("ann"), make_player("bob")
    link, token = _link(ann)
    key, pub = _browser_key()
    client.post(f"/api/device-links/{token}/key", json={"public_key": pub})
    # bob cannot read ann's link or deliver a delegation for it
    assert bob.get(f"/api/devices/links/{link['id']}").status_code == 404
    bobs = make_delegation(bob.key, "bob", pub, "browser", bob.clock() + DAY)
    assert bob.post(f"/api/devices/links/{link['id']}/delegation",
                    {"delegation": bobs}).status_code == 404
    # ann's delegation must be for the key the page posted, under the link's label
    other = make_delegation(ann.key, "ann", _browser_key()[1], "browser", ann.clock() + DAY)
    r = ann.post(f"/api/devices/links/{link['id']}/delegation", {"delegation": other})
    assert r.status_code == 400 and _code(r) == "bad_delegation"
    relabelled = make_delegation(ann.key, "ann", pub, "other", ann.clock() + DAY)
    r = ann.post(f"/api/devices/links/{link['id']}/delegation", {"delegation": relabelled})
    assert r.status_code == 400
    # a delegation signed by bob's key naming ann, delivered by ann
    r = ann.post(f"/api/devices/links/{link['id']}/delegation", {"delegation": dict(
        bobs, player="ann")})
    assert r.status_code == 403 and _code(r) == "bad_delegation"
    assert client.get(f"/api/device-links/{token}/delegation").get_json()["status"] == "waiting"


def test_expired_unknown_and_malformed_tokens(make_player, client, clock):
    ann = make_player("ann")
    link, token = _link(ann)
    for bad in ("x" * 30, "short", "é" * 30, token + "x", "A" * 200):
        assert client.get(f"/device/{bad}").status_code == 404, bad
        r = client.post(f"/api/device-links/{bad}/key", json={"public_key": "ab" * 32})
        assert r.status_code == 404, bad
    for bad in ("AB" * 32, "ab" * 31, "zz" * 32, 5, None):
        r = client.post(f"/api/device-links/{token}/key", json={"public_key": bad})
        assert r.status_code in (400, 422), bad
    r = client.post(f"/api/device-links/{token}/key", json={"public_key": "ab" * 32,
                                                             "more": 1})
    assert r.status_code in (400, 422)
    clock.advance(11 * 60)
    assert client.get(link["path"]).status_code == 410
    r = client.post(f"/api/device-links/{token}/key", json={"public_key": _browser_key()[1]})
    assert r.status_code == 410
    assert ann.get(f"/api/devices/links/{link['id']}").get_json()["status"] == "expired"
    # an expired link takes no delegation even with a key posted before it ended
    link2, token2 = _link(ann, "second")
    key, pub = _browser_key()
    client.post(f"/api/device-links/{token2}/key", json={"public_key": pub})
    clock.advance(11 * 60)
    delegation = make_delegation(ann.key, "ann", pub, "second", ann.clock() + DAY)
    r = ann.post(f"/api/devices/links/{link2['id']}/delegation", {"delegation": delegation})
    assert r.status_code == 409 and _code(r) == "link_expired"


def test_bad_labels_and_unsigned_link_requests(make_player, client):
    ann = make_player("ann")
    for label in ("", " x", "a\nb", "x" * 41):
        r = ann.post("/api/devices/links", {"label": label})
        assert r.status_code in (400, 422), label
    assert client.post("/api/devices/links", json={"label": "x"}).status_code == 401
    assert client.get("/api/devices").status_code == 401


def test_a_new_main_key_ends_the_old_delegations_requests(make_player, app):
    """After a key rotation (branch `table`) the registry's delegations signed by the old
    key sign no more requests."""
    ann = make_player("ann")
    phone = Device(ann)
    assert phone.register().status_code == 201
    assert phone.request("GET", "/api/players/me").status_code == 200
    from server.db import db
    from server.db.models import Player
    with app.app_context():
        player = db.session.execute(db.select(Player).filter_by(name="ann")).scalar_one()
        player.public_key = public_key_hex(secrets.token_bytes(32))
        db.session.commit()
    assert phone.request("GET", "/api/players/me").status_code == 401
