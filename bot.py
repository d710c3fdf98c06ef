"""Composition root: reads the configuration, wires the pieces together and runs the bot.

Everything configurable comes from environment variables (optionally from a `.env` file in the
current directory); see README.md for the table of settings.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands
from dotenv import load_dotenv

import render
from cogs.table import GameTable
from endpoints import apply_endpoint_overrides
from storage import Database

log = logging.getLogger("backgammon")

# Extension modules (cogs) loaded at start-up, e.g. "cogs.games".
EXTENSIONS: tuple[str, ...] = ("cogs.games", "cogs.league", "cogs.coach")

DEFAULT_DATABASE_PATH = "data/backgammon.sqlite3"
DEFAULT_LOG_LEVEL = "INFO"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FORMAT = "%(asctime)s %(levelname)-8s %(name)s: %(message)s"

# Exit status for configuration problems (same convention as command-line usage errors).
EXIT_CONFIG_ERROR = 2

_API_PATH = re.compile(r"/api/v\d+$")


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

    database_path = Path(_optional(environ, "DATABASE_PATH") or DEFAULT_DATABASE_PATH)
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

    return Config(
        token=token,
        database_path=database_path,
        api_base=api_base,
        gateway_url=gateway_url,
        guild_id=guild_id,
        log_level=log_level,
        dice_seed=dice_seed,
    )


def apply_endpoints(config: Config) -> None:
    """Point discord.py at a REST / gateway proxy (or a test server) when configured."""
    apply_endpoint_overrides(config.api_base, config.gateway_url)


class ErrorBoundaryTree(app_commands.CommandTree[commands.Bot]):
    """The single place where errors escaping slash commands end up."""

    async def on_error(
        self, interaction: discord.Interaction[commands.Bot], error: app_commands.AppCommandError
    ) -> None:
        command = interaction.command.qualified_name if interaction.command else None
        if isinstance(error, app_commands.CheckFailure):
            # Expected refusals (cooldowns, missing permissions) carry a message for the user.
            log.info("command %s refused for user %s: %s", command, interaction.user.id, error)
            await self._tell_user(interaction, str(error) or "You can't use this command here.")
            return
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        await self.report_unexpected(interaction, original, f"command {command}")

    async def report_unexpected(
        self, interaction: discord.Interaction[commands.Bot], error: BaseException, where: str
    ) -> None:
        """Log an unexpected error with its context and tell the user briefly (never raises).

        Slash commands reach this through ``on_error``; button callbacks call it directly.
        """
        log.error(
            "unexpected error in %s (user %s, channel %s, guild %s)",
            where,
            interaction.user.id,
            interaction.channel_id,
            interaction.guild_id,
            exc_info=error,
        )
        await self._tell_user(
            interaction, "Something went wrong while doing that. Please try again."
        )

    @staticmethod
    async def _tell_user(interaction: discord.Interaction[commands.Bot], message: str) -> None:
        try:
            if interaction.response.is_done():
                await interaction.followup.send(message, ephemeral=True)
            else:
                await interaction.response.send_message(message, ephemeral=True)
        except Exception:
            # The interaction may have expired or the API may be down; the error is logged
            # already and the boundary itself must never raise.
            log.warning("could not report the error to the user", exc_info=True)


class BackgammonBot(commands.Bot):
    def __init__(self, config: Config) -> None:
        # The bot never joins voice channels, so the missing-voice-library warnings are noise.
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        # Slash commands only: the default intents suffice (no privileged message content).
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            tree_cls=ErrorBoundaryTree,
            help_command=None,
        )
        self.config = config

    async def setup_hook(self) -> None:
        await self.open_resources()
        for extension in EXTENSIONS:
            await self.load_extension(extension)
            log.info("loaded extension %s", extension)
        await self.sync_commands()

    async def open_resources(self) -> None:
        """Open the database and the game table before the extensions that use them load."""
        self.db = await Database.open(self.config.database_path)
        seed = self.config.dice_seed
        rng = random.Random(seed) if seed is not None else random.SystemRandom()
        self.table = GameTable(self.db, rng)
        log.info("database %s ready", self.config.database_path)
        # Build the board sprites and palettes now, not on the first player's move.
        await asyncio.get_running_loop().run_in_executor(None, render.warm_up)

    async def close(self) -> None:
        await super().close()
        db = getattr(self, "db", None)
        if db is not None:
            await db.close()

    async def sync_commands(self) -> None:
        guild = discord.Object(id=self.config.guild_id) if self.config.guild_id else None
        try:
            if guild is not None:
                # A guild sync shows up at once; a global one can take a while to propagate.
                self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        except discord.HTTPException as exc:
            # Commands synced earlier keep working, so report and carry on.
            where = f"to guild {self.config.guild_id}" if guild else "globally"
            log.error(
                "could not sync commands %s: %s (was the bot invited with the "
                "applications.commands scope?)",
                where,
                exc,
            )
            return
        where = f"to guild {self.config.guild_id}" if guild else "globally"
        log.info("synced %d commands %s", len(synced), where)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_CONFIG_ERROR


async def _run(config: Config) -> None:
    apply_endpoints(config)
    async with BackgammonBot(config) as bot:
        await bot.start(config.token)


def main() -> int:
    # Settings from the real environment win over the .env file.
    load_dotenv(Path.cwd() / ".env", override=False)
    try:
        config = load_config(os.environ)
    except ConfigError as exc:
        return _fail(str(exc))
    try:
        config.database_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return _fail(f"cannot create the directory for DATABASE_PATH: {exc}")

    logging.basicConfig(level=config.log_level, format=LOG_FORMAT)
    try:
        asyncio.run(_run(config))
    except discord.LoginFailure:
        return _fail("Discord rejected DISCORD_TOKEN (check the bot token in .env)")
    except (aiohttp.ClientError, OSError) as exc:
        print(f"error: cannot reach Discord: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        log.info("interrupted, shutting down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
