"""Fixtures for the browser tests: a real server, a headless Chromium, CLI players, screenshots.

Chromium and chromedriver come from Debian's packages (``/usr/bin/chromium``,
``/usr/bin/chromedriver``; ``.ci/run`` installs them).  Without them the browser tests skip
with one line, except under CI (``CI=true``), where they fail: CI must run them.

Screenshots of each page go to ``$PBEM_SCREENSHOTS`` (or a temporary folder); the folder is
printed at the end of the run.
"""

import os
import shutil
from itertools import count
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("PBEM_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("PBEM_CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-dev-shm-usage", "--window-size=1280,900")
_names = count(1)
#: every screenshot taken in this process (the run's summary lists them: tests/conftest.py)
SHOTS = []


def _missing():
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install '.[test]')"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not ((os.path.isfile(path) and os.access(path, os.X_OK)) or shutil.which(path)):
            return f"{path} is missing (apt-get install chromium chromium-driver)"
    return None


def _launch(profile=None):
    """A new headless Chromium under chromedriver; ``profile``: its user-data-dir (its own
    IndexedDB and cookies), else a throw-away one.  The caller quits it."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    if profile is not None:
        options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


@pytest.fixture(scope="session")
def launch_chromium():
    """``launch_chromium(profile=None)`` starts another Chromium (``_launch``; the caller
    quits it): the one way every browser test gets one.  Without Chromium the browser tests
    skip, except under CI, where they fail."""
    reason = _missing()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser tests cannot run under CI: {reason}")
        pytest.skip(f"browser tests need Chromium: {reason}")
    return _launch


@pytest.fixture(scope="session")
def chrome(launch_chromium):
    """The run's shared Chromium (``browser`` hands it to a test with no earlier cookies)."""
    driver = launch_chromium()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def browser(chrome, live):
    """The shared Chromium, with no cookies of earlier tests, at desktop size."""
    chrome.get(live.url + "/assets/pbem.css")
    chrome.delete_all_cookies()
    chrome.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    chrome.get_log("browser")  # forget earlier messages
    return chrome


@pytest.fixture(scope="session")
def live(tmp_path_factory):
    """A real server (gunicorn, one worker) on a free loopback port, with its own database.

    Twelve threads: every open game page holds one for its event stream (this server has no
    push process beside it), and a test plays from up to four browser profiles at once; with
    four threads a busy machine left a page's move waiting for a free one."""
    from tests.liveserver import LiveServer
    tmp = tmp_path_factory.mktemp("webserver")
    server = LiveServer(f"sqlite:///{tmp}/pbem.sqlite", tmp / "instance", workers=1, threads=12,
                        log=tmp / "server.log", extra_env={"PBEM_NOTIFY_INTERVAL": "0"})
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def cli_player(live, tmp_path):
    """A registered CLI player (``pbem`` with its own home) on the live server."""
    from tests.client.conftest import Player

    def make(prefix):
        name = f"{prefix}{next(_names)}{os.getpid() % 1000}"
        player = Player(live.url, tmp_path / name, name)
        player.run("register", name)
        return player
    return make


@pytest.fixture(scope="session")
def shots_dir(tmp_path_factory):
    folder = os.environ.get("PBEM_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def screenshot(shots_dir):
    """``screenshot(driver, name)`` saves a full-height PNG of the current page."""
    def take(driver, name):
        height = driver.execute_script("return document.documentElement.scrollHeight")
        width = driver.execute_script("return window.innerWidth")
        metrics = {"width": width, "height": min(int(height), 4000), "deviceScaleFactor": 1,
                   "mobile": width < 500}
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
        path = shots_dir / f"{name}.png"
        driver.save_screenshot(str(path))
        SHOTS.append(path)
        return path
    return take


#: the sizes ``shots`` takes a page at: (label, width, height, mobile)
SIZES = (("desktop", 1280, 900, False), ("phone", 390, 844, True))


@pytest.fixture(scope="module")
def shots(shots_dir):
    def take(driver, name):
        """``NAME-desktop.png`` and ``NAME-phone.png``: the page at desktop and phone size,
        each its whole height, LOOKED at by a person before the work was handed in."""
        out = []
        for label, width, height, mobile in SIZES:
            metrics = {"width": width, "height": height, "deviceScaleFactor": 1,
                       "mobile": mobile}
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
            full = driver.execute_script("return document.documentElement.scrollHeight")
            metrics["height"] = max(height, min(int(full), 4000))
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
            path = Path(shots_dir) / f"{name}-{label}.png"
            driver.save_screenshot(str(path))
            SHOTS.append(path)
            out.append(path)
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        return out
    return take
