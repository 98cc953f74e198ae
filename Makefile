# Two commands: `make run` serves the app, `make test` runs the linters and the tests.
# The work is in scripts/; this file only names it.
.PHONY: run run-hosted test test-fast lint bench bootstrap constraints clean

PORT ?= 3000
ARGS ?=
FULL ?= 0

run:
	PORT=$(PORT) scripts/run.sh

# The hosted topology on this machine: PostgreSQL, Redis, runner processes, several web workers.
run-hosted:
	PORT=$(PORT) scripts/run-hosted.sh

# Linters, then pytest: all but tests/e2e across the cores (pytest-xdist), then tests/e2e across
# E2E_WORKERS (one per core, at most 4), each worker with its own app and web folder (.web-e2e/);
# random order, one printed seed (PYTEST_SEED=<n> replays it). ARGS: one plain pytest run.
test:
	scripts/test.sh $(ARGS)

# No browser, no PostgreSQL: e2e, hosted, PostgreSQL and `slow` cases left out (make test runs them all).
test-fast:
	scripts/test-fast.sh $(ARGS)

# ruff, the import-linter layer contracts, mypy (pyproject.toml) and the Dockerfile check.
lint:
	scripts/lint.sh

# Every benchmark in bench/, quick sizes (under 10 minutes on 2 cores); FULL=1 for the full sizes.
# Results and the machine they ran on: docs/benchmarks.md.
bench:
	FULL=$(FULL) scripts/bench.sh

bootstrap:
	scripts/bootstrap.sh dev

# Re-pin every installed package after changing requirements*.txt.
constraints:
	scripts/constraints.sh

clean:
	rm -rf .web .web-e2e .states test-results
