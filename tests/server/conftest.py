"""Fixtures of the API tests: a real SMTP server receiving the app's notices."""

import pytest

from tests.helpers.mail import SmtpServer


@pytest.fixture
def smtp(app):
    server = SmtpServer()
    server.start()
    app.config["PBEM_SMTP_URL"] = f"smtp://127.0.0.1:{server.port}"
    yield server
    server.stop()
