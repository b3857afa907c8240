"""The pages under attack in real Chromium against a real server: every page's
Content-Security-Policy and the absence of anything inline it would have to allow, the browser
key that no page script can get out of IndexedDB, hostile input to the sign-up form, and a
hostile page on another loopback port (same site, another origin) posting to ours.

The module shares the session's server and Chromium (tests/web/conftest.py).
"""

import os
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from tests.helpers.browser import by_id, csp_violations, sign_up, status_text, submit, wait

SUFFIX = str(os.getpid() % 1000)
#: the pages a stranger can ask for, and a few that answer an error
PAGES = ("/", "/signup", "/signin", "/settings", "/new", "/archive", "/rules/pig",
         "/rules/zarahemla", "/g/nope", "/login/" + "0" * 43, "/device/nope", "/t/nope",
         "/no-such-page")


def _directives(header):
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


def test_every_page_is_sent_with_a_strict_csp_and_nothing_inline_it_would_need(live):
    """Every page (errors too) carries the CSP with no 'unsafe-inline' or 'unsafe-eval',
    form-action 'self', frame-ancestors 'none', base-uri 'none'; no page has an inline script,
    a style element or attribute, or an event-handler attribute."""
    inline = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>|<style\b|\sstyle=|\son[a-z]+\s*=", re.I)
    checked = 0
    for path in PAGES:
        r = requests.get(live.url + path, timeout=30)
        assert r.status_code < 500, (path, r.status_code)
        header = r.headers.get("Content-Security-Policy", "")
        d = _directives(header)
        assert "'unsafe-inline'" not in header and "'unsafe-eval'" not in header, path
        assert d.get("form-action") == ["'self'"], (path, header)
        assert d.get("frame-ancestors") == ["'none'"], (path, header)
        assert d.get("base-uri") == ["'none'"], (path, header)
        assert d.get("script-src") == ["'self'"] and d.get("object-src") == ["'none'"], path
        assert r.headers.get("X-Frame-Options") == "DENY", path
        assert not inline.findall(r.text), (path, inline.findall(r.text)[:3])
        checked += 1
    assert checked == len(PAGES)


HOSTILE_READ = """
const [player, done] = arguments;
const req = indexedDB.open('pbem-keys', 1);
req.onsuccess = () => {
  const get = req.result.transaction('keys').objectStore('keys').get('player:' + player);
  get.onsuccess = async () => {
    const rec = get.result, out = {extractable: rec.privateKey.extractable, tries: {}};
    for (const format of ['pkcs8', 'jwk', 'raw', 'spki']) {
      try { await crypto.subtle.exportKey(format, rec.privateKey); out.tries[format] = 'out'; }
      catch (e) { out.tries[format] = e.name; }
    }
    try {
      const wrapper = await crypto.subtle.generateKey({name: 'AES-KW', length: 256}, true,
                                                      ['wrapKey']);
      await crypto.subtle.wrapKey('pkcs8', rec.privateKey, wrapper, 'AES-KW');
      out.tries.wrap = 'out';
    } catch (e) { out.tries.wrap = e.name; }
    // what a script could carry off: the record as JSON, and a copy through a channel
    out.json = JSON.stringify(rec.privateKey);
    const copy = structuredClone(rec.privateKey);
    try { await crypto.subtle.exportKey('jwk', copy); out.tries.copy = 'out'; }
    catch (e) { out.tries.copy = e.name; }
    out.api = Object.keys(window.pbemKeys).filter(
      k => /private|export|record|raw|seed/i.test(k));
    const listed = await window.pbemKeys.players();
    out.listed = JSON.stringify(listed);
    done(out);
  };
};
req.onerror = () => done({error: String(req.error)});
"""


@pytest.fixture(scope="module")
def home(chrome, live):
    """One player signed up in the shared Chromium (a main key in its IndexedDB)."""
    chrome.get(live.url + "/assets/pbem.css")
    chrome.delete_all_cookies()
    name = "ilse" + SUFFIX
    sign_up(chrome, live, name, "Europe/Berlin")
    return name


def test_no_page_script_can_get_the_stored_private_key_out(chrome, live, home):
    chrome.get(live.url + "/settings")
    chrome.set_script_timeout(60)
    out = chrome.execute_async_script(HOSTILE_READ, home)
    assert out["extractable"] is False
    assert out["tries"] == {"pkcs8": "InvalidAccessError", "jwk": "InvalidAccessError",
                            "raw": "InvalidAccessError", "spki": "InvalidAccessError",
                            "wrap": "InvalidAccessError", "copy": "InvalidAccessError"}, out
    assert out["json"] == "{}" and out["api"] == []
    assert "privateKey" not in out["listed"] and "d" not in re.findall(r'"(\w+)":', out["listed"])


