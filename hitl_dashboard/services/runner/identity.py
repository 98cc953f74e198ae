"""Who a runner is, as the audit trail shows it: the actor "runner" (what a reader looks for), and
in the detail the host and process that did it (what an operator needs to find its logs)."""

from __future__ import annotations

import os
import socket
import uuid

RUNNER_ACTOR = "runner"


def new_runner_id() -> str:
    """Unique per runner loop: host, process id and a tag (several loops may share a process)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


def runner_details(runner_id: str) -> dict[str, object]:
    host, _, rest = runner_id.partition(":")
    process, _, _tag = rest.partition(":")
    if not process.isdigit():  # not one of new_runner_id's (a test's or an older runner's name)
        return {"runner_id": runner_id}
    return {"host": host, "process": int(process), "runner_id": runner_id}
