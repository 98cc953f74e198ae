"""Decisions over the HTTP API, 200 concurrent reviewers, PostgreSQL, the hosted setup (issue 12).

Target: >= 300 decisions/s with 200 clients, p95 <= 500 ms, no 503, none lost, none applied twice.

The server is the hosted web tier on this machine: `reflex run --env prod --backend-only` (gunicorn + uvicorn
as shipped, or --servers granian; both in one run: --servers uvicorn granian, this checkout only;
WEB_WORKERS workers, Reflex's Redis state manager, live refresh after every decision, rate limits
raised for the run), on a fresh PostgreSQL database. No runner process: the agent work that follows a
decision is not what is measured (RUNNER_IN_WEB=false as in scripts/run-hosted.sh).

Data (bulk-seeded): 200 reviewers (half security_reviewer, half product_reviewer), each with an
API token; one conversation per review request, paused at a gate with five messages and one pending
gate review for its role; each client is handed its own requests (as if picked from its queue). Each
client then loops: POST /claim, POST /decision (every fourth one a revise with instructions, the
rest approvals, each with an Idempotency-Key; a transport error is retried with the same key), until
the time is up. Decisions/s = 2xx decisions / wall time.

Then the database itself is checked: every 2xx decision has its row (same id, same review), no review
has more than one decision, no decision exists that no client asked for, each conversation has one
decision note in its transcript per decision, and the audit chain verifies from event 1.

CPU per decision against its floor (issue 33; target <= 2x for the decision alone, --no-claim):
before its decisions, each server answers the same clients' authenticated read-only requests that
end in 404 (GET /api/conversations/<unknown>: rate limits, token check, one lookup) for
--floor-seconds; the bench prints CPU (web tier + PostgreSQL) per decision beside CPU per 404, and
their ratio, for the code under test and for the baseline.

Baseline, same run: the same bench against the code at --baseline-commit (default 33ea0c1, the main
before issue 33's decision work), checked out with `git worktree add` into a temporary folder and
served from there (PYTHONPATH pointed at it), same worker count, same seed, its own fresh database.

    .venv/bin/python bench/decisions_api.py [--quick] [--workers 4] [--clients 200] [--seconds 30]
        [--no-baseline] [--no-claim] [--floor-seconds S]"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._support import ROOT, free_port, p95, temporary_database, wait_until_answers  # noqa: E402
from bench._web_servers import SERVERS  # noqa: E402
from bench._web_servers import server_env as server_env_for  # noqa: E402
from tests.e2e.app_process import proc_stats  # noqa: E402

BASELINE_COMMIT = "33ea0c1"  # the main before issue 33's decision work
ROLES = ("security_reviewer", "product_reviewer")
MESSAGES_PER_CONVERSATION = 5
TARGET_PER_S, TARGET_P95_MS = 300.0, 500.0
TARGET_COST_RATIO = 2.0  # CPU per decision alone / CPU per authenticated 404 (issue 33)
REDIS_BASE = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379")
# The tests use db 7; each server here flushes its own.
REDIS_DB = {"new": 13, "baseline": 14, "granian": 13, "uvicorn": 14}


@dataclass
class Client:
    token: str
    reviews: list[int]
    ok: dict[int, int] = field(default_factory=dict)  # review id -> decision id (2xx answers)
    statuses: Counter = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)  # decision requests
    cycles_ms: list[float] = field(default_factory=list)  # claim + decision


def seed(clients: int, per_client: int) -> list[Client]:
    """Bulk insert (executemany): users, tokens, conversations paused at a gate, their messages
    and one pending gate review each. Returns the clients with their tokens and review ids."""
    from argon2 import PasswordHasher

    from hitl_dashboard.db.engine import get_engine
    from hitl_dashboard.db.models import ApiToken, Conversation, Message, ReviewRequest, User, utcnow
    from hitl_dashboard.db.workspace_models import WorkspaceMember
    from hitl_dashboard.services.auth.tokens import TOKEN_PREFIX, hash_token

    now = utcnow()
    password_hash = PasswordHasher().hash("bench-password-not-used")
    users = [dict(id=1, username="ivan", password_hash=password_hash, roles=["security_reviewer"],
                  is_active=True, is_demo=False, created_at=now, display_name="")]
    tokens, plaintexts = [], []
    for i in range(clients):
        uid = i + 2
        users.append(dict(id=uid, username=f"reviewer{i}", password_hash=password_hash, roles=[ROLES[i % 2]],
                          is_active=True, is_demo=False, created_at=now, display_name=""))
        plaintext = TOKEN_PREFIX + uuid.uuid4().hex + uuid.uuid4().hex
        plaintexts.append(plaintext)
        tokens.append(dict(user_id=uid, name="bench", kind="api", token_hash=hash_token(plaintext),
                           prefix=plaintext[:11], created_at=now))
    convs, msgs, reviews = [], [], []
    result = [Client(plaintexts[i], []) for i in range(clients)]
    cid = 0
    for _ in range(per_client):
        for i in range(clients):
            cid += 1
            created = now - timedelta(minutes=30)
            convs.append(dict(
                id=cid, workspace_id=1, title=f"Task {cid}", task=f"Add retry with backoff to client {cid}",
                task_type="code",
                template="code", gate_policy={}, model_routing={}, on_overdue="escalate", status="awaiting_review",
                initiator_id=1, prompt_tokens=500, completion_tokens=200, checkpoint_version=MESSAGES_PER_CONVERSATION,
                turns_since_review=0, next_seq=MESSAGES_PER_CONVERSATION + 1, crash_count=0, created_at=created,
                updated_at=created))
            for seq in range(1, MESSAGES_PER_CONVERSATION + 1):
                msgs.append(dict(conversation_id=cid, workspace_id=1, seq=seq, source="coder" if seq % 2 else "planner",
                                 kind="text", content=f"Turn {seq} of conversation {cid}: a proposed change.",
                                 prompt_tokens=100, completion_tokens=40, created_at=created + timedelta(seconds=seq)))
            reviews.append(dict(
                id=cid, workspace_id=1, conversation_id=cid, kind="gate", required_role=ROLES[i % 2], rule="gate",
                reason="Look at the proposed change", risk_flags=[], subject_type="message", subject_id=cid,
                subject_label="coder message", content_hash="0" * 64, status="pending",
                due_at=now + timedelta(hours=1 + (cid % 48)), version=1, created_at=created))
            result[i].reviews.append(cid)
    engine = get_engine()
    with engine.begin() as conn:
        # Roles are held per workspace (issue 41): each user a member of the default workspace with its role.
        members = [dict(workspace_id=1, user_id=user["id"], roles=user["roles"], created_at=now) for user in users]
        for table, rows in ((User.__table__, users), (WorkspaceMember.__table__, members), (ApiToken.__table__, tokens),
                            (Conversation.__table__, convs), (Message.__table__, msgs),
                            (ReviewRequest.__table__, reviews)):
            for start in range(0, len(rows), 10_000):
                conn.execute(table.insert(), rows[start:start + 10_000])
        for table in ("users", "conversations", "messages", "review_requests", "api_tokens"):
            conn.exec_driver_sql(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                 f"(SELECT max(id) FROM {table}))")
        conn.exec_driver_sql("ANALYZE")  # as autovacuum would soon after a bulk load
    return result


@contextlib.contextmanager
def hosted_web_tier(code_dir: Path, database_url: str, redis_url: str, workers: int, workdir: Path,
                    extra_env: dict[str, str]):
    """`reflex run --env prod --backend-only` from code_dir with WEB_WORKERS web workers."""
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    port = free_port()
    unlimited = "10000000/minute"
    env = {
        **os.environ,
        "PATH": f"{ROOT / '.tools' / 'node_modules' / '.bin'}:{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}",
        "PYTHONPATH": str(code_dir), "REFLEX_USE_SYSTEM_BUN": "1", "REFLEX_TELEMETRY_ENABLED": "false",
        "REFLEX_CHECK_LATEST_VERSION": "false", "REFLEX_STATES_WORKDIR": str(workdir / "states"),
        "DATABASE_URL": database_url, "REDIS_URL": redis_url, "DEMO_MODE": "false", "RUNNER_IN_WEB": "false",
        "GRANIAN_WORKERS": str(workers), "WEB_WORKERS": str(workers),
        "API_RATE_LIMIT": unlimited, "API_ADDRESS_RATE_LIMIT": unlimited,
        "AUDIT_ANCHOR_FILE": str(workdir / "audit-heads.jsonl"), "DEPLOY_LOG_PATH": str(workdir / "deploys.jsonl"),
        **extra_env,
    }
    log_path = workdir / "web.log"
    with open(log_path, "ab") as log:
        server = subprocess.Popen(
            [str(ROOT / ".venv" / "bin" / "reflex"), "run", "--env", "prod", "--backend-only",
             "--backend-port", str(port), "--backend-host", "127.0.0.1"],
            cwd=code_dir, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answers(server, f"{base}/api/health", 180, lambda: log_path.read_text()[-3000:])
        yield base, server.pid
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGKILL)
            server.wait()


async def reviewer(client: Client, http, deadline: float, index: int, claim_first: bool) -> None:  # noqa: ANN001
    headers = {"Authorization": f"Bearer {client.token}"}
    for n, review_id in enumerate(client.reviews):
        if time.monotonic() >= deadline:
            return
        start = time.perf_counter()
        if claim_first:  # as a person does in the dashboard; a bot may decide an unclaimed request
            claim = await _post(http, f"/api/reviews/{review_id}/claim", headers, None, client)
            if claim is None or claim.status_code != 200:
                continue
        revise = (n + index) % 4 == 0
        body = ({"action": "revise", "instructions": "add a timeout to every call"} if revise
                else {"action": "approve", "reason": "looks right"})
        key = {**headers, "Idempotency-Key": f"bench-{review_id}-{uuid.uuid4().hex[:8]}"}
        sent = time.perf_counter()
        answer = await _post(http, f"/api/reviews/{review_id}/decision", key, body, client, retries=3)
        done = time.perf_counter()
        if answer is None:
            continue
        client.latencies_ms.append((done - sent) * 1000)
        client.cycles_ms.append((done - start) * 1000)
        if 200 <= answer.status_code < 300:
            client.ok[review_id] = answer.json()["decision_id"]


async def _post(http, path: str, headers: dict, body: dict | None, client: Client, retries: int = 0):  # noqa: ANN001
    from bench._http import TransportError

    for attempt in range(retries + 1):
        try:
            response = await http.post(path, headers, body)
        except TransportError as exc:
            client.statuses[f"transport error ({exc})"] += 1
            if attempt == retries:
                return None
            continue
        client.statuses[response.status_code] += 1
        if response.status_code == 503 and attempt < retries:
            continue  # what a client does with a 503: try again (same Idempotency-Key)
        return response
    return None


async def load(base: str, clients: list[Client], seconds: float, work) -> float:  # noqa: ANN001
    """Runs `work(index, client, connection, deadline)` for every client at once until the deadline;
    returns the wall time."""
    from urllib.parse import urlsplit

    from bench._http import Connection

    # One keep-alive connection per reviewer, as 200 separate reviewers would have, through the lean
    # client in bench/_http.py: httpx (one AsyncClient per reviewer) spent 15.6 ms of this process's
    # CPU per decision, on the 2 cores the server needs (one shared httpx client with a 200-connection
    # pool: 18-21 ms, in its pool scan).
    address = urlsplit(base)
    connections = [Connection(address.hostname, address.port, timeout=120) for _ in clients]
    start = time.monotonic()
    deadline = start + seconds
    try:
        await asyncio.gather(*(work(i, c, http, deadline)
                               for i, (c, http) in enumerate(zip(clients, connections, strict=True))))
    finally:
        for connection in connections:
            await connection.close()
    return time.monotonic() - start


# The floor (--floor): requests that do a small part of a decision's work, from the same clients to the
# same web tier. A decision costs at least what its authentication and one lookup cost, so the rate
# at which the machine serves the read-only 404 is a ceiling for decisions on it; the claim's 404 adds
# what opening and ending a write transaction costs.
FLOOR_PROBES = (
    ("GET /api/health (no token; one database round trip)", "GET", lambda review: "/api/health", False),
    ("GET /api/conversations/<unknown> (token check, one read-only lookup, 404)", "GET",
     lambda review: f"/api/conversations/{10**9 + review}", True),
    ("POST /api/reviews/<unknown>/claim (token check, a write transaction that finds nothing, 404)", "POST",
     lambda review: f"/api/reviews/{10**9 + review}/claim", True),
)


async def probe_load(base: str, clients: list[Client], seconds: float, method: str, path_of, with_token: bool
                     ) -> tuple[int, float, Counter, list[float]]:
    from bench._http import TransportError

    statuses: Counter = Counter()
    latencies: list[float] = []

    async def one(_index: int, client: Client, http, deadline: float) -> None:  # noqa: ANN001
        headers = {"Authorization": f"Bearer {client.token}"} if with_token else {}
        n = 0
        while time.monotonic() < deadline:
            sent = time.perf_counter()
            try:
                answer = await http.request(method, path_of(n), headers)
            except TransportError as exc:
                statuses[f"transport error ({exc})"] += 1
                continue
            latencies.append((time.perf_counter() - sent) * 1000)
            statuses[answer.status_code] += 1
            n += 1

    wall = await load(base, clients, seconds, one)
    return len(latencies), wall, statuses, sorted(latencies)


def run_floor(clients_n: int, workers: int, seconds: float) -> None:
    """Each probe for `seconds` against one hosted web tier; prints its rate and CPU per request."""
    with temporary_database("postgresql") as url, tempfile.TemporaryDirectory(prefix="hitl-dec-") as tmp:
        clients = seed(clients_n, 1)
        with hosted_web_tier(ROOT, url, f"{REDIS_BASE}/{REDIS_DB['new']}", workers, Path(tmp), {}) as (base, group):
            for label, method, path_of, with_token in FLOOR_PROBES:
                meter = CpuMeter(group, url)
                meter.start()
                done, wall, statuses, latencies = asyncio.run(
                    probe_load(base, clients, seconds, method, path_of, with_token))
                meter.stop()
                web_ms, pg_ms, client_ms = meter.per(done)
                ceiling = (os.cpu_count() or 1) * 1000 / (web_ms + pg_ms)
                print(f"  floor: {label}: {done / wall:.0f} requests/s, p50 {statistics.median(latencies):.0f} ms, "
                      f"p95 {p95(latencies):.0f} ms; CPU per request: web tier {web_ms:.2f} ms, PostgreSQL "
                      f"{pg_ms:.2f} ms, bench client {client_ms:.2f} ms; the {os.cpu_count()} cores' ceiling at "
                      f"that cost (server only): {ceiling:.0f}/s; statuses {dict(statuses)}", flush=True)
        minimal_decision_floor(url, clients_n, seconds)


def minimal_decision_floor(url: str, reviews: int, seconds: float, clients: int = 20) -> None:
    """pgbench runs bench/sql/minimal_decision.sql (the least a decision writes, one transaction,
    prepared statements) on the seeded database: PostgreSQL's own CPU per decision at best."""
    import shutil

    if shutil.which("pgbench") is None:
        print("  floor: pgbench not installed (Debian: postgresql-client); the minimal decision is not measured")
        return
    name = url.rsplit("/", 1)[1]
    command = ["pgbench", "-n", "-M", "prepared", "-c", str(clients), "-j", "2", "-T", str(int(seconds)),
               "-D", f"reviews={reviews}", "-f", str(ROOT / "bench" / "sql" / "minimal_decision.sql"),
               "-h", "127.0.0.1", "-U", "postgres", name]
    bench = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    time.sleep(min(3.0, seconds / 4))  # its connections are open
    before, start = _postgres_cpu(url, application="pgbench"), time.monotonic()
    time.sleep(seconds / 2)
    after, wall = _postgres_cpu(url, application="pgbench"), time.monotonic() - start
    output = bench.communicate()[0]
    tps = [float(line.split()[2]) for line in output.splitlines() if line.startswith("tps")]
    if bench.returncode != 0 or not tps:
        print(f"  floor: pgbench failed: {output[-500:]}")
        return
    used = sum(after[pid] - before.get(pid, 0.0) for pid in after)
    print(f"  floor: the least a decision writes (bench/sql/minimal_decision.sql, pgbench, {clients} "
          f"connections): {tps[0]:.0f} transactions/s, PostgreSQL CPU {used * 1000 / (tps[0] * wall):.2f} ms each",
          flush=True)


