"""Core statements of the append path, run straight on the driver's cursor.

Running a prebuilt Core statement through SQLAlchemy costs ~0.02 ms (SQLite) to ~0.08 ms
(PostgreSQL) of Python beyond the driver's own work, about as much as the driver itself on
SQLite; a move writes five rows.  A :class:`Prepared` statement is compiled once per
dialect by SQLAlchemy (the same SQL text, the same bind processors of the column types:
JSON, UTC datetimes) and then run on the DBAPI connection of the session's transaction, so
the move still commits (or rolls back) with ``db.session`` as one transaction.

No expanding (``IN``) parameters: those stay on SQLAlchemy.
"""

#: callables given each statement's SQL text before it runs (bench/inproc.py counts them)
TRACE = []


class Prepared:
    """``stmt`` (a Core insert, update, delete or select with named bind parameters), compiled for a
    dialect on first use.  ``keys``: the columns an insert sets."""

    def __init__(self, stmt, keys=None):
        self.stmt = stmt
        self.keys = keys
        self._by_dialect = {}

    def _compiled(self, dialect):
        found = self._by_dialect.get(dialect.name)
        if found is None:
            compiled = self.stmt.compile(dialect=dialect, column_keys=self.keys)
            processors, fixed = {}, {}
            for bind, name in compiled.bind_names.items():
                process = bind.type.dialect_impl(dialect).bind_processor(dialect)
                if process is not None:
                    processors[name] = process
                if not bind.required:  # a literal of the statement (status = 'playing')
                    fixed[name] = bind.effective_value
            order = tuple(compiled.positiontup) if dialect.positional else None
            found = self._by_dialect[dialect.name] = (compiled.string, order, processors,
                                                      fixed)
        return found

    def execute(self, cursor, dialect, params):
        """Execute with ``params`` ({bind name: value}) on ``cursor``; returns its rowcount."""
        sql, order, processors, fixed = self._compiled(dialect)
        values = {**fixed, **params} if fixed else params
        if processors:
            values = {name: processors[name](value) if name in processors else value
                      for name, value in values.items()}
        if TRACE:
            for trace in TRACE:
                trace(sql)
        cursor.execute(sql, tuple(values[name] for name in order) if order is not None
                       else values)
        return cursor.rowcount


class Writer:
    """The cursor and dialect of the session's current transaction (begun if need be)."""

    __slots__ = ("cursor", "dialect")

    def __init__(self, session):
        connection = session.connection()
        self.dialect = connection.dialect
        self.cursor = connection.connection.dbapi_connection.cursor()

    def run(self, prepared, params):
        return prepared.execute(self.cursor, self.dialect, params)

    def first(self, prepared, params):
        """Run a prepared SELECT; its first row, or None."""
        prepared.execute(self.cursor, self.dialect, params)
        return self.cursor.fetchone()
