"""First drafts of small Python modules for the scripted coder, chosen from the task's keywords.

Pure text, no autogen. Drafts are deliberately first-draft quality (no type hints, docstrings, logging
or input checks) so reviewer instructions have something real to change (see scripted_revise.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FENCE = "```"


@dataclass(frozen=True)
class CodeFile:
    path: str
    code: str  # the file's text; line 1 is the "# file: <path>" comment
    language: str = "python"


_RETRY = '''import random
import time

MAX_ATTEMPTS = 5
BASE_DELAY_S = 0.2


def backoff_delay(attempt, base_delay=BASE_DELAY_S):
    # Full jitter keeps many clients from retrying in lockstep.
    return random.uniform(0, base_delay * 2 ** attempt)


def call_with_retry(func, *args, attempts=MAX_ATTEMPTS, retry_on=(ConnectionError,), **kwargs):
    last_error = None
    for attempt in range(attempts):
        try:
            return func(*args, **kwargs)
        except retry_on as exc:
            last_error = exc
            time.sleep(backoff_delay(attempt))
    raise RuntimeError(f"gave up after {attempts} attempts") from last_error
'''

_HTTP = '''import json
import urllib.parse
import urllib.request

BASE_URL = "https://api.example.com"


def build_url(path, params=None):
    query = urllib.parse.urlencode(params or {})
    return f"{BASE_URL}/{path.lstrip('/')}" + (f"?{query}" if query else "")


def fetch_json(path, params=None):
    request = urllib.request.Request(build_url(path, params), headers={"Accept": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read().decode("utf-8"))
'''

_CACHE = '''import time

DEFAULT_TTL_S = 300


class TTLCache:
    def __init__(self, ttl=DEFAULT_TTL_S):
        self.ttl = ttl
        self._entries = {}

    def get(self, key):
        entry = self._entries.get(key)
        if entry is None or entry[1] < time.monotonic():
            self._entries.pop(key, None)
            return None
        return entry[0]

    def put(self, key, value):
        self._entries[key] = (value, time.monotonic() + self.ttl)


def cached_lookup(cache, key, loader):
    value = cache.get(key)
    if value is None:
        value = loader(key)
        cache.put(key, value)
    return value
'''

_RATE_LIMIT = '''import time

RATE_PER_S = 10
BURST = 20


class TokenBucket:
    def __init__(self, rate=RATE_PER_S, burst=BURST):
        self.rate = rate
        self.capacity = burst
        self.tokens = burst
        self.updated = time.monotonic()

    def refill(self):
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
        self.updated = now


def allow_request(bucket, cost=1):
    bucket.refill()
    if bucket.tokens < cost:
        return False
    bucket.tokens -= cost
    return True
'''

_CSV = '''import csv
import io

REQUIRED_COLUMNS = ("email", "name")


def normalize_row(row):
    return {key.strip().lower(): (value or "").strip() for key, value in row.items()}


def import_csv(text, delimiter=","):
    reader = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    rows, rejected = [], []
    for row in map(normalize_row, reader):
        if all(row.get(column) for column in REQUIRED_COLUMNS):
            rows.append(row)
        else:
            rejected.append(row)
    return rows, rejected
'''

_PASSWORD = '''import hashlib
import hmac
import os

ITERATIONS = 600_000


def hash_password(password, salt=None):
    salt = salt or os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, ITERATIONS)
    return salt.hex() + ":" + digest.hex()


def verify_password(password, stored):
    salt_hex, digest_hex = stored.split(":", 1)
    candidate = hash_password(password, bytes.fromhex(salt_hex)).split(":", 1)[1]
    # Constant-time comparison: no timing hints about how much matched.
    return hmac.compare_digest(candidate, digest_hex)
'''

# A first draft a security reviewer should stop (issue 14's static-analysis findings): an unused
# import (ruff F401) and a shell command built from its input (bandit B602, high).
_SHELL = '''import os
import subprocess


def run_command(cmd):
    return subprocess.call(cmd, shell=True)
'''

_GENERIC = '''from dataclasses import dataclass


@dataclass
class {camel}Result:
    key: str
    count: int


def normalize(value):
    return " ".join(str(value).split()).lower()


def {snake}(items):
    counts = {{}}
    for item in items:
        key = normalize(item)
        if key:
            counts[key] = counts.get(key, 0) + 1
    return [{camel}Result(key, count) for key, count in sorted(counts.items())]
'''

# (keywords, path, template): the first entry whose keyword occurs in the task wins.
_TEMPLATES = [
    (("shell command", "run a command", "subprocess"), "app/shell_runner.py", _SHELL),
    (("retry", "retries", "backoff", "flaky", "resilien"), "app/retry.py", _RETRY),
    (("rate limit", "rate-limit", "throttl", "token bucket"), "app/rate_limiter.py", _RATE_LIMIT),
    (("cache", "caching", "memoi", "ttl"), "app/cache.py", _CACHE),
    (("csv", "import", "parse", "spreadsheet"), "app/csv_import.py", _CSV),
    (("password", "login", "auth", "credential"), "app/passwords.py", _PASSWORD),
    (("http", "fetch", "api client", "endpoint", "webhook", "request"), "app/http_client.py", _HTTP),
]

_STOPWORDS = set(
    "a an the to for of and or in on with our we add make write create build implement please new into "
    "that this from by small simple module function code python support feature tests test".split()
)


def draft_files(task: str) -> list[CodeFile]:
    """The first implementation for ``task``: one module, plus a test module when tests are asked for."""
    lowered = task.lower()
    for keywords, path, template in _TEMPLATES:
        if any(k in lowered for k in keywords):
            module = CodeFile(path, f"# file: {path}\n{template}")
            break
    else:
        snake = _slug(task)
        camel = "".join(part.title() for part in snake.split("_"))
        path = f"app/{snake}.py"
        module = CodeFile(path, f"# file: {path}\n" + _GENERIC.format(snake=snake, camel=camel))
    files = [module]
    if re.search(r"\btests?\b", lowered):
        files.append(_test_file(module))
    return files


def _slug(task: str) -> str:
    words = [w for w in re.findall(r"[a-z][a-z0-9]*", task.lower()) if w not in _STOPWORDS]
    return "_".join(words[:2]) or "task_helper"


def _test_file(module: CodeFile) -> CodeFile:
    name = module.path.rsplit("/", 1)[-1].removesuffix(".py")
    path = f"tests/test_{name}.py"
    functions = re.findall(r"^def ([a-z_]+)\(", module.code, flags=re.M)
    checks = "\n".join(f"    assert callable({name}.{fn})" for fn in functions) or "    assert True"
    code = f"# file: {path}\nfrom app import {name}\n\n\ndef test_public_api_exists():\n{checks}\n"
    return CodeFile(path, code)


def render_blocks(files: list[CodeFile]) -> str:
    return "\n\n".join(f"{FENCE}{f.language}\n{f.code.rstrip()}\n{FENCE}" for f in files)


_BLOCK = re.compile(r"```(\w*)\n(#\s*file:\s*(\S+)[^\n]*\n.*?)```", re.S)


def parse_blocks(text: str) -> list[CodeFile]:
    """Code blocks whose first line names their file, in order of appearance."""
    return [CodeFile(path, code, language or "python") for language, code, path in _BLOCK.findall(text)]
