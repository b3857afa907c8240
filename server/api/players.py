"""Players: register a name with a public key; read a profile."""

from flask.views import MethodView
from sqlalchemy.exc import IntegrityError

from ..idempotency import idempotent
from ..limits import registration_limit
from ..auth import check_self_signed, current_player
from ..errors import Blueprint, ErrorSchema, fail
from ..extensions import db
from ..models import Player, RequestNonce
from ..schemas import PlayerCreateSchema, PlayerSchema

blp = Blueprint("players", __name__, url_prefix="/api/players",
                description="Players and their public keys")


def _public(player, me=False):
    out = {"name": player.name, "public_key": player.public_key, "tz": player.tz,
           "created_at": player.created_at}
    if me:
        out["email"] = player.email
    return out


@blp.route("")
class Players(MethodView):
    decorators = [registration_limit()]

    @idempotent
    @blp.arguments(PlayerCreateSchema)
    @blp.response(201, PlayerSchema)
    @blp.alt_response(400, schema=ErrorSchema)
    @blp.alt_response(401, schema=ErrorSchema)
    @blp.alt_response(409, schema=ErrorSchema)
    def post(self, data):
        """Register a player name with an Ed25519 public key.

        The request must be signed by the key it registers (proof of
        possession), with X-Pbem-Player set to the new name.
        """
        ts, nonce = check_self_signed(data["name"], data["public_key"])
        exists = db.session.execute(db.select(Player).where(
            (Player.name == data["name"]) | (Player.public_key == data["public_key"]))
        ).scalar_one_or_none()
        if exists is not None:
            what = "name" if exists.name == data["name"] else "key"
            fail(409, f"{what}_taken", f"that {what} is already registered")
        player = Player(name=data["name"], public_key=data["public_key"],
                        email=data["email"], tz=data["tz"])
        db.session.add(player)
        try:
            db.session.flush()
            db.session.add(RequestNonce(player_id=player.id, nonce=nonce, ts=ts))
            db.session.commit()
        except IntegrityError:
            db.session.rollback()
            fail(409, "name_taken", "that name or key is already registered")
        return _public(player, me=True)


@blp.route("/me")
class Me(MethodView):
    @blp.doc(security=[{"pbemSignature": []}])
    @blp.response(200, PlayerSchema)
    @blp.alt_response(401, schema=ErrorSchema)
    def get(self):
        """The caller's own profile (signed request)."""
        return _public(current_player(), me=True)


@blp.route("/<name>")
class OnePlayer(MethodView):
    @blp.response(200, PlayerSchema)
    @blp.alt_response(404, schema=ErrorSchema)
    def get(self, name):
        """A player's public profile: name, public key, time zone."""
        player = db.session.execute(db.select(Player).filter_by(name=name)).scalar_one_or_none()
        if player is None:
            fail(404, "unknown_player", f"no player is registered as {name!r}")
        return _public(player)
