"""Python 3.12-only code (PEP 695) with the call the findings gate exists to catch, and a team whose
coder may write it: the "not analysed" tests of issue 28, in-process and in Chromium."""

from __future__ import annotations


def py312_reply(path: str) -> str:
    """A coder's turn proposing `path`: valid Python 3.12 that a 3.11 parser cannot read."""
    return f'''```python
# file: {path}
import subprocess

type Command = str


def run[T](cmd: Command, default: T) -> int | T:
    return subprocess.call(cmd, shell=True) or default
```
CONFIDENCE: 0.9
Ready for review.'''


def findings_gated_team(name: str, python_version: str | None) -> str:
    """Planner then coder, both on the server's model (routable per agent); only the findings gate
    stops it (mode never). python_version None: the file does not declare one."""
    declared = f'python_version: "{python_version}"\n' if python_version else ""
    return f"""
name: {name}
agents:
  - {{name: planner, description: Plans, model: server, system_prompt: Plan it.}}
  - {{name: coder, description: Writes the code, model: server, system_prompt: Write it.}}
models:
  server: {{provider: server}}
speaker_order: {{mode: planner_then_producer, planner: planner}}
task_types:
  code: {{producer: coder, sign_off: [security_reviewer, final_approver]}}
gates: {{mode: never, min_finding_severity: high}}
{declared}"""
