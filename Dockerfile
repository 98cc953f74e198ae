# A plain image for the hosted topology (docs/deploy.md). Docker cannot run on the machines this
# project is developed on, so this file is kept simple and is not built by CI.
FROM python:3.11-slim
RUN apt-get update && apt-get install -y --no-install-recommends nodejs npm curl \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.txt constraints.txt ./
RUN python -m venv .venv && .venv/bin/pip install --no-cache-dir -r requirements.txt -c constraints.txt
RUN npm install --prefix .tools --no-audit --no-fund bun@1.4.5
COPY . .
# Build the frontend once, at image build time, so web containers start fast.
RUN PATH=/app/.tools/node_modules/.bin:/app/.venv/bin:$PATH REFLEX_USE_SYSTEM_BUN=1 \
    REFLEX_TELEMETRY_ENABLED=false REFLEX_SSR=false DATABASE_URL=sqlite:////tmp/build.db \
    .venv/bin/python -m hitl_dashboard db upgrade && .venv/bin/reflex export --frontend-only --no-zip || true
ENV PORT=3000 DEMO_MODE=false
EXPOSE 3000
# One image, three roles: override the command with `release` or `runner` from the Procfile.
CMD ["scripts/serve.sh"]
