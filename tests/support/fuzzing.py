"""Run the schemathesis CLI against a running app and read its reports.

The exit code alone cannot tell "found a bug in the API" from "schemathesis itself broke" (a
runtime error, such as CPython 3.11.7's "AST constructor recursion depth mismatch" under
several workers). The JUnit report can: a bug is a <failure>, a runtime error an <error>, each
named by its operation. The HAR report holds every request and response, so a test can check
which operations the fuzzer really reached and with what answers."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse
from xml.etree import ElementTree

SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"


@dataclass(frozen=True)
class Outcome:
    operation: str  # schemathesis's label, e.g. "POST /api/reviews/{review_id}/decision"
    text: str


@dataclass(frozen=True)
class Exchange:
    method: str
    path: str
    status: int  # 0: no response (timeout, connection reset)


@dataclass(frozen=True)
class FuzzRun:
    returncode: int
    stdout: str
    stderr: str
    errors: list[Outcome]  # schemathesis could not test the operation
    failures: list[Outcome]  # schemathesis found the API misbehaving
    exchanges: list[Exchange]

    def statuses(self, method: str, path_pattern: str) -> Counter[int]:
        """How often each status answered requests whose path matches path_pattern (a regex)."""
        pattern = re.compile(path_pattern + "$")
        return Counter(e.status for e in self.exchanges if e.method == method and pattern.match(e.path))

    def problems(self) -> str | None:
        """What went wrong, worded so a CI log says which kind of problem it is; None if nothing."""
        sections = []
        if self.errors:
            sections.append("schemathesis itself failed on these operations (a tool or runtime error, "
                            "not a verdict on the API):\n"
                            + "\n".join(f"- {e.operation}: {e.text.strip()[:2000]}" for e in self.errors))
        if self.failures:
            sections.append("schemathesis found the API breaking its contract:\n"
                            + "\n\n".join(f"- {f.operation}: {f.text.strip()[:4000]}" for f in self.failures))
        if not sections and self.returncode != 0:
            sections.append(f"schemathesis exited with {self.returncode} without reporting an error or a "
                            f"failure:\n{self.stdout[-8000:]}\n{self.stderr[-3000:]}")
        return "\n\n".join(sections) or None


def id_dictionaries(config_path: Path, ids: dict[str, list[int]], probability: float,
                    queries: dict[str, list[str]] | None = None, query_probability: float = 0.95) -> Path:
    """A schemathesis.toml that fills each named path parameter with one of these real ids, and each
    named query parameter with one of these values, with this probability per generated case (the
    rest stay generated, so unknown ids and values are fuzzed too)."""
    lines = []
    for name, values in {**ids, **(queries or {})}.items():
        lines += [f"[dictionaries.{name}]", f"values = {json.dumps(sorted(values))}", ""]
    # A schema-violating body can also be too large (a suggestion's 500 lines of 20,000 characters
    # allow more than the 256 KB limit): 413 rejects it as rightly as 422 does.
    lines += ["[checks.negative_data_rejection]",
              'expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", '
              '"429", "5xx"]', ""]
    lines.append("[parameters]")
    lines += [f'"path.{name}" = {{ dictionary = "{name}", probability = {probability} }}' for name in ids]
    lines += [f'"query.{name}" = {{ dictionary = "{name}", probability = {query_probability} }}'
              for name in queries or {}]
    config_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config_path


def run_schemathesis(schema_url: str, args: list[str], *, config: Path, workdir: Path, timeout_s: float) -> FuzzRun:
    junit, har = workdir / "junit.xml", workdir / "requests.har"
    command = [
        str(SCHEMATHESIS), "--config-file", str(config), "run", schema_url, *args,
        "--report", "junit,har", "--report-junit-path", str(junit), "--report-har-path", str(har),
    ]
    # cwd: schemathesis keeps a cache folder in the current directory.
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, cwd=workdir)
    (workdir / "schemathesis.log").write_text(result.stdout + result.stderr, encoding="utf-8")
    errors, failures = read_junit(junit) if junit.exists() else ([], [])
    exchanges = read_har(har) if har.exists() else []
    return FuzzRun(result.returncode, result.stdout, result.stderr, errors, failures, exchanges)


def read_junit(path: Path) -> tuple[list[Outcome], list[Outcome]]:
    """(errors, failures) of a schemathesis JUnit report, each named by its operation."""
    errors, failures = [], []
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        operation = case.get("name", "?")
        errors += [Outcome(operation, e.text or e.get("message") or "") for e in case.findall("error")]
        failures += [Outcome(operation, f"[{f.get('message', '')}]\n{f.text or ''}") for f in case.findall("failure")]
    return errors, failures


def read_har(path: Path) -> list[Exchange]:
    entries = json.loads(path.read_text(encoding="utf-8"))["log"]["entries"]
    return [Exchange(e["request"]["method"], urlparse(e["request"]["url"]).path, e["response"]["status"])
            for e in entries]
