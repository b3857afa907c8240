"""Old games keep their rules: recorded logs replay to their recorded final states."""

import json
import os

import pytest

from shared.title_of_liberty import GAME

from .golden import replay, state_hash

HERE = os.path.dirname(__file__)


def _load(name):
    with open(os.path.join(HERE, name)) as f:
        return json.load(f)


@pytest.mark.parametrize("name", ["golden_game.json", "golden_game_v2.json",
                                  "golden_game_v2_hard.json", "golden_game_v3.json"])
def test_golden_log_replays_to_the_recorded_state(name):
    """A recorded greedy game replays, under the rules version it was played with, to the
    exact state (sha256) it reached when it was recorded."""
    data = _load(name)
    assert data["rules_version"] in GAME.rules_versions
    state = replay(data)
    assert state.get("rules_version", "1") == data["rules_version"]
    assert state["result"] == data["result"]
    assert state_hash(state) == data["state_sha256"]
