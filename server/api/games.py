"""Games: create, join, view, legal moves, the log, posting moves, the archive."""

import hmac
import re
from datetime import datetime, timezone

from flask import current_app, g, request
from flask.views import MethodView
from webargs.flaskparser import is_json_request

from shared.games import game_types, get_game

from ..db import db
from ..db.models import Game, Seat
from ..db.state_cache import load_log
from ..game import bots, duties
from ..game.append import append_move
from ..game.archives import archive_for
from ..game.domain import Conflict, DomainError
from ..game.lifecycle import join_game
from ..game.views import log_entries, seat_of, signed_head, view_for
from ..http.auth import current_player
from ..http.errors import Blueprint, fail
from ..http.idempotency import idempotent
from ..http.jsonbody import loads_request_json
from ..http.limits import move_limit
from ..http.schemas import (
    ArchiveSchema,
    EntrySchema,
    GameCreateSchema,
    GameListSchema,
    GameSchema,
    GamesQuerySchema,
    GameTypeListSchema,
    JoinSchema,
    LegalMovesSchema,
    LogQuerySchema,
    LogSchema,
    MoveQuerySchema,
    MoveSubmitSchema,
    SeatQuerySchema,
    TableSchema,
    ViewResponseSchema,
)

blp = Blueprint("games", __name__, url_prefix="/api", description="Games and their move logs")
SIGNED = [{"pbemSignature": []}]
OPTIONAL = [{}, {"pbemSignature": []}]


def game_json(game, player=None):
    mine = [s.seat for s in game.seats if player is not None and s.player_id == player.id]
    due = {}
    if game.status == "playing" and game.move_hours and game.to_act:
        # whose move it is is public, and so is when it is due (the game page shows them all)
        due = {seat: at for seat, at in duties.deadlines(game.id, game.to_act).items() if at}
    return {"id": game.id, "type": game.type, "rules_version": game.rules_version,
            "options": game.options, "status": game.status,
            "seats": [{"seat": s.seat, "player": s.player.name if s.player else None,
                       # a seat kept for a rematch's invited player, until they take it
                       "invited": s.invited_player.name
                       if s.player is None and s.invited_player is not None else None}
                      for s in game.seats],
            "seq": game.head_seq, "head": game.head_hash, "to_act": game.to_act or [],
            "seed_commitment": game.seed_commitment, "result": game.result,
            "created_at": game.created_at, "move_hours": game.move_hours, "you": mine,
            "deadlines": due, "rated": bool(game.rated), "rematch_of": game.rematch_of,
            "rematch": game.rematch_id if game.rematch_id != "pending" else None,
            # seats kept for an invited player (a rematch) who has not taken them yet
            "invited": [s.seat for s in game.seats
                        if s.player_id is None and s.invited_id is not None],
            "private": bool(game.private), "time_bank": _time_bank(game),
            "invite": game.invite_token if game.private and player is not None and (
                mine or game.created_by == player.id) else None}


def _time_bank(game):
    """A game's time banks (server/game/timebank.py), or None for a game without them."""
    from ..game import timebank
    hours = timebank.total_seconds(game) // 3600
    if not hours:
        return None
    left = timebank.bank_left(game) if game.status != "open" else None
    return {"hours": hours, "left": left or {s.seat: hours * 3600 for s in game.seats}}


def _cursor(game):
    """An opaque page cursor: the last game's creation time (microseconds) and id."""
    at = game.created_at.astimezone(timezone.utc)
    stamp = int(at.timestamp()) * 1_000_000 + at.microsecond
    # plain text the published schema can describe whole (schemas.CURSOR_RE): every text of
    # that form is a position in the list (base64 before: a cursor the schema allowed was
    # refused)
    return f"{stamp}.{game.id}"


