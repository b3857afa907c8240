"""The browser tests' helpers: waiting on a page, its CSP violations, a game started through
the CLI on the live server, whose move it is."""

import subprocess
import sys

import requests

from tests.client.conftest import ROOT, child_env

#: the options the browser tests start a game with
OPTIONS = {"zarahemla": ["--option", "board=beginner"]}


def _by(kind):
    from selenium.webdriver.common.by import By
    return getattr(By, kind)


def wait(driver, seconds, condition, message):
    """Wait (at most ``seconds``) for ``condition``; a page being replaced is waited out."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, seconds, poll_frequency=0.1, ignored_exceptions=(
        NoSuchElementException, StaleElementReferenceException)).until(condition, message)


def csp_violations(driver):
    return [m["message"] for m in driver.get_log("browser")
            if "Content Security Policy" in m["message"] or "Refused to" in m["message"]]


def start_game(cli_player, type_, n):
    players = [cli_player(p) for p in ("ann", "bob", "cyd")[:n]]
    game_id = players[0].run("new", type_, "--seats", n, *OPTIONS.get(type_, [])).stdout.strip()
    for p in players[1:]:
        p.run("join", game_id)
    return game_id, players


def to_act(live, game_id):
    return requests.get(f"{live.url}/api/games/{game_id}", timeout=10).json()["to_act"]


def seat_map(live, game_id, players):
    info = requests.get(f"{live.url}/api/games/{game_id}", timeout=10).json()
    by_name = {p.name: p for p in players}
    return {s["seat"]: by_name[s["player"]] for s in info["seats"]}


def log_count(driver):
    return len(driver.find_elements(_by("CSS_SELECTOR"), "#live ol.entries > li"))


def add_browser(browser, live, player, label, screenshot=None):
    """``pbem device add --browser`` for ``player``, the link opened in ``browser``, the
    fingerprints compared as a person would.  Returns (device key hex, CLI stdout)."""
    env = child_env(PBEM_SERVER=live.url, PBEM_HOME=str(player.home))
    proc = subprocess.Popen([sys.executable, "-m", "client.cli", "device", "add", "--browser",
                             "--label", label, "--days", "30"], env=env, cwd=ROOT, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith(live.url + "/device/"), (url, proc.stderr.read())
        browser.get(url)
        shown = wait(browser, 20, lambda d: (d.find_element(_by("ID"), "device-fingerprint")
                                             .text.strip("…") or None),
                     "the page shows no fingerprint")
        line = ""
        while "It must read:" not in line:
            line = proc.stderr.readline()
            assert line, "the CLI stopped before showing the fingerprint"
        assert line.strip().endswith(shown), (line, shown)
        if screenshot:
            screenshot(browser, "device-link-waiting")
        proc.stdin.write("y\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        box = browser.find_element(_by("ID"), "device-link")
        wait(browser, 20, lambda d: box.get_attribute("data-state") in ("done", "failed"),
             "the page never got its delegation")
        status = browser.find_element(_by("ID"), "device-status").text
        assert box.get_attribute("data-state") == "done", status
        assert not csp_violations(browser)
        if screenshot:
            screenshot(browser, "device-link-done")
        return box.get_attribute("data-device-key"), out, status
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# --- the home pages: a browser signs up, a form is sent, its status line read ------------

def by_id(driver, id_):
    return driver.find_element(_by("ID"), id_)


def submit(driver, form_id):
    form = by_id(driver, form_id)
    button = form.find_element(_by("CSS_SELECTOR"), "button[type=submit]")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
    button.click()


def status_text(driver, id_, seconds=30):
    """The status line ``id_`` once it says how things ended (ok or bad)."""
    wait(driver, seconds, lambda d: "ok" in by_id(d, id_).get_attribute("class").split() or
         "bad" in by_id(d, id_).get_attribute("class").split(), f"{id_} never settled")
    el = by_id(driver, id_)
    return el.get_attribute("class"), el.text


def sign_up(driver, live, name, tz):
    driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": tz})
    driver.get(live.url + "/signup")
    field = by_id(driver, "signup-tz")
    wait(driver, 10, lambda d: field.get_attribute("value") == tz, "the time zone is not filled")
    by_id(driver, "signup-name").send_keys(name)
    by_id(driver, "signup-email").send_keys(f"{name}@example.org")
    submit(driver, "signup-form")
    kind, text = status_text(driver, "signup-status")
    assert "ok" in kind, text
    code = by_id(driver, "recovery-code").text
    assert code.startswith("pbemrc-") and len(code.split("-")) == 15, code
    link = by_id(driver, "recovery-file")
    assert link.get_attribute("download") == f"pbem-recovery-{name}.txt"
    assert link.get_attribute("href").startswith("blob:")
    kit = by_id(driver, "kit-text").get_attribute("textContent")  # the file's text
    assert f"player: {name}" in kit and f"recovery code: {code}" in kit
    return code, kit
