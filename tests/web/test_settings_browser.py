"""The settings page's notices and devices, in real Chromium against a real server: the
"notify me on this device" switch (Web Push through the service worker ``/sw.js``), the chat
channels and webhooks, and a one-time link this browser makes that ``pbem device claim``
redeems in a new CLI home, which then moves for the player.

Headless Chromium has no push service: ``PushManager.subscribe`` never answers there.  The
push test therefore gives the page a subscription of a push service on loopback (the keys
made here, so that the test decrypts what the server sends); everything else is the real
thing: the browser's permission, the worker's registration, the server's VAPID key handed to
``subscribe``, the signed request, the server's push, and the worker showing it (the push is
delivered to the worker through the DevTools protocol, as a push service would).  Nobody
clicks a notification in a headless browser: the worker's click handler is run with a
stand-in for its global scope.

One server for the module (it allows loopback receivers); the tests run in order, each on
the player the first one signed up."""

import json
import os
import re
import subprocess
import sys

import pytest
import requests

from tests.client.conftest import ROOT, child_env, free_port
from tests.helpers.browser import _by, by_id, csp_violations, sign_up, status_text, submit, wait
from tests.helpers.receiver import Receiver
from tests.helpers.webpush import PushKeys, b64url

NAME = "sett" + str(os.getpid() % 1000)
state = {}


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """A server that lets channels and push subscriptions reach loopback receivers."""
    from tests.liveserver import LiveServer
    tmp = tmp_path_factory.mktemp("settings")
    server = LiveServer(f"sqlite:///{tmp}/pbem.sqlite", tmp / "instance", workers=1, threads=4,
                        log=tmp / "server.log",
                        extra_env={"PBEM_NOTIFY_INTERVAL": "0",
                                   "PBEM_WEBHOOK_ALLOW_PRIVATE": "1"})
    server.db_url = f"sqlite:///{tmp}/pbem.sqlite"
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def server_app(live):
    """The server's own code on the live server's database (to push as its worker does)."""
    from server import create_app
    return create_app({"SQLALCHEMY_DATABASE_URI": live.db_url, "RATELIMIT_ENABLED": False,
                       "PBEM_WEBHOOK_ALLOW_PRIVATE": True})


@pytest.fixture(scope="module")
def receiver():
    r = Receiver(status=200)
    try:
        yield r
    finally:
        r.close()


def run_async(driver, script, *args):
    driver.set_script_timeout(30)
    return driver.execute_async_script(script, *args)


def settings_page(browser, live):
    """/settings, signed in as the module's player (the browser keeps its key between tests,
    not its cookies)."""
    if not state.get("signed_up"):
        sign_up(browser, live, NAME, "Europe/Paris")
        state["signed_up"] = True
    else:
        browser.get(live.url + "/")
        said = run_async(browser, "const [n, d] = arguments; pbemKeys.session(n)"
                         ".then(() => d('ok'), e => d(String(e.message)));", NAME)
        assert said == "ok", said
    browser.get(live.url + "/settings")
    wait(browser, 10, lambda d: by_id(d, "channels-list").get_attribute("data-loaded")
         is not None, "the channels were never listed")


def signed_get(browser, path):
    """A GET signed by the page's key, as the page's own requests are."""
    return run_async(browser, "const [n, p, d] = arguments; pbemKeys.signedFetch(n, 'GET', p, "
                     "null).then(a => d(a.data), e => d(String(e.message)));", NAME, path)


# --- Web Push: the switch ------------------------------------------------------------------------