def check_database(clients: list[Client]) -> dict[str, int | bool | str]:
    """What the database says happened, against what the clients were told."""
    from sqlalchemy import text

    from hitl_dashboard.db.uow import UnitOfWork
    from hitl_dashboard.domain.audit_chain import verify_chain
    from hitl_dashboard.services.audit.audit_rows import chain_rows

    acknowledged = {rid: did for c in clients for rid, did in c.ok.items()}
    with UnitOfWork(read_only=True) as uow:
        rows = uow.session.execute(text("SELECT id, review_request_id FROM decisions")).all()
        notes = uow.session.execute(text(
            "SELECT conversation_id, count(*) FROM messages WHERE kind = 'decision' GROUP BY conversation_id"
        )).all()
        decided = uow.session.execute(text("SELECT count(*) FROM review_requests WHERE status = 'decided'")).scalar()
        audit_decisions = uow.session.execute(text(
            "SELECT count(*) FROM audit_events WHERE action = 'decision.recorded'")).scalar()
        report = verify_chain(chain_rows(uow))
    by_review = Counter(review for _, review in rows)
    stored = {decision_id: review for decision_id, review in rows}
    lost = sum(1 for rid, did in acknowledged.items() if stored.get(did) != rid)
    notes_by_conv = dict(notes)  # conversation id == review id in this data set
    return {
        "acknowledged (2xx)": len(acknowledged),
        "decision rows": len(rows),
        "lost (2xx without its row)": lost,
        "applied twice (reviews with > 1 decision)": sum(1 for n in by_review.values() if n > 1),
        "transcript notes != decisions": sum(1 for rid, n in by_review.items() if notes_by_conv.get(rid, 0) != n),
        "rows without a 2xx (client gave up)": sum(1 for rid in by_review if rid not in acknowledged),
        "reviews decided": decided,
        "audit decision events": audit_decisions,
        "audit chain verifies": report.ok,
        "audit events checked": report.checked,
    }


