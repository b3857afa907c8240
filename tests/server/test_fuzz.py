"""Guarantee 6: schemathesis against the OpenAPI document; bad input is a clear 4xx, never a 5xx."""

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (ignored_auth, negative_data_rejection,
                                               response_schema_conformance,
                                               status_code_conformance)

from tests.server.test_platform import start_pig

CHECKS = [not_a_server_error, response_schema_conformance, negative_data_rejection,
          ignored_auth, status_code_conformance]
FUZZED = {"cases": 0, "server_errors": 0}


@pytest.fixture
def api_schema(app, make_player):
    # a game in progress so that paths with a real game id exist too
    start_pig(make_player)
    return schemathesis.openapi.from_wsgi("/api/openapi.json", app)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_api_never_fails_on_bad_input(case):
    response = case.call()
    FUZZED["cases"] += 1
    if response.status_code >= 500:
        FUZZED["server_errors"] += 1
    case.validate_response(response, checks=CHECKS)
    body = response.json() if response.headers.get("Content-Type", "").startswith(
        "application/json") else None
    if response.status_code >= 400 and body is not None:
        assert set(body) == {"error"} and {"code", "message"} <= set(body["error"])
