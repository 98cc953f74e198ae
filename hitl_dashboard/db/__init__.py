"""Persistence: SQLModel tables, engine, unit of work. Schema changes go through alembic/."""