def run_one(label: str, code_dir: Path, clients_n: int, per_client: int, workers: int, seconds: float,
            claim_first: bool = True, server_env: dict[str, str] | None = None, floor_seconds: float = 0) -> dict:
    with temporary_database("postgresql") as url, tempfile.TemporaryDirectory(prefix="hitl-dec-") as tmp:
        seeded = time.perf_counter()
        clients = seed(clients_n, per_client)
        print(f"  [{label}] seeded {clients_n * per_client} pending reviews in {time.perf_counter() - seeded:.1f} s",
              flush=True)
        redis_url = f"{REDIS_BASE}/{REDIS_DB[label]}"
        with hosted_web_tier(code_dir, url, redis_url, workers, Path(tmp), server_env or {}) as (base, group):
            floor = floor_404(base, group, url, clients, floor_seconds) if floor_seconds else None
            meter = CpuMeter(group, url)
            meter.start()
            wall = asyncio.run(load(base, clients, seconds, lambda i, client, http, deadline:
                                    reviewer(client, http, deadline, i, claim_first)))
            meter.stop()
            load_avg = os.getloadavg()
        keep = Path(tempfile.gettempdir()) / f"hitl-decisions-bench-web-{label}.log"
        keep.write_bytes((Path(tmp) / "web.log").read_bytes())  # for a look at 5xx after the run
        check = check_database(clients)
    latencies = sorted(x for c in clients for x in c.latencies_ms)
    cycles = sorted(x for c in clients for x in c.cycles_ms)
    statuses = sum((c.statuses for c in clients), Counter())
    decided = check["acknowledged (2xx)"]
    web_ms, pg_ms, _client_ms = meter.per(decided)
    return {
        "label": label, "per_s": decided / wall, "wall": wall, "decided": decided,
        "p50": statistics.median(latencies) if latencies else float("nan"),
        "p95": p95(latencies) if latencies else float("nan"),
        "cycle_p95": p95(cycles) if cycles else float("nan"),
        "statuses": dict(sorted(statuses.items(), key=lambda kv: str(kv[0]))),
        "check": check, "client_cpu_s": meter.client_s, "web_cpu_ms": web_ms, "pg_cpu_ms": pg_ms,
        "load": load_avg, "floor": floor,
    }


