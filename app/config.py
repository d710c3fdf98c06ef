"""The bot's configuration: every setting read from environment variables and checked, with a
one-line explanation for each mistake (:class:`ConfigError`). No Discord here; see README.md for
the table of settings.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from app.limits import DEFAULT_EXPENSIVE_RATE, DEFAULT_HINT_RATE, DEFAULT_REPORT_RATE, Rate

# Shards is re-exported: the client reads which shards it runs without importing storage.
from storage import Shards as Shards

# One default for the bot and for `python -m storage backup`.
from storage.backup import DEFAULT_DATABASE_PATH as DEFAULT_DATABASE_PATH
from storage.postgres import is_postgres_url

DEFAULT_LOG_LEVEL = "INFO"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

# Seconds from start-up until the gateway must be READY; a login that connects but never gets an
# answer would otherwise hang forever. STARTUP_TIMEOUT overrides it.
DEFAULT_STARTUP_TIMEOUT = 60.0
MAX_STARTUP_TIMEOUT = 3600.0

_API_PATH = re.compile(r"/api/v\d+$")
#: More shards than any bot needs (Discord asks for one per 1,000-2,500 guilds).
MAX_SHARDS = 65536


class ConfigError(Exception):
    """A setting is missing or invalid; the message is meant for the person running the bot."""


@dataclass(frozen=True)
class Config:
    token: str
    database_path: Path
    api_base: str | None
    gateway_url: str | None
    guild_id: int | None
    log_level: str
    #: Seed for the dice (reproducible games in tests and benchmarks); None = OS randomness.
    dice_seed: int | None = None
    #: ``postgresql://...``: use PostgreSQL instead of the SQLite file at ``database_path``.
    database_url: str | None = None
    #: Gateway sharding: this process runs ``shards.ids`` of ``shards.count``; None = one
    #: unsharded process.
    shards: Shards | None = None

    @property
    def database_target(self) -> str | Path:
        return self.database_url if self.database_url is not None else self.database_path

    @property
    def database_label(self) -> str:
        """Where the data lives, for logs (never the password)."""
        if self.database_url is None:
            return str(self.database_path)
        return redact_url(self.database_url)

    def warnings(self) -> list[str]:
        """Settings that are valid but probably not what the operator wants, each a line for
        the log at start-up."""
        notes = []
        if self.shards is not None and self.database_url is None:
            others = self.shards.count - len(self.shards.ids)
            notes.append(
                f"SHARD_COUNT={self.shards.count} with the SQLite file {self.database_path}: "
                + (
                    f"the {others} other shard(s) must run in processes on this machine, on "
                    "this same file; "
                    if others
                    else "all shards run in this one process; "
                )
                + "for processes on several machines set DATABASE_URL (PostgreSQL)"
            )
        return notes

    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    #: File touched while the gateway is connected (a container HEALTHCHECK reads its age).
    health_file: Path | None = None
    #: Where the repository's docs/ folder is published (for /rules links); None = not linked.
    docs_url: str | None = None
    #: Most /replay and /review requests of one user in a window of seconds.
    report_limit: Rate = DEFAULT_REPORT_RATE
    #: Most /hint requests of one user in a window of seconds.
    hint_limit: Rate = DEFAULT_HINT_RATE
    #: Most expensive commands (all of them together) of one user in a window of seconds,
    #: refused at the front door before any work.
    expensive_limit: Rate = DEFAULT_EXPENSIVE_RATE


def _optional(environ: Mapping[str, str], name: str) -> str | None:
    # An empty value (as in `NAME=` in .env.example) means "not set".
    value = environ.get(name, "").strip()
    return value or None


def _check_database_path(path: Path) -> None:
    """Fail unless the database file can be created or opened at `path` (creates nothing)."""
    shown = repr(str(path))
    try:
        if path.is_dir():
            raise ConfigError(f"DATABASE_PATH {shown} is a directory; it must name a file")
        # The nearest existing ancestor must be a writable directory, so that the missing
        # directories (or just the file) can be created when the database is opened.
        existing = path.parent
        while not existing.exists() and existing.parent != existing:
            existing = existing.parent
        if not existing.is_dir():
            raise ConfigError(
                f"DATABASE_PATH {shown} cannot be used: {str(existing)!r} is not a directory"
            )
    except OSError as exc:
        raise ConfigError(f"DATABASE_PATH {shown} cannot be used: {exc}") from None
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(
            f"DATABASE_PATH {shown} cannot be used: directory {str(existing)!r} is not writable"
        )


def redact_url(url: str) -> str:
    """The URL with its password replaced by ``***``."""
    return re.sub(r"^([a-z]+://[^:/@]*:)[^@]*@", r"\1***@", url)


def _check_database_url(value: str) -> str:
    shown = repr(redact_url(value))
    expected = "expected postgresql://user:password@host:port/database"
    if not is_postgres_url(value):
        raise ConfigError(f"DATABASE_URL {shown} is invalid: {expected}")
    parts = urlsplit(value)
    try:
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        raise ConfigError(f"DATABASE_URL {shown} has an invalid port: {expected}") from None
    # No host is fine: the driver then tries the local Unix sockets and localhost.
    return value


def _check_shards(raw_count: str | None, raw_ids: str | None) -> Shards | None:
    if raw_count is None:
        if raw_ids is not None:
            raise ConfigError(
                f"SHARD_IDS {raw_ids!r} needs SHARD_COUNT (the total number of shards)"
            )
        return None
    if not raw_count.isdigit() or not 1 <= int(raw_count) <= MAX_SHARDS:
        raise ConfigError(
            f"SHARD_COUNT {raw_count!r} is invalid: expected a whole number from 1 to {MAX_SHARDS}"
        )
    count = int(raw_count)
    if raw_ids is None:
        return Shards(count, tuple(range(count)))
    items = [item.strip() for item in raw_ids.split(",")]
    if not all(item.isdigit() for item in items):
        raise ConfigError(
            f"SHARD_IDS {raw_ids!r} is invalid: expected shard numbers separated by commas, "
            "e.g. 0,1"
        )
    ids = tuple(int(item) for item in items)
    if len(set(ids)) != len(ids):
        raise ConfigError(f"SHARD_IDS {raw_ids!r} names a shard twice")
    if not all(i < count for i in ids):
        raise ConfigError(
            f"SHARD_IDS {raw_ids!r} is invalid: with SHARD_COUNT={count} the shards are "
            f"0 to {count - 1}"
        )
    return Shards(count, tuple(sorted(ids)))


def _check_api_base(value: str) -> str:
    parts = urlsplit(value)
    if (
        parts.scheme not in ("http", "https")
        or not parts.netloc
        or parts.query
        or parts.fragment
        or not _API_PATH.search(parts.path.rstrip("/"))
    ):
        raise ConfigError(
            f"DISCORD_API_BASE {value!r} is invalid: expected an http(s) URL ending with "
            "/api/v<N>, e.g. https://discord.com/api/v10"
        )
    # discord.py appends paths that start with "/", so keep no trailing slash.
    return value.rstrip("/")


def _check_gateway_url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("ws", "wss") or not parts.netloc:
        raise ConfigError(
            f"DISCORD_GATEWAY_URL {value!r} is invalid: expected a ws:// or wss:// URL, "
            "e.g. wss://gateway.discord.gg/"
        )
    return value


def _check_rate(environ: Mapping[str, str], name: str, default: Rate) -> Rate:
    raw = _optional(environ, name)
    if raw is None:
        return default
    try:
        return Rate.parse(raw)
    except ValueError:
        raise ConfigError(
            f"{name} {raw!r} is invalid: expected COUNT/SECONDS (e.g. {default}: at most "
            f"{default.count} requests per user in {default.seconds:g} seconds)"
        ) from None


def load_config(environ: Mapping[str, str]) -> Config:
    """Build and validate the configuration from environment variables."""
    token = environ.get("DISCORD_TOKEN")
    if token is None:
        raise ConfigError(
            "DISCORD_TOKEN is not set (copy .env.example to .env and put your bot token there)"
        )
    token = token.strip()
    if not token:
        raise ConfigError("DISCORD_TOKEN is blank (put your bot token in .env)")

    database_url = _optional(environ, "DATABASE_URL")
    if database_url is not None:
        database_url = _check_database_url(database_url)
    database_path = Path(_optional(environ, "DATABASE_PATH") or DEFAULT_DATABASE_PATH)
    if database_url is None:
        # With DATABASE_URL the SQLite file is not used, so its location does not matter.
        _check_database_path(database_path)

    api_base = _optional(environ, "DISCORD_API_BASE")
    if api_base is not None:
        api_base = _check_api_base(api_base)

    gateway_url = _optional(environ, "DISCORD_GATEWAY_URL")
    if gateway_url is not None:
        gateway_url = _check_gateway_url(gateway_url)

    guild_id: int | None = None
    raw_guild = _optional(environ, "DISCORD_GUILD_ID")
    if raw_guild is not None:
        if not (raw_guild.isascii() and raw_guild.isdigit()) or int(raw_guild) <= 0:
            raise ConfigError(
                f"DISCORD_GUILD_ID {raw_guild!r} is invalid: expected a numeric server id"
            )
        guild_id = int(raw_guild)

    log_level = (_optional(environ, "LOG_LEVEL") or DEFAULT_LOG_LEVEL).upper()
    if log_level not in LOG_LEVELS:
        raise ConfigError(
            f"LOG_LEVEL {environ.get('LOG_LEVEL', '')!r} is invalid: "
            f"expected one of {', '.join(LOG_LEVELS)}"
        )

    dice_seed: int | None = None
    raw_seed = _optional(environ, "DICE_SEED")
    if raw_seed is not None:
        if not (raw_seed.isascii() and raw_seed.isdigit()):
            raise ConfigError(f"DICE_SEED {raw_seed!r} is invalid: expected a whole number")
        dice_seed = int(raw_seed)

    shards = _check_shards(_optional(environ, "SHARD_COUNT"), _optional(environ, "SHARD_IDS"))
    startup_timeout = DEFAULT_STARTUP_TIMEOUT
    raw_timeout = _optional(environ, "STARTUP_TIMEOUT")
    if raw_timeout is not None:
        try:
            startup_timeout = float(raw_timeout)
        except ValueError:
            startup_timeout = -1.0
        if not 1.0 <= startup_timeout <= MAX_STARTUP_TIMEOUT:
            raise ConfigError(
                f"STARTUP_TIMEOUT {raw_timeout!r} is invalid: expected seconds from 1 to "
                f"{MAX_STARTUP_TIMEOUT:.0f}"
            )

    raw_health = _optional(environ, "HEALTH_FILE")
    health_file = Path(raw_health) if raw_health is not None else None

    docs_url = _optional(environ, "DOCS_URL")
    if docs_url is not None:
        parts = urlsplit(docs_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigError(
                f"DOCS_URL {docs_url!r} is invalid: expected an http(s) URL of the docs folder, "
                "e.g. https://github.com/OWNER/REPO/blob/main/docs"
            )
        docs_url = docs_url.rstrip("/")

    return Config(
        token=token,
        database_path=database_path,
        api_base=api_base,
        gateway_url=gateway_url,
        guild_id=guild_id,
        log_level=log_level,
        dice_seed=dice_seed,
        database_url=database_url,
        shards=shards,
        startup_timeout=startup_timeout,
        health_file=health_file,
        docs_url=docs_url,
        report_limit=_check_rate(environ, "REPORT_LIMIT", DEFAULT_REPORT_RATE),
        hint_limit=_check_rate(environ, "HINT_LIMIT", DEFAULT_HINT_RATE),
        expensive_limit=_check_rate(environ, "EXPENSIVE_LIMIT", DEFAULT_EXPENSIVE_RATE),
    )
