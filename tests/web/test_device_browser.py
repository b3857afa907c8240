"""The browser key in a real browser: headless Chromium makes its Ed25519 key with
WebCrypto through the one-time link of ``pbem device add --browser`` (the real CLI, answering
its fingerprint question), signs moves that the server accepts, and is refused once its
delegation is past its date or the device is revoked; the archive of a game with its moves
verifies offline.  keys.js's canonical JSON is checked against the Python vectors."""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

import shared
from shared.delegation import fingerprint, make_delegation
from tests.client.conftest import ROOT, child_env
from tests.helpers.browser import add_browser

VECTORS = json.loads((Path(shared.__file__).parent / "vectors" / "delegation-v1.json")
                     .read_text("utf-8"))

SIGN_AND_POST = """
const [game, seat, move, ts, done] = arguments;
(async () => {
  const view = await (await fetch('/api/games/' + game + '/view')).json();
  const env = {game: game, seq: view.next_seq, prev: view.prev, seat: seat, move: move};
  if (ts !== null) { env.ts = ts; }
  let signed;
  try { signed = await window.pbemKeys.signEnvelope(env); }
  catch (e) { return {error: String(e.message)}; }
  const r = await fetch('/api/games/' + game + '/moves', {method: 'POST',
      headers: {'Content-Type': 'application/json'}, body: JSON.stringify(signed)});
  return {status: r.status, body: await r.json(), envelope: signed.envelope};
})().then(done, e => done({error: 'script: ' + String(e)}));
"""

KEY_RECORD = """
const [player, done] = arguments;
const req = indexedDB.open('pbem-keys', 1);
req.onsuccess = () => {
  const get = req.result.transaction('keys').objectStore('keys').get('player:' + player);
  get.onsuccess = async () => {
    const rec = get.result;
    if (!rec) { return done(null); }
    let exported = 'exported';
    try { await crypto.subtle.exportKey('pkcs8', rec.privateKey); }
    catch (e) { exported = e.name; }
    done({extractable: rec.privateKey.extractable, algorithm: rec.privateKey.algorithm.name,
          device_key: rec.device_key, delegation: rec.delegation, exported: exported});
  };
};
req.onerror = () => done({error: String(req.error)});
"""

PUT_DELEGATION = """
const [player, delegation, done] = arguments;
const req = indexedDB.open('pbem-keys', 1);
req.onsuccess = () => {
  const store = req.result.transaction('keys', 'readwrite').objectStore('keys');
  const get = store.get('player:' + player);
  get.onsuccess = () => {
    const rec = get.result;
    rec.delegation = delegation;
    const put = store.put(rec);
    put.onsuccess = () => done(true);
    put.onerror = () => done(false);
  };
};
"""


def run_async(driver, script, *args):
    driver.set_script_timeout(30)
    return driver.execute_async_script(script, *args)


def start_pig(cli_player, target=100):
    ann, bob = cli_player("ann"), cli_player("bob")
    game = ann.run("new", "pig", "--seats", 2, "--option", f"target={target}").stdout.strip()
    bob.run("join", game)
    return game, ann, bob


@pytest.fixture
def device_ann(browser, live, cli_player, screenshot):
    """A pig game whose north (ann) holds a browser key delegated through the link."""
    game, ann, bob = start_pig(cli_player)
    key, out, status = add_browser(browser, live, ann, "phone", screenshot)
    assert f"browser 'phone' added (key {fingerprint(key)})" in out
    assert ann.name in status and "phone" in status
    browser.get(live.url + "/")
    return game, ann, bob, key


# --- keys.js ------------------------------------------------------------------------------------

def test_canonical_json_in_the_browser_matches_python(browser, live):
    browser.get(live.url + "/")
    for case in VECTORS["canonical"]:
        got = browser.execute_script("return window.pbemKeys.canonicalJson(arguments[0]);",
                                     case["object"])
        assert got == case["canonical"], case
    for bad in ("return pbemKeys.canonicalJson({a: 1.5});",
                "return pbemKeys.canonicalJson({a: '\\ud800'});",
                "return pbemKeys.canonicalJson({a: 2 ** 53});",
                "return pbemKeys.canonicalJson({a: undefined});"):
        with pytest.raises(Exception):
            browser.execute_script(bad)
    fp = run_async(browser, "const d = arguments[arguments.length - 1];"
                   "pbemKeys.fingerprint(arguments[0]).then(d);", VECTORS["device_public_key"])
    assert fp == VECTORS["device_fingerprint"]