def floor_404(base: str, group: int, url: str, clients: list[Client], seconds: float) -> dict:
    """The floor a decision is compared with, on the same server just before the decisions: the same
    clients' authenticated read-only requests that answer 404 (token check, rate limits, one lookup)."""
    _label, method, path_of, with_token = FLOOR_PROBES[1]
    asyncio.run(warm_up(base, clients, method, path_of))
    meter = CpuMeter(group, url)
    meter.start()
    done, wall, statuses, _latencies = asyncio.run(probe_load(base, clients, seconds, method, path_of, with_token))
    meter.stop()
    web_ms, pg_ms, _client_ms = meter.per(done)
    return {"per_s": done / wall, "web_cpu_ms": web_ms, "pg_cpu_ms": pg_ms, "statuses": dict(statuses)}


async def warm_up(base: str, clients: list[Client], method: str, path_of) -> None:  # noqa: ANN001
    """One unmeasured request per client first: its token's first use writes last_used_at (then once a
    minute), which neither the floor nor the decisions after it should carry."""

    async def one(_index: int, client: Client, http, _deadline: float) -> None:  # noqa: ANN001
        await http.request(method, path_of(0), {"Authorization": f"Bearer {client.token}"})

    await load(base, clients, 0, one)


def cost_ratio(result: dict) -> float:
    """CPU (web tier + PostgreSQL) per decision over CPU per authenticated 404: the target's figure."""
    floor = result["floor"]
    return (result["web_cpu_ms"] + result["pg_cpu_ms"]) / (floor["web_cpu_ms"] + floor["pg_cpu_ms"])


