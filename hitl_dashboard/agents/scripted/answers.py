"""The scripted agents' answers to a reviewer's question (agents/questions.py): deterministic, and
phrased from the question and the code: it quotes the line asked about (or the line of the code the
question's words point at), names the function it is in, and explains what that line does."""

from __future__ import annotations

import ast
import re

_ASKED = re.compile(r"QUESTION FROM REVIEWER (\S+?)(?: about (\S+) line (\d+))?: (.*)", re.S)
_FILE = re.compile(r"^# (\S+)\n", re.M)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.=]{2,}")
_COMMON = {"the", "this", "that", "why", "what", "how", "does", "you", "here", "there", "and", "for", "with",
           "use", "used", "not", "are", "was", "line", "code", "call", "instead", "would", "could", "should"}
# What a line does, by what it contains or what the question names: (cue words, explanation).
_REASONS = (
    (("shell=true", "shell"), "shell=True lets the caller pass a whole command line, pipes included; it also lets "
                              "the shell interpret anything in that string, so it is only safe with trusted input"),
    (("sleep", "backoff", "retry", "attempt"), "it waits and tries again, so a passing failure does not fail the "
                                               "whole call"),
    (("except", "raise", "error"), "it decides which failures are handled here and which reach the caller"),
    (("timeout",), "it bounds how long one call may take, so a hung dependency cannot hold the caller for ever"),
    (("lock", "thread"), "it keeps concurrent callers from changing the same state at once"),
    (("return",), "it hands the result back to the caller unchanged"),
)


def answer(role: str, prompt: str) -> str | None:
    found = _ASKED.search(prompt)
    if found is None:
        return None
    reviewer, key, line, question = found.groups()
    question = question.strip()
    opening = f"{role.capitalize()} answering {reviewer} (\"{question}\"):"
    files = _files(prompt[: found.start()])
    words = {w.lower().rstrip(".?") for w in _WORD.findall(question)} - _COMMON
    key, number, quoted, matched = _pick_line(files, key, int(line) if line else None, words)
    if not quoted:
        return f"{opening} I see no code of mine under review to point at; I worked from the task as written."
    where = _function_at(files.get(key, ""), number)
    if not matched:
        return (f"{opening} nothing in {', '.join(files)} mentions {', '.join(sorted(words)) or 'that'}. The work is "
                f"`{quoted}` (line {number} of {key}) and it does only what the task asked. If you want that "
                "handled, send a revision and I will change the code.")
    about = f"Line {number} of {key} (`{quoted}`)" + (f", in `{where}`," if where else "")
    return (f"{opening} {about} is there because {_reason(quoted, question, where)}. If you want it changed, "
            "send a revision and I will change the code.")


def _files(text: str) -> dict[str, str]:
    marks = list(_FILE.finditer(text))
    ends = [m.start() for m in marks[1:]] + [len(text)] * bool(marks)
    return {m.group(1): text[m.end():end].rstrip("\n") for m, end in zip(marks, ends, strict=True)}


def _pick_line(files: dict[str, str], key: str | None, line: int | None,
               words: set[str]) -> tuple[str, int, str, bool]:
    """(file, line number, line, whether the question is about it): the line asked about; else the
    line sharing most words with the question; else the first def (not what was asked about)."""
    if key in files and line:
        lines = files[key].split("\n")
        return key, line, lines[line - 1].strip() if 0 < line <= len(lines) else "", True
    best: tuple[int, str, int, str] = (0, "", 0, "")
    for name, code in files.items():
        for number, text in enumerate(code.split("\n"), 1):
            score = sum(1 for w in words if w in text.lower())
            if score > best[0] or (not best[1] and text.lstrip().startswith("def ")):
                best = (max(score, best[0]), name, number, text.strip())
    return best[1], best[2], best[3], best[0] > 0


def _function_at(code: str, line: int) -> str:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return ""
    inside = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
              and n.lineno <= line <= (n.end_lineno or n.lineno)]
    return max(inside, key=lambda n: n.lineno).name if inside else ""


def _reason(quoted: str, question: str, where: str) -> str:
    for cues in (quoted.lower(), question.lower()):
        for words, why in _REASONS:
            if any(w in cues for w in words):
                return why
    return f"`{where or 'the module'}` needs it for its part of the task, written the simplest way I could"
