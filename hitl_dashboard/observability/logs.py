"""Logging for every process: one JSON object per line in hosted mode (python-json-logger), plain
text in demo mode; each line carries the current request, conversation and review ids.

Nothing secret and no transcript goes out: messages are cut at LOG_MAX_CHARS (an agent's whole
reply never lands in a log), and anything shaped like a credential (bearer tokens, API keys,
passwords in URLs, our own token format) is masked, whatever logger wrote it."""

from __future__ import annotations

import logging
import re
import sys

from hitl_dashboard.domain.text_cuts import cut_visibly
from hitl_dashboard.observability import context

MARKER = "_hitl_handler"
# Libraries whose INFO lines carry whole messages (AutoGen logs every message it routes) or URLs
# (httpx logs each request, and a webhook URL may hold a token): warnings only.
# alembic: the schema check every process runs at start-up would log two INFO lines each time.
QUIET_LIBRARIES = ("autogen_core", "autogen_agentchat", "autogen_ext", "httpx", "httpcore", "openai", "alembic")
_SECRETS = [
    (re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"), r"\1[redacted]"),
    (re.compile(r"(?i)((?:api[_-]?key|token|secret|password|passwd|authorization)\"?\s*[:=]\s*\"?"
                r"(?:bearer\s+)?)[^\s\"',;&]+"), r"\1[redacted]"),
    (re.compile(r"(://[^/\s:@]+:)[^@\s/]+@"), r"\1[redacted]@"),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{12,}"), "[redacted]"),
    (re.compile(r"\bhitl_[A-Za-z0-9_-]{16,}"), "[redacted]"),
]


def scrub(text: str, limit: int) -> str:
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return cut_visibly(text, limit)


class ContextAndSafety(logging.Filter):
    """Adds the current ids; formats, masks and cuts the message once, for every handler."""

    def __init__(self, limit: int):
        super().__init__()
        self.limit = limit

    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in context.current().items():
            setattr(record, name, value)
        record.msg, record.args = scrub(record.getMessage(), self.limit), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:  # another handler may have formatted (and cached) it already
            record.exc_text, record.exc_info = scrub(record.exc_text, self.limit * 4), None
        return True


class _PlainWithIds(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        ids = " ".join(f"{n}={getattr(record, n)}" for n in ("request_id", "conversation_id", "review_id")
                       if getattr(record, n, None) is not None)
        return f"{text} [{ids}]" if ids else text


def configure(*, json_lines: bool, level: str = "INFO", limit: int = 2000, service: str = "") -> None:
    """Idempotent: replaces only the handler it installed before."""
    root = logging.getLogger()
    for handler in [h for h in root.handlers if getattr(h, MARKER, False)]:
        root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    setattr(handler, MARKER, True)
    handler.addFilter(ContextAndSafety(limit))
    if json_lines:
        from pythonjsonlogger.json import JsonFormatter

        handler.setFormatter(JsonFormatter(
            "%(asctime)s %(levelname)s %(name)s %(message)s",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
            static_fields={"service": service} if service else None, timestamp=False,
        ))
    else:
        handler.setFormatter(_PlainWithIds("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in QUIET_LIBRARIES:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
