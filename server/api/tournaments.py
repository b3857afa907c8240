"""Tournaments: create one from a signed document, join by signing its hash, close entry,
start, show, standings, the round's game, withdraw, and the export ``pbem verify`` checks."""

from flask import g
from flask.views import MethodView

from ..game import tournaments
from ..http.auth import current_player
from ..http.errors import Blueprint
from ..http.idempotency import idempotent
from ..http.schemas import (
    NoBodySchema,
    StandingsSchema,
    TournamentCloseSchema,
    TournamentCreateSchema,
    TournamentExportSchema,
    TournamentJoinSchema,
    TournamentLeaveSchema,
    TournamentListSchema,
    TournamentQuerySchema,
    TournamentSchema,
)
from .games import OPTIONAL, SIGNED

blp = Blueprint("tournaments", __name__, url_prefix="/api",
                description="Tournaments whose pairings and standings anyone can recompute")


def shown(t, player=None):
    out = tournaments.summary(t)
    if player is not None:
        entered = next((e for e in out["entries"] if e["player"] == player.name), None)
        out["you"] = {"player": player.name, "entered": entered is not None,
                      "withdrawn_from": entered and entered["withdrawn_from"],
                      "game": tournaments.my_game(t, player)}
    else:
        out["you"] = None
    return out


@blp.route("/tournaments")
class Tournaments(MethodView):
    @blp.arguments(TournamentQuerySchema, location="query")
    @blp.response(200, TournamentListSchema)
    @blp.refusals(400)
    def get(self, query):
        """Tournaments by status (default: open for entry), newest first."""
        return {"tournaments": tournaments.listing(query["status"])}

    @idempotent
    @blp.doc(security=SIGNED)
    @blp.arguments(TournamentCreateSchema)
    @blp.response(201, TournamentSchema)
    @blp.refusals(400, 401, 403, 404, 409, 422)
    def post(self, data):
        """Create a tournament: its document (shared/tournament.py) signed by the caller's
        main key, and the secret seed its ``seed_commitment`` commits to (revealed in the
        export once the tournament is over)."""
        player = current_player()
        t = tournaments.create(player, data["document"], data["signature"], data["seed"])
        return shown(t, player)


@blp.route("/tournaments/<tid>")
class OneTournament(MethodView):
    @blp.doc(security=OPTIONAL)
    @blp.response(200, TournamentSchema)
    @blp.refusals(401, 404)
    def get(self, tid):
        """The document, entries, rounds (each table's game) and standings; signed, also
        the caller's entry and game of the current round (``you``)."""
        player = current_player(required=False)
        return shown(tournaments.get_or_404(tid), player)


@blp.route("/tournaments/<tid>/standings")
class Standings(MethodView):
    @blp.response(200, StandingsSchema)
    @blp.refusals(404)
    def get(self, tid):
        """The standings after the games over so far (best first, with the tiebreaks)."""
        t = tournaments.get_or_404(tid)
        return {"tournament": t.id, "round": t.round,
                "standings": tournaments.standings(t) if t.round else []}


@blp.route("/tournaments/<tid>/join")
class Join(MethodView):
    @idempotent
    @blp.doc(security=SIGNED)
    @blp.arguments(TournamentJoinSchema)
    @blp.response(200, TournamentSchema)
    @blp.refusals(400, 401, 404, 409, 422)
    def post(self, data, tid):
        """Enter: the signature of the entry message (shared.tournament.entry_message) by
        the key that signs this request (the main key, or a device key)."""
        player = current_player()
        device = g.get("pbem_device")
        signing_key = device.device_key if device is not None else player.public_key
        t = tournaments.join(tournaments.get_or_404(tid), player, data["public_key"],
                             data["signature"], signing_key)
        return shown(t, player)


@blp.route("/tournaments/<tid>/leave")
class Leave(MethodView):
    @idempotent
    @blp.doc(security=SIGNED)
    @blp.arguments(TournamentLeaveSchema)
    @blp.response(200, TournamentSchema)
    @blp.refusals(400, 401, 404, 409, 422)
    def post(self, data, tid):
        """Withdraw from ``from_round`` on (the next round to be paired; before the close
        of entry, 1: the entry is struck out), signed by the entry's key."""
        player = current_player()
        t = tournaments.leave(tournaments.get_or_404(tid), player, data["from_round"],
                              data["signature"])
        return shown(t, player)


@blp.route("/tournaments/<tid>/close")
class Close(MethodView):
    @idempotent
    @blp.doc(security=SIGNED)
    @blp.arguments(TournamentCloseSchema)
    @blp.response(200, TournamentSchema)
    @blp.refusals(400, 401, 403, 404, 409, 422)
    def post(self, data, tid):
        """The organiser closes entry, signing the sorted names of the players entered."""
        player = current_player()
        t = tournaments.close(tournaments.get_or_404(tid), player, data["signature"])
        return shown(t, player)


@blp.route("/tournaments/<tid>/start")
class Start(MethodView):
    @idempotent
    @blp.doc(security=SIGNED)
    @blp.arguments(NoBodySchema)
    @blp.response(200, TournamentSchema)
    @blp.refusals(400, 401, 403, 404, 409)
    def post(self, _data, tid):
        """The organiser starts round one: its games are created and started."""
        player = current_player()
        t = tournaments.start(tournaments.get_or_404(tid), player)
        return shown(t, player)


@blp.route("/tournaments/<tid>/export")
class Export(MethodView):
    @blp.doc(security=OPTIONAL)
    @blp.response(200, TournamentExportSchema)
    @blp.refusals(401, 404, 409)
    def get(self, tid):
        """The tournament file: document, entries, close, withdrawals, rounds, every game's
        archive, the standings, and (once over) the seed; ``pbem verify`` checks it."""
        player = current_player(required=False)
        return tournaments.export(tournaments.get_or_404(tid), player)