#: the push service every page is given in place of the browser's (none runs headless), from
#: the start of each page load: its subscribe() keeps what the page asked for and hands back
#: a subscription to SUB; what it holds and was asked lives in the origin's localStorage, as
#: a browser keeps its subscription across loads
FAKE_PUSH_SERVICE = """
(function () {
  if (!window.PushManager || location.protocol !== "http:") { return; }
  const sub = SUB;
  const empty = '{"current": false, "key": null, "subscribe": [], "unsubscribed": 0}';
  const read = () => JSON.parse(localStorage.getItem("fakePush") || empty);
  const write = (state) => localStorage.setItem("fakePush", JSON.stringify(state));
  const made = () => ({
    endpoint: sub.endpoint,
    options: {applicationServerKey: new Uint8Array(read().key || []).buffer, userVisibleOnly: true},
    toJSON() { return sub; },
    unsubscribe() {
      const state = read();
      state.unsubscribed += 1;
      state.current = false;
      write(state);
      return Promise.resolve(true);
    }
  });
  PushManager.prototype.subscribe = function (options) {
    const state = read();
    state.key = Array.from(new Uint8Array(options.applicationServerKey));
    state.subscribe.push({key: state.key, userVisibleOnly: options.userVisibleOnly});
    state.current = true;
    write(state);
    return Promise.resolve(made());
  };
  PushManager.prototype.getSubscription = function () {
    return Promise.resolve(read().current ? made() : null);
  };
})();
"""


@pytest.fixture
def fake_push(browser):
    """``fake_push(keys)``: every page of this test gets the push service of ``keys``."""
    added = []

    def install(keys):
        source = FAKE_PUSH_SERVICE.replace("SUB", json.dumps(keys.subscription()))
        added.append(browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                             {"source": source})["identifier"])
    yield install
    for identifier in added:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument",
                                {"identifier": identifier})


def push_state(browser):
    return browser.execute_script("return JSON.parse(localStorage.getItem('fakePush'))")


def switch(browser):
    """The push switch, once the page found whether this browser is subscribed."""
    box = by_id(browser, "set-push")
    wait(browser, 10, lambda d: box.is_enabled(), "the switch never became usable")
    return box


NOTIFICATIONS = """
const d = arguments[0];
navigator.serviceWorker.getRegistration('/').then(r => r.getNotifications()).then(
  ns => d(ns.map(n => ({title: n.title, body: n.body, tag: n.tag, data: n.data}))),
  e => d(String(e)));
"""


def _deliver(browser, live, payload, shown):
    """The push reaches the worker as from a push service (DevTools' deliverPushMessage, to
    each registration id a profile may have: only this origin's takes it), again until
    ``shown(notifications)`` holds: DevTools may not know the registration yet, and a push
    delivered twice is shown once (its tag).  A payload that is not a dict is sent as is."""
    data = json.dumps(payload) if isinstance(payload, dict) else payload
    browser.execute_cdp_cmd("ServiceWorker.enable", {})
    for _ in range(10):
        for rid in range(8):
            browser.execute_cdp_cmd("ServiceWorker.deliverPushMessage", {
                "origin": live.url, "registrationId": str(rid), "data": data})
        try:
            return wait(browser, 2, lambda d: shown(run_async(d, NOTIFICATIONS)), "")
        except Exception:  # noqa: BLE001 - not shown yet: deliver again
            continue
    raise AssertionError(f"the worker never showed the push {data[:80]!r}")


def _subscriptions(server_app):
    """The player's push subscriptions the server keeps, as (endpoint, p256dh, auth)."""
    from server.db import db
    from server.db.models import Player
    from server.workers import webpush
    with server_app.app_context():
        player = db.session.execute(db.select(Player).filter_by(name=NAME)).scalar_one()
        return [(s.endpoint, s.p256dh, s.auth) for s in webpush.subscriptions(player)]


def _push(server_app, notice):
    from server.db import db
    from server.db.models import Player
    from server.workers import webpush
    with server_app.app_context():
        player = db.session.execute(db.select(Player).filter_by(name=NAME)).scalar_one()
        return webpush.push_to_player(player, notice)


