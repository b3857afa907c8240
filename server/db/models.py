"""Database models.  The ``moves`` table is append-only: never updated, never deleted."""

from datetime import datetime, timezone

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy import false as sa_false
from sqlalchemy.orm import Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

from . import db


def utcnow():
    return datetime.now(timezone.utc)


class UTCDateTime(TypeDecorator):
    """A timezone-aware UTC datetime on every backend (SQLite forgets the zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value

    def process_result_value(self, value, dialect):
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value


class Player(db.Model):
    __tablename__ = "players"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(32), unique=True, nullable=False)
    public_key: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    email: Mapped[str | None] = mapped_column(String(254))
    tz: Mapped[str] = mapped_column(String(64), nullable=False, default="UTC")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # notices: "every" (each notice), "digest" (one mail a day), "none"
    notify: Mapped[str] = mapped_column(String(8), nullable=False, default="every")
    quiet_start: Mapped[int | None] = mapped_column(Integer)  # local hour, 0-23
    quiet_end: Mapped[int | None] = mapped_column(Integer)
    webhook_url: Mapped[str | None] = mapped_column(String(500))
    vacation_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    vacation_year: Mapped[int | None] = mapped_column(Integer)
    vacation_days_used: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    last_digest_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # key rotation (shared/table.py): the recovery public key made at registration, and
    # {main public key: that key's signature of recovery_message(name, recovery_key)}
    recovery_key: Mapped[str | None] = mapped_column(String(64))
    recovery_certs: Mapped[dict | None] = mapped_column(JSON)
    # how many times the main key was rotated: every rotation proof names it, so a proof
    # verifies once (shared.table.key_rotation_message)
    key_rotations: Mapped[int] = mapped_column(Integer, nullable=False, default=0,
                                               server_default="0")
    # the player's ids in chat services ({"discord": "1234...", "slack": "U...", "matrix":
    # "@ann:example.org"}), so that a game's channel can mention whoever owes a move
    chat_ids: Mapped[dict | None] = mapped_column(JSON)
    # the private calendar feed's generation: its token is derived from the server's key and
    # this number (server/game/calendar.py), and a new one ends the old feed
    calendar_generation: Mapped[int] = mapped_column(Integer, nullable=False, default=0,
                                                     server_default="0")
    # deadlines count no hour of Saturday or Sunday in the player's own time zone
    weekends_off: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False,
                                               server_default=sa_false())
    # deadlines this player missed (a forced timeout move, refusal or handover): their record
    missed_deadlines: Mapped[int] = mapped_column(Integer, nullable=False, default=0,
                                                  server_default="0")


class Game(db.Model):
    __tablename__ = "games"
    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    type: Mapped[str] = mapped_column(String(32), nullable=False)
    rules_version: Mapped[str] = mapped_column(String(16), nullable=False)
    options: Mapped[dict] = mapped_column(JSON, nullable=False)
    n_seats: Mapped[int] = mapped_column(Integer, nullable=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default="open")
    seed: Mapped[str] = mapped_column(String(64), nullable=False)
    seed_commitment: Mapped[str] = mapped_column(String(64), nullable=False)
    created_by: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    header: Mapped[dict | None] = mapped_column(JSON)
    genesis: Mapped[str | None] = mapped_column(String(64))
    # Denormalised head of the log; the conditional update on it serialises appends per game.
    head_seq: Mapped[int] = mapped_column(Integer, nullable=False, default=-1)
    head_hash: Mapped[str | None] = mapped_column(String(64))
    to_act: Mapped[list | None] = mapped_column(JSON)
    result: Mapped[dict | None] = mapped_column(JSON)
    move_hours: Mapped[int | None] = mapped_column(Integer)
    # the game's own wall-clock limit (Game.wall_clock_limit), when it has one
    ends_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)
    # rated: the finished game changes its players' ratings (server/game/ratings.py), once: rated_at
    rated: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    rated_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # a rematch (server/game/rematch.py): the game this one replays, and the rematch offered of it
    rematch_of: Mapped[str | None] = mapped_column(String(16), index=True)
    rematch_id: Mapped[str | None] = mapped_column(String(16))
    # a private game (server/web/account.py's /new): never listed (the lobby, GET /api/games
    # unsigned, the archive index); its seats are taken only with its invite token
    private: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False,
                                          server_default=sa_false())
    invite_token: Mapped[str | None] = mapped_column(String(64))

    seats = relationship("Seat", order_by="Seat.index", lazy="selectin",
                         back_populates="game")


class Seat(db.Model):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("game_id", "seat"), UniqueConstraint("game_id", "index"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), nullable=False, index=True)
    index: Mapped[int] = mapped_column(Integer, nullable=False)
    seat: Mapped[str] = mapped_column(String(32), nullable=False)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), index=True)
    joined_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # a seat kept for one player (a rematch's invitation): only they may take it
    invited_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    # the game's time bank (header option ``time_bank``, server/game/timebank.py): seconds
    # of it the seat has spent, and since when it spends (its deadline passed), or None
    bank_used: Mapped[int] = mapped_column(Integer, nullable=False, default=0,
                                           server_default="0")
    bank_since: Mapped[datetime | None] = mapped_column(UTCDateTime)

    game = relationship("Game", back_populates="seats")
    player = relationship("Player", lazy="joined", foreign_keys=[player_id])
    invited_player = relationship("Player", lazy="joined", foreign_keys=[invited_id])


class Move(db.Model):
    """One signed log entry.  Append-only."""

    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"),
                                    primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), nullable=False)
    seq: Mapped[int] = mapped_column(Integer, nullable=False)
    seat: Mapped[str] = mapped_column(String(32), nullable=False)
    move: Mapped[str] = mapped_column(Text, nullable=False)
    envelope: Mapped[str] = mapped_column(Text, nullable=False)
    signature: Mapped[str] = mapped_column(String(128), nullable=False)
    prev_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    hash: Mapped[str] = mapped_column(String(64), nullable=False)
    forced: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    events: Mapped[list | None] = mapped_column(JSON)
    received_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Snapshot(db.Model):
    """A cached state after move ``seq`` (a cache, never the truth)."""

    __tablename__ = "snapshots"
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, nullable=False)
    state: Mapped[str] = mapped_column(Text, nullable=False)


class RequestNonce(db.Model):
    """Nonces of signed requests seen inside the freshness window (single use)."""

    __tablename__ = "request_nonces"
    __table_args__ = (UniqueConstraint("player_id", "nonce"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False)
    nonce: Mapped[str] = mapped_column(String(64), nullable=False)
    ts: Mapped[int] = mapped_column(BigInteger, nullable=False, index=True)


class ServerKey(db.Model):
    """The server's Ed25519 key: signs forced moves and log heads."""

    __tablename__ = "server_keys"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    private_key: Mapped[str] = mapped_column(String(64), nullable=False)
    public_key: Mapped[str] = mapped_column(String(64), nullable=False)


