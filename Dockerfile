# Build stage: install the runtime lock (every package pinned, hashes checked) into a virtual
# environment, so the final image holds exactly what the tests ran and no build tools; and
# compile the engine.
FROM python:3.11-slim AS build

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

COPY requirements.txt requirements-build.txt /tmp/
RUN python -m venv /opt/venv \
    && /opt/venv/bin/pip install --require-hashes -r /tmp/requirements.txt

# The compiled engine (engine/'s own sources through mypyc, README "A faster engine"): built
# here with a C compiler and the build lock's mypyc, neither of which reaches the image. The
# build fails the image rather than ship a slower bot.
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/* \
    && python -m venv /opt/buildtools \
    && /opt/buildtools/bin/pip install --require-hashes -r /tmp/requirements-build.txt
WORKDIR /src
COPY engine engine
COPY tools tools
RUN /opt/buildtools/bin/python tools/build_fast_engine.py

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
# Made from the very engine/ sources copied above and for this image's Python (its manifest
# checks both at import); the check below fails the image if the engine would run as Python.
COPY --from=build /src/build/fast-engine /app/build/fast-engine
RUN python -m engine info | grep -q "^engine: compiled" || { python -m engine info; exit 1; }

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
