# The hosted image (docs/deploy.md; compose.yaml runs the whole topology from it): one image for the
# web workers, the runners and the one-off migration. This project's CI builds neither this image
# nor compose.yaml: no container runtime works on its machines. `make lint` runs
# scripts/check_dockerfile.py instead: every RUN is a script that CI runs too, the command is
# scripts/serve.sh, the user is not root, there is a health check, and no step hides a failure.
FROM node:20-bookworm-slim AS node

FROM python:3.11-slim-bookworm
# Node.js and npm only to fetch bun, which Reflex builds the frontend with (scripts/common.sh,
# ensure_bun); copied from the official image, so no package manager runs here.
COPY --from=node /usr/local/bin/ /usr/local/bin/
COPY --from=node /usr/local/lib/node_modules/ /usr/local/lib/node_modules/
# Not root: a user of its own owns /app (COPY --chown creates it) and everything the app writes
# there (.venv, .tools, the frontend build and Reflex's state folder at start).
COPY --chown=10001:10001 requirements.txt constraints.txt /app/
COPY --chown=10001:10001 scripts/ /app/scripts/
WORKDIR /app
USER 10001:10001
ENV HOME=/app PYTHONUNBUFFERED=1
# .venv with requirements.txt and constraints.txt, and bun in .tools: the bootstrap that `make run`
# and CI's `make test` start with (scripts/common.sh).
RUN ["scripts/bootstrap.sh"]
COPY --chown=10001:10001 . /app/
ENV PORT=3000 DEMO_MODE=false RUNNER_IN_WEB=false
EXPOSE 3000
# The web worker builds its frontend when it starts, as `make run` does (about a minute): hence the
# long start period.
HEALTHCHECK --interval=30s --timeout=5s --start-period=300s --retries=3 \
    CMD [".venv/bin/python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/api/health' % os.environ['PORT'], timeout=4)"]
# A web worker, started as `make run` and the end-to-end tests start one. compose.yaml runs the
# runners and the migration from this image with the Procfile's commands.
CMD ["scripts/serve.sh"]
