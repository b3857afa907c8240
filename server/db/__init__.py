"""The ``db`` object (Flask-SQLAlchemy), initialised in the app factory; the models are in
``server.db.models``."""

from flask_sqlalchemy import SQLAlchemy
from sqlalchemy.orm import DeclarativeBase


class Base(DeclarativeBase):
    pass


db = SQLAlchemy(model_class=Base)
