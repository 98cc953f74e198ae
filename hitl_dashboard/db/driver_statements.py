"""Core statements that run on every agent turn, executed straight on the SQLite driver's cursor.

For such short statements SQLAlchemy's per-execution work (cache key, parameters, result set-up,
events) costs about twenty times the SQL: the whole turn's transaction takes 0.05 ms in sqlite3
and was ~1 ms through Connection.execute on the bench machine. A DriverStatement is compiled once
per dialect by SQLAlchemy itself (its SQL, its parameter order) and every value goes through its
column type's own bind processor, so the rows are exactly the ones Connection.execute would write.
Other dialects (PostgreSQL) simply use Connection.execute. The connection must be in a transaction
(CoreUnitOfWork begins one: on SQLite, BEGIN IMMEDIATE)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.sql.dml import UpdateBase

_Plan = tuple[str, list[tuple[str, Any, Callable[[Any], Any] | None]]]


class DriverStatement:
    def __init__(self, statement: UpdateBase, column_keys: Sequence[str] | None = None):
        self.statement = statement
        self.column_keys = list(column_keys) if column_keys is not None else None
        self._plans: dict[str, _Plan] = {}

    def rows(self, connection: Connection, values: dict[str, Any]) -> list[tuple]:
        """Executes once with `values`; the rows it returns (RETURNING), as tuples."""
        if connection.dialect.name != "sqlite":
            return [tuple(row) for row in connection.execute(self.statement, values)]
        cursor = self._cursor(connection)
        sql, binds = self._plan(connection.dialect)
        cursor.execute(sql, _parameters(binds, values))
        return cursor.fetchall()

    def run(self, connection: Connection, values: dict[str, Any] | list[dict[str, Any]]) -> None:
        """Executes with `values`, or once per dict of a list."""
        if connection.dialect.name != "sqlite":
            connection.execute(self.statement, values)
            return
        cursor = self._cursor(connection)
        sql, binds = self._plan(connection.dialect)
        if isinstance(values, list):
            cursor.executemany(sql, [_parameters(binds, v) for v in values])
        else:
            cursor.execute(sql, _parameters(binds, values))

    @staticmethod
    def _cursor(connection: Connection) -> Any:
        if not connection.in_transaction():
            raise RuntimeError("a DriverStatement runs inside the connection's transaction")
        # A checked-out connection always has its driver connection (None only once invalidated).
        return connection.connection.driver_connection.cursor()  # type: ignore[union-attr]

    def _plan(self, dialect: Dialect) -> _Plan:
        plan = self._plans.get(dialect.name)
        if plan is None:
            compiled = self.statement.compile(dialect=dialect, column_keys=self.column_keys)
            binds: list[tuple[str, Any, Callable[[Any], Any] | None]] = []
            if compiled.positiontup is None:  # the SQLite dialect's paramstyle (qmark) is positional
                raise RuntimeError(f"{dialect.name}: a DriverStatement needs a positional paramstyle")
            for name in compiled.positiontup:
                bind = compiled.binds[name]
                processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
                binds.append((name, bind.effective_value, processor))
            plan = self._plans[dialect.name] = (compiled.string, binds)
        return plan


def _parameters(binds: list[tuple[str, Any, Callable[[Any], Any] | None]], values: dict[str, Any]) -> tuple:
    out = []
    for name, default, processor in binds:
        value = values.get(name, default)
        out.append(processor(value) if processor is not None else value)
    return tuple(out)
