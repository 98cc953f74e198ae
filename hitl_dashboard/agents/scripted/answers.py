"""The scripted agents' answers to a reviewer's question (agents/questions.py): deterministic,
quoting the line asked about, so tests and demos see a real thread."""

from __future__ import annotations

import re

_ASKED = re.compile(r"QUESTION FROM REVIEWER (\S+?)(?: about (\S+) line (\d+))?: (.*)", re.S)
_FILE = re.compile(r"^# (\S+)\n", re.M)


def answer(role: str, prompt: str) -> str | None:
    found = _ASKED.search(prompt)
    if found is None:
        return None
    reviewer, key, line, question = found.groups()
    quoted = _line_of(prompt, key, int(line)) if key and line else ""
    about = f"Line {line} of {key} (`{quoted.strip()}`)" if quoted.strip() else "That part"
    why = ("shell=True lets the caller pass a whole command line, pipes included; it also lets the shell "
           "interpret anything in that string, so it is only safe with trusted input."
           if "shell" in question.lower() or "shell=True" in quoted else
           "it is the simplest thing that does the task as written.")
    return (f"{role.capitalize()} answering {reviewer}: {about} is there because {why} "
            "If you want it changed, send a revision and I will change the code.")


def _line_of(prompt: str, key: str, line: int) -> str:
    for match in _FILE.finditer(prompt):
        if match.group(1) == key:
            lines = prompt[match.end():].split("\n")
            return lines[line - 1] if 0 < line <= len(lines) else ""
    return ""
