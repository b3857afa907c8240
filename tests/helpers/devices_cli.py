"""A second home of a player, linked as a device through ``pbem device``."""

import os

from tests.client.conftest import Player


def _device_home(ann, tmp_path, label="laptop"):
    path = tmp_path / f"{ann.name}-{label}.json"
    out = ann.run("device", "add", "--label", label, "--days", 30, "--out", path).stdout
    assert f"pbem device import {path}" in out
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    laptop = Player(ann.server, tmp_path / f"{ann.name}-{label}-home", ann.name)
    imported = laptop.run("device", "import", path).stdout
    assert f"moves for {ann.name} as device {label!r}" in imported
    return laptop, path
