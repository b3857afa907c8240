"""Device keys: register a delegation, list and revoke devices, and the one-time links that
delegate a browser's key (``pbem device add``, ``pbem device list``, ``pbem device revoke``).

Managing devices takes the player's main key: a request signed by a device key
(``X-Pbem-Device``) is refused here.  The two ``/api/device-links/TOKEN/...`` endpoints are
the page's (``/device/TOKEN``): the token is their only credential.
"""

from flask import current_app, g, request
from flask.views import MethodView

from shared.delegation import MAX_LABEL, fingerprint, valid_label

from ..clock import now_ts
from ..game import devicekeys
from ..http.auth import current_player
from ..http.errors import Blueprint, fail
from ..http.schemas import (
    DelegationSchema,
    DeviceLinkSchema,
    DeviceListSchema,
    DeviceSchema,
    KeySchema,
    LinkCreateSchema,
    PageDelegationSchema,
    PageKeyAnswerSchema,
    RevokedSchema,
)
from .games import SIGNED

blp = Blueprint("devices", __name__, url_prefix="/api",
                description="Device keys delegated by a player's main key")


def main_key_player():
    """The signed caller, who must sign with the main key (not a device's)."""
    player = current_player()
    if g.get("pbem_device") is not None:
        fail(403, "main_key_only", "devices are managed with the player's main key, not a "
             "device key")
    return player


def _device_json(row, player):
    t = now_ts()
    return {"label": row.label, "device_key": row.device_key,
            "fingerprint": fingerprint(row.device_key), "not_after": row.not_after,
            "created_at": row.created_at, "ended": row.not_after < t,
            "delegation": row.delegation(player.name)}


def _link_json(row, token=None):
    out = {"id": row.id, "label": row.label, "expires_at": row.expires_at,
           "status": devicekeys.link_status(row), "public_key": row.public_key,
           "fingerprint": fingerprint(row.public_key) if row.public_key else None}
    if token is not None:
        path = f"/device/{token}"
        base = (current_app.config.get("PBEM_BASE_URL") or request.host_url).rstrip("/")
        out.update(path=path, url=base + path)
    return out


@blp.route("/devices")
class Devices(MethodView):
    @blp.doc(security=SIGNED)
    @blp.response(200, DeviceListSchema)
    @blp.refusals(401, 403)
    def get(self):
        """The caller's devices (not revoked), with their delegations."""
        player = current_player()
        return {"devices": [_device_json(d, player) for d in devicekeys.live_devices(player)]}

    @blp.doc(security=SIGNED)
    @blp.arguments(DelegationSchema)
    @blp.response(201, DeviceSchema)
    @blp.refusals(400, 401, 403, 409)
    def post(self, data):
        """Register a delegation the caller's main key signed (for a device home)."""
        player = main_key_player()
        row = devicekeys.register(player, data["delegation"])
        devicekeys.commit_or_conflict()
        return _device_json(row, player)


@blp.route("/devices/<label>/revoke")
class Revoke(MethodView):
    @blp.doc(security=SIGNED)
    @blp.response(200, RevokedSchema)
    @blp.refusals(401, 403, 404)
    def post(self, label):
        """Revoke the caller's device ``label``: its key signs no more requests or moves here
        (``pbem device revoke`` also appends ``@revoke KEY`` to each running game)."""
        player = main_key_player()
        keys, ended = devicekeys.revoke(player, label)
        return {"revoked": keys, "orders_ended": ended}


@blp.route("/devices/links")
class Links(MethodView):
    @blp.doc(security=SIGNED)
    @blp.arguments(LinkCreateSchema)
    @blp.response(201, DeviceLinkSchema)
    @blp.refusals(400, 401, 403, 409)
    def post(self, data):
        """A one-time link (``url``) that lets a browser post its new key for device ``label``.

        Good for one use within PBEM_DEVICE_LINK_MINUTES (default 10); bound to the caller.
        """
        player = main_key_player()
        if not valid_label(data["label"]):
            fail(400, "bad_label", f"a label is 1 to {MAX_LABEL} characters, without control "
                 "characters or spaces at either end")
        row, token = devicekeys.issue_link(player, data["label"])
        return _link_json(row, token)


@blp.route("/devices/links/<int:link_id>")
class OneLink(MethodView):
    @blp.doc(security=SIGNED)
    @blp.response(200, DeviceLinkSchema)
    @blp.refusals(401, 403, 404)
    def get(self, link_id):
        """The link's state: waiting, key (the page posted its key: compare the fingerprint),
        delegated, done, cancelled (the player answered No) or expired."""
        player = main_key_player()
        return _link_json(devicekeys.own_link(player, link_id))


@blp.route("/devices/links/<int:link_id>/delegation")
class LinkDelegation(MethodView):
    @blp.doc(security=SIGNED)
    @blp.arguments(DelegationSchema)
    @blp.response(200, DeviceLinkSchema)
    @blp.refusals(400, 401, 403, 404, 409)
    def post(self, data, link_id):
        """The delegation the caller signed for the key the page posted; the page fetches it."""
        player = main_key_player()
        row = devicekeys.own_link(player, link_id)
        devicekeys.deliver(player, row, data["delegation"])
        return _link_json(row)


@blp.route("/devices/links/<int:link_id>/cancel")
class LinkCancel(MethodView):
    @blp.doc(security=SIGNED)
    @blp.response(200, DeviceLinkSchema)
    @blp.refusals(401, 403, 404, 409)
    def post(self, link_id):
        """Cancel the link (the player answered No to the fingerprint of the key posted):
        the device that posted it is told at once (410, ``link_cancelled``), nothing is
        delegated."""
        player = main_key_player()
        row = devicekeys.own_link(player, link_id)
        devicekeys.cancel(row)
        return _link_json(row)


# --- the page's side (the token is the credential) ----------------------------------------------

def _live_link(token):
    try:
        return devicekeys.link_by_token(token)
    except devicekeys.LinkGone as exc:
        fail(exc.status, exc.code, exc.message)


@blp.route("/device-links/<token>/key")
class PageKey(MethodView):
    @blp.arguments(KeySchema)
    @blp.response(201, PageKeyAnswerSchema)
    @blp.refusals(400, 404, 409, 410)
    def post(self, data, token):
        """The page's new public key (once per link); answers its fingerprint."""
        row = _live_link(token)
        return {"fingerprint": devicekeys.post_key(row, data["public_key"]),
                "label": row.label}


@blp.route("/device-links/<token>/delegation")
class PageDelegation(MethodView):
    @blp.response(200, PageDelegationSchema)
    @blp.refusals(404, 410)
    def get(self, token):
        """The delegation once the player signed it (then the link is spent), else
        ``{"status": "waiting"}``."""
        row = _live_link(token)
        if row.public_key is None:
            return {"status": "no_key"}
        delegation = devicekeys.take_delegation(row)
        if delegation is None:
            return {"status": "waiting"}
        return {"status": "done", "delegation": delegation}
