"""64 clients trickling a body one byte every 2 s starved the workers.

gunicorn's sync and gthread workers read a request body in the thread that serves it: 64 slow
bodies hold every thread and an honest request waits behind them; the Procfile's web process
(gunicorn_conf.py) has gthread workers.  Its push process (``pbem-server push``, one asyncio
loop) reads each request as its bytes come, a few hundred bytes of state a connection.
The deployment section of the README puts a buffering proxy in front (nginx reads whole
requests before it passes them on, and drops clients slower than its client_body_timeout).
This test shows both sides on this machine: the same 64 trickling clients against gunicorn alone,
then
against nginx in front of it, and an honest health check timed in each case.  It needs
nginx (Debian: nginx-light); without it, it skips.
"""

import os
import shutil
import socket
import subprocess
import threading
import time

import pytest
import requests

from tests.conftest import database_url
from tests.figures import record
from tests.liveserver import LiveServer, free_port, nginx_main

pytestmark = pytest.mark.slow

SLOW_CLIENTS = 64
FIGURES = {}
NGINX = shutil.which("nginx") or next(
    (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.path.exists(p)), None)

# the site in front of the server: buffers each request whole, drops clients slower than 10 s
NGINX_SITE = """
    client_header_timeout 10s;
    client_body_timeout 10s;
    client_max_body_size 64k;
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_request_buffering on;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header Host $host;
        }}
    }}
"""


def trickle(port, stop):
    """One slow client: a POST whose 1,000-byte body comes one byte every 2 s."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"POST /api/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 1000\r\n\r\n")
        while not stop.is_set():
            s.sendall(b" ")
            stop.wait(2)
    except OSError:
        pass  # the server (or nginx) dropped us: that is the point
    finally:
        try:
            s.close()
        except (OSError, UnboundLocalError):
            pass


def honest_latency(url, attempts=3):
    """Seconds an honest GET /api/health takes while the slow clients hold on (max of 3)."""
    worst = 0.0
    for _ in range(attempts):
        start = time.monotonic()
        try:
            requests.get(url + "/api/health", timeout=8).raise_for_status()
            worst = max(worst, time.monotonic() - start)
        except requests.RequestException:
            return float("inf")
    return worst


def under_attack(port, url):
    stop = threading.Event()
    threads = [threading.Thread(target=trickle, args=(port, stop), daemon=True)
               for _ in range(SLOW_CLIENTS)]
    for t in threads:
        t.start()
    time.sleep(3)  # every slow client connected and sending
    try:
        return honest_latency(url)
    finally:
        stop.set()
        for t in threads:
            t.join(5)


@pytest.mark.skipif(NGINX is None, reason="needs nginx (Debian: apt-get install nginx-light)")
@pytest.mark.parametrize("workers", ["sync", "gthread-4", "procfile-web", "procfile-push"])
def test_a_buffering_proxy_in_front_keeps_slow_clients_from_starving_the_workers(tmp_path,
                                                                                 workers):
    """Two workers each time: sync ones (one thread each), gthread ones with 4 threads, and
    the Procfile's own: its web process (gunicorn_conf.py: gthread, 4 threads a worker) and its
    push process (``pbem-server push``: one asyncio process; "2 workers" does not apply to
    it).  Alone, the sync workers are starved for sure; gthread ones are when the kernel
    spreads the slow connections over both workers (most runs), so only the figure is kept for
    them; the push process holds a slow client in a few hundred bytes and still serves an
    honest request.  Through nginx
    an honest request is served at once in every case."""
    kind, threads = {"sync": ("gunicorn", 1), "gthread-4": ("gunicorn", 4),
                     "procfile-web": ("procfile", 4),
                     "procfile-push": ("procfile-push", 1)}[workers]
    url, cleanup = database_url(tmp_path)
    server = LiveServer(url, tmp_path / "instance", workers=2, threads=threads, kind=kind,
                        extra_env={"PBEM_PROXY_HOPS": "1"})
    proxy = None
    try:
        server.start()
        alone = under_attack(server.port, server.url)
        port = free_port()
        conf = nginx_main(tmp_path, NGINX_SITE.format(port=port, upstream=server.port),
                          connections=1024)
        proxy = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(tmp_path)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
        front = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                requests.get(front + "/api/health", timeout=2)
                break
            except requests.RequestException:
                time.sleep(0.1)
        behind = under_attack(port, front)
        FIGURES[workers] = {"alone": alone, "behind": behind}
        print(f"\n{SLOW_CLIENTS} trickling clients, 2 {workers} workers: honest "
              f"request {alone:.2f} s against gunicorn alone, {behind:.2f} s through nginx")
        if workers == "sync":
            assert alone > 5, "sync workers alone were expected to starve"
        if workers == "procfile-push":
            assert alone < 2, f"the Procfile's push process alone took {alone:.2f} s"
        assert behind < 2, f"through nginx the honest request took {behind:.2f} s"
        record(f"6 honest request while {SLOW_CLIENTS} clients trickle a body, 2 {workers} "
               "workers", ("no answer within 8 s" if alone == float("inf") else
                           f"{alone:.2f} s") + f" alone; {behind:.2f} s through nginx")
    finally:
        if proxy is not None:
            proxy.terminate()
            proxy.wait(10)
        server.stop()
        cleanup()