def test_the_switch_subscribes_this_browser_and_its_worker_shows_the_push(
        browser, live, server_app, receiver, fake_push, shots):
    from server.workers.channels import PublicNotice
    keys = PushKeys(receiver.url + "/push/abc123")
    fake_push(keys)
    browser.execute_cdp_cmd("Browser.grantPermissions", {"origin": live.url,
                                                         "permissions": ["notifications"]})
    settings_page(browser, live)
    box = switch(browser)
    assert not box.is_selected() and "Off" in by_id(browser, "push-status").text
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", box)
    box.click()
    kind, text = status_text(browser, "push-status")
    assert "ok" in kind and text.startswith("On:"), text
    assert box.is_selected()
    # the worker is registered for the whole site, and active
    scope = run_async(browser, "const d = arguments[0]; navigator.serviceWorker.getRegistration"
                      "('/').then(r => d(r && r.active ? r.scope : null));")
    assert scope == live.url + "/"
    # the page subscribed with the server's VAPID key, visible notices only
    calls = push_state(browser)["subscribe"]
    vapid = requests.get(live.url + "/api/push/key", timeout=10).json()["public_key"]
    assert [b64url(bytes(c["key"])) for c in calls] == [vapid]
    assert calls[0]["userVisibleOnly"] is True
    # the server keeps it (the request was signed by the browser's key: no other way in)
    assert _subscriptions(server_app) == [(keys.endpoint, keys.p256dh, b64url(keys.auth))]
    listed = signed_get(browser, "/api/players/me/channels")["push"]
    assert len(listed) == 1 and listed[0]["label"].endswith("browser")
    shots(browser, "settings-push-on")
    # read back on the next visit
    browser.refresh()
    assert switch(browser).is_selected()
    assert by_id(browser, "push-status").text.startswith("On:")
    # the server pushes to it: the payload decrypts with the browser's keys
    game = "k7m2q9xa3b"
    notice = PublicNotice(kind="turn", headline=f"Your move in Pig {game}", game_id=game,
                          lines=("north rolled a 4",), url=f"{live.url}/g/{game}")
    before = len(receiver.requests)
    assert _push(server_app, notice) == 1
    sent = receiver.requests[before:]
    assert len(sent) == 1 and sent[0]["path"] == "/push/abc123"
    headers = {k.lower(): v for k, v in sent[0]["headers"].items()}
    assert headers["topic"] == f"pbem-{game}"
    payload = keys.decrypt(sent[0]["body"])
    assert payload["tag"] == f"pbem-{game}" and payload["title"] == f"Your move in Pig {game}"
    # the worker shows it, and a newer notice of the same game replaces it (its tag)
    shown = _deliver(browser, live, payload, lambda ns: ns)
    assert shown == [{"title": f"Your move in Pig {game}", "body": "north rolled a 4",
                      "tag": f"pbem-{game}", "data": {"url": f"{live.url}/g/{game}",
                                                       "game": game}}]
    _deliver(browser, live, dict(payload, body="south rolled a 6"),
             lambda ns: [n["body"] for n in ns] == ["south rolled a 6"])
    # a push naming another site opens the game here, not there
    shown = _deliver(browser, live, {"title": "x", "body": "y", "tag": "pbem-other",
                                     "game": "other", "url": "https://elsewhere.example/phish"},
                     lambda ns: len(ns) == 2 and ns)
    other = next(n for n in shown if n["tag"] == "pbem-other")
    assert other["data"]["url"] == f"{live.url}/g/other"
    # a push that is not JSON is shown as plain text, under the site's name
    shown = _deliver(browser, live, "<b>plain</b> words", lambda ns: len(ns) == 3 and ns)
    plain = next(n for n in shown if n["tag"] == "pbem")
    assert plain["title"] == "pbem" and plain["body"] == "<b>plain</b> words"
    assert plain["data"]["url"] == f"{live.url}/"
    state["push_keys"] = keys
    assert not csp_violations(browser)


