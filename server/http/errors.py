"""One JSON error shape everywhere: {"error": {"code", "message", "details"}}."""

import logging
import threading

import marshmallow as ma
from flask_smorest import Api
from flask_smorest import Blueprint as _Blueprint
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import HTTPException, InternalServerError

from ..game import domain
from .jsonbody import loads_request_json

log = logging.getLogger("pbem.server")

_DEFAULT_CODES = {400: "malformed", 401: "unauthenticated", 403: "forbidden", 404: "not_found",
                  405: "method_not_allowed", 409: "conflict", 413: "too_large",
                  415: "unsupported_media_type", 422: "unprocessable", 429: "rate_limited",
                  500: "internal_error"}


class ApiError(HTTPException):
    """Raise to answer with a JSON error."""

    def __init__(self, status, code, message, details=None, headers=None):
        super().__init__(description=message)
        self.code = status
        self.error_code = code
        self.message = message
        self.details = details or {}
        self.extra_headers = headers or {}


def fail(status, code, message, details=None, headers=None):
    raise ApiError(status, code, message, details, headers)


#: the HTTP status of each kind of refusal the services raise (server/game/domain.py)
STATUS = {domain.Malformed: 400, domain.Unauthenticated: 401, domain.Forbidden: 403,
          domain.NotFound: 404, domain.Conflict: 409, domain.Refused: 422}


def http_error(error):
    """The ApiError that answers a service's DomainError."""
    status = next((s for cls, s in STATUS.items() if isinstance(error, cls)), 422)
    return ApiError(status, error.code, error.message, error.details)


def install_domain_errors(app):
    """A DomainError raised under a view is answered as its HTTP error: JSON under /api, a
    page elsewhere (whichever HTTPException handler the app has)."""
    from flask import current_app

    @app.errorhandler(domain.DomainError)
    def _domain_error(error):
        return current_app.handle_http_exception(http_error(error))


class Schema(ma.Schema):
    """The base of every schema of the API.

    flask-smorest deep-copies a view's documentation at each of its decorators
    (``arguments``, ``response``, ``doc``, ``alt_response``) and again when a blueprint is
    registered, and that documentation holds the schema instances: without this, a web
    worker kept ~4 MB of copies of schemas that nothing changes after they are made (the
    published OpenAPI document is byte for byte the same either way;
    tests/server/test_openapi_memory.py).  A schema here is configuration: its copy is itself.
    """

    def __deepcopy__(self, memo):
        return self


class ErrorBodySchema(Schema):
    code = ma.fields.String(required=True)
    message = ma.fields.String(required=True)
    details = ma.fields.Dict()


class ErrorSchema(Schema):
    error = ma.fields.Nested(ErrorBodySchema, required=True)


def _first_messages(errors):
    """Flatten webargs' {location: {field: [msgs]}} into {field: msg}."""
    out = {}
    if isinstance(errors, dict):
        for location, fields in errors.items():
            if isinstance(fields, dict):
                for name, msgs in fields.items():
                    out[str(name)] = msgs[0] if isinstance(msgs, list) and msgs and \
                        isinstance(msgs[0], str) else msgs
            else:
                out[str(location)] = fields
    return out


def malformed_message(fields):
    """The message of a 400 whose ``fields`` ({field: message}) were refused: the first one."""
    field, msg = next(iter(fields.items()))
    return f"the request is malformed: {field}: {msg}"


class PbemApi(Api):
    ERROR_SCHEMA = ErrorSchema

    # The OpenAPI document is written on its first read, not in create_app: flask-smorest
    # deep-copies every view's documentation and resolves each schema when a blueprint is
    # registered, three fifths of create_app's time (0.3 of 0.5 s on a busy machine), paid by
    # every web worker and every test's app, while only /api/openapi.json (and ``flask
    # openapi``) reads it.  The routes themselves are registered at once, as before.
    def init_app(self, app, *, spec_kwargs=None):
        self._undocumented = []
        self._document_lock = threading.RLock()
        super().init_app(app, spec_kwargs=spec_kwargs)

    def register_blueprint(self, blp, *, parameters=None, **options):
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)
        with self._document_lock:
            self._undocumented.append((blp, name, parameters))

    @property
    def spec(self):
        """The APISpec, with every blueprint registered so far documented in it, in the order
        of registration (what flask-smorest's own ``register_blueprint`` writes)."""
        lock = self.__dict__.get("_document_lock")
        if lock is None:  # before init_app
            return self.__dict__.get("_spec")
        with lock:
            while self._undocumented:
                blp, name, parameters = self._undocumented.pop(0)
                blp.register_views_in_doc(self, self._app, self._spec, name=name,
                                          parameters=parameters)
                self._spec.tag({"name": name, "description": blp.description})
        return self._spec

    @spec.setter
    def spec(self, value):
        self._spec = value

    def handle_http_exception(self, error):
        status = error.code or 500
        headers = {}
        if isinstance(error, ApiError):
            body = {"code": error.error_code, "message": error.message, "details": error.details}
            headers.update(error.extra_headers)
        else:
            data = getattr(error, "data", None) or {}
            details = {}
            message = error.description if status != 500 else "internal server error"
            if "messages" in data or "errors" in data:
                details = {"fields": _first_messages(data.get("errors") or data.get("messages"))}
                if status == 400 and details["fields"]:
                    message = malformed_message(details["fields"])
            if data.get("headers"):
                headers.update(data["headers"])
            body = {"code": _DEFAULT_CODES.get(status, "error"), "message": str(message),
                    "details": details}
            if status == 413:
                body["message"] = "the request body is too large"
            if status == 429:
                body["message"] = f"too many requests: {error.description}"
                body["details"] = _limit_details(error)
                if body["details"]:
                    d = body["details"]
                    body["message"] = (f"too many requests: {d['limit']} {d['counts']}; "
                                       f"the server's setting {d['setting']} raises it")
        allowed = getattr(error, "valid_methods", None)
        if status == 405 and allowed:
            # RFC 9110: a 405 names the methods the resource has (werkzeug knows them)
            headers.setdefault("Allow", ", ".join(allowed))
        if isinstance(error, InternalServerError):
            original = getattr(error, "original_exception", None)
            if original is not None:
                log.error("internal error", exc_info=original)
        return {"error": body}, status, headers


