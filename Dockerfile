# Build stage: install the runtime lock (every package pinned, hashes checked) into a virtual
# environment, so the final image holds exactly what the tests ran and no build tools.
FROM python:3.11-slim AS build

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

COPY requirements.txt /tmp/requirements.txt
RUN python -m venv /opt/venv \
    && /opt/venv/bin/pip install --require-hashes -r /tmp/requirements.txt

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH

# The bot runs as an unprivileged user; only /data is writable by it.
RUN groupadd --gid 10001 bot \
    && useradd --uid 10001 --gid bot --home-dir /app --no-create-home --shell /usr/sbin/nologin bot \
    && mkdir -p /data \
    && chown bot:bot /data

COPY --from=build /opt/venv /opt/venv

WORKDIR /app
COPY . .

ENV DATABASE_PATH=/data/backgammon.sqlite3 \
    HEALTH_FILE=/tmp/backgammon-health
# Declared after the chown so a new named volume starts out owned by the bot user.
VOLUME /data

USER bot

# Healthy while the bot keeps touching HEALTH_FILE, which it does only while its gateway
# connection to Discord is up (every 15 s); start-up may take up to STARTUP_TIMEOUT.
HEALTHCHECK --interval=30s --timeout=10s --start-period=90s --retries=2 \
    CMD ["python", "health.py", "/tmp/backgammon-health", "60"]

CMD ["python", "bot.py"]
