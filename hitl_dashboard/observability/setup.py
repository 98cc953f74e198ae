"""One call per process, at its start: logs (JSON lines in hosted mode) and traces (when an OTLP
endpoint is configured). Web workers call it from the app module, the CLI from its entry point."""

from __future__ import annotations

from hitl_dashboard.observability import logs, tracing


def setup(process: str, *, quiet: bool = False) -> None:
    """process: "web", "runner" or "cli" (a resource attribute of its spans, a field of its logs).
    quiet: only warnings (CLI commands whose output is for people)."""
    from hitl_dashboard.settings import get_settings

    settings = get_settings()
    json_lines = settings.log_format == "json" or (settings.log_format == "auto" and not settings.demo_mode)
    logs.configure(json_lines=json_lines, level="WARNING" if quiet else settings.log_level,
                   limit=settings.log_max_chars, service=process)
    tracing.configure(process)
