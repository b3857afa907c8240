"""One JSON error shape everywhere: {"error": {"code", "message", "details"}}."""

import logging

import marshmallow as ma
from flask_smorest import Api, Blueprint as _Blueprint
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import HTTPException, InternalServerError

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


class ErrorBodySchema(ma.Schema):
    code = ma.fields.String(required=True)
    message = ma.fields.String(required=True)
    details = ma.fields.Dict()


class ErrorSchema(ma.Schema):
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


class PbemApi(Api):
    ERROR_SCHEMA = ErrorSchema

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
                    field, msg = next(iter(details["fields"].items()))
                    message = f"the request is malformed: {field}: {msg}"
            if data.get("headers"):
                headers.update(data["headers"])
            body = {"code": _DEFAULT_CODES.get(status, "error"), "message": str(message),
                    "details": details}
            if status == 413:
                body["message"] = "the request body is too large"
            if status == 429:
                body["message"] = f"too many requests: {error.description}"
        if isinstance(error, InternalServerError):
            original = getattr(error, "original_exception", None)
            if original is not None:
                log.error("internal error", exc_info=original)
        return {"error": body}, status, headers


class Parser(FlaskParser):
    """Malformed request bodies are 400s (422 is kept for illegal moves)."""

    DEFAULT_VALIDATION_STATUS = 400


class Blueprint(_Blueprint):
    ARGUMENTS_PARSER = Parser()
