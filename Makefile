# Two commands: `make run` serves the app, `make test` runs the tests.
# The work is in scripts/; this file only names it.
.PHONY: run run-hosted test bootstrap constraints clean

PORT ?= 3000
ARGS ?=

run:
	PORT=$(PORT) scripts/run.sh

# The hosted topology on this machine: PostgreSQL, Redis, runner processes, several web workers.
run-hosted:
	PORT=$(PORT) scripts/run-hosted.sh

test:
	scripts/test.sh $(ARGS)

bootstrap:
	scripts/bootstrap.sh dev

# Re-pin every installed package after changing requirements*.txt.
constraints:
	scripts/constraints.sh

clean:
	rm -rf .web .states test-results
