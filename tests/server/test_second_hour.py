"""A player's second hour: cooperative records, notices in the log without SMTP, and the
mail-in command naming the database it read."""

import json
import time

import pytest
import requests

from client.signing import request_headers
from shared.envelope import public_key_hex
from tests.conftest import database_url
from tests.helpers.mail import _mail, armored, pig_game
from tests.liveserver import LiveServer

# --- pbem-server mail-in: which database -----------------------------------------------------

def test_mail_in_names_its_database_when_a_game_is_unknown(app, make_player, clock):
    """The attack: the operator's shell names another database than the service's; a block
    for a real game then read "there is no such game" with no hint of why."""
    game_id, ann, bob = pig_game(make_player, clock)
    info = ann.get(f"/api/games/{game_id}/view").get_json()
    block, _ = armored(ann, "nosuchgame1", "north", "peek", 0, info["prev"], clock)
    from server.cli import mail_in
    result = app.test_cli_runner().invoke(mail_in, input=_mail("ann@example.org", block))
    assert result.exit_code == 1, result.output
    assert "there is no such game in the database" in result.output
    from sqlalchemy.engine import make_url
    url = make_url(app.config["SQLALCHEMY_DATABASE_URI"])
    assert (url.database or "") in result.output and url.drivername in result.output
    assert "PBEM_DATABASE_URL" in result.output


def test_the_database_label_has_no_password():
    from server.cli import database_label
    label = database_label("postgresql+psycopg://pbem:s3cr3t-pw@db.example:5432/pbem")
    assert "s3cr3t" not in label and "***" not in label
    assert label == "postgresql+psycopg://pbem@db.example:5432/pbem"
    assert database_label("sqlite:////srv/pbem/pbem.sqlite") == "sqlite:////srv/pbem/pbem.sqlite"
    assert "unreadable" in database_label("not a url at all")


# --- no SMTP: the notices are in the server's log -----------------------------------------------

def _signed(key, name, method, url, path, body=None):
    data = json.dumps(body).encode() if body is not None else b""
    headers = dict(request_headers(key, name, method, path, data),
                   **({"Content-Type": "application/json"} if body is not None else {}))
    return requests.request(method, url + path, data=data, headers=headers, timeout=30)


@pytest.mark.e2e
def test_pbem_server_run_without_smtp_writes_each_notice_to_its_log(tmp_path):
    """The attack: notices were marked sent and none was in the log, as the migrations'
    logging set-up (alembic.ini) left the root logger at WARN before ``run`` served."""
    url, cleanup = database_url(tmp_path)
    log_path = tmp_path / "server.log"
    server = LiveServer(url, tmp_path, kind="run", log=log_path,
                        extra_env={"PBEM_NOTIFY_INTERVAL": "1", "PBEM_BOT_INTERVAL": "0",
                                   "PBEM_SMTP_URL": "", "PBEM_SMTP_HOST": ""})
    try:
        with server:
            keys = {}
            for name in ("ann", "bob"):
                keys[name] = bytes([len(name) + ord(name[0])]) * 32
                r = _signed(keys[name], name, "POST", server.url, "/api/players",
                            {"name": name, "public_key": public_key_hex(keys[name]),
                             "email": f"{name}@example.org"})
                assert r.status_code == 201, r.text
            r = _signed(keys["ann"], "ann", "POST", server.url, "/api/games",
                        {"type": "pig", "seats": 2})
            game_id = r.json()["id"]
            r = _signed(keys["bob"], "bob", "POST", server.url, f"/api/games/{game_id}/join", {})
            assert r.status_code == 200, r.text
            text = ""
            deadline = time.monotonic() + 60  # the notice worker passes every second
            while "to ann@example.org" not in text and time.monotonic() < deadline:
                time.sleep(0.2)
                text = log_path.read_text(errors="replace")
    finally:
        cleanup()
    assert "notice (no SMTP configured) to ann@example.org" in text, text[-2000:]
    line = text.split("notice (no SMTP configured) to ann@example.org", 1)[1]
    assert "Subject: [pbem]" in line.split("\n\n", 1)[0] and game_id in line
