FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# The bot runs as an unprivileged user; only /data is writable by it.
RUN groupadd --gid 10001 bot \
    && useradd --uid 10001 --gid bot --home-dir /app --no-create-home --shell /usr/sbin/nologin bot \
    && mkdir -p /data \
    && chown bot:bot /data

WORKDIR /app

# Dependencies first, so this layer stays cached until requirements.txt changes.
COPY requirements.txt ./
RUN pip install -r requirements.txt

COPY . .

ENV DATABASE_PATH=/data/backgammon.sqlite3
# Declared after the chown so a new named volume starts out owned by the bot user.
VOLUME /data

USER bot

CMD ["python", "bot.py"]