class _Hostile(BaseHTTPRequestHandler):
    """A stranger's site on another loopback port: a form that posts to our /logout, and a
    script that tries to read our API with the visitor's cookie."""
    target = ""

    def do_GET(self):  # noqa: N802 - http.server's name
        page = (f"<!doctype html><form id=f method=post action='{self.target}/logout'>"
                "</form><pre id=read></pre><script>"
                f"fetch('{self.target}/api/players/me', {{credentials: 'include'}})"
                ".then(r => r.text()).then(t => document.getElementById('read').textContent ="
                " 'read: ' + t, e => document.getElementById('read').textContent = "
                "'blocked: ' + e.name);"
                "</script>").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, *args):
        pass


@pytest.fixture
def hostile(live):
    _Hostile.target = live.url
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _signed_in(chrome):
    return any(c["name"].endswith("pbem_session") for c in chrome.get_cookies())


def test_a_page_on_another_loopback_port_cannot_act_with_our_cookie(chrome, live, home,
                                                                    hostile):
    """Another port is another origin but the same site, so the SameSite=Strict cookie
    travels with its form's POST: it signed the visitor out (logout CSRF).  Page POSTs from
    another origin are now refused; its script cannot read our API either."""
    from selenium.webdriver.common.by import By
    chrome.get(live.url + "/settings")
    if not _signed_in(chrome):
        chrome.set_script_timeout(60)
        chrome.execute_async_script(
            "const [p, done] = arguments; window.pbemKeys.session(p).then(() => done(1),"
            " e => done(String(e)));", home)
    assert _signed_in(chrome)
    chrome.get(hostile + "/")
    wait(chrome, 20, lambda d: d.find_element(By.ID, "read").text, "the hostile read ran")
    assert chrome.find_element(By.ID, "read").text.startswith("blocked:")
    chrome.execute_script("document.getElementById('f').submit()")
    wait(chrome, 20, lambda d: d.current_url.startswith(live.url), "the form posted")
    assert "403" in chrome.title or "another site" in chrome.page_source
    chrome.get(live.url + "/settings")
    assert _signed_in(chrome), "a page of another origin signed the visitor out"
    # our own page's sign-out still works
    chrome.find_element(By.CSS_SELECTOR, "form.who button, form.who input[type=submit]").click()
    wait(chrome, 20, lambda d: not _signed_in(d), "our own sign-out did not sign out")


@pytest.mark.parametrize("name", [
    "\u0430nn" + SUFFIX,  # a Cyrillic a: a name of its own, or a clear refusal
    "bad\u0000name", "tab\tname", "line\nbreak" + SUFFIX, "x" * 10_000, "\u202eevil",
], ids=["cyrillic", "nul", "tab", "newline", "10k", "right-to-left"])  # one id in every worker
def test_hostile_names_on_the_sign_up_form_get_a_sentence_and_no_key(chrome, live, name):
    chrome.get(live.url + "/assets/pbem.css")
    chrome.delete_all_cookies()
    chrome.get(live.url + "/signup")
    chrome.get_log("browser")
    field = by_id(chrome, "signup-name")
    chrome.execute_script("arguments[0].value = arguments[1]", field, name)
    by_id(chrome, "signup-email").send_keys("x@example.org")
    submit(chrome, "signup-form")
    kind, _ = status_text(chrome, "signup-status")
    text = by_id(chrome, "signup-status").get_attribute("textContent")  # hidden once done
    assert text and "Traceback" not in text and "500" not in text, (kind, text)
    if "ok" in kind.split():  # the name as the form sent it: no control character in it
        sent = field.get_attribute("value")
        assert sent.isprintable() and f"Signed up as {sent}," in text, (sent, text)
        assert requests.get(f"{live.url}/api/players/{sent}", timeout=30).status_code == 200
    else:
        assert len(text) < 400, text  # one sentence, not the 10 KB name echoed back
    assert not csp_violations(chrome)


def test_signing_up_as_a_name_another_player_holds_is_refused_and_keeps_their_key(
        chrome, live, home):
    chrome.get(live.url + "/assets/pbem.css")
    before = requests.get(f"{live.url}/api/players/{home}", timeout=30).json()["public_key"]
    chrome.execute_script("indexedDB.deleteDatabase('pbem-keys')")
    chrome.delete_all_cookies()
    chrome.get(live.url + "/signup")
    by_id(chrome, "signup-name").send_keys(home)
    by_id(chrome, "signup-email").send_keys("thief@example.org")
    submit(chrome, "signup-form")
    kind, text = status_text(chrome, "signup-status")
    assert "bad" in kind.split() and "already registered" in text, (kind, text)
    after = requests.get(f"{live.url}/api/players/{home}", timeout=30).json()
    assert after["public_key"] == before and after.get("email") != "thief@example.org"