class IdempotencyKey(db.Model):
    """The stored answer to a POST sent with an Idempotency-Key header."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (UniqueConstraint("scope", "key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    scope: Mapped[str] = mapped_column(String(80), nullable=False)
    key: Mapped[str] = mapped_column(String(128), nullable=False)
    request_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    status: Mapped[int | None] = mapped_column(Integer)
    body: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Duty(db.Model):
    """A seat that owes a move, since which seq, and its deadline (mutable: not the log)."""

    __tablename__ = "duties"
    __table_args__ = (UniqueConstraint("game_id", "seat"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), nullable=False)
    seat: Mapped[str] = mapped_column(String(32), nullable=False)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False)
    since_seq: Mapped[int] = mapped_column(Integer, nullable=False)
    due_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)
    reminded: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    notified: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False, index=True)


class Notice(db.Model):
    """The outbox: one message to one player (email or webhook), sent once by one worker."""

    __tablename__ = "notices"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), index=True)
    to_address: Mapped[str | None] = mapped_column(String(254))
    game_id: Mapped[str | None] = mapped_column(String(16))
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    channel: Mapped[str] = mapped_column(String(8), nullable=False, default="email")
    subject: Mapped[str] = mapped_column(String(200), nullable=False)
    body: Mapped[str] = mapped_column(Text, nullable=False)
    payload: Mapped[dict | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False, index=True)
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    claimed_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    status: Mapped[str] = mapped_column(String(10), nullable=False, default="pending",
                                        index=True)  # pending, digest, sent, failed
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_error: Mapped[str | None] = mapped_column(String(500))
    # channel "channel": the notice channel (NoticeChannel) it goes to; "webpush": every
    # push subscription of the player
    # an email's own headers (Reply-To, Message-ID, In-Reply-To): a turn notice to a player
    # who moves by mail carries its reply token in them (server/game/mailkeys.py)
    headers: Mapped[dict | None] = mapped_column(JSON(none_as_null=True))
    channel_id: Mapped[int | None] = mapped_column(ForeignKey("notice_channels.id"),
                                                   index=True)


class Rating(db.Model):
    """A player's rating in one competitive game type (openskill's Plackett-Luce model)."""

    __tablename__ = "ratings"
    __table_args__ = (UniqueConstraint("player_id", "game_type"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False, index=True)
    game_type: Mapped[str] = mapped_column(String(32), nullable=False, index=True)
    mu: Mapped[float] = mapped_column(Float, nullable=False)
    sigma: Mapped[float] = mapped_column(Float, nullable=False)
    games: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    wins: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    updated_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=utcnow)


class TeamRecord(db.Model):
    """A cooperative game's record: a player's games and wins by the team's size."""

    __tablename__ = "team_records"
    __table_args__ = (UniqueConstraint("player_id", "game_type", "team_size"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False, index=True)
    game_type: Mapped[str] = mapped_column(String(32), nullable=False, index=True)
    team_size: Mapped[int] = mapped_column(Integer, nullable=False)
    games: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    wins: Mapped[int] = mapped_column(Integer, nullable=False, default=0)


# --- standing orders (server/game/orders.py) -----------------------------------------------------

class StandingOrder(db.Model):
    """One signed order and, once cancelled, its signed cancellation."""

    __tablename__ = "standing_orders"
    __table_args__ = (UniqueConstraint("hash"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), nullable=False, index=True)
    seat: Mapped[str] = mapped_column(String(32), nullable=False)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False)
    at: Mapped[int] = mapped_column(Integer, nullable=False)
    text: Mapped[str] = mapped_column(Text, nullable=False)     # the canonical order text
    body: Mapped[str] = mapped_column(Text, nullable=False)     # canonical JSON, as signed
    signature: Mapped[str] = mapped_column(String(128), nullable=False)
    hash: Mapped[str] = mapped_column(String(64), nullable=False)
    cancel_body: Mapped[str | None] = mapped_column(Text)
    cancel_signature: Mapped[str | None] = mapped_column(String(128))
    cancelled_at: Mapped[int | None] = mapped_column(Integer)
    # no longer carried out: a one-shot order that was used or whose moment passed, or a
    # cancelled one (its record stays)
    done: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False, index=True)
    played: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


