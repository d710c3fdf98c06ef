"""Composition root: reads the configuration, sets up logging, builds the Discord client (which
opens the database and the worker pools as it logs in, before the cogs load) and runs it.

Everything configurable comes from environment variables (optionally from a `.env` file in the
current directory); see README.md for the table of settings. The pieces live elsewhere: the
settings in app/config.py, logging in app/logs.py, the client in discord_ui/client.py and the error
boundary in discord_ui/boundary.py.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from pathlib import Path

import aiohttp
import discord
from dotenv import load_dotenv

from app.config import Config, ConfigError, load_config
from app.logs import setup_logging
from discord_ui.client import BackgammonBot, bot_class
from endpoints import apply_endpoint_overrides
from storage import StorageError

log = logging.getLogger("backgammon")

# Exit status for configuration problems (same convention as command-line usage errors).
EXIT_CONFIG_ERROR = 2


def apply_endpoints(config: Config) -> None:
    """Point discord.py at a REST / gateway proxy (or a test server) when configured."""
    apply_endpoint_overrides(config.api_base, config.gateway_url)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_CONFIG_ERROR


class StartupTimeout(Exception):
    """Discord did not complete the login and gateway handshake in time."""


def close_on_signals(bot: BackgammonBot) -> set[asyncio.Task[None]]:
    """Make SIGTERM (``docker stop``, systemd) and SIGINT stop the bot as a normal close does:
    the gateway session ends cleanly, the worker pools and the database close, and ``start``
    returns. (Unhandled, SIGTERM would end the process abruptly, or, as a container's PID 1,
    be ignored until the SIGKILL that follows.) A second signal acts as it would without this.
    Returns the set that keeps the closing task referenced until it is done."""
    loop = asyncio.get_running_loop()
    closing: set[asyncio.Task[None]] = set()
    signals = (signal.SIGTERM, signal.SIGINT)

    def stop(received: signal.Signals) -> None:
        log.info("received %s, shutting down", received.name)
        for sig in signals:
            loop.remove_signal_handler(sig)
        task = loop.create_task(bot.close(), name="close on signal")
        closing.add(task)
        task.add_done_callback(closing.discard)

    try:
        for sig in signals:
            loop.add_signal_handler(sig, stop, sig)
    except NotImplementedError:  # no loop signal handlers (Windows): the defaults stay
        pass
    return closing


async def _run(config: Config) -> None:
    apply_endpoints(config)
    async with bot_class(config)(config) as bot:
        closing = close_on_signals(bot)
        runner = asyncio.create_task(bot.start(config.token))
        ready = asyncio.create_task(bot.wait_until_ready())
        done, _ = await asyncio.wait(
            {runner, ready}, timeout=config.startup_timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if not done:  # connected (or not) but no answer: do not hang forever
            ready.cancel()
            runner.cancel()
            await asyncio.gather(runner, ready, return_exceptions=True)
            raise StartupTimeout(
                f"no answer from Discord within {config.startup_timeout:g} s of starting "
                "(check the network, DISCORD_API_BASE and DISCORD_GATEWAY_URL)"
            )
        ready.cancel()
        await runner  # runs until the bot stops; re-raises a login failure
        await asyncio.gather(*closing)


def main() -> int:
    # Settings from the real environment win over the .env file.
    load_dotenv(Path.cwd() / ".env", override=False)
    try:
        config = load_config(os.environ)
    except ConfigError as exc:
        return _fail(str(exc))
    if config.database_url is None:
        try:
            config.database_path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return _fail(f"cannot create the directory for DATABASE_PATH: {exc}")

    setup_logging(config.log_level, (config.token,))
    for note in config.warnings():
        log.warning("%s", note)
    try:
        asyncio.run(_run(config))
    except StartupTimeout as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except discord.LoginFailure:
        return _fail("Discord rejected DISCORD_TOKEN (check the bot token in .env)")
    except StorageError as exc:
        print(f"error: database {config.database_label}: {exc}", file=sys.stderr)
        return 1
    except (aiohttp.ClientError, OSError) as exc:
        print(f"error: cannot reach Discord: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        log.info("interrupted, shutting down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