def cost_line(result: dict, what: str) -> str:
    floor = result["floor"]
    return (f"{what} {result['web_cpu_ms'] + result['pg_cpu_ms']:.2f} ms (web tier {result['web_cpu_ms']:.2f} + "
            f"PostgreSQL {result['pg_cpu_ms']:.2f}) against {floor['web_cpu_ms'] + floor['pg_cpu_ms']:.2f} ms per "
            f"authenticated 404 ({floor['web_cpu_ms']:.2f} + {floor['pg_cpu_ms']:.2f}, {floor['per_s']:.0f}/s, "
            f"statuses {floor['statuses']}): ratio {cost_ratio(result):.2f}x")


@dataclass
class CpuMeter:
    """CPU used between `start()` and `stop()` by the web tier's processes, the database's PostgreSQL
    backends and this process (the bench client)."""

    group: int
    url: str
    seen: list[tuple[dict[int, float], dict[int, float], float]] = field(default_factory=list)

    def start(self) -> None:
        self.seen = [(cpu_seconds(_group_pids(self.group)), _postgres_cpu(self.url), _own_cpu_s())]

    def stop(self) -> None:
        self.seen.append((cpu_seconds(_group_pids(self.group)), _postgres_cpu(self.url), _own_cpu_s()))

    @property
    def client_s(self) -> float:
        return self.seen[1][2] - self.seen[0][2]

    def per(self, n: int) -> tuple[float, float, float]:
        """ms per unit of work: web tier, PostgreSQL, bench client."""
        (web0, pg0, _), (web1, pg1, _) = self.seen
        return _per_decision(web0, web1, n), _per_decision(pg0, pg1, n), self.client_s * 1000 / max(n, 1)