#: static/sw.js run with a stand-in ``self`` (no browser shows a test's notification to be
#: clicked): its listeners are called as the browser would, and what they do is recorded
WORKER_CLICKS = """
const [source, origin, done] = arguments;
const listeners = {}, opened = [], focused = [];
let windows = [], closed = 0;
const stand_in = {
  location: {origin: origin},
  addEventListener: (type, fn) => { listeners[type] = fn; },
  skipWaiting: () => {},
  clients: {matchAll: () => Promise.resolve(windows), claim: () => Promise.resolve(),
            openWindow: (url) => { opened.push(url); return Promise.resolve(null); }},
  registration: {showNotification: () => Promise.resolve()}
};
new Function("self", source)(stand_in);
function click(data) {
  let work = null;
  listeners.notificationclick({notification: {data: data, close() { closed += 1; }},
                               waitUntil(p) { work = p; }});
  return work;
}
(async () => {
  await click({url: origin + "/g/abc", game: "abc"});          // no window: one is opened
  windows = [{url: origin + "/g/abc",
              focus() { focused.push(this.url); return Promise.resolve(this); }}];
  await click({url: origin + "/g/abc", game: "abc"});          // the game's page is focused
  await click({url: origin + "/g/other", game: "other"});      // another game: opened
  await click(null);                                           // no data: the lobby
  done({opened: opened, focused: focused, closed: closed});
})().catch(e => done(String(e)));
"""


def test_a_click_on_a_notice_opens_the_game_page_or_focuses_it(browser, live):
    from pathlib import Path

    import server.web
    source = (Path(server.web.__file__).parent / "static" / "sw.js").read_text("utf-8")
    browser.get("data:text/html,<title>worker</title>")  # a page without the site's CSP
    got = run_async(browser, WORKER_CLICKS, source, live.url)
    assert got == {"opened": [f"{live.url}/g/abc", f"{live.url}/g/other", f"{live.url}/"],
                   "focused": [f"{live.url}/g/abc"], "closed": 4}


def test_the_switch_off_ends_the_subscription_here_and_on_the_server(
        browser, live, server_app, fake_push):
    fake_push(state["push_keys"])
    settings_page(browser, live)
    box = switch(browser)
    assert box.is_selected()  # the subscription of the test before
    box.click()
    wait(browser, 20, lambda d: box.get_attribute("data-state") == "off", "not off")
    assert by_id(browser, "push-status").text.startswith("Off")
    assert push_state(browser)["unsubscribed"] == 1 and not push_state(browser)["current"]
    assert _subscriptions(server_app) == []
    assert signed_get(browser, "/api/players/me/channels")["push"] == []
    # a subscription this browser holds but the server does not keep for this player (the
    # browser's last player switched it on, or the server dropped it) reads as off, and says so
    browser.execute_script("const s = JSON.parse(localStorage.getItem('fakePush'));"
                           "s.current = true; localStorage.setItem('fakePush', JSON.stringify(s));")
    browser.refresh()
    assert not switch(browser).is_selected()
    assert "another player" in by_id(browser, "push-status").text


def test_a_refused_subscription_is_said_and_the_switch_stays_off(browser, live, server_app,
                                                                 fake_push):
    fake_push(PushKeys("ftp://push.example/x"))  # not a push service's address
    settings_page(browser, live)
    browser.execute_script("localStorage.removeItem('fakePush')")
    browser.refresh()
    box = switch(browser)
    assert not box.is_selected()
    box.click()
    kind, text = status_text(browser, "push-status")
    assert "bad" in kind and text.startswith("Not turned on:") and "https" in text, text
    assert not box.is_selected()
    assert push_state(browser)["unsubscribed"] == 1 and not push_state(browser)["current"]
    assert _subscriptions(server_app) == []


# --- chat channels and webhooks ----------------------------------------------------------------

def _channel_items(browser):
    """(kind, text) of each listed channel, read at once (the list is redrawn after each
    change)."""
    return [tuple(x) for x in browser.execute_script(
        "return Array.from(document.querySelectorAll('#channels-list > li'))"
        ".map(li => [li.getAttribute('data-kind'), li.innerText]);")]


def _channel_id(browser, kind):
    return browser.execute_script(
        "const li = document.querySelector('#channels-list > li[data-kind=\"' + arguments[0] +"
        " '\"]'); return li && li.getAttribute('data-channel');", kind)