def _has_nul(text):
    return "\x00" in text


#: the refusal of a request with a NUL character (code, message)
BAD_CHARACTERS = ("bad_characters",
                  "the request's path, query or headers hold a NUL character")


def has_nul(request):
    """Whether a (werkzeug) request's path, query or headers hold a NUL character."""
    return _has_nul(request.path) or any(_has_nul(k) or _has_nul(v)
                                         for k, v in request.args.items(multi=True)) \
        or any(_has_nul(v) for _, v in request.headers.items())


def install_input_guards(app):
    """NUL characters in the path, the query or a header are a 400 before any view runs.

    PostgreSQL cannot store NUL in a text column (psycopg refuses it: a 500 before), and no
    name, id or move needs one.  A value the database still refuses (a number out of a
    column's range, say) is a 400 too, never a 500.
    """
    from flask import current_app, request
    from sqlalchemy.exc import DataError

    @app.before_request
    def _refuse_oversized():
        # a body over the cap is a 413 on every route, whatever the view checks first (some
        # check the signature before they read the body: a 401 for a 70 KB body); a view
        # with a cap of its own (the archive page's upload) says so in ``max_body``
        view = current_app.view_functions.get(request.endpoint)
        cap = getattr(view, "max_body", None) or request.max_content_length
        if cap is None:
            return
        if request.content_length is None and "wsgi.input_terminated" in request.environ:
            _read_chunked_body(request, cap)
        if request.content_length is not None and request.content_length > cap:
            fail(413, "too_large", "the request body is too large",
                 {"limit": cap, "length": request.content_length})

    @app.before_request
    def _refuse_nul():
        if has_nul(request):
            fail(400, *BAD_CHARACTERS)

    @app.errorhandler(DataError)
    def _data_error(exc):
        from ..db import db
        db.session.rollback()
        log.warning("the database refused a value: %s", str(exc.orig).splitlines()[0]
                    if exc.orig else exc)
        return {"error": {"code": "bad_value", "message": "a value in the request is out of "
                          "range or holds characters the database cannot store",
                          "details": {}}}, 400


def _read_chunked_body(request, cap):
    """Read a body sent without a length (chunked) before any view, up to ``cap`` + 1 bytes.

    werkzeug cuts such a body at the cap without a word (``get_data`` returns the first 64
    KiB), so an oversized chunked move was a 400 "not valid JSON" instead of a 413.  Read
    whole here, it gets its length, and the check above sees it.  A body past the cap is not
    read further (the 413 ends the request).
    """
    import io
    stream = request.environ["wsgi.input"]
    chunks, size = [], 0
    while size <= cap:
        chunk = stream.read(cap + 1 - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    data = b"".join(chunks)
    request.environ["wsgi.input"] = io.BytesIO(data)
    request.environ["CONTENT_LENGTH"] = str(len(data))
    del request.environ["wsgi.input_terminated"]
    request.environ.pop("HTTP_TRANSFER_ENCODING", None)  # else werkzeug ignores the length
    for name in ("content_length", "stream"):
        request.__dict__.pop(name, None)  # werkzeug's cached properties, read again


def _limit_details(error):
    """{limit, setting, counts} of a Flask-Limiter refusal (its error_message is the setting)."""
    lim = getattr(error, "limit", None)
    setting = getattr(lim, "error_message", None)
    if lim is None or not isinstance(setting, str) or not setting.startswith("PBEM_"):
        return {}
    from .limits import describe
    return {"limit": str(lim.limit), "setting": setting, "counts": describe(setting)}


class Parser(FlaskParser):
    """Malformed request bodies are 400s (422 is kept for illegal moves)."""

    DEFAULT_VALIDATION_STATUS = 400

    def _raw_load_json(self, req):
        from webargs import core
        from webargs.flaskparser import is_json_request
        if not is_json_request(req):
            return core.missing
        return loads_request_json(req.get_data(cache=True))

    def _handle_invalid_json_error(self, error, req, *args, **kwargs):
        reason = getattr(error, "msg", None) or str(error)
        fail(400, "malformed", f"the request body is not valid JSON: {reason}",
             {"fields": {"json": reason}})


class Blueprint(_Blueprint):
    ARGUMENTS_PARSER = Parser()

    def refusals(self, *statuses):
        """Document the JSON errors (ErrorSchema) a view may answer, one status each."""
        def document(view):
            for status in reversed(statuses):
                view = self.alt_response(status, schema=ErrorSchema)(view)
            return view
        return document


#: the app's flask-smorest Api: its handler answers every HTTP error in the JSON shape above
api = PbemApi()
