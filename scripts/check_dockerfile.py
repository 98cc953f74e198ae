"""`make lint`'s check of the Dockerfile, which CI never builds (no container runtime; docs/deploy.md).

The image must install and start the way CI does, so every RUN is one of the scripts CI runs and the
command is the web worker's script; no step may hide a failure; the final stage is a slim Python
image, runs as a user other than root, and has a health check on /api/health.

    python scripts/check_dockerfile.py [DOCKERFILE]    exit 1 with one line per problem
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The scripts CI runs (.ci/run: make test, then make run from a fresh clone):
RUN_SCRIPTS = {"scripts/bootstrap.sh"}  # common.sh's bootstrap, as run.sh and test.sh call it
START_SCRIPTS = {"scripts/serve.sh"}  # make run's last step; tests/e2e start the app with it
HIDES_A_FAILURE = re.compile(r"\|\|\s*(true|:|exit 0)\b|set \+e|;\s*true\b|--no-fail|2>\s*/dev/null\s*\|\|")


def instructions(text: str) -> list[tuple[int, str, str]]:
    """(line number, INSTRUCTION, arguments), continuation lines joined, comments left out."""
    found: list[tuple[int, str, str]] = []
    pending, start = "", 0
    for number, line in enumerate(text.splitlines(), 1):
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        start = start or number
        pending += line.rstrip().removesuffix("\\") + " "
        if line.rstrip().endswith("\\"):
            continue
        keyword, _, rest = pending.strip().partition(" ")
        found.append((start, keyword.upper(), rest.strip()))
        pending, start = "", 0
    return found


def command_words(arguments: str) -> list[str]:
    """The command's words; a shell form that does more than run one command (&&, ;, |, $(...),
    redirections) is one unrecognisable word, so it never passes for a script."""
    if arguments.startswith("["):
        return list(json.loads(arguments))
    return [arguments] if re.search(r"[;&|`$<>]", arguments) else arguments.split()


def problems(text: str) -> list[str]:
    found: list[str] = []
    steps = instructions(text)
    final = max((i for i, (_, keyword, _) in enumerate(steps) if keyword == "FROM"), default=0)
    for number, keyword, arguments in steps:
        where = f"line {number}: {keyword}"
        if HIDES_A_FAILURE.search(arguments):
            found.append(f"{where} hides a failure ({HIDES_A_FAILURE.search(arguments).group(0)!r})")
        if keyword == "RUN" and command_words(arguments) and command_words(arguments)[0] not in RUN_SCRIPTS:
            found.append(f"{where} runs {arguments!r}; only {', '.join(sorted(RUN_SCRIPTS))} (what CI runs)")
        if keyword in ("CMD", "ENTRYPOINT") and command_words(arguments)[:1] != sorted(START_SCRIPTS)[:1]:
            found.append(f"{where} starts {arguments!r}; the web worker starts with {', '.join(sorted(START_SCRIPTS))}")
    final_steps = steps[final:]
    base = final_steps[0][2] if final_steps else ""
    if not re.match(r"python:[\w.]+-slim", base):
        found.append(f"the image's base is {base!r}, not a slim Python image")
    users = [arguments for _, keyword, arguments in final_steps if keyword == "USER"]
    if not users or users[-1].split(":")[0] in ("root", "0"):
        found.append("the image runs as root: add USER with another user")
    if not any(keyword == "HEALTHCHECK" and "/api/health" in arguments for _, keyword, arguments in final_steps):
        found.append("no HEALTHCHECK on /api/health")
    return found


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else ROOT / "Dockerfile"
    found = problems(path.read_text())
    for problem in found:
        print(f"{path.name}: {problem}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