def _add(browser, kind, fields):
    from selenium.webdriver.support.ui import Select
    Select(by_id(browser, "channel-kind")).select_by_value(kind)
    for field_id, value in fields.items():
        el = by_id(browser, field_id)
        el.clear()
        el.send_keys(value)
    submit(browser, "channel-form")
    return status_text(browser, "channel-status")


def _press(browser, channel_id, action):
    """Press a channel's button; returns its text afterwards."""
    return browser.execute_script(
        "const b = document.querySelector('#channels-list button[data-action=\"' + arguments[1]"
        " + '\"][data-channel=\"' + arguments[0] + '\"]'); b.click(); return b.textContent;",
        channel_id, action)


def _channel_status(browser, channel_id, before=""):
    """The channel's status line once it changed from ``before`` and settled."""
    def settled(d):
        el = by_id(d, f"channel-{channel_id}-status")
        text, kinds = el.text, set(el.get_attribute("class").split())
        return (text and text != before and {"ok", "bad"} & kinds) and (" ".join(kinds), text)
    return wait(browser, 20, settled, f"channel {channel_id}'s status never settled")


def _verify(secret, request):
    from standardwebhooks.webhooks import Webhook
    headers = {k.lower(): v for k, v in request["headers"].items()}
    return Webhook(secret).verify(request["body"], headers)


def test_a_webhook_is_added_its_secret_shown_once_tested_and_rotated(browser, live, receiver,
                                                                     shots):
    from standardwebhooks.webhooks import WebhookVerificationError
    settings_page(browser, live)
    assert by_id(browser, "channels-empty").is_displayed()
    kind, text = _add(browser, "json", {"ch-json-url": receiver.url + "/hook"})
    assert "ok" in kind and text.startswith("Added"), text
    box = by_id(browser, "channel-secret-box")
    assert box.is_displayed()
    secret = by_id(browser, "channel-secret").text
    assert secret.startswith("whsec_") and len(secret) > 20
    wait(browser, 10, lambda d: len(_channel_items(d)) == 1, "the webhook is not listed")
    (item_kind, item_text), = _channel_items(browser)
    assert item_kind == "json" and receiver.url + "/hook" in item_text
    assert secret not in browser.find_element(_by("ID"), "channels-list").text
    shots(browser, "settings-channels-secret")
    by_id(browser, "channel-secret-done").click()
    assert not box.is_displayed() and by_id(browser, "channel-secret").text == ""
    channel_id = _channel_id(browser, "json")
    # a test notice goes, signed as Standard Webhooks says, with the secret shown
    before = len(receiver.requests)
    _press(browser, channel_id, "test")
    kind, text = _channel_status(browser, channel_id)
    assert "ok" in kind and text.startswith("Sent"), text
    sent = receiver.requests[before:]
    assert len(sent) == 1 and sent[0]["path"] == "/hook"
    assert _verify(secret, sent[0])["type"] == "pbem.test"
    # a new secret: shown once; the old one verifies nothing from now on
    _press(browser, channel_id, "rotate")
    kind, text = _channel_status(browser, channel_id, "Sent: look for it there.")
    assert "ok" in kind and "new secret" in text.lower(), text
    rotated = by_id(browser, "channel-secret").text
    assert rotated.startswith("whsec_") and rotated != secret
    before = len(receiver.requests)
    _press(browser, channel_id, "test")
    wait(browser, 20, lambda d: len(receiver.requests) == before + 1, "no second test notice")
    assert _verify(rotated, receiver.requests[-1])["type"] == "pbem.test"
    with pytest.raises(WebhookVerificationError):
        _verify(secret, receiver.requests[-1])
    state["json_channel"] = channel_id
    assert not csp_violations(browser)


