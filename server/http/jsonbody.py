"""Request bodies as JSON: what ``json.loads`` accepts, less what no request needs and the
database cannot store (deep nesting, NUL characters)."""

import json

from flask.json.provider import DefaultJSONProvider

MAX_JSON_DEPTH = 32
# webargs reads a JSONDecodeError whose doc is "" as "no body at all" (and loads {}): never ""
_DOC = "<request body>"


def _check_json(obj):
    """Refuse what no request needs and the database cannot store: deep nesting, NUL."""
    stack = [(obj, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise ValueError(f"the JSON is nested more than {MAX_JSON_DEPTH} deep")
        if isinstance(item, str):
            if "\x00" in item:
                raise ValueError("the JSON holds a NUL character")
        elif isinstance(item, dict):
            for key, value in item.items():
                if "\x00" in key:
                    raise ValueError("the JSON holds a NUL character")
                stack.append((value, depth + 1))
        elif isinstance(item, list):
            stack.extend((value, depth + 1) for value in item)
    return obj


def loads_request_json(text):
    """``json.loads`` for request bodies: a ValueError (JSONDecodeError) for anything refused.

    1,000 levels of nesting make ``json.loads`` raise RecursionError (a 500 before): it is a
    decoding error here, as are NUL characters and nesting deeper than MAX_JSON_DEPTH.
    """
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise json.JSONDecodeError(f"the body is not UTF-8 ({exc.reason})", _DOC, 0) \
                from None
    try:
        return _check_json(json.loads(text))
    except RecursionError:
        raise json.JSONDecodeError(f"the JSON is nested more than {MAX_JSON_DEPTH} deep",
                                   _DOC, 0) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        raise json.JSONDecodeError(str(exc), _DOC, 0) from None


class JSONProvider(DefaultJSONProvider):
    """``request.get_json`` goes through :func:`loads_request_json`."""

    def loads(self, s, **kwargs):
        return loads_request_json(s)
