"""The Discord client of the bot: the gateway it subscribes to, the resources it opens before
the cogs load (database, game table, worker pools), command sync, shard identify pacing and the
health file. :func:`bot_class` picks the unsharded or the sharded client for a configuration.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from typing import Any

import discord
from discord.ext import commands

import health
from app.config import Config, Shards
from app.services import Services, open_services
from discord_ui.boundary import ErrorBoundaryTree, tell_user
from discord_ui.custom_ids import STALE_BUTTON

log = logging.getLogger("backgammon")

# Extension modules (cogs) loaded at start-up, e.g. "cogs.games".
EXTENSIONS: tuple[str, ...] = (
    "cogs.games",
    "cogs.league",
    "cogs.coach",
    "cogs.preferences",
    "cogs.tournaments",
    "cogs.puzzles",
)
# While the gateway is connected, the bot touches HEALTH_FILE this often (see health.py).
HEALTH_INTERVAL = 15.0

#: Seconds between two IDENTIFYs of one rate-limit bucket (shard id % max_concurrency): Discord
#: allows one per bucket per 5 s, plus a margin for the time from the reservation to the
#: IDENTIFY reaching Discord.
IDENTIFY_SPACING = 5.5


def gateway_intents() -> discord.Intents:
    """The gateway events the bot subscribes to: the default intents (none privileged) less
    messages, reactions, typing and polls. The bot acts on interactions only and never reads
    those; in busy servers they are most of the gateway's traffic, each event decompressed,
    parsed and dispatched for nothing. Even in a quiet one each board the bot posts came back as
    a MESSAGE_CREATE: 2 gateway events per /move instead of 1, and 7 % more Python calls in the
    bot per move (cProfile under bench/e2e.py --burst)."""
    intents = discord.Intents.default()
    intents.messages = False  # guild_messages and dm_messages
    intents.reactions = False
    intents.typing = False
    intents.polls = False
    return intents


class BackgammonBot(commands.Bot):
    """The bot as one unsharded process (:class:`ShardedBackgammonBot` runs given shards)."""

    services: Services

    def __init__(self, config: Config) -> None:
        # The bot never joins voice channels, so the missing-voice-library warnings are noise.
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        shard_options: dict[str, object] = {}
        if config.shards is not None:
            shard_options = {"shard_count": config.shards.count, "shard_ids": config.shards.ids}
        # No message cache: the bot never reads old messages from it (its own come back from
        # each request), and 1,000 cached messages cost memory and parsing for nothing.
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=gateway_intents(),
            max_messages=None,
            tree_cls=ErrorBoundaryTree,
            help_command=None,
            # discord.py types Bot's options as a TypedDict without shard_ids: only
            # AutoShardedBot takes it, reached through this same call from ShardedBackgammonBot.
            **shard_options,  # type: ignore[arg-type]
            # Nothing pings unless a message names whom it may notify (the player to act).
            allowed_mentions=discord.AllowedMentions.none(),
        )
        self.config = config
        self._max_concurrency: int | None = None
        self._gateway_up = False
        self._health_task: asyncio.Task[None] | None = None

    @property
    def owned_shards(self) -> Shards | None:
        """The shards this process runs (None: unsharded, everything is this process's)."""
        return self.config.shards

    @property
    def syncs_commands(self) -> bool:
        """Commands are global to the application: one process (the one running shard 0)
        syncs them, not every shard process at every start."""
        shards = self.config.shards
        return shards is None or 0 in shards.ids

    async def on_interaction(self, interaction: discord.Interaction[commands.Bot]) -> None:
        """A button or menu no handler knows (a stale message, a modified client) gets an
        answer instead of Discord's "This interaction failed"."""
        if interaction.type != discord.InteractionType.component:
            return
        data: Any = interaction.data or {}
        custom_id = data.get("custom_id")
        if not isinstance(custom_id, str) or self._component_handled(interaction, custom_id):
            return
        log.info("no handler for component %r (user %s)", custom_id[:100], interaction.user.id)
        await tell_user(interaction, STALE_BUTTON)

    def _component_handled(self, interaction: discord.Interaction[Any], custom_id: str) -> bool:
        # discord.py has no public lookup; if its internals change, assume handled (no reply
        # beats a second, conflicting one).
        store = getattr(self._connection, "_view_store", None)
        dynamic = getattr(store, "_dynamic_items", None)
        views = getattr(store, "_views", None)
        if not isinstance(dynamic, dict) or not isinstance(views, dict):
            return True
        data: Any = interaction.data or {}
        if any(pattern.fullmatch(custom_id) for pattern in dynamic):
            # discord.py drops (never answers) a click on a dynamic button that is no longer on
            # its message, e.g. one just removed by the edit that answered an earlier click.
            return _on_message(interaction, data.get("component_type"), custom_id)
        key = (data.get("component_type"), custom_id)
        message_id = interaction.message.id if interaction.message is not None else None
        return key in views.get(message_id, {}) or key in views.get(None, {})

    async def on_connect(self) -> None:
        self._gateway_up = True

    async def on_ready(self) -> None:
        self._gateway_up = True
        self._touch_health()

    async def on_resumed(self) -> None:
        self._gateway_up = True
        self._touch_health()

    async def on_disconnect(self) -> None:
        self._gateway_up = False

    def _touch_health(self) -> None:
        path = self.config.health_file
        if path is not None and self._gateway_up and self.is_ready() and not self.is_closed():
            try:
                health.touch(path)
            except OSError as exc:
                log.warning("cannot write HEALTH_FILE %s: %s", path, exc)

    async def _report_health(self) -> None:
        """Touch the health file while the gateway is connected; its age tells a HEALTHCHECK."""
        while True:
            self._touch_health()
            await asyncio.sleep(HEALTH_INTERVAL)

    async def setup_hook(self) -> None:
        await self.open_resources()
        for extension in EXTENSIONS:
            await self.load_extension(extension)
            log.info("loaded extension %s", extension)
        if self.syncs_commands:
            await self.sync_commands()
        else:
            log.info("not syncing commands: the process running shard 0 does")
        if self.config.health_file is not None:
            self._health_task = asyncio.create_task(self._report_health())

    def _computer_user_id(self) -> int:
        assert self.user is not None, "the computer acts only once the bot is logged in"
        return self.user.id

    async def open_resources(self) -> None:
        """Open the database, the game table and the worker pools before the extensions that
        use them load."""
        self.services = await open_services(self.config, self._computer_user_id)
        self.table = self.services.table
        self.render_pool = self.services.render_pool
        self.ai_pool = self.services.ai_pool

    async def close(self) -> None:
        if self._health_task is not None:
            self._health_task.cancel()
        if self.config.health_file is not None:
            health.clear(self.config.health_file)
        await super().close()
        services = getattr(self, "services", None)
        if services is not None:
            await services.close()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Respect Discord's identify rate limit across every process sharing the database:
        each IDENTIFY reserves a slot in its bucket (shard id % max_concurrency, from
        /gateway/bot), slots of one bucket ``IDENTIFY_SPACING`` seconds apart, and waits for
        it. Unsharded, discord.py's own pacing is enough."""
        if self.config.shards is None:
            await super().before_identify_hook(shard_id, initial=initial)
            return
        bucket = (shard_id or 0) % await self.max_concurrency()
        at = await self.services.reserve_identify_slot(bucket, IDENTIFY_SPACING)
        delay = at - time.time()
        if delay > 0:
            log.info("shard %s waits %.1f s for its identify slot", shard_id, delay)
            await asyncio.sleep(delay)

    async def max_concurrency(self) -> int:
        """``session_start_limit.max_concurrency`` of GET /gateway/bot (1 if unavailable)."""
        if self._max_concurrency is None:
            try:
                _, _, limits = await self.http.get_bot_gateway()
                self._max_concurrency = max(1, int(limits["max_concurrency"]))
            except (discord.DiscordException, KeyError, TypeError, ValueError) as exc:
                log.warning("could not read max_concurrency from /gateway/bot: %s", exc)
                self._max_concurrency = 1
        return self._max_concurrency

    def command_payload_hash(self, guild: discord.abc.Snowflake | None) -> str:
        """A hash of exactly what ``tree.sync(guild=guild)`` would send (the same commands, in
        the same form); the order of the commands does not matter."""
        payload = [
            command.to_dict(self.tree) for command in self.tree._get_all_commands(guild=guild)
        ]
        text = json.dumps(
            sorted(payload, key=lambda c: (str(c.get("type")), str(c.get("name")))),
            sort_keys=True,
            separators=(",", ":"),
        )
        return hashlib.sha256(text.encode()).hexdigest()

    async def sync_commands(self) -> None:
        """Sync the slash commands, unless exactly these were synced to the same place by an
        earlier start (a sync at every start counts against Discord's daily limit on command
        changes, and a global one makes the commands flicker for users)."""
        guild = discord.Object(id=self.config.guild_id) if self.config.guild_id else None
        where = f"to guild {self.config.guild_id}" if guild else "globally"
        if guild is not None:
            # A guild sync shows up at once; a global one can take a while to propagate.
            self.tree.copy_global_to(guild=guild)
        digest = self.command_payload_hash(guild)
        # Per application: another bot's token on the same database has its own commands.
        scope = f"{self.application_id}:{self.config.guild_id or 'global'}"
        if await self.services.synced_commands(scope) == digest:
            log.info("commands unchanged since the last sync %s: not syncing", where)
            return
        try:
            synced = await self.tree.sync(guild=guild)
        except discord.HTTPException as exc:
            # Commands synced earlier keep working, so report and carry on.
            log.error(
                "could not sync commands %s: %s (was the bot invited with the "
                "applications.commands scope?)",
                where,
                exc,
            )
            return
        await self.services.commands_synced(scope, digest)
        log.info("synced %d commands %s", len(synced), where)


def _on_message(
    interaction: discord.Interaction[Any], component_type: object, custom_id: str
) -> bool:
    """Whether the clicked component is on the interaction's message as Discord sent it (as
    discord.py itself looks it up before calling a dynamic item)."""
    message = interaction.message
    if message is None:
        return False
    view_class = discord.ui.LayoutView if message.flags.components_v2 else discord.ui.View
    view = view_class.from_message(message, timeout=None)
    return any(
        item.type.value == component_type and getattr(item, "custom_id", None) == custom_id
        for item in view.walk_children()
    )


class ShardedBackgammonBot(BackgammonBot, commands.AutoShardedBot):
    """The bot running the shards of ``config.shards`` in this process."""


def bot_class(config: Config) -> type[BackgammonBot]:
    return ShardedBackgammonBot if config.shards is not None else BackgammonBot
