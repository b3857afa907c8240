"""Inbound mail: the shape mail providers' inbound webhooks POST."""

import hmac

from flask import current_app, request
from flask.views import MethodView

from ..http.errors import Blueprint, fail
from ..http.schemas import InboundResultSchema
from ..workers import mailin

blp = Blueprint("mail", __name__, url_prefix="/api/mail", description="Moves by email")


def _raw_message():
    """The raw RFC 822 bytes: a message/rfc822 (or text) body, or a provider's form field."""
    if request.mimetype in ("multipart/form-data", "application/x-www-form-urlencoded"):
        for field in ("body-mime", "email", "message", "raw"):
            if field in request.form:
                return request.form[field].encode("utf-8")
            if field in request.files:
                return request.files[field].read(mailin.MAX_MESSAGE + 1)
        fail(400, "no_message", "the form has no raw message field (body-mime, email, message "
             "or raw)")
    raw = request.get_data(cache=False)
    if not raw.strip():
        fail(400, "no_message", "the request body is empty: POST the raw RFC 822 message")
    return raw


@blp.route("/inbound")
class Inbound(MethodView):
    @blp.response(200, InboundResultSchema)
    @blp.refusals(400, 401, 403, 413)
    def post(self):
        """Read a raw email, append every armoured signed move in it, answer the sender.

        Send the message as the body (Content-Type message/rfc822 or text/plain) or as
        the form field body-mime / email.  The server's PBEM_INBOUND_TOKEN must come in
        the X-Pbem-Inbound-Token header or the token query parameter.  With no token
        configured inbound mail is refused (403), unless the operator opened it with
        PBEM_INBOUND_OPEN=1.  Each block's result is mailed to the player whose key signed
        it, never to the From header.
        """
        token = current_app.config.get("PBEM_INBOUND_TOKEN")
        if token:
            given = request.headers.get("X-Pbem-Inbound-Token") or request.args.get("token", "")
            if not hmac.compare_digest(given.encode("utf-8", "replace"),
                                       token.encode("utf-8")):
                fail(401, "bad_inbound_token", "the inbound token is missing or wrong")
        elif not current_app.config.get("PBEM_INBOUND_OPEN"):
            fail(403, "inbound_closed", "this server takes no inbound mail: its operator sets "
                 "PBEM_INBOUND_TOKEN (and gives it to the mail provider), or PBEM_INBOUND_OPEN=1 "
                 "to take unauthenticated posts")
        raw = _raw_message()
        if len(raw) > mailin.MAX_MESSAGE:
            fail(413, "too_large", "the message is too large")
        return mailin.process(raw)
