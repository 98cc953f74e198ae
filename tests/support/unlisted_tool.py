"""A tool function no team of the product names, for tests/test_web_team_policy.py: a team saved
from the web may not name it unless the operator lists it (TEAM_TOOL_FUNCTIONS). Each call, and the
import itself, leave a line in the file named by UNLISTED_TOOL_LOG, so a test can see that a refused
team never imported or ran it."""

from __future__ import annotations

import os

from hitl_dashboard.agents.tools import DeployArgs


def _log(line: str) -> None:
    path = os.environ.get("UNLISTED_TOOL_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(line + "\n")


_log("imported")


async def deploy(args: DeployArgs) -> str:
    """Deploy a service version to an environment (a stand-in that only logs)."""
    _log(f"ran {args.service} {args.version}")
    return f"deployed {args.service} {args.version}"
