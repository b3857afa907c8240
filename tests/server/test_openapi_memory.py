"""A web worker does not keep a copy of every schema per decorator (server/http/errors.py
``Schema``), and the published OpenAPI document does not change for it."""

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import marshmallow as ma

from server.http import schemas  # noqa: F401  (every schema class of the API is defined)
from server.http.errors import Schema

ROOT = Path(__file__).resolve().parents[2]


def _all_subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _all_subclasses(sub)


def test_every_schema_of_the_server_derives_from_the_shared_base():
    import server.api.games  # noqa: F401  (and the views' own schemas, if any)
    mine = [c for c in _all_subclasses(ma.Schema) if c.__module__.startswith("server.")]
    assert len(mine) > 50
    strays = [f"{c.__module__}.{c.__qualname__}" for c in mine if not issubclass(c, Schema)]
    assert strays == [], ("derive these from server.http.errors.Schema, or flask-smorest "
                          "keeps a deep copy of them per decorator: " + ", ".join(strays))


def test_a_schema_is_its_own_copy_but_a_documentation_dict_is_still_copied():
    schema = schemas.GameCreateSchema()
    doc = {"arguments": {"schema": schema, "location": "json"}}
    copied = copy.deepcopy(doc)
    assert copied["arguments"]["schema"] is schema
    copied["arguments"]["location"] = "query"
    assert doc["arguments"]["location"] == "json"


_DOCUMENT = """
import sys
from server.http import errors
if sys.argv[2] == "copies":
    del errors.Schema.__deepcopy__
from server import create_app
app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": sys.argv[1],
                  "PBEM_WITH_MIGRATIONS": False})
sys.stdout.write(app.test_client().get("/api/openapi.json").get_data(as_text=True))
"""


def _document(tmp_path, how):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PBEM_RATELIMIT="off")
    out = subprocess.run([sys.executable, "-c", _DOCUMENT, f"sqlite:///{tmp_path}/{how}.sqlite",
                          how], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_the_published_document_is_the_same_as_with_real_copies(tmp_path):
    """Each built in a fresh interpreter, one where schemas are deep-copied as marshmallow
    does: the decorators run at import, so only a new process shows a difference."""
    shared = _document(tmp_path, "shared")
    assert len(shared["paths"]) > 50
    assert shared == _document(tmp_path, "copies")


def test_a_second_app_in_the_same_process_publishes_the_same_document(client, app):
    """The schema instances are shared between the apps of one process (the tests build
    many): registering the views again must not change what the first one published."""
    from server import create_app
    from server.db import db
    first = client.get("/api/openapi.json").get_json()
    again = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": app.config[
        "SQLALCHEMY_DATABASE_URI"], "RATELIMIT_ENABLED": False, "PBEM_WITH_MIGRATIONS": False})
    try:
        assert again.test_client().get("/api/openapi.json").get_json() == first
        assert client.get("/api/openapi.json").get_json() == first
    finally:
        hub = again.extensions.get("pbem_push")
        if hub is not None:
            hub.close()
        with again.app_context():
            db.engine.dispose()