def _own_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """utime + stime of each process (/proc), in seconds."""
    ticks = os.sysconf("SC_CLK_TCK")
    seconds = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            seconds[pid] = (int(fields[11]) + int(fields[12])) / ticks
    return seconds


def _group_pids(group: int) -> list[int]:
    return [pid for pid, _, fields in proc_stats() if int(fields[2]) == group]


def _postgres_cpu(url: str, application: str | None = None) -> dict[int, float]:
    """The server processes of this database's connections (PostgreSQL on this machine), or only of
    those whose application_name is `application`."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as conn:
        pids = [row[0] for row in conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()"
            " AND (%s::text IS NULL OR application_name = %s)", (name, application, application))]
    return cpu_seconds(pids)


def _per_decision(before: dict[int, float], after: dict[int, float], decided: int) -> float:
    """CPU ms per decision: processes seen at both ends (a PostgreSQL backend that started during the
    load is counted from 0; one that ended is missed, so this is a lower bound for PostgreSQL)."""
    used = sum(after[pid] - before.get(pid, 0.0) for pid in after)
    return used * 1000 / decided if decided else float("nan")


@contextlib.contextmanager
def baseline_tree(commit: str) -> Path:
    tmp = Path(tempfile.mkdtemp(prefix="hitl-baseline-"))
    tree = tmp / "tree"
    subprocess.run(["git", "worktree", "add", "--detach", str(tree), commit], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield tree
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with contextlib.suppress(OSError):
            tmp.rmdir()


def report(result: dict) -> None:
    client_ms = result["client_cpu_s"] * 1000 / max(result["decided"], 1)
    print(f"  [{result['label']}] {result['decided']} decisions in {result['wall']:.1f} s: "
          f"{result['per_s']:.1f}/s; decision p50 {result['p50']:.0f} ms, p95 {result['p95']:.0f} ms "
          f"(claim + decision p95 {result['cycle_p95']:.0f} ms); load average at the end "
          f"{result['load'][0]:.2f}; CPU per decision: web tier {result['web_cpu_ms']:.1f} ms, PostgreSQL "
          f"{result['pg_cpu_ms']:.1f} ms, bench client {client_ms:.1f} ms")
    print(f"  [{result['label']}] HTTP statuses: {result['statuses']}")
    if result["floor"]:
        print(f"  [{result['label']}] CPU per decision: {cost_line(result, 'decision')}")
    print(f"  [{result['label']}] database check: {result['check']}")


def compare_servers(args: argparse.Namespace, per_client: int, seconds: float, claim_first: bool,
                    server_env: dict[str, str], floor_seconds: float) -> None:
    """This checkout under each of --servers, one after the other, each on its own database: CPU per
    decision, per authenticated 404 and their ratio, side by side (issue 44)."""
    results = []
    for server in args.servers:
        env = {**server_env_for(server, ROOT, args.workers), **server_env}
        print(f"  [{server}] load average at the start {os.getloadavg()[0]:.2f}", flush=True)
        results.append(run_one(server, ROOT, args.clients, per_client, args.workers, seconds, claim_first, env,
                               floor_seconds))
        report(results[-1])
    what = "claim + decision" if claim_first else "decision alone"
    for result in results:
        line = cost_line(result, what) if result["floor"] else (
            f"{what} {result['web_cpu_ms'] + result['pg_cpu_ms']:.2f} ms (web tier {result['web_cpu_ms']:.2f} + "
            f"PostgreSQL {result['pg_cpu_ms']:.2f})")
        print(f"{result['label']}: {result['per_s']:.1f} decisions/s, p95 {result['p95']:.0f} ms, "
              f"{result['statuses'].get(503, 0)} x 503; CPU per decision: {line}; load at the end "
              f"{result['load'][0]:.2f}")
    if not all(passed(r) for r in results):
        print("DATABASE CHECK FAILED", file=sys.stderr)
        sys.exit(1)


def passed(result: dict) -> bool:
    check = result["check"]
    return (check["lost (2xx without its row)"] == 0 and check["applied twice (reviews with > 1 decision)"] == 0
            and check["transcript notes != decisions"] == 0 and check["audit chain verifies"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="20 s of load per server (make bench)")
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_WORKERS", "4")))
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--per-client", type=int, default=None, help="pending reviews seeded per client")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--baseline-commit", default=BASELINE_COMMIT, help=f"default {BASELINE_COMMIT}")
    parser.add_argument("--no-claim", action="store_true",
                        help="decide without claiming first (one request per decision, as a bot may)")
    parser.add_argument("--floor", action="store_true",
                        help="instead of decisions, what a request costs before any decision work")
    parser.add_argument("--floor-seconds", type=float, default=None,
                        help="seconds of authenticated 404s on each server before its decisions (the ratio's "
                             "floor; default 10, --quick 8; 0: none)")
    parser.add_argument("--server-env", nargs="*", default=[], metavar="NAME=VALUE",
                        help="settings for the web tier under test, e.g. API_THREADS=8")
    parser.add_argument("--servers", nargs="*", default=["uvicorn"], choices=SERVERS,
                        help="web servers to measure one after the other (default uvicorn, as shipped; two: this "
                             "checkout only; bench/_web_servers.py)")
    args = parser.parse_args()
    server_env = dict(item.split("=", 1) for item in args.server_env)
    claim_first = not args.no_claim
    seconds = args.seconds or (20.0 if args.quick else 60.0)
    if args.floor:
        print(f"the web tier's floor: {args.clients} clients, {args.workers} web workers, PostgreSQL, "
              f"{seconds:.0f} s per probe; machine: {os.cpu_count()} cores, load average "
              f"{os.getloadavg()[0]:.2f} at the start", flush=True)
        run_floor(args.clients, args.workers, seconds)
        return
    per_client = args.per_client or int(seconds * 360 / args.clients) + 1  # never runs dry below 360/s
    print(f"decisions over the API: {args.clients} clients, {args.workers} web workers, PostgreSQL, "
          f"{seconds:.0f} s of load per server; machine: {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.2f} at the start", flush=True)
    print(f"each decision: {'claim, then decision' if claim_first else 'decision alone (no claim)'}; "
          f"web tier settings: {server_env or 'defaults'}", flush=True)
    floor_seconds = args.floor_seconds if args.floor_seconds is not None else (8.0 if args.quick else 10.0)
    if len(args.servers) > 1:
        compare_servers(args, per_client, seconds, claim_first, server_env, floor_seconds)
        return
    results = [run_one("new", ROOT, args.clients, per_client, args.workers, seconds, claim_first,
                       {**server_env_for(args.servers[0], ROOT, args.workers), **server_env}, floor_seconds)]
    report(results[0])
    if not args.no_baseline:
        with baseline_tree(args.baseline_commit) as tree:
            results.append(run_one("baseline", tree, args.clients, per_client, args.workers, seconds, claim_first,
                                   {**server_env_for(args.servers[0], tree, args.workers), **server_env},
                                   floor_seconds))
        report(results[1])
    new = results[0]
    statuses = new["statuses"]
    print(f"figure: {new['per_s']:.1f} decisions/s, p95 {new['p95']:.0f} ms, {statuses.get(503, 0)} x 503, "
          f"{new['check']['lost (2xx without its row)']} lost, "
          f"{new['check']['applied twice (reviews with > 1 decision)']} applied twice")
    print(f"target: >= {TARGET_PER_S:.0f}/s, p95 <= {TARGET_P95_MS:.0f} ms, 0 x 503, 0 lost, 0 applied twice")
    print(f"CPU per decision (steadier than the rate on a shared machine): web tier {new['web_cpu_ms']:.1f} ms, "
          f"PostgreSQL {new['pg_cpu_ms']:.1f} ms")
    if len(results) > 1:
        base = results[1]
        print(f"baseline (commit {args.baseline_commit}, same run): {base['per_s']:.1f} decisions/s, p95 "
              f"{base['p95']:.0f} ms, {base['statuses'].get(503, 0)} x 503; ratio {new['per_s'] / base['per_s']:.1f}x "
              f"decisions/s, {base['p95'] / new['p95']:.1f}x p95; CPU per decision: web tier "
              f"{base['web_cpu_ms']:.1f} ms, PostgreSQL {base['pg_cpu_ms']:.1f} ms")
    if new["floor"]:
        what = "claim + decision" if claim_first else "decision alone"
        print(f"CPU per decision against an authenticated 404 on the same server (target <= {TARGET_COST_RATIO:.0f}x, "
              f"for the decision alone): {cost_line(new, what)}")
        if len(results) > 1:
            print(f"  baseline (commit {args.baseline_commit}, same run): {cost_line(results[1], what)}")
    if not all(passed(r) for r in results):
        print("DATABASE CHECK FAILED", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