def test_chat_channels_of_each_kind_are_added_listed_and_removed(browser, live, receiver, shots):
    settings_page(browser, live)
    # read back on the next visit: the webhook of the test before
    assert [k for k, _ in _channel_items(browser)] == ["json"]
    # each kind shows its own fields only
    from selenium.webdriver.support.ui import Select
    Select(by_id(browser, "channel-kind")).select_by_value("matrix")
    assert by_id(browser, "ch-matrix-room").is_displayed()
    assert not by_id(browser, "ch-discord-url").is_displayed()
    # a mistyped field is refused in words, and nothing is added
    kind, text = _add(browser, "discord", {"ch-discord-url": receiver.url + "/api/webhooks/1/t",
                                           "ch-discord-mention": "ann"})
    assert "bad" in kind and text.startswith("Not added") and "Discord user id" in text, text
    assert len(_channel_items(browser)) == 1
    kind, text = _add(browser, "discord", {"ch-discord-url": receiver.url + "/api/webhooks/1/t",
                                           "ch-discord-mention": "123456789012345678"})
    assert "ok" in kind, text
    kind, text = _add(browser, "slack", {"ch-slack-url": receiver.url + "/services/T/B/x",
                                         "ch-slack-mention": "U012AB3CD"})
    assert "ok" in kind, text
    kind, text = _add(browser, "matrix", {"ch-matrix-homeserver": receiver.url,
                                          "ch-matrix-room": "!room:example.org",
                                          "ch-matrix-token": "syt_secret_token",
                                          "ch-matrix-mention": "@ann:example.org"})
    assert "ok" in kind, text
    kind, text = _add(browser, "telegram", {"ch-telegram-token": "123456:" + "A" * 30,
                                            "ch-telegram-chat": "987654"})
    assert "ok" in kind, text
    assert not by_id(browser, "channel-secret-box").is_displayed()  # only a webhook has one
    wait(browser, 10, lambda d: len(_channel_items(d)) == 5, "not all channels are listed")
    items = dict(_channel_items(browser))
    assert "mentions 123456789012345678" in items["discord"]
    assert "room !room:example.org" in items["matrix"] and "syt_secret_token" not in items["matrix"]
    assert "chat 987654" in items["telegram"] and "A" * 30 not in items["telegram"]
    shots(browser, "settings-channels")
    # the Discord test notice mentions the player only
    discord_id = _channel_id(browser, "discord")
    before = len(receiver.requests)
    _press(browser, discord_id, "test")
    kind, text = _channel_status(browser, discord_id)
    assert "ok" in kind, text
    body = json.loads(receiver.requests[before]["body"])
    assert body["allowed_mentions"] == {"parse": [], "users": ["123456789012345678"]}
    # removing asks once more, then the channel is gone here and on the server
    assert _press(browser, discord_id, "remove") == "Remove it?"
    assert len(_channel_items(browser)) == 5
    _press(browser, discord_id, "remove")
    wait(browser, 10, lambda d: "discord" not in dict(_channel_items(d)), "not removed")
    left = signed_get(browser, "/api/players/me/channels")["channels"]
    assert sorted(c["kind"] for c in left) == ["json", "matrix", "slack", "telegram"]
    assert not csp_violations(browser)


def test_a_stopped_channel_says_why_and_a_test_that_goes_starts_it(browser, live, server_app):
    from server.db import db
    from server.db.models import NoticeChannel
    channel_id = state["json_channel"]
    with server_app.app_context():  # as the worker leaves a channel that kept failing
        channel = db.session.get(NoticeChannel, int(channel_id))
        channel.status, channel.failures = "stopped", 3
        channel.stopped_reason = "the receiver answered 500"
        db.session.commit()
    settings_page(browser, live)
    item = dict(_channel_items(browser))["json"]
    assert "Stopped: the receiver answered 500" in item
    _press(browser, channel_id, "test")
    kind, text = _channel_status(browser, channel_id)
    assert "ok" in kind and text.startswith("Sent"), text
    assert "Stopped" not in dict(_channel_items(browser))["json"]
    listed = signed_get(browser, "/api/players/me/channels")["channels"]
    assert next(c for c in listed if c["kind"] == "json")["status"] == "active"


# --- a CLI home from this browser: pbem device claim ---------------------------------------------

