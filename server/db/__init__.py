"""Extension objects, initialised in the app factory."""

from flask_sqlalchemy import SQLAlchemy
from sqlalchemy.orm import DeclarativeBase

from ..http.errors import PbemApi


class Base(DeclarativeBase):
    pass


db = SQLAlchemy(model_class=Base)
api = PbemApi()