def _read_cursor(text):
    try:
        stamp, game_id = text.split(".", 1)
        if not game_id or len(game_id) > 16 or not game_id.isascii() or not game_id.isalnum() \
                or not stamp.isascii() or not stamp.isdigit() or len(stamp) > 17:
            raise ValueError(text)
        stamp = int(stamp)
        at = datetime.fromtimestamp(stamp // 1_000_000, timezone.utc) \
            .replace(microsecond=stamp % 1_000_000)
    except (ValueError, UnicodeDecodeError, OverflowError, OSError):
        fail(400, "bad_cursor", "cursor is not one this server gave (pass a page's `next`)")
    return at, game_id


def get_or_404(game_id):
    game = db.session.get(Game, game_id) if len(game_id) <= 16 else None
    if game is None:
        fail(404, "unknown_game", f"there is no game {game_id!r}")
    return game


def _looking(game_id, wanted, required=True):
    """(player, game, seat) of a request about ``game_id``: the signed caller (None when
    unsigned and not ``required``), and the seat they look through (``wanted``, or their
    own; None: a spectator's eyes)."""
    player = current_player(required=required)
    game = get_or_404(game_id)
    return player, game, seat_of(game, player, wanted)


@blp.route("/types")
class Types(MethodView):
    @blp.response(200, GameTypeListSchema)
    def get(self):
        """The games this server offers, with seat counts and options."""
        out = []
        for name in game_types():
            g = get_game(name)
            out.append({"name": name, "title": g.title, "rules_version": str(g.rules_version),
                        "min_seats": g.min_seats, "max_seats": g.max_seats,
                        "options": g.options_schema})
        return {"types": out}


@blp.route("/games")
class Games(MethodView):
    @blp.doc(security=OPTIONAL)
    @blp.arguments(GamesQuerySchema, location="query")
    @blp.response(200, GameListSchema)
    @blp.refusals(400, 401)
    def get(self, query):
        """Signed: the caller's games.  Unsigned: games open for joining.

        Newest first, ``limit`` a page (default 50, at most 200); when more follow, ``next``
        is the ``cursor`` that fetches the next page.
        """
        player = current_player(required=False)
        stmt = db.select(Game).order_by(Game.created_at.desc(), Game.id.desc()) \
            .limit(query["limit"] + 1)
        if player is not None:
            # the caller's seats, and the games of bots only it created (it watches them)
            stmt = stmt.where(Game.id.in_(db.select(Seat.game_id)
                                          .where(Seat.player_id == player.id))
                              | (Game.created_by == player.id))
            if query["status"]:
                stmt = stmt.where(Game.status == query["status"])
        else:
            stmt = stmt.where(Game.status == (query["status"] or "open"),
                              Game.private.is_(False))  # a private game is never listed
            if (query["status"] or "open") == "open":  # a rematch's seats are all kept
                stmt = stmt.where(Game.rematch_of.is_(None))
        if query["cursor"]:
            at, last_id = _read_cursor(query["cursor"])
            stmt = stmt.where((Game.created_at < at) |
                              ((Game.created_at == at) & (Game.id < last_id)))
        games = db.session.execute(stmt).scalars().all()
        more = len(games) > query["limit"]
        games = games[:query["limit"]]
        out = [game_json(g, player) for g in games]
        if query["asked"] and player is not None:
            for g, shown in zip(games, out):
                if g.status == "playing" and shown["you"]:
                    shown["asked"] = asked_of(g, seat_of(g, player))
        return {"games": out, "next": _cursor(games[-1]) if more else None}

    @idempotent
    @blp.doc(security=SIGNED)
    @blp.arguments(GameCreateSchema)
    @blp.response(201, GameSchema)
    @blp.refusals(400, 401, 404, 409, 422)
    def post(self, data):
        """Create a game; the caller takes the first seat (or the one named).

        ``bots``: that many of the other seats go to the server's bot account of
        ``bot_level`` (``bot-greedy`` ...), which plays them by itself; such games are
        unrated.  ``bots`` equal to ``seats``: a game of bots only, which the caller
        watches (it takes no seat; at most PBEM_MAX_BOT_GAMES of them at once).
        """
        player = current_player()
        game = bots.create_game(player, data["type"], data["seats"], data["options"],
                                data["seat"], data["move_hours"], data["bots"],
                                data["bot_level"], data["rated"], private=data["private"])
        return game_json(game, player)


@blp.route("/games/<game_id>")
class OneGame(MethodView):
    @blp.response(200, GameSchema)
    @blp.refusals(404)
    def get(self, game_id):
        """A game's public summary."""
        player = current_player(required=False)
        return game_json(get_or_404(game_id), player)


@blp.route("/games/<game_id>/join")
class Join(MethodView):
    @idempotent
    @blp.doc(security=SIGNED)
    @blp.arguments(JoinSchema)
    @blp.response(200, GameSchema)
    @blp.refusals(401, 403, 404, 409)
    def post(self, data, game_id):
        """Take a free seat; the game starts when every seat is filled.

        A private game's seats are taken only with its invite token (``invite``)."""
        player = current_player()
        game = get_or_404(game_id)
        check_invite(game, data["invite"])
        game = join_game(game, player, data["seat"])
        return game_json(game, player)


def check_invite(game, invite):
    """Refuse (403) a join of a private game without its invite token."""
    if not game.private:
        return
    if not isinstance(invite, str) or game.invite_token is None or \
            not hmac.compare_digest(invite.encode(), game.invite_token.encode()):
        fail(403, "invite_needed", f"game {game.id} is private: a seat is taken only through "
             "its invite link, from one of its players")


@blp.route("/games/<game_id>/view")
class View(MethodView):
    @blp.doc(security=OPTIONAL)
    @blp.arguments(SeatQuerySchema, location="query")
    @blp.response(200, ViewResponseSchema)
    @blp.refusals(401, 403, 404)
    def get(self, query, game_id):
        """The board as the caller may see it (unsigned: a spectator's view)."""
        player, game, seat = _looking(game_id, query["seat"], required=False)
        return view_answer(player, game, seat)


def view_answer(player, game, seat, board=True):
    """What GET /view answers: ``seat``'s view (None: a spectator's) and the signed head.

    ``board``: also the text board (the game's ``render``); the answer to a move leaves it
    out (``board`` None): a client that shows a board renders it from the view itself."""
    view = view_for(game, seat)
    board = get_game(game.type).render(view) if view is not None and board else None
    return {"game": game_json(game, player), "seat": seat, "next_seq": game.head_seq + 1,
            "prev": game.head_hash, "view": view, "board": board,
            "head": signed_head(game) if game.genesis else None}


@blp.route("/games/<game_id>/legal")
class Legal(MethodView):
    @blp.doc(security=SIGNED)
    @blp.arguments(SeatQuerySchema, location="query")
    @blp.response(200, LegalMovesSchema)
    @blp.refusals(401, 403, 404)
    def get(self, query, game_id):
        """The caller's legal moves now, in the game's notation (signed)."""
        _, game, seat = _looking(game_id, query["seat"])
        if seat is None:
            fail(403, "not_seated", f"you hold no seat in game {game.id}")
        moves = []
        if game.status == "playing":
            moves = load_log(game).legal_moves(seat)  # the answers while a takeback waits
        return {"seat": seat, "next_seq": game.head_seq + 1, "prev": game.head_hash,
                "moves": moves}


def asked_of(game, seat):
    """What the table asks at ``seat`` of a started game: the takeback request pending and
    the table's decisions (the table route's answer has them, with the rest)."""
    replayed = load_log(game)
    return {"seat": seat, "pending": replayed.pending(), "decisions": replayed.decisions()}


@blp.route("/games/<game_id>/table")
class Table(MethodView):
    @blp.doc(security=OPTIONAL)
    @blp.arguments(SeatQuerySchema, location="query")
    @blp.response(200, TableSchema)
    @blp.refusals(401, 403, 404, 409)
    def get(self, query, game_id):
        """The table state (shared/table.py): the pending takeback request, the seqs of the
        moves the caller's seat could ask to take back now (``@takeback SEQ`` for any of them
        takes back from it on), each seat's current key (after ``@rotate`` entries) and the
        revoked device keys."""
        _, game, seat = _looking(game_id, query["seat"], required=False)
        if game.status == "open":
            fail(409, "not_started", f"game {game.id} has not started: there is no table yet")
        replayed = load_log(game)
        table, pending = replayed.table, replayed.pending()
        window = table["window"]
        moves = list(window["seqs"]) if seat is not None and window["seat"] == seat \
            and not pending and game.status == "playing" else []
        from shared.table import ABORT_MOVES, MAX_PAUSE_DAYS, MAX_PAUSES
        return {"seat": seat, "pending": pending, "takeback_moves": moves,
                "keys": table["keys"], "revoked": table["revoked"],
                "taken_back": table["taken_back"], "next_seq": game.head_seq + 1,
                "decisions": replayed.decisions(), "own_moves": replayed.own_moves(),
                "limits": {"abort_moves": ABORT_MOVES, "pauses": MAX_PAUSES,
                           "pause_days": MAX_PAUSE_DAYS}}


def documented_as(*decorators):
    """Document a view as these flask-smorest decorators would (arguments, responses,
    refusals), without wrapping it in them: for the hot path, which parses its body and
    writes its answer itself."""
    def document(view):
        def stand_in(*args, **kwargs):
            raise AssertionError("documentation only")
        for decorator in reversed(decorators):
            stand_in = decorator(stand_in)
        view._apidoc = stand_in._apidoc
        return view
    return document


# MoveSubmitSchema's own checks, for the body every client sends (the schema's regexp, as
# marshmallow applies it: with match)
_SIGNATURE = re.compile(MoveSubmitSchema._declared_fields["signature"].validators[0].regex
                        .pattern).match


def _move_body():
    """The move POST's body {envelope, signature} as ``blp.arguments(MoveSubmitSchema)``
    would load it.  A well-formed body is checked here; anything else goes through that
    parser, so that every refusal is the one it gives."""
    if is_json_request(request):
        try:
            body = loads_request_json(request.get_data(cache=True))
        except ValueError:
            body = None
        if type(body) is dict and len(body) == 2:
            envelope, signature = body.get("envelope"), body.get("signature")
            if type(envelope) is str and 2 <= len(envelope) <= 2048 \
                    and type(signature) is str and _SIGNATURE(signature):
                return body
    return Blueprint.ARGUMENTS_PARSER.parse(MoveSubmitSchema(), request, location="json")


def _move_answer_kind():
    """``answer`` of the query string (MoveQuerySchema): "entry" (the default) or "view"."""
    if not request.args:
        return "entry"
    return Blueprint.ARGUMENTS_PARSER.parse(MoveQuerySchema(), request,
                                            location="query")["answer"]


def _viewed_after(player, game_id, moved_seat):
    """The view answer after a move, through the mover's seat when the caller holds it."""
    db.session.rollback()  # a fresh read of the game (the append committed or failed)
    game = get_or_404(game_id)
    mine = [s.seat for s in game.seats if player is not None and s.player_id == player.id]
    seat = moved_seat if moved_seat in mine else seat_of(game, player)
    return ViewResponseSchema().dump(view_answer(player, game, seat, board=False)), game, seat


def _stale_details(exc, player, game_id, envelope):
    """What a stale_seq refusal adds for answer=view: the current view, and the entry the
    move linked to (or entry 0), with which the client checks the new head extends the
    one it knew (client/heads.py) and retries once, with no other request."""
    import json
    view, game, seat = _viewed_after(player, game_id, exc.seat)
    try:
        seq = int(json.loads(envelope)["seq"])
    except (ValueError, KeyError, TypeError):
        seq = 0
    entries = log_entries(game, seat, max(seq - 1, 0), 1) if game.genesis else []
    exc.details = {**exc.details, "view": view, "entries": entries}


@blp.route("/games/<game_id>/moves")
class Moves(MethodView):
    decorators = [move_limit()]

    @documented_as(
        blp.arguments(MoveSubmitSchema),
        blp.arguments(MoveQuerySchema, location="query"),
        blp.response(201, EntrySchema),
        blp.alt_response(200, schema=EntrySchema, description="the same envelope was already "
                         "appended: the existing entry"),
        blp.doc(security=OPTIONAL),
        blp.refusals(400, 401, 403, 404, 409, 422))
    def post(self, game_id):
        """Append a signed move.  The envelope is canonical JSON, signed with the seat's key.

        The answer (the new entry, or the existing one when the same envelope was already
        appended) is rendered for the caller: sign the request as the seat's player to read
        the entry as that seat (its private events and facts) and a refusal's reason;
        unsigned, it reads as a spectator's.
        """
        # The hot path: the body and the answer without the schema layers (an entry's
        # fields are already what EntrySchema dumps, see tests/server/test_layers.py)
        data = _move_body()
        answer_kind = _move_answer_kind()
        player = current_player(required=False)
        try:
            entry, created = append_move(game_id, data["envelope"], data["signature"],
                                         reader=player.id if player else None)
        except DomainError as exc:
            if exc.seat is not None:
                # its seat's signature verified (a lost race, a rules refusal): the request
                # counts for that seat, never as an unverified one against the address
                g.pbem_verified_seat = f"{game_id}:{exc.seat}"
            if isinstance(exc, Conflict) and answer_kind == "view" \
                    and exc.code == "stale_seq":
                _stale_details(exc, player, game_id, data["envelope"])
            raise
        if answer_kind == "view":
            entry = dict(entry, view=_viewed_after(player, game_id, entry["seat"])[0])
        if created:
            # the seat's move allowance pays for its appended moves only: anyone can post a
            # copy of a public (or captured) envelope again, and that must not lock it out
            g.pbem_verified_seat = f"{game_id}:{entry['seat']}"
        answer = current_app.json.response(entry)
        answer.status_code = 201 if created else 200
        return answer


@blp.route("/games/<game_id>/log")
class Log(MethodView):
    @blp.doc(security=OPTIONAL)
    @blp.arguments(LogQuerySchema, location="query")
    @blp.response(200, LogSchema)
    @blp.refusals(401, 404)
    def get(self, query, game_id):
        """The log, redacted for the caller (unsigned: for a spectator)."""
        _, game, seat = _looking(game_id, None, required=False)
        return {"entries": log_entries(game, seat, query["since"], query["limit"]),
                "head": signed_head(game) if game.genesis else None}


@blp.route("/games/<game_id>/archive")
class Archive(MethodView):
    @blp.doc(security=OPTIONAL)
    @blp.response(200, ArchiveSchema)
    @blp.refusals(401, 404, 409)
    def get(self, game_id):
        """The archive: header, every signed entry, the signed head; seed and result once over.

        Its messages are the ones the caller may read (unsigned: the public ones); its orders
        are the caller's own while the game runs, and every seat's once it is over.
        """
        return archive_for(get_or_404(game_id), current_player(required=False))
