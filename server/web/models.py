"""The one table the pages add: one-time sign-in links (``pbem open``).

Only a hash of each link's token is stored, so a copy of the database does not hold live
links.  A row is spent by one conditional update (``used_at`` from NULL), so two browsers
racing on the same link cannot both sign in.
"""

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from ..db import db
from ..db.models import UTCDateTime, utcnow


class WebLink(db.Model):
    __tablename__ = "web_links"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), nullable=False)
    game_id: Mapped[str] = mapped_column(String(16), nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False, index=True)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
