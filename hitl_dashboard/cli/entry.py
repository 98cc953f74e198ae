"""Command line: `python -m hitl_dashboard ...`. Each command takes --json.

Exit codes: 0 ok, 1 other, 2 invalid input or configuration (one line per bad environment
variable), 3 not found, 4 permission denied, 5 conflict, 6 audit chain broken (or missing a
published head), 7 unsafe deployment, 8 database not migrated (run `db upgrade`), 9 database
unreachable."""

from __future__ import annotations

import argparse
import sys

from hitl_dashboard import listeners
from hitl_dashboard.cli.commands import register_all
from hitl_dashboard.cli.output import fail
from hitl_dashboard.cli.registry import COMMANDS
from hitl_dashboard.domain.errors import (
    ConfigurationError,
    Conflict,
    DatabaseNotMigrated,
    DatabaseNotReady,
    DomainError,
    InvalidInput,
    NotFound,
    PermissionDenied,
)
from hitl_dashboard.observability.setup import setup

EXIT_CODES = {InvalidInput: 2, NotFound: 3, PermissionDenied: 4, Conflict: 5}
EXIT_CONFIGURATION = 2
EXIT_NOT_MIGRATED = 8
EXIT_DATABASE_UNREACHABLE = 9
# Commands that must run on a database whose schema is not at head (yet).
WITHOUT_SCHEMA_CHECK = {"db upgrade", "teams list", "teams show", "teams validate", "teams export"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m hitl_dashboard", description="HITL Dashboard")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    sub = parser.add_subparsers(dest="command", required=True)
    register_all(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = COMMANDS[args.handler]
    try:
        setup("runner" if args.handler == "runner" else "cli", quiet=args.handler != "runner")
        listeners.install()  # the audit chain's linking and the other SQLAlchemy listeners
        _publish_live_updates()
        if args.handler not in WITHOUT_SCHEMA_CHECK:
            _require_current_schema()
        return handler(args) or 0
    except ConfigurationError as exc:
        return fail(args, exc, EXIT_CONFIGURATION)
    except DatabaseNotMigrated as exc:
        return fail(args, exc, EXIT_NOT_MIGRATED)
    except DatabaseNotReady as exc:
        return fail(args, exc, EXIT_DATABASE_UNREACHABLE)
    except DomainError as exc:
        code = next((c for kind, c in EXIT_CODES.items() if isinstance(exc, kind)), 1)
        return fail(args, exc, code)
    except ValueError as exc:
        return fail(args, exc, 2)
    except RuntimeError as exc:  # e.g. preflight.UnsafeDeployment
        return fail(args, exc, 7)


def _require_current_schema() -> None:
    from hitl_dashboard.services.schema import require_current_schema

    require_current_schema()


def _publish_live_updates() -> None:
    """A CLI process has no browsers; its changes reach them through the web tier: over Redis when
    there is one, else through the database (services/live/live_database.py)."""
    from hitl_dashboard.settings import get_settings

    url = get_settings().redis_url
    if url:
        from hitl_dashboard.services.live.live_redis import install_publisher

        install_publisher(url)
    else:
        from hitl_dashboard.services.live import live_database

        live_database.install_publisher()


if __name__ == "__main__":
    sys.exit(main())