def _claim(home, link):
    """``pbem device claim LINK`` in ``home``, as a process (no PBEM_SERVER: the link names
    the server)."""
    env = child_env(PBEM_HOME=str(home))
    return subprocess.Popen([sys.executable, "-m", "client.cli", "device", "claim", link],
                            env=env, cwd=ROOT, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def test_a_cli_home_claims_a_link_this_browser_made_and_its_moves_verify(
        browser, live, cli_player, tmp_path, shots):
    from tests.client.conftest import Player
    settings_page(browser, live)
    by_id(browser, "device-label").send_keys("laptop")
    submit(browser, "device-form")
    link = wait(browser, 20, lambda d: by_id(d, "device-url").text or None, "no link shown")
    assert re.fullmatch(re.escape(live.url) + r"/device/[A-Za-z0-9_-]{20,}", link)
    home = tmp_path / "laptop-home"
    proc = _claim(home, link)
    try:
        line = proc.stderr.readline()
        assert "fingerprint" in line, (line, proc.stderr.read())
        fingerprint = line.split()[-1]
        # the page shows the fingerprint of the key the home posted, and asks
        wait(browser, 20, lambda d: by_id(d, "device-fingerprint-here").text == fingerprint,
             "the page never showed the home's fingerprint")
        assert by_id(browser, "device-confirm").is_displayed()
        shots(browser, "settings-device-claim")
        by_id(browser, "device-confirm-yes").click()
        kind, text = status_text(browser, "device-status")
        assert "ok" in kind and "laptop" in text, text
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert f"now moves for {NAME} as device 'laptop'" in out
    assert f"--server {live.url}" in out
    # the home made its own key: it holds the device key, never a main key
    assert not (home / "key.ed25519").exists()
    device = json.loads((home / "device.json").read_text())
    assert device["delegation"]["player"] == NAME and device["delegation"]["label"] == "laptop"
    # it plays: a game it starts, a second player joins, and its moves verify offline
    laptop = Player(live.url, home, NAME)
    game = laptop.run("new", "pig", "--seats", 2, "--option", "target=6").stdout.strip()
    bob = cli_player("bob")
    bob.run("join", game)
    by_player = {NAME: laptop, bob.name: bob}
    seats = {s["seat"]: s["player"] for s in
             requests.get(f"{live.url}/api/games/{game}", timeout=10).json()["seats"]}
    for i in range(300):
        shown = bob.json("show", game)
        if not shown["to_act"]:
            break
        by_player[seats[shown["to_act"][0]]].run("play", game, "hold" if i % 3 == 2 else "roll")
    assert not bob.json("show", game)["to_act"]
    assert "(device 'laptop')" in bob.run("log", game).stdout
    archive = tmp_path / "game.json"
    bob.run("export", game, "-o", archive)
    entries = json.loads(archive.read_text())["entries"]
    delegated = [json.loads(e["envelope"]) for e in entries if "delegation" in e["envelope"]]
    assert delegated and all(e["delegation"]["label"] == "laptop" for e in delegated)
    assert "complete" in laptop.run("verify", archive).stdout.lower()
    # the link was for one home: a second claim is refused in a sentence
    again = _claim(tmp_path / "other-home", link)
    out, err = again.communicate(timeout=60)
    assert again.returncode == 1 and err.startswith("pbem: ") and "already used" in err, err
    assert "Traceback" not in err and not (tmp_path / "other-home" / "device.json").exists()
    assert not csp_violations(browser)


def test_a_no_to_the_fingerprint_stops_the_waiting_claim_at_once(browser, live, tmp_path):
    """The player answers No on the page: the page cancels the link on the server, and the
    waiting ``pbem device claim`` stops with a sentence (not when the link expires)."""
    settings_page(browser, live)
    by_id(browser, "device-label").send_keys("tablet")
    submit(browser, "device-form")
    link = wait(browser, 20, lambda d: by_id(d, "device-url").text or None, "no link shown")
    home = tmp_path / "tablet-home"
    proc = _claim(home, link)
    try:
        line = proc.stderr.readline()
        assert "fingerprint" in line, (line, proc.stderr.read())
        fingerprint = line.split()[-1]
        wait(browser, 20, lambda d: by_id(d, "device-fingerprint-here").text == fingerprint,
             "the page never showed the home's fingerprint")
        by_id(browser, "device-confirm-no").click()
        kind, text = status_text(browser, "device-status")
        assert "bad" in kind and "the link is cancelled" in text, text
        out, err = proc.communicate(timeout=60)  # well before the link's ten minutes
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 1, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("pbem: the browser answered No") and "Traceback" not in err, err
    assert not (home / "device.json").exists()
    listed = [d["label"] for d in signed_get(browser, "/api/devices")["devices"]]
    assert "tablet" not in listed
    assert not csp_violations(browser)


def test_claiming_is_refused_in_a_sentence(live, cli_player, tmp_path):
    from tests.client.conftest import Player
    stranger = Player(live.url, tmp_path / "new-home", "nobody")
    for bad in ("not a link", "https://x.example/device/short", "ftp://x.example/device/" +
                "A" * 43):
        r = stranger.run("device", "claim", bad, ok=2)
        assert r.stderr.startswith("pbem: ") and "one-time link" in r.stderr, (bad, r.stderr)
    r = stranger.run("device", "claim", "A" * 43, ok=1)  # a code the server never made
    assert r.stderr.startswith("pbem: the link is not valid")
    r = stranger.run("device", "claim", f"http://127.0.0.1:{free_port()}/device/" + "A" * 43,
                     ok=4)  # the server of the link is not there: the CLI's exit code for it
    assert r.stderr.startswith("pbem: cannot reach the server")
    ann = cli_player("ann")
    r = ann.run("device", "claim", f"{live.url}/device/" + "A" * 43, ok=1)
    assert "already holds a key" in r.stderr
    assert not (tmp_path / "new-home" / "device.json").exists()


def test_chat_ids_are_saved_read_back_and_checked(browser, live):
    settings_page(browser, live)
    form = by_id(browser, "chat-ids-form")
    wait(browser, 10, lambda d: form.get_attribute("data-loaded") == "yes", "ids never read")
    for field, value in (("chat-discord", "123456789012345678"), ("chat-slack", "U012AB3CD"),
                         ("chat-matrix", "@ann:example.org")):
        by_id(browser, field).clear()
        by_id(browser, field).send_keys(value)
    submit(browser, "chat-ids-form")
    kind, text = status_text(browser, "chat-ids-status")
    assert "ok" in kind, text
    assert signed_get(browser, "/api/players/me/channels")["chat_ids"] == {
        "discord": "123456789012345678", "slack": "U012AB3CD", "matrix": "@ann:example.org"}
    # read back on the next visit; an empty field removes one; a mistyped one is refused
    settings_page(browser, live)
    form = by_id(browser, "chat-ids-form")
    wait(browser, 10, lambda d: form.get_attribute("data-loaded") == "yes", "ids never read")
    assert by_id(browser, "chat-slack").get_attribute("value") == "U012AB3CD"
    by_id(browser, "chat-slack").clear()
    by_id(browser, "chat-discord").clear()
    by_id(browser, "chat-discord").send_keys("@everyone")
    submit(browser, "chat-ids-form")
    kind, text = status_text(browser, "chat-ids-status")
    assert "bad" in kind and text.startswith("Not saved") and "Discord user id" in text, text
    ids = signed_get(browser, "/api/players/me/channels")["chat_ids"]
    assert ids["discord"] == "123456789012345678" and ids["slack"] == "U012AB3CD"
    by_id(browser, "chat-discord").clear()
    submit(browser, "chat-ids-form")
    kind, text = status_text(browser, "chat-ids-status")
    assert "ok" in kind, text
    assert signed_get(browser, "/api/players/me/channels")["chat_ids"] == {
        "matrix": "@ann:example.org"}
    assert not csp_violations(browser)
