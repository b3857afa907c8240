"""Database models.  The ``moves`` table is append-only: never updated, never deleted."""

from datetime import datetime, timezone

from sqlalchemy import (BigInteger, Boolean, DateTime, Float, ForeignKey, Integer, JSON, String, Text,
                        UniqueConstraint, false)
from sqlalchemy.orm import Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

from .extensions import db


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
    # rated: the finished game changes its players' ratings (server/ratings.py), once: rated_at
    rated: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    rated_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # a rematch (server/rematch.py): the game this one replays, and the rematch offered of it
    rematch_of: Mapped[str | None] = mapped_column(String(16), index=True)
    rematch_id: Mapped[str | None] = mapped_column(String(16))
    # a private game (server/web/account.py's /new): never listed (the lobby, GET /api/games
    # unsigned, the archive index); its seats are taken only with its invite token
    private: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False,
                                          server_default=false())
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

    game = relationship("Game", back_populates="seats")
    player = relationship("Player", lazy="joined", foreign_keys=[player_id])


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
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


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
