"""How many PostgreSQL connections each web worker's pool may open.

Every worker has its own pool, so the deployment opens up to workers x (pool + overflow)
connections, and PostgreSQL refuses the one past max_connections ("sorry, too many clients
already": the API answers 503). Issue 12 measured 5 workers x (10 + 20) = 150 against the default
100. The pool is derived from the worker count and the server's max_connections (read at start-up),
leaving room for superusers and for the runner processes, the CLI and migrations; explicit sizes
that do not fit are refused at start-up with the arithmetic."""

from __future__ import annotations

from dataclasses import dataclass

# The sizes SQLAlchemy would use with no limit in sight (its defaults are 5 + 10; the app used 10 + 20).
DEFAULT_POOL_SIZE = 10
DEFAULT_MAX_OVERFLOW = 20
MIN_PER_WORKER = 2


@dataclass(frozen=True)
class PoolPlan:
    pool_size: int
    max_overflow: int
    problem: str | None = None  # why this deployment would run out of connections (refuse to start)
    summary: str = ""


def plan_pool(*, workers: int, max_connections: int | None, superuser_reserved: int = 3, reserved: int = 10,
              pool_size: int | None = None, max_overflow: int | None = None) -> PoolPlan:
    """max_connections None: the server could not be asked; the configured sizes (or the defaults) apply."""
    if max_connections is None:
        size = pool_size if pool_size is not None else DEFAULT_POOL_SIZE
        overflow = max_overflow if max_overflow is not None else DEFAULT_MAX_OVERFLOW
        return PoolPlan(size, overflow, summary=f"{workers} worker(s) x ({size} + {overflow}); "
                                                "PostgreSQL's max_connections unknown")
    budget = max_connections - superuser_reserved - reserved
    share = budget // workers if budget > 0 else 0
    where = (f"PostgreSQL max_connections is {max_connections}, minus {superuser_reserved} reserved for "
             f"superusers and DB_RESERVED_CONNECTIONS={reserved} for runners, the CLI and migrations, leaves "
             f"{max(budget, 0)}")
    if share < MIN_PER_WORKER:
        return PoolPlan(MIN_PER_WORKER, 0, problem=(
            f"{where}: fewer than {MIN_PER_WORKER} connections for each of {workers} web worker(s); "
            "lower WEB_WORKERS (GRANIAN_WORKERS) or DB_RESERVED_CONNECTIONS, or raise max_connections"))
    size = pool_size if pool_size is not None else min(DEFAULT_POOL_SIZE, share)
    overflow = max_overflow if max_overflow is not None else max(0, min(DEFAULT_MAX_OVERFLOW, share - size))
    total = workers * (size + overflow)
    summary = f"{workers} worker(s) x (pool {size} + overflow {overflow}) = {total} of {max(budget, 0)} connections"
    if total > budget:
        return PoolPlan(size, overflow, summary=summary, problem=(
            f"{workers} web worker(s) x (DB_POOL_SIZE {size} + DB_MAX_OVERFLOW {overflow}) = {total} connections, "
            f"but {where}; lower DB_POOL_SIZE / DB_MAX_OVERFLOW or WEB_WORKERS, or unset them to have them "
            f"derived ({share} per worker)"))
    return PoolPlan(size, overflow, summary=summary)