# --- table talk (server/game/talk.py) ------------------------------------------------------------

class Message(db.Model):
    """One signed message (append-only, like the log)."""

    __tablename__ = "messages"
    __table_args__ = (UniqueConstraint("hash"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), nullable=False, index=True)
    seat: Mapped[str] = mapped_column(String(32), nullable=False)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False)
    to_seat: Mapped[str | None] = mapped_column(String(32))
    at: Mapped[int] = mapped_column(Integer, nullable=False)
    text: Mapped[str] = mapped_column(Text, nullable=False)
    body: Mapped[str] = mapped_column(Text, nullable=False)   # canonical JSON, as signed
    signature: Mapped[str] = mapped_column(String(128), nullable=False)
    hash: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Mute(db.Model):
    """``player_id`` does not want to read ``muted_id``'s messages."""

    __tablename__ = "mutes"
    __table_args__ = (UniqueConstraint("player_id", "muted_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False, index=True)
    muted_id: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


# --- bot accounts (server/game/bots.py) ----------------------------------------------------------

class BotAccount(db.Model):
    """The private key of a bot account (one per level).  Without its row, a bot is silent."""

    __tablename__ = "bot_accounts"
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    level: Mapped[str] = mapped_column(String(16), unique=True, nullable=False)
    private_key: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


# --- device keys and their links (server/game/devicekeys.py) -------------------------------------

class DeviceKey(db.Model):
    """A delegation a player registered (``device_key`` is unique across players)."""

    __tablename__ = "device_keys"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False, index=True)
    device_key: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    label: Mapped[str] = mapped_column(String(40), nullable=False)
    not_after: Mapped[int] = mapped_column(BigInteger, nullable=False)
    signature: Mapped[str] = mapped_column(String(128), nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    def delegation(self, player_name):
        return {"player": player_name, "device_key": self.device_key, "label": self.label,
                "not_after": self.not_after, "signature": self.signature}


class DeviceLink(db.Model):
    """A one-time link that delegates a browser's key: waiting -> key posted -> delegated ->
    done (the page fetched its delegation).  Every step is one conditional update."""

    __tablename__ = "device_links"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False)
    label: Mapped[str] = mapped_column(String(40), nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False, index=True)
    public_key: Mapped[str | None] = mapped_column(String(64))
    delegation: Mapped[dict | None] = mapped_column(JSON(none_as_null=True))
    done_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


# --- one-time sign-in links of the pages (server/web/signin.py) ------------------------------
# Only a hash of each link's token is stored, so a copy of the database does not hold
# live links.  A row is spent by one conditional update (``used_at`` from NULL), so two
# browsers racing on the same link cannot both sign in.

class WebLink(db.Model):
    __tablename__ = "web_links"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False)
    game_id: Mapped[str] = mapped_column(String(16), nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False, index=True)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


