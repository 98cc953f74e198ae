"""A real database refusing a write: a trigger that fails inserts of code revisions whose key
contains a marker, with the error PostgreSQL gives for a value longer than its column. It stands in
for any value a model produces that a column cannot take (now that keys are shortened, no real
input reaches that error), so the runner's handling of an unstorable turn is tested end to end."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Engine

ERROR = "value too long for type character varying(255)"

_SQLITE = [
    f"""CREATE TRIGGER refuse_marked_revisions BEFORE INSERT ON code_revisions
        WHEN NEW.key LIKE '%' || :marker || '%'
        BEGIN SELECT RAISE(ABORT, '{ERROR}'); END""",
]
_POSTGRES = [
    f"""CREATE FUNCTION refuse_marked_revisions() RETURNS trigger AS $$
        BEGIN
          IF NEW.key LIKE '%' || TG_ARGV[0] || '%' THEN
            RAISE EXCEPTION USING ERRCODE = 'string_data_right_truncation', MESSAGE = '{ERROR}';
          END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql""",
    """CREATE TRIGGER refuse_marked_revisions BEFORE INSERT ON code_revisions
       FOR EACH ROW EXECUTE FUNCTION refuse_marked_revisions(:marker)""",
]


def refuse_revisions_named(engine: Engine, marker: str) -> None:
    assert marker.isidentifier(), "the marker is pasted into DDL"
    statements = _POSTGRES if engine.dialect.name == "postgresql" else _SQLITE
    with engine.begin() as conn:
        for statement in statements:
            # DDL takes no bind parameters: the (identifier-only) marker is inlined.
            conn.execute(text(statement.replace(":marker", f"'{marker}'")))


def accept_revisions_again(engine: Engine) -> None:
    with engine.begin() as conn:
        conn.execute(text("DROP TRIGGER IF EXISTS refuse_marked_revisions"
                          + (" ON code_revisions" if engine.dialect.name == "postgresql" else "")))
        if engine.dialect.name == "postgresql":
            conn.execute(text("DROP FUNCTION IF EXISTS refuse_marked_revisions()"))