# --- the link and moves from the page -----------------------------------------------------------

def test_the_link_flow_and_a_move_signed_in_the_page(browser, live, device_ann):
    game, ann, bob, key = device_ann
    record = run_async(browser, KEY_RECORD, ann.name)
    assert record["extractable"] is False and record["algorithm"] == "Ed25519"
    assert record["exported"] == "InvalidAccessError"  # the private key cannot leave
    assert record["device_key"] == key and record["delegation"]["device_key"] == key
    assert run_async(browser, "const d = arguments[2]; pbemKeys.available(arguments[0], "
                     "arguments[1]).then(d);", game, "north") is True
    assert run_async(browser, "const d = arguments[2]; pbemKeys.available(arguments[0], "
                     "arguments[1]).then(d);", game, "east") is False
    result = run_async(browser, SIGN_AND_POST, game, "north", "roll", None)
    assert result.get("status") == 201, result
    assert json.loads(result["envelope"])["delegation"]["label"] == "phone"
    # east is bob's: the browser has no key for it
    result = run_async(browser, SIGN_AND_POST, game, "east", "roll", None)
    assert "no key for seat east" in result["error"]
    # the same link cannot add a second device
    assert "phone" in ann.run("device", "list").stdout


def test_a_delegation_past_its_date_is_refused(browser, live, device_ann):
    game, ann, bob, key = device_ann
    main = bytes.fromhex((ann.home / "key.ed25519").read_text().strip())
    ended = int(time.time()) - 60
    past = make_delegation(main, ann.name, key, "phone", ended)
    assert run_async(browser, PUT_DELEGATION, ann.name, past) is True
    # keys.js refuses to sign now...
    result = run_async(browser, SIGN_AND_POST, game, "north", "roll", None)
    assert "delegation has ended" in result["error"]
    assert run_async(browser, "const d = arguments[2]; pbemKeys.available(arguments[0], "
                     "arguments[1]).then(d);", game, "north") is False
    # ...and an envelope dated within the delegation, received after it ended, is refused
    result = run_async(browser, SIGN_AND_POST, game, "north", "roll", ended - 5)
    assert result["status"] == 403 and result["body"]["error"]["code"] == \
        "delegation_expired", result


def test_a_revoked_browser_key_is_refused(browser, live, device_ann):
    game, ann, bob, key = device_ann
    assert run_async(browser, SIGN_AND_POST, game, "north", "roll", None)["status"] == 201
    r = ann.run("device", "revoke", "phone", ok=None)
    assert r.exit_code in (0, 1) and "device 'phone' revoked" in r.stdout
    result = run_async(browser, SIGN_AND_POST, game, "north", "roll", None)
    assert result["status"] == 403 and result["body"]["error"]["code"] == "device_revoked"


def test_the_archive_of_a_game_with_page_moves_verifies_offline(browser, live, cli_player,
                                                                tmp_path, screenshot):
    game, ann, bob = start_pig(cli_player, target=6)
    key, _, _ = add_browser(browser, live, ann, "tablet")
    browser.get(live.url + f"/g/{game}")
    page_moves = 0
    for i in range(300):
        info = ann.json("show", game)
        if not info["to_act"]:
            break
        move = "hold" if i % 3 == 2 else "roll"
        if info["to_act"][0] == "north":
            result = run_async(browser, SIGN_AND_POST, game, "north", move, None)
            if result.get("status") != 201 and move == "hold":
                result = run_async(browser, SIGN_AND_POST, game, "north", "roll", None)
            assert result.get("status") == 201, result
            page_moves += 1
        else:
            moves = bob.run("moves", game).stdout.split()
            bob.run("play", game, move if move in moves else moves[0])
    assert not ann.json("show", game)["to_act"] and page_moves
    out = tmp_path / "archive.json"
    ann.run("export", game, "-o", out)
    envelopes = [json.loads(e["envelope"]) for e in json.loads(out.read_text())["entries"]]
    assert sum("delegation" in e for e in envelopes) == page_moves
    # offline: a fresh home that never talked to the server
    stranger = tmp_path / "offline-home"
    verified = subprocess.run([sys.executable, "-m", "client.cli", "--home", str(stranger),
                               "--server", "http://127.0.0.1:9", "verify", str(out)],
                              env=child_env(), cwd=ROOT, text=True, capture_output=True,
                              timeout=120)
    assert verified.returncode == 0, verified.stderr
    browser.get(live.url + f"/g/{game}")
    screenshot(browser, "device-game-over")