# --- notices: chat channels and Web Push (server/workers/channel_outbox.py) -------------

class ServerSecret(db.Model):
    """A secret the server makes once and keeps (the VAPID key of Web Push)."""

    __tablename__ = "server_secrets"
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(Text, nullable=False)


class PushSubscription(db.Model):
    """A browser's Web Push subscription (RFC 8030): where to push, and its keys (RFC 8291)."""

    __tablename__ = "push_subscriptions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False, index=True)
    endpoint: Mapped[str] = mapped_column(String(1000), unique=True, nullable=False)
    p256dh: Mapped[str] = mapped_column(String(128), nullable=False)
    auth: Mapped[str] = mapped_column(String(64), nullable=False)
    label: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class NoticeChannel(db.Model):
    """A chat channel notices go to (server/workers/channels.py): a player's own (``player_id``), or
    a game's, set by one of its players (``game_id``).  ``target`` holds its secrets (webhook
    URL, token) and is never shown back whole; ``failures`` counts failed sends in a row, and
    too many stop the channel (``status`` "stopped", ``stopped_reason``)."""

    __tablename__ = "notice_channels"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), index=True)
    game_id: Mapped[str | None] = mapped_column(String(16), index=True)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    target: Mapped[dict] = mapped_column(JSON, nullable=False)
    status: Mapped[str] = mapped_column(String(10), nullable=False, default="active")
    failures: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    stopped_reason: Mapped[str | None] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # a game's channel: the last entry of the log it was told of
    last_seq: Mapped[int | None] = mapped_column(Integer)


