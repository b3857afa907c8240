"""What the published OpenAPI document says of request fields, beyond each field's own schema.

schemathesis's positive-data check sends requests the document allows and expects them to be
accepted; these say what the server refuses of every request before any view runs
(server/errors.py): a NUL character in any JSON string (PostgreSQL cannot store one).
"""

import marshmallow as ma

#: a string without NUL (ECMA-262 and Python read it alike)
NO_NUL = r"^[^\x00]*$"


def _no_nul(self, field, **kwargs):
    """Every string a request sends: no NUL (unless a pattern or a list of values says
    more already).  An object's values: the schema its field names (``pbem_values``), and
    its size in properties (apispec writes a Length on a Dict as
    maxLength, which says nothing of an object).  A field with a whole shape of its own
    (``pbem_schema``: an envelope's text, a delegation, a signed document's body, in
    server/http/schemas.py) is published as that shape."""
    ret = kwargs.get("ret")
    ret = ret if ret is not None else {}
    if getattr(field, "pbem_schema", None):
        shape = field.pbem_schema
        return dict(shape() if callable(shape) else shape)
    if isinstance(field, ma.fields.String) and not field.dump_only \
            and "pattern" not in ret and "enum" not in ret:
        return {"pattern": NO_NUL}
    if isinstance(field, ma.fields.Dict) and not field.dump_only:
        out = {}
        if "maxLength" in ret:
            out["maxProperties"] = ret.pop("maxLength")
        if getattr(field, "pbem_values", None):
            out["additionalProperties"] = field.pbem_values
        return out
    return {}


def install(api):
    """Add the request-wide rules to ``api``'s marshmallow converter (after ``init_app``)."""
    api.ma_plugin.converter.add_attribute_function(_no_nul)
