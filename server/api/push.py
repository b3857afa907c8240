"""Push: wait for a game's next move (long poll) or follow its head (Server-Sent Events).

Both answer the game's public head (server/workers/push.py ``public_head``): what anyone may read in
its summary, never a hand, so neither needs a signature.
"""

from flask import Response, current_app, request
from flask.views import MethodView

from ..http.errors import Blueprint, fail
from ..http.schemas import (
    EventsQuerySchema,
    WaitQuerySchema,
    WaitSchema,
)
from ..workers import push

blp = Blueprint("push", __name__, url_prefix="/api",
                description="Learn of a game's moves without polling")

HEARTBEAT = push.HEARTBEAT
RETRY_AFTER = push.RETRY_AFTER


def _held(seconds):
    """``seconds``, or less when the server's PBEM_PUSH_HOLD says so."""
    hold = current_app.config.get("PBEM_PUSH_HOLD")
    return seconds if hold is None else min(seconds, hold)


def _busy(exc):
    fail(503, exc.code, exc.message, exc.details, headers={"Retry-After": RETRY_AFTER})


@blp.route("/games/<game_id>/wait")
class Wait(MethodView):
    @blp.arguments(WaitQuerySchema, location="query")
    @blp.response(200, WaitSchema)
    @blp.refusals(400, 404, 503)
    def get(self, query, game_id):
        """Long poll: answer as soon as the game's head passes ``after`` (or its status is not
        ``status``), else after ``timeout`` seconds (or the server's own limit, if shorter)
        with the unchanged head.

        Learns of a move within a second of its commit (PostgreSQL LISTEN/NOTIFY; on SQLite
        an in-process signal and a per-process watcher).  503 with Retry-After when this
        server holds as many waiting clients as it can: poll the game meanwhile.
        """
        try:
            head, changed = push.wait_for_move(game_id, query["after"], query["status"],
                                               _held(query["timeout"]))
        except push.Busy as exc:
            _busy(exc)
        return {**head, "changed": changed}


def _last_event_id():
    """The (seq, status, taken) of an EventSource's Last-Event-ID header, when well formed."""
    return push.last_event_id(request.headers.get("Last-Event-ID", ""))


class _EventStream:
    """The SSE text of a HeadStream; ``close()`` gives its subscription back."""

    def __init__(self, heads):
        self.heads = heads

    def __iter__(self):
        yield push.sse_start(self.heads.game_id)
        for head in self.heads:
            yield push.SSE_KEEPALIVE if head is None else push.sse_head(head)
        yield push.SSE_END

    def close(self):
        self.heads.close()


@blp.route("/games/<game_id>/events")
class Events(MethodView):
    @blp.arguments(EventsQuerySchema, location="query")
    @blp.doc(responses={"200": {
        "description": "A Server-Sent Events stream (text/event-stream).  Each `head` event's "
                       "data is the game's public head (the fields of the wait answer, less "
                       "`changed`); its id is `SEQ.STATUS.SEATS_TAKEN`.  The first event is "
                       "the head now (skipped when it equals the Last-Event-ID header's); a "
                       "comment every 15 s of quiet; an `end` event when the stream's "
                       "`timeout` is over (EventSource reconnects with Last-Event-ID).",
        "content": {"text/event-stream": {"schema": {
            "type": "object", "description": "one event of the stream",
            "properties": {"event": {"type": "string", "enum": ["head", "end"]},
                           "id": {"type": "string"}, "data": {"type": "string"},
                           "retry": {"type": "integer"}}}}}}})
    @blp.refusals(400, 404, 503)
    def get(self, query, game_id):
        """Server-Sent Events: the game's public head now and at each move, start, join, end.

        503 with Retry-After when this server holds as many waiting clients as it can.
        """
        push.public_head(game_id)  # 404 before a stream starts
        try:
            heads = push.HeadStream(game_id, _held(query["timeout"]), _last_event_id(),
                                    HEARTBEAT)
        except push.Busy as exc:
            _busy(exc)
        resp = Response(_EventStream(heads), mimetype="text/event-stream")
        resp.headers.update(push.SSE_HEADERS)
        return resp