class WorkerHeartbeat(db.Model):
    """When a worker last ran a pass (``name``: "notices"): a worker that starts after a long
    silence gives the games the time they lost (server/workers/notify.py)."""

    __tablename__ = "worker_heartbeats"
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)


class SeatOffer(db.Model):
    """A seat offered to a substitute (server/game/substitutes.py): a one-time link whose
    token is kept hashed (``token_hash``, SHA-256).  ``status``: "open" (nobody claimed it),
    "claimed" (``claimed_by`` waits for the leaving player to sign the hand-over), "done" (the
    ``@handover`` is in the log) or "void" (the seat changed hands otherwise, or the game
    ended)."""

    __tablename__ = "seat_offers"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), nullable=False, index=True)
    seat: Mapped[str] = mapped_column(String(32), nullable=False)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    offered_by: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    status: Mapped[str] = mapped_column(String(10), nullable=False, default="open")
    claimed_by: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    claimed_key: Mapped[str | None] = mapped_column(String(64))
    claimed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    done_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


# --- moves by mail: the mail key the server holds for a player, and reply tokens ---------------
# (server/game/mailkeys.py)

class MailKey(db.Model):
    """The private half of a player's mail key: a device key the server made, which the
    player's main key delegates (label "mail", its DeviceKey row) to sign moves made by plain
    mail.  ``private_key`` is sealed (server/game/mailkeys.py); it is wiped when the key is
    revoked.  A row without its DeviceKey is waiting for the player's delegation."""

    __tablename__ = "mail_keys"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False, index=True)
    device_key: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    private_key: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    delegated_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class MailToken(db.Model):
    """A reply token of one mail to a player who moves by mail: good for the move ``seq`` of
    ``seat`` in ``game_id``, once.  Only its SHA-256 is stored."""

    __tablename__ = "mail_tokens"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False, index=True)
    game_id: Mapped[str] = mapped_column(String(16), nullable=False)
    seat: Mapped[str] = mapped_column(String(32), nullable=False)
    seq: Mapped[int] = mapped_column(Integer, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    spent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


# --- tournaments (server/game/tournaments.py; the rules are shared/tournament.py) ------------

class Tournament(db.Model):
    """A tournament: its organiser's signed document, the secret seed it commits to (revealed
    in the export once it is over), the signed close of entry and the round being played."""

    __tablename__ = "tournaments"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)  # the document's hash
    organiser_id: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False)
    document: Mapped[dict] = mapped_column(JSON, nullable=False)
    signature: Mapped[str] = mapped_column(String(128), nullable=False)
    seed: Mapped[str] = mapped_column(String(64), nullable=False)
    # open (taking entries), closed (entry closed, not started), playing, over
    status: Mapped[str] = mapped_column(String(10), nullable=False, default="open",
                                        index=True)
    close_signature: Mapped[str | None] = mapped_column(String(128))
    round: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class TournamentEntry(db.Model):
    """A player's signed entry, and its signed withdrawal (from which round it is unpaired)."""

    __tablename__ = "tournament_entries"
    __table_args__ = (UniqueConstraint("tournament_id", "player_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id"), nullable=False,
                                               index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False)
    public_key: Mapped[str] = mapped_column(String(64), nullable=False)
    signature: Mapped[str] = mapped_column(String(128), nullable=False)
    withdrawn_from: Mapped[int | None] = mapped_column(Integer)
    withdraw_signature: Mapped[str | None] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    player = relationship("Player", lazy="joined")


class TournamentRound(db.Model):
    """One round's pairing ({"tables": [[player, ...]], "byes": [...]}) and its games, by
    table."""

    __tablename__ = "tournament_rounds"
    __table_args__ = (UniqueConstraint("tournament_id", "round"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id"), nullable=False,
                                               index=True)
    round: Mapped[int] = mapped_column(Integer, nullable=False)
    pairing: Mapped[dict] = mapped_column(JSON, nullable=False)
    games: Mapped[list] = mapped_column(JSON, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
