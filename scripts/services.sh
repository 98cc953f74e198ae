#!/usr/bin/env bash
# Make sure the local PostgreSQL and Redis that the tests use are running.
set -euo pipefail

wait_for() {  # wait_for DESCRIPTION COMMAND...
    local what="$1"
    shift
    for _ in $(seq 1 60); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.5
    done
    echo "error: $what did not come up" >&2
    return 1
}

if command -v pg_isready >/dev/null 2>&1; then
    if ! pg_isready -q -h 127.0.0.1; then
        echo "==> starting PostgreSQL" >&2
        pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n1)" main start
        wait_for PostgreSQL pg_isready -q -h 127.0.0.1
    fi
else
    echo "warning: PostgreSQL client tools not found; PostgreSQL tests cannot run" >&2
fi

if command -v redis-cli >/dev/null 2>&1; then
    if ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
        echo "==> starting Redis" >&2
        mkdir -p /var/lib/redis /var/log/redis
        redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
            --dir /var/lib/redis --logfile /var/log/redis/ci.log
        wait_for Redis redis-cli -h 127.0.0.1 ping
    fi
else
    echo "warning: redis-cli not found; Redis tests cannot run" >&2
fi
