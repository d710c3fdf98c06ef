"""``FakeDiscord``: an aiohttp server speaking enough of Discord's REST API and gateway for the
real discord.py client to log in, sync application commands and answer interactions.

Serves on 127.0.0.1 with an ephemeral port. The bot can run in the same event loop (after
``endpoints.apply_endpoint_overrides(fake.api_base, fake.gateway_url)``) or as a subprocess
(``fake.env()`` gives DISCORD_API_BASE / DISCORD_GATEWAY_URL / DISCORD_CDN_BASE / DISCORD_TOKEN).
Any number of gateway connections may come and go; interactions go to the most recent session
that received READY, so a killed bot can be replaced by a fresh one at any time.

Sharding: ``add_guild`` creates more guilds (optionally on a chosen shard); a session that
IDENTIFYs with ``shard: [id, count]`` receives only the guilds of that shard (``(guild_id >> 22)
% count``), and events and interactions of a guild go to the most recent ready session covering
it. ``GET /gateway/bot`` serves ``recommended_shards`` and ``max_concurrency``; ``identify_log``
records when each shard identified.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import re
import secrets
import struct
import time
import zlib
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from aiohttp import BodyPartReader, MultipartReader, WSMsgType, hdrs, web
from aiohttp.helpers import parse_mimetype
from aiohttp.multipart import content_disposition_filename, parse_content_disposition

from .gateway import (
    INTENT_GUILD_MEMBERS,
    INTENT_GUILD_MESSAGES,
    INTENT_GUILDS,
    OP_HEARTBEAT,
    OP_HEARTBEAT_ACK,
    OP_HELLO,
    OP_IDENTIFY,
    OP_INVALID_SESSION,
    OP_PRESENCE,
    OP_RECONNECT,
    OP_REQUEST_MEMBERS,
    OP_RESUME,
    OP_VOICE_STATE,
    GatewaySession,
)
from .interactions import (
    ALLOWED_CALLBACKS,
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    CB_AUTOCOMPLETE_RESULT,
    CB_CHANNEL_MESSAGE,
    CB_DEFERRED_CHANNEL_MESSAGE,
    CB_DEFERRED_UPDATE_MESSAGE,
    CB_MODAL,
    CB_UPDATE_MESSAGE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    Callback,
    CallbackFile,
    InteractionHandle,
    OptionValue,
    build_options,
    modal_submit_components,
    nest_subcommands,
)
from .models import (
    BOT_PERMISSIONS,
    DM,
    EVERYONE_PERMISSIONS,
    FLAG_COMPONENTS_V2,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    GROUP_DM,
    GUILD_TEXT,
    JSON,
    NO_GUILD,
    PERM_ATTACH_FILES,
    PERM_EMBED_LINKS,
    PERM_SEND_MESSAGES,
    PERM_USE_APPLICATION_COMMANDS,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeRole,
    FakeUser,
    SnowflakeFactory,
    guess_content_type,
    now_iso,
)
from .signal import Signal
from .validation import (
    ApiError,
    check_layout_message,
    form_error,
    resolve_layout,
    validate_choices,
    validate_command,
    validate_commands,
    validate_message,
)

_log = logging.getLogger(__name__)

API_PREFIX = "/api/v10"
GATEWAY_PATH = "/gateway-ws"
CDN_PREFIX = "/cdn"
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
#: An app's permissions where it is installed only to the user (its interaction responses).
USER_APP_PERMISSIONS = (
    PERM_SEND_MESSAGES | PERM_EMBED_LINKS | PERM_ATTACH_FILES | PERM_USE_APPLICATION_COMMANDS
)
# Interaction contexts and installation types (Discord's numbers).
CONTEXT_GUILD, CONTEXT_BOT_DM, CONTEXT_PRIVATE_CHANNEL = 0, 1, 2
GUILD_INSTALL, USER_INSTALL = 0, 1
#: How long Discord remembers a message nonce (a few minutes).
NONCE_SECONDS = 300.0
MENTION_RE = re.compile(r"<@!?(\d+)>")
ROLE_MENTION_RE = re.compile(r"<@&(\d+)>")


def _is_multipart(request: web.Request) -> bool:
    """Whether the body is multipart/*. (aiohttp's ``request.content_type`` runs the header
    through the email package's parser, ~0.5 ms for every new multipart boundary: most of the
    fake's CPU per uploaded board in bench/e2e.py --burst; the media type alone decides here.)"""
    mimetype = parse_mimetype(request.headers.get(hdrs.CONTENT_TYPE, ""))
    return mimetype.type == "multipart" and bool(mimetype.subtype)


@functools.lru_cache(maxsize=256)
def _disposition(header: str | None) -> tuple[str | None, str | None]:
    """(name, filename) of a part's Content-Disposition, by aiohttp's own parser, once per
    distinct header (each of its calls builds a character class with 128 ``re.escape``)."""
    _, params = parse_content_disposition(header)
    return content_disposition_filename(params, "name"), content_disposition_filename(
        params, "filename"
    )


class _Part(BodyPartReader):
    @property
    def name(self) -> str | None:  # type: ignore[override]
        return _disposition(self.headers.get(hdrs.CONTENT_DISPOSITION))[0]

    @property
    def filename(self) -> str | None:  # type: ignore[override]
        return _disposition(self.headers.get(hdrs.CONTENT_DISPOSITION))[1]


class _MultipartReader(MultipartReader):
    """aiohttp's multipart reader (what ``request.multipart()`` returns), its parts' names
    parsed once per distinct header."""

    part_reader_cls = _Part


# Flags a bot may set when creating a message (SUPPRESS_EMBEDS, SUPPRESS_NOTIFICATIONS, V2).
CREATE_FLAGS = 4 | 4096 | FLAG_COMPONENTS_V2
# Flags changeable by an edit (SUPPRESS_EMBEDS, and V2 may be switched on).
EDIT_FLAGS = 4 | FLAG_COMPONENTS_V2

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class BotNotConnectedError(RuntimeError):
    """An interaction was injected while no bot session has received READY."""


class UnknownCommandError(LookupError):
    """The injected command was not synced to the fake (Discord's UI would not offer it)."""


@dataclass(frozen=True)
class ReadyMarker:
    """Counters to wait for *the next* READY / command sync (see ``FakeDiscord.wait_ready``)."""

    ready_count: int
    sync_count: int


@dataclass
class RequestRecord:
    method: str
    path: str
    status: int = 0
    started_at: float = field(default_factory=time.perf_counter)
    duration: float = 0.0


@dataclass
class ErrorRecord:
    method: str
    path: str
    status: int
    code: int
    message: str


@dataclass
class Fault:
    """An injected failure of the next ``times`` requests matching ``method`` and ``path``.

    ``after=False``: the request is refused and has no effect. ``after=True``: the request is
    carried out and then answered with the error, as when Discord did the work but the answer
    was lost (a 5xx from a proxy, a timeout). ``delay`` seconds pass before either, e.g. to make
    an interaction callback late. A 429 carries no ``Via`` header, so discord.py does not retry
    it (Cloudflare's bans look like that)."""

    method: str
    path: re.Pattern[str]
    status: int
    code: int = 0
    message: str = "injected fault"
    after: bool = False
    times: int = 1
    delay: float = 0.0
    hits: int = 0

    def matches(self, request: web.Request) -> bool:
        return (
            self.hits < self.times
            and request.method == self.method
            and self.path.search(request.path) is not None
        )

    def response(self) -> web.Response:
        body: JSON = {"message": self.message, "code": self.code}
        if self.status == 429:
            body.update(retry_after=0.5, **{"global": False})
        return json_response(body, status=self.status)


@dataclass
class Latency:
    """Requests matching ``method`` and ``path`` take ``seconds`` longer (then succeed)."""

    method: str
    path: re.Pattern[str]
    seconds: float

    def matches(self, request: web.Request) -> bool:
        return request.method == self.method and self.path.search(request.path) is not None


@dataclass
class CommandSync:
    guild_id: int | None
    names: list[str]
    at: float = field(default_factory=time.perf_counter)


def json_response(data: Any, status: int = 200) -> web.Response:
    # discord.py only decodes bodies whose Content-Type is exactly "application/json"
    # (aiohttp's json_response appends "; charset=utf-8").
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )


def _solid_png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A valid PNG without Pillow, for fake avatars on the fake CDN."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    row = b"\x00" + bytes(rgb) * width
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


class FakeDiscord:
    """A fake Discord for end-to-end tests. Use ``async with FakeDiscord() as fake:``."""

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        bot_name: str = "FakeBot",
        guild_name: str = "Fake Guild",
        channel_names: Iterable[str] = ("general",),
        heartbeat_interval_ms: int = 41250,
        callback_deadline: float | None = None,
        strict_commands: bool = True,
        request_log_size: int = 10000,
        host: str = "127.0.0.1",
    ) -> None:
        """``callback_deadline``: reject initial responses arriving later than this many seconds
        after dispatch with 404 Unknown interaction, as Discord does after 3 s (off by default so
        a slow CI box cannot turn into a flaky test). ``strict_commands``: refuse to inject a
        command that was never synced."""
        self.token = token
        self.host = host
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.callback_deadline = callback_deadline
        self.strict_commands = strict_commands
        self.snowflakes = SnowflakeFactory()

        self.bot_user = FakeUser(id=self.snowflakes.next(), username=bot_name, bot=True)
        # Discord gives new applications the same id as their bot user.
        self.application_id = self.bot_user.id
        owner = FakeUser(id=self.snowflakes.next(), username="owner")
        self.owner = owner
        self.guilds: dict[int, FakeGuild] = {}
        #: DMs and group DMs by id; their guild_id is NO_GUILD (resolved by this pseudo-guild).
        self.private_channels: dict[int, FakeChannel] = {}
        self._no_guild = FakeGuild(id=NO_GUILD, name="", owner_id=NO_GUILD)
        #: Users who installed the app to their account (its commands follow them anywhere).
        self.user_installs: set[int] = set()
        #: Interaction tokens past their 15 minutes (see :meth:`expire_interactions`).
        self._expired_tokens: set[str] = set()
        self.guild = self._make_guild(self.snowflakes.next(), guild_name)
        self.channels: list[FakeChannel] = [
            self._new_channel(name, GUILD_TEXT, None) for name in channel_names
        ]
        if not self.channels:
            raise ValueError("the fake guild needs at least one channel")
        #: What GET /gateway/bot answers.
        self.recommended_shards = 1
        self.max_concurrency = 1
        #: (time.monotonic(), shard or None) of every IDENTIFY, in order.
        self.identify_log: list[tuple[float, tuple[int, int] | None]] = []

        self._messages: dict[int, FakeMessage] = {}
        self._channel_messages: dict[int, list[FakeMessage]] = {}
        self._channel_signals: dict[int, Signal] = {}
        self._attachments: dict[int, FakeAttachment] = {}
        self._handles_by_token: dict[str, InteractionHandle] = {}
        self._handles_by_id: dict[int, InteractionHandle] = {}
        # None = global scope; keyed by (command type, name) like Discord's uniqueness rule.
        self._commands: dict[int | None, dict[tuple[int, str], JSON]] = {None: {}}

        self._sessions: set[GatewaySession] = set()
        #: The close code of each ended gateway connection, in order (1000: the client closed
        #: it cleanly; 1006: the connection dropped without a close frame).
        self.gateway_close_codes: list[int | None] = []
        self._active: GatewaySession | None = None
        self._session_numbers = 0
        self._state_signal = Signal()
        self.ready_count = 0
        self.sync_count = 0
        self.command_syncs: list[CommandSync] = []
        self.identifies: list[JSON] = []
        self.gateway_queries: list[dict[str, str]] = []
        self.typing_count = 0

        self.faults: list[Fault] = []
        self.latencies: list[Latency] = []
        self.requests: deque[RequestRecord] = deque(maxlen=request_log_size)
        self.errors: list[ErrorRecord] = []
        #: (message, user) for every notification a created message caused.
        self.pings: list[tuple[FakeMessage, FakeUser]] = []
        #: False: a Discord that ignores enforce_nonce, to measure what the nonces save
        #: (FAKE_DISCORD_IGNORE_NONCES=1 in the environment of a test run).
        self.enforce_nonces = os.environ.get("FAKE_DISCORD_IGNORE_NONCES") != "1"
        #: (channel id, nonce) -> (message id, when): Discord's enforce_nonce window.
        self._nonces: dict[tuple[int, str], tuple[int, float]] = {}
        #: Posts answered with an existing message because of their nonce.
        self.nonce_hits = 0
        self.unknown_routes: list[RequestRecord] = []

        self._runner: web.AppRunner | None = None
        self.port = 0

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        app = web.Application(
            middlewares=[self._middleware], client_max_size=8 * ATTACHMENT_SIZE_LIMIT
        )
        self._add_routes(app)
        runner = web.AppRunner(app, shutdown_timeout=2.0, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, self.host, 0)
        await site.start()
        self._runner = runner
        address = runner.addresses[0]
        self.port = int(address[1])

    async def stop(self) -> None:
        for session in list(self._sessions):
            await session.shutdown(1001, "fake discord stopping")
        self._sessions.clear()
        self._active = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}{GATEWAY_PATH}"

    @property
    def cdn_base(self) -> str:
        return f"{self.base_url}{CDN_PREFIX}"

    def env(self) -> dict[str, str]:
        """Environment variables for a subprocess bot."""
        return {
            "DISCORD_API_BASE": self.api_base,
            "DISCORD_GATEWAY_URL": self.gateway_url,
            "DISCORD_CDN_BASE": self.cdn_base,
            "DISCORD_TOKEN": self.token,
            "DISCORD_GUILD_ID": str(self.guild.id),
        }

    # ------------------------------------------------------------------ world building

    @property
    def general(self) -> FakeChannel:
        """The first text channel."""
        return self.channels[0]

    def _make_guild(self, guild_id: int, name: str, *, with_bot: bool = True) -> FakeGuild:
        guild = FakeGuild(id=guild_id, name=name, owner_id=self.owner.id)
        guild.roles[guild_id] = FakeRole(guild_id, "@everyone", EVERYONE_PERMISSIONS)
        guild.members[self.owner.id] = self.owner
        self.guilds[guild_id] = guild
        if not with_bot:
            return guild
        bot_role = FakeRole(
            self.snowflakes.next(), self.bot_user.username, BOT_PERMISSIONS, 1, managed=True
        )
        guild.roles[bot_role.id] = bot_role
        self.bot_user.role_ids.append(bot_role.id)
        guild.members[self.bot_user.id] = self.bot_user
        return guild

    def add_guild(
        self,
        name: str,
        *,
        shard: tuple[int, int] | None = None,
        channel_names: Iterable[str] = ("general",),
        with_bot: bool = True,
    ) -> FakeGuild:
        """Another guild the bot is in, with its channels; ``shard=(id, count)`` picks an id
        that Discord would put on that shard. Sessions that are already READY do not hear of
        it (join the bot to guilds before starting it). ``with_bot`` False: a server the bot is
        not in (its users may still have installed the app to their accounts)."""
        guild_id = self.snowflakes.next()
        if shard is not None:
            wanted, count = shard
            stamp = (guild_id >> 22) + 1
            while stamp % count != wanted:
                stamp += 1
            guild_id = stamp << 22
            self.snowflakes.advance_to(guild_id)
        guild = self._make_guild(guild_id, name, with_bot=with_bot)
        for channel_name in channel_names:
            self._new_channel(channel_name, GUILD_TEXT, None, guild=guild)
        return guild

    def _new_channel(
        self,
        name: str,
        type_: int,
        parent: FakeChannel | None,
        *,
        guild: FakeGuild | None = None,
    ) -> FakeChannel:
        guild = guild or (self.guilds[parent.guild_id] if parent is not None else self.guild)
        channel = FakeChannel(
            id=self.snowflakes.next(),
            name=name,
            guild_id=guild.id,
            type=type_,
            position=len(guild.channels),
            parent_id=parent.id if parent is not None else None,
            owner_id=self.bot_user.id if parent is not None else None,
        )
        guild.channels[channel.id] = channel
        return channel

    def add_user(
        self,
        name: str,
        *,
        global_name: str | None = None,
        roles: Iterable[FakeRole] = (),
        guilds: Iterable[FakeGuild] = (),
    ) -> FakeUser:
        """A new member of ``guilds`` (default: the first guild), announced with
        GUILD_MEMBER_ADD when the bot asked for members."""
        user = FakeUser(
            id=self.snowflakes.next(),
            username=name,
            global_name=global_name,
            role_ids=[role.id for role in roles],
        )
        for guild in list(guilds) or [self.guild]:
            guild.members[user.id] = user
            data = {**user.member_payload(), "guild_id": str(guild.id)}
            self._dispatch_if("GUILD_MEMBER_ADD", data, INTENT_GUILD_MEMBERS, guild_id=guild.id)
        return user

    def add_role(self, name: str, permissions: int = 0) -> FakeRole:
        role = FakeRole(self.snowflakes.next(), name, permissions, len(self.guild.roles))
        self.guild.roles[role.id] = role
        data = {"guild_id": str(self.guild.id), "role": role.payload()}
        self._dispatch_if("GUILD_ROLE_CREATE", data, INTENT_GUILDS)
        return role

    def add_channel(self, name: str, *, guild: FakeGuild | None = None) -> FakeChannel:
        """A new text channel in ``guild`` (default: the first guild)."""
        channel = self._new_channel(name, GUILD_TEXT, None, guild=guild)
        if guild is None or guild is self.guild:
            self.channels.append(channel)
        self._dispatch_if("CHANNEL_CREATE", channel.payload(), INTENT_GUILDS)
        return channel

    def add_thread(self, parent: FakeChannel, name: str, *, private: bool = False) -> FakeChannel:
        thread = self._new_channel(name, PRIVATE_THREAD if private else PUBLIC_THREAD, parent)
        self._dispatch_if(
            "THREAD_CREATE", {**thread.payload(), "newly_created": True}, INTENT_GUILDS
        )
        return thread

    def delete_thread(self, thread: FakeChannel) -> None:
        """A moderator deletes a thread (THREAD_DELETE to the bot)."""
        guild = self.guild_of(thread)
        guild.channels.pop(thread.id, None)
        self._dispatch_if(
            "THREAD_DELETE",
            {
                "id": str(thread.id),
                "guild_id": str(thread.guild_id),
                "parent_id": str(thread.parent_id),
                "type": thread.type,
            },
            INTENT_GUILDS,
        )

    def channel(self, channel_id: int) -> FakeChannel | None:
        private = self.private_channels.get(channel_id)
        if private is not None:
            return private
        for guild in self.guilds.values():
            channel = guild.channels.get(channel_id)
            if channel is not None:
                return channel
        return None

    def guild_of(self, channel: FakeChannel) -> FakeGuild:
        if channel.is_private:
            return self._no_guild  # no roles, no members: nothing resolves as a member
        return self.guilds[channel.guild_id]

    # ------------------------------------------------------------------ DMs and user installs

    def dm_channel(self, user: FakeUser, other: FakeUser | None = None) -> FakeChannel:
        """The direct messages between ``user`` and ``other`` (default: the bot), created at
        the first call. The bot may post only in its own DMs."""
        other = other or self.bot_user
        pair = {user.id, other.id}
        for channel in self.private_channels.values():
            if channel.type == DM and {u.id for u in channel.recipients} == pair:
                return channel
        channel = FakeChannel(
            id=self.snowflakes.next(), name="", guild_id=NO_GUILD, type=DM, recipients=[user, other]
        )
        self.private_channels[channel.id] = channel
        return channel

    def add_group_dm(self, name: str, users: Iterable[FakeUser]) -> FakeChannel:
        """A group DM of people (a bot user cannot be in one): the app reaches it only where a
        member installed it to their account."""
        members = list(users)
        channel = FakeChannel(
            id=self.snowflakes.next(),
            name=name,
            guild_id=NO_GUILD,
            type=GROUP_DM,
            owner_id=members[0].id,
            recipients=members,
        )
        self.private_channels[channel.id] = channel
        return channel

    def expire_interactions(self) -> int:
        """Let every interaction so far pass Discord's 15 minutes: their tokens no longer
        work (401 Invalid Webhook Token for follow-ups and webhook edits). Returns how many."""
        self._expired_tokens.update(self._handles_by_token)
        return len(self._expired_tokens)

    def install_to_user(self, user: FakeUser) -> None:
        """``user`` adds the app to their account (Discord's user install)."""
        self.user_installs.add(user.id)

    def bot_can_access(self, channel: FakeChannel) -> bool:
        """Whether the bot is a member of the channel (else Discord answers its channel calls
        with 403 Missing Access, whatever the app's user installs)."""
        if channel.is_private:
            return any(u.id == self.bot_user.id for u in channel.recipients)
        guild = self.guilds.get(channel.guild_id)
        return guild is not None and self.bot_user.id in guild.members

    def _context_of(self, user: FakeUser, channel: FakeChannel) -> tuple[int, JSON]:
        """Discord's interaction context and authorizing integration owners for ``user``
        acting in ``channel``."""
        owners: JSON = {}
        if user.id in self.user_installs:
            owners[str(USER_INSTALL)] = str(user.id)
        if channel.is_private and self.bot_can_access(channel):
            owners[str(GUILD_INSTALL)] = "0"  # the bot's DM: "0" stands for no guild
            return CONTEXT_BOT_DM, owners
        if channel.is_private:
            return CONTEXT_PRIVATE_CHANNEL, owners
        if self.bot_can_access(channel):
            owners[str(GUILD_INSTALL)] = str(channel.guild_id)
        return CONTEXT_GUILD, owners

    def _check_available(self, cmd: JSON | None, user: FakeUser, channel: FakeChannel) -> None:
        """Discord shows a command only where its installation types and contexts allow."""
        context, owners = self._context_of(user, channel)
        if not owners:
            raise UnknownCommandError("the app is not installed here nor to this user")
        if cmd is None:
            return
        types = cmd.get("integration_types") or [GUILD_INSTALL]
        contexts = cmd.get("contexts")
        installed = {int(k) for k in owners} & {int(t) for t in types}
        if not installed or (contexts is not None and context not in contexts):
            raise UnknownCommandError(
                f"/{cmd.get('name')} is not available here (integration_types {types}, "
                f"contexts {contexts}; this is context {context}, installs {sorted(owners)})"
            )

    async def slash_anywhere(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        options: Mapping[str, OptionValue] | None = None,
        /,
        *,
        shown: bool = True,
        **kw_options: OptionValue,
    ) -> InteractionHandle:
        """Invoke ``/command`` in any channel: the bot's DM, a server without the bot or a
        group DM (where ``user`` installed the app to their account), as Discord would send
        it. ``shown`` False: even if Discord would not show it there (a modified client, a
        stale command list)."""
        values = {**(options or {}), **kw_options}
        name = command.strip().lstrip("/").split()[0]
        if shown:
            self._check_available(self._lookup_command(name, 1, channel)[0], user, channel)
        data, full = self._command_data(channel, command, values, None)
        return await self._inject(APPLICATION_COMMAND, user, channel, data, name=full)

    # ------------------------------------------------------------------ inspection

    def mark(self) -> int:
        """The newest snowflake issued so far: later messages have larger ids (``after=``)."""
        return self.snowflakes.last

    def get_message(self, message_id: int) -> FakeMessage | None:
        return self._messages.get(message_id)

    def messages_in(
        self, channel: FakeChannel, *, include_deleted: bool = False
    ) -> list[FakeMessage]:
        """Messages of a channel, oldest first (ephemeral ones included: check ``.ephemeral``)."""
        msgs = self._channel_messages.get(channel.id, [])
        return list(msgs) if include_deleted else [m for m in msgs if not m.deleted]

    def commands(self, guild_id: int | None = None) -> list[JSON]:
        """Synced commands of a scope: global (None) or a guild id."""
        return list(self._commands.get(guild_id, {}).values())

    def interaction(self, interaction_id: int) -> InteractionHandle | None:
        return self._handles_by_id.get(interaction_id)

    @property
    def bot_connected(self) -> bool:
        return self._active is not None and self._active.ready and not self._active.closed

    @property
    def active_session(self) -> GatewaySession | None:
        return self._active

    def readiness_marker(self) -> ReadyMarker:
        return ReadyMarker(self.ready_count, self.sync_count)

    async def wait_ready(
        self,
        timeout: float = 10.0,
        *,
        since: ReadyMarker | None = None,
        require_sync: bool = True,
        commands: Iterable[str] = (),
    ) -> None:
        """Wait until a bot session got READY + GUILD_CREATE after ``since`` (default: ever),
        a command sync happened after ``since`` (unless ``require_sync=False``) and every name
        in ``commands`` is synced in some scope. Take ``since`` with ``readiness_marker()``
        before (re)starting a bot."""
        base = since or ReadyMarker(0, 0)
        wanted = list(commands)

        def check() -> bool | None:
            if not self.bot_connected or self.ready_count <= base.ready_count:
                return None
            if require_sync and self.sync_count <= base.sync_count:
                return None
            synced = {name for scope in self._commands.values() for (_, name) in scope}
            if any(name not in synced for name in wanted):
                return None
            return True

        def what() -> str:
            return (
                f"bot READY (ready_count={self.ready_count}, sync_count={self.sync_count}, "
                f"since={base}, commands={wanted}, sessions={len(self._sessions)}, "
                f"recent errors={self.errors[-3:]})"
            )

        await self._state_signal.wait_for(check, timeout, what)

    def session_marker(self) -> int:
        """The number of gateway connections so far (``after=`` for :meth:`wait_shard_ready`)."""
        return self._session_numbers

    async def wait_shard_ready(
        self, shard: tuple[int, int], timeout: float = 10.0, *, after: int = 0
    ) -> GatewaySession:
        """Wait until a session that identified as ``shard`` (id, count) and connected after
        ``after`` (a :meth:`session_marker`) received READY and its guilds."""

        def check() -> GatewaySession | None:
            for session in self._sessions:
                if (
                    session.number > after
                    and session.shard == shard
                    and session.ready
                    and not session.closed
                ):
                    return session
            return None

        def what() -> str:
            live = sorted((s.number, s.shard, s.ready) for s in self._sessions)
            return f"shard {shard} READY after session {after} (sessions: {live})"

        return await self._state_signal.wait_for(check, timeout, what)

    async def wait_for_channel_message(
        self,
        channel: FakeChannel,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = 10.0,
        *,
        after: int | None = None,
    ) -> FakeMessage:
        """First message in ``channel`` (id > ``after`` if given) for which ``predicate`` holds,
        re-checked whenever a message of the channel is created or edited. Deferred responses
        still "thinking" are skipped until resolved; ephemeral ones count (see ``.ephemeral``)."""
        signal = self._channel_signals.setdefault(channel.id, Signal())

        def check() -> FakeMessage | None:
            for msg in self._channel_messages.get(channel.id, []):
                if msg.deleted or msg.loading or (after is not None and msg.id <= after):
                    continue
                if predicate is None or predicate(msg):
                    return msg
            return None

        def what() -> str:
            recent = [m.content[:60] for m in self._channel_messages.get(channel.id, [])[-5:]]
            return f"a matching message in #{channel.name} (last contents: {recent})"

        return await signal.wait_for(check, timeout, what)

    # ------------------------------------------------------------------ gateway control

    def _session_for(self, guild_id: int | None) -> GatewaySession | None:
        """The most recent ready session that receives ``guild_id``'s events (any ready session
        for None)."""
        best: GatewaySession | None = None
        for session in self._sessions:
            if not session.ready or session.closed:
                continue
            if guild_id is not None and not session.covers(guild_id):
                continue
            if best is None or session.number > best.number:
                best = session
        return best

    def _dispatch_if(
        self, event: str, data: JSON, intent: int, *, guild_id: int | None = None
    ) -> None:
        if guild_id is None and isinstance(data.get("guild_id"), str):
            guild_id = int(data["guild_id"])
        if guild_id is None:
            guild_id = self.guild.id
        session = self._session_for(guild_id)
        if session is not None and session.intents & intent:
            session.dispatch(event, data)

    def _dispatch_message(self, event: str, msg: FakeMessage) -> None:
        """A message event, its payload built only for a session with the message intent
        (like _dispatch_if; the bot of this project asks for no message events)."""
        session = self._session_for(msg.guild_id if msg.guild_id is not None else self.guild.id)
        if session is not None and session.intents & INTENT_GUILD_MESSAGES:
            session.dispatch(event, msg.payload(gateway=True))

    def _require_session(self, guild_id: int | None = None) -> GatewaySession:
        session = self._session_for(guild_id) if guild_id is not None else self._active
        if session is None or not session.ready or session.closed:
            raise BotNotConnectedError(
                "no bot session has received READY on the fake gateway"
                + (f" for guild {guild_id}" if guild_id is not None else "")
            )
        return session

    async def force_reconnect(self) -> None:
        """Send op 7 RECONNECT to the bot, as Discord does before moving a session."""
        self._require_session().send_op(OP_RECONNECT, None)

    async def disconnect_bot(self, code: int = 4000) -> None:
        """Close the bot's socket with ``code`` (4000 = unknown error: discord.py reconnects)."""
        session = self._require_session()
        await session.shutdown(code, "fake disconnect")

    def inject_fault(
        self,
        method: str,
        path: str,
        status: int,
        *,
        code: int = 0,
        message: str = "injected fault",
        after: bool = False,
        times: int = 1,
        delay: float = 0.0,
    ) -> Fault:
        """Make the next ``times`` REST requests ``method`` whose path matches the regular
        expression ``path`` fail with ``status`` (see :class:`Fault`)."""
        fault = Fault(method.upper(), re.compile(path), status, code, message, after, times, delay)
        self.faults.append(fault)
        return fault

    def add_latency(self, method: str, path: str, seconds: float) -> Latency:
        """Make every later REST request ``method`` whose path matches ``path`` take
        ``seconds`` longer (a slow Discord; remove it from ``latencies`` to end it)."""
        latency = Latency(method.upper(), re.compile(path), seconds)
        self.latencies.append(latency)
        return latency

    # ------------------------------------------------------------------ interaction injection

    def _lookup_command(
        self, name: str, cmd_type: int, channel: FakeChannel
    ) -> tuple[JSON | None, bool]:
        """(command, is_guild_command): guild commands shadow global ones, as in the client."""
        guild_cmd = self._commands.get(channel.guild_id, {}).get((cmd_type, name))
        if guild_cmd is not None:
            return guild_cmd, True
        return self._commands[None].get((cmd_type, name)), False

    def _interaction_payload(
        self, itype: int, user: FakeUser, channel: FakeChannel, data: JSON, token: str, iid: int
    ) -> JSON:
        context, owners = self._context_of(user, channel)
        if channel.is_private or not self.bot_can_access(channel):
            return self._elsewhere_payload(itype, user, channel, data, token, iid, context, owners)
        guild = self.guild_of(channel)
        perms = guild.permissions_for(user)
        return {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": itype,
            "data": data,
            "guild_id": str(guild.id),
            "guild": {"id": str(guild.id), "locale": "en-US", "features": []},
            "channel_id": str(channel.id),
            "channel": channel.payload(permissions=perms),
            "member": user.member_payload(permissions=perms),
            "token": token,
            "version": 1,
            "app_permissions": str(guild.permissions_for(self.bot_user)),
            "locale": "en-US",
            "guild_locale": "en-US",
            "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": owners,
            "context": context,
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }

    def _elsewhere_payload(
        self,
        itype: int,
        user: FakeUser,
        channel: FakeChannel,
        data: JSON,
        token: str,
        iid: int,
        context: int,
        owners: JSON,
    ) -> JSON:
        """An interaction from the bot's DM, a group DM or a server without the bot: no
        member of the bot there; a server's channel still comes with its guild and member."""
        payload: JSON = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": itype,
            "data": data,
            "channel_id": str(channel.id),
            "token": token,
            "version": 1,
            "locale": "en-US",
            "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": owners,
            "context": context,
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }
        if channel.is_private:
            payload.update(
                user=user.payload(),
                channel=channel.payload(),
                app_permissions=str(USER_APP_PERMISSIONS if context != CONTEXT_BOT_DM else 0),
            )
            return payload
        guild = self.guild_of(channel)
        perms = guild.permissions_for(user)
        payload.update(
            guild_id=str(guild.id),
            guild={"id": str(guild.id), "locale": "en-US", "features": []},
            guild_locale="en-US",
            channel=channel.payload(permissions=perms),
            member=user.member_payload(permissions=perms),
            app_permissions=str(USER_APP_PERMISSIONS),
        )
        return payload

    async def _inject(
        self,
        itype: int,
        user: FakeUser,
        channel: FakeChannel,
        data: JSON,
        *,
        message: FakeMessage | None = None,
        name: str | None = None,
    ) -> InteractionHandle:
        # Interactions of no guild (DMs) come to shard 0, like the guild id 0 would.
        session = self._require_session(channel.guild_id)
        iid = self.snowflakes.next()
        token = f"fake-interaction-{secrets.token_urlsafe(24)}"
        payload = self._interaction_payload(itype, user, channel, data, token, iid)
        if message is not None:
            payload["message"] = message.payload()
        handle = InteractionHandle(
            self,
            id=iid,
            token=token,
            type=itype,
            user=user,
            channel=channel,
            payload=payload,
            message=message,
            name=name,
        )
        self._handles_by_token[token] = handle
        self._handles_by_id[iid] = handle
        # The writer stamps the time the frame left, which is what latency is measured from.
        try:
            handle.dispatched_at = await session.dispatch("INTERACTION_CREATE", payload)
        except ConnectionError as exc:
            raise BotNotConnectedError(f"the bot's gateway socket died: {exc}") from exc
        return handle

    def _command_data(
        self,
        channel: FakeChannel,
        command: str,
        values: Mapping[str, object],
        focused: str | None,
    ) -> tuple[JSON, str]:
        self._require_session(channel.guild_id)  # report "no bot" before "unknown command"
        path = command.strip().lstrip("/").split()
        if not path:
            raise ValueError("empty command name")
        cmd, is_guild = self._lookup_command(path[0], 1, channel)
        if cmd is None and self.strict_commands:
            synced = sorted({n for scope in self._commands.values() for (_, n) in scope})
            raise UnknownCommandError(f"/{path[0]} was not synced (synced: {synced})")
        _, leaf_schema = nest_subcommands(path, [], cmd)
        guild = self.guild_of(channel)
        leaf, resolved = build_options(values, leaf_schema, guild, focused=focused)
        options, _ = nest_subcommands(path, leaf, cmd)
        data: JSON = {
            "id": cmd["id"] if cmd else str(self.snowflakes.next()),
            "name": path[0],
            "type": 1,
            "options": options,
        }
        if resolved:
            data["resolved"] = resolved
        if is_guild:
            data["guild_id"] = str(channel.guild_id)
        return data, " ".join(path)

    async def slash(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        options: Mapping[str, OptionValue] | None = None,
        /,
        **kw_options: OptionValue,
    ) -> InteractionHandle:
        """Invoke ``/command`` (``"group sub"`` for subcommands) with options as keyword args
        (or a mapping, for option names that are not identifiers)."""
        values = {**(options or {}), **kw_options}
        data, name = self._command_data(channel, command, values, None)
        return await self._inject(APPLICATION_COMMAND, user, channel, data, name=name)

    async def slash_in_dm(
        self,
        user: FakeUser,
        command: str,
        options: Mapping[str, OptionValue] | None = None,
        /,
        **kw_options: OptionValue,
    ) -> InteractionHandle:
        """Invoke ``/command`` from a direct message with the bot, as a modified client could
        even for a guild-only command: no guild, no member data, a DM channel."""
        values = {**(options or {}), **kw_options}
        # Looked up as the general channel's client would (guild commands included).
        data, name = self._command_data(self.general, command, values, None)
        data.pop("guild_id", None)
        return await self._inject(APPLICATION_COMMAND, user, self.dm_channel(user), data, name=name)

    async def autocomplete(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        focused: str,
        options: Mapping[str, OptionValue] | None = None,
        /,
        **kw_options: OptionValue,
    ) -> InteractionHandle:
        """Autocomplete for option ``focused`` of ``/command``; its value is the typed text."""
        values: dict[str, object] = {**(options or {}), **kw_options}
        values.setdefault(focused, "")
        data, name = self._command_data(channel, command, values, focused)
        return await self._inject(AUTOCOMPLETE, user, channel, data, name=name)

    async def autocomplete_in_dm(
        self,
        user: FakeUser,
        command: str,
        focused: str,
        options: Mapping[str, OptionValue] | None = None,
        /,
        **kw_options: OptionValue,
    ) -> InteractionHandle:
        """Autocomplete for ``/command`` typed in a direct message with the bot (no guild)."""
        values: dict[str, object] = {**(options or {}), **kw_options}
        values.setdefault(focused, "")
        data, name = self._command_data(self.general, command, values, focused)
        data.pop("guild_id", None)
        return await self._inject(AUTOCOMPLETE, user, self.dm_channel(user), data, name=name)

    def _component_target(
        self, message: FakeMessage | int, custom_id: str
    ) -> tuple[FakeMessage, JSON]:
        msg = self._messages.get(message if isinstance(message, int) else message.id)
        if msg is None or msg.deleted:
            raise ValueError(f"message {message!r} does not exist (or was deleted)")
        comp = msg.find_component(custom_id)
        if comp is None:
            raise ValueError(f"message {msg.id} has no component {custom_id!r}: {msg.custom_ids()}")
        if comp.get("disabled"):
            raise ValueError(f"component {custom_id!r} is disabled")
        return msg, comp

    async def click(
        self, user: FakeUser, message: FakeMessage | int, custom_id: str, /, *, forged: bool = False
    ) -> InteractionHandle:
        """Click the button ``custom_id`` on ``message`` (must exist there and be enabled).
        ``forged``: send it whatever the message holds, as a modified client could."""
        if forged:
            msg = self._messages[message if isinstance(message, int) else message.id]
            comp: JSON = {"type": 2}
        else:
            msg, comp = self._component_target(message, custom_id)
        data = {"custom_id": custom_id, "component_type": comp.get("type", 2)}
        channel = self.channel(msg.channel_id)
        assert channel is not None
        return await self._inject(MESSAGE_COMPONENT, user, channel, data, message=msg)

    async def select(
        self, user: FakeUser, message: FakeMessage | int, custom_id: str, values: list[str], /
    ) -> InteractionHandle:
        """Pick ``values`` in the select menu ``custom_id`` on ``message``."""
        msg, comp = self._component_target(message, custom_id)
        data = {"custom_id": custom_id, "component_type": comp.get("type", 3), "values": values}
        channel = self.channel(msg.channel_id)
        assert channel is not None
        return await self._inject(MESSAGE_COMPONENT, user, channel, data, message=msg)

    async def submit_modal(
        self, user: FakeUser, shown_by: InteractionHandle, values: Mapping[str, str | list[str]], /
    ) -> InteractionHandle:
        """Submit the modal the bot opened in answer to ``shown_by`` with field ``values``."""
        modal = shown_by.modal
        if modal is None:
            raise ValueError(f"{shown_by!r} was not answered with a modal")
        data = {
            "custom_id": modal.get("custom_id"),
            "components": modal_submit_components(modal, values),
        }
        return await self._inject(
            MODAL_SUBMIT, user, shown_by.channel, data, message=shown_by.message
        )

    async def user_message(self, user: FakeUser, channel: FakeChannel, content: str) -> FakeMessage:
        """A message typed by a user (MESSAGE_CREATE is sent if the bot wants message events)."""
        msg = self._store_message(
            FakeMessage(
                id=self.snowflakes.next(),
                channel_id=channel.id,
                guild_id=channel.guild_id,
                author=user,
                content=content,
                mentions=self._mentions(content),
            )
        )
        return msg

    # ------------------------------------------------------------------ message store

    def _mentions(self, content: str | None) -> list[FakeUser]:
        if not content:
            return []
        found: list[FakeUser] = []
        for i in {int(m) for m in MENTION_RE.findall(content)}:
            # The member as the last guild holding it lists it (a lookup per mention: a map of
            # every member built per message cost the benchmarks ~0.5 ms a message).
            user = None
            for guild in self.guilds.values():
                user = guild.members.get(i, user)
            if user is not None:
                found.append(user)
        return found

    def _pings(self, msg: FakeMessage, body: JSON) -> None:
        """Who a created message notifies: mentions in its content (a layout's text displays)
        that ``allowed_mentions`` lets through (absent: the client default, here everything,
        as Discord does)."""
        if msg.ephemeral:
            return
        allowed = body.get("allowed_mentions")
        parse = {"users", "roles", "everyone"} if allowed is None else set(allowed.get("parse", []))
        users = set() if allowed is None else {int(u) for u in allowed.get("users", []) or []}
        roles = set() if allowed is None else {int(r) for r in allowed.get("roles", []) or []}
        content = msg.mention_text()
        msg.pinged = [u for u in msg.mentions if "users" in parse or u.id in users]
        mentioned_roles = {int(r) for r in ROLE_MENTION_RE.findall(content)}
        msg.pinged_roles = sorted(r for r in mentioned_roles if "roles" in parse or r in roles)
        msg.pinged_everyone = "everyone" in parse and ("@everyone" in content or "@here" in content)
        self.pings.extend((msg, u) for u in msg.pinged)

    def _store_message(self, msg: FakeMessage) -> FakeMessage:
        self._messages[msg.id] = msg
        self._channel_messages.setdefault(msg.channel_id, []).append(msg)
        channel = self.channel(msg.channel_id)
        if channel is not None:
            channel.last_message_id = msg.id
        self._message_changed(msg)
        if not msg.ephemeral and not msg.loading:
            self._dispatch_message("MESSAGE_CREATE", msg)
        return msg

    def _new_attachments(
        self,
        channel_id: int,
        body: JSON,
        files: dict[int, CallbackFile],
        existing: list[FakeAttachment],
    ) -> list[FakeAttachment]:
        """Resolve the ``attachments`` array: keep listed existing ones, add uploaded files."""

        def upload(index: int, description: str | None) -> FakeAttachment:
            f = files[index]
            att_id = self.snowflakes.next()
            url = f"{self.base_url}/attachments/{channel_id}/{att_id}/{quote(f.filename)}"
            att = FakeAttachment(
                id=att_id,
                filename=f.filename,
                data=f.data,
                content_type=guess_content_type(f.filename, f.data),
                url=url,
                description=description,
            )
            self._attachments[att_id] = att
            return att

        listed = body.get("attachments")
        if listed is None:
            return list(existing) + [upload(i, None) for i in sorted(files)]
        by_id = {str(a.id): a for a in existing}
        result: list[FakeAttachment] = []
        used: set[int] = set()
        for i, entry in enumerate(listed):
            if not isinstance(entry, dict) or "id" not in entry:
                raise form_error(f"attachments.{i}.id", "This field is required")
            key = str(entry["id"])
            description = entry.get("description")
            if key in by_id:
                result.append(by_id[key])
            elif key.isdigit() and int(key) in files:
                used.add(int(key))
                result.append(upload(int(key), description))
            else:
                raise form_error(f"attachments.{i}.id", f"Unknown attachment {key}")
        result.extend(upload(i, None) for i in sorted(files) if i not in used)
        return result

    def _create_message(
        self,
        channel: FakeChannel,
        body: JSON,
        files: dict[int, CallbackFile],
        *,
        msg_type: int = 0,
        extra_flags: int = 0,
        allow_ephemeral: bool = False,
        handle: InteractionHandle | None = None,
    ) -> FakeMessage:
        validate_message(body, len(files), creating=True)
        flags = (body.get("flags") or 0) & (
            CREATE_FLAGS | (FLAG_EPHEMERAL if allow_ephemeral else 0)
        )
        msg = FakeMessage(
            id=self.snowflakes.next(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=self.bot_user,
            content=body.get("content") or "",
            embeds=list(body.get("embeds") or []),
            components=list(body.get("components") or []),
            attachments=self._new_attachments(channel.id, body, files, []),
            flags=flags | extra_flags,
            type=msg_type,
            tts=bool(body.get("tts")),
            mentions=self._mentions(body.get("content")),
        )
        if msg.components_v2:
            check_layout_message(msg.content, msg.embeds, msg.components)
            msg.components = resolve_layout(msg.components, msg.attachments)
            msg.mentions = self._mentions(msg.mention_text())
        reference = body.get("message_reference")
        if isinstance(reference, dict) and reference.get("message_id") is not None:
            target = self._messages.get(int(reference["message_id"]))
            if target is None and reference.get("fail_if_not_exists", True):
                raise form_error("message_reference", "Unknown message")
            msg.message_reference = {
                "type": 0,
                "message_id": str(reference["message_id"]),
                "channel_id": str(channel.id),
                "guild_id": str(channel.guild_id),
            }
            msg.type = 19
        if handle is not None:
            self._attach_interaction(msg, handle)
        if not msg.loading:
            self._pings(msg, body)
        return self._store_message(msg)

    def _attach_interaction(self, msg: FakeMessage, handle: InteractionHandle) -> None:
        msg.webhook_id = self.application_id
        msg.application_id = self.application_id
        msg.interaction_id = handle.id
        meta: JSON = {
            "id": str(handle.id),
            "type": handle.type,
            "user": handle.user.payload(),
            "authorizing_integration_owners": handle.payload.get(
                "authorizing_integration_owners", {}
            ),
        }
        if handle.type == APPLICATION_COMMAND:
            meta["name"] = handle.name
            meta["command_type"] = 1
            msg.legacy_interaction = {
                "id": str(handle.id),
                "type": handle.type,
                "name": handle.name,
                "user": handle.user.payload(),
            }
        elif handle.message is not None:
            meta["interacted_message_id"] = str(handle.message.id)
        msg.interaction_metadata = meta
        if msg.type == 0:
            msg.type = 20 if handle.type == APPLICATION_COMMAND else 19

    def _edit_message(
        self, msg: FakeMessage, body: JSON, files: dict[int, CallbackFile]
    ) -> FakeMessage:
        validate_message(body, len(files), creating=False)
        content = (body.get("content") or "") if "content" in body else msg.content
        embeds = list(body.get("embeds") or []) if "embeds" in body else msg.embeds
        components = list(body.get("components") or []) if "components" in body else msg.components
        attachments = msg.attachments
        if "attachments" in body or files:
            attachments = self._new_attachments(msg.channel_id, body, files, msg.attachments)
        flags = msg.flags
        if isinstance(body.get("flags"), int):
            flags = (
                (flags & ~EDIT_FLAGS) | (body["flags"] & EDIT_FLAGS) | (flags & FLAG_COMPONENTS_V2)
            )
        if not (content or embeds or components or attachments):
            raise ApiError(400, 50006, "Cannot send an empty message")
        if flags & FLAG_COMPONENTS_V2:
            # Judged on the message as the edit leaves it: a text message cannot become a
            # layout while it keeps its text, and the layout's pictures are its attachments.
            check_layout_message(content, embeds, components)
            components = resolve_layout(components, attachments)
        was_loading = msg.loading
        msg.content, msg.embeds, msg.components, msg.attachments = (
            content,
            embeds,
            components,
            attachments,
        )
        msg.flags = flags & ~FLAG_LOADING
        msg.mentions = self._mentions(msg.mention_text())
        if was_loading:  # resolving a deferred response creates the message people see
            self._pings(msg, body)
        msg.edit_count += 1
        msg.edited_at = time.perf_counter()
        if not was_loading:
            msg.edited_timestamp = now_iso()
        self._message_changed(msg)
        if not msg.ephemeral:
            self._dispatch_message("MESSAGE_CREATE" if was_loading else "MESSAGE_UPDATE", msg)
        return msg

    def _message_changed(self, msg: FakeMessage) -> None:
        signal = self._channel_signals.get(msg.channel_id)
        if signal is not None:
            signal.fire()
        # The interaction whose response this is may be waiting on its edits.
        owner = self._handles_by_id.get(msg.interaction_id) if msg.interaction_id else None
        if owner is not None:
            owner.notify()

    def _delete_message(self, msg: FakeMessage) -> None:
        msg.deleted = True
        self._message_changed(msg)
        if not msg.ephemeral:
            data = {
                "id": str(msg.id),
                "channel_id": str(msg.channel_id),
                "guild_id": str(msg.guild_id),
            }
            self._dispatch_if("MESSAGE_DELETE", data, INTENT_GUILD_MESSAGES)

    # ------------------------------------------------------------------ commands store

    def _store_command(self, scope: int | None, cmd: JSON, existing: JSON | None) -> JSON:
        cmd_type = cmd.get("type", 1)
        stored: JSON = {
            "id": existing["id"] if existing else str(self.snowflakes.next()),
            "application_id": str(self.application_id),
            "version": str(self.snowflakes.next()),
            "type": cmd_type,
            "name": cmd["name"],
            "description": cmd.get("description", "") if cmd_type == 1 else "",
            "options": cmd.get("options") or [],
            "default_member_permissions": cmd.get("default_member_permissions"),
            "dm_permission": cmd.get("dm_permission", True),
            "nsfw": bool(cmd.get("nsfw", False)),
            "integration_types": cmd.get("integration_types") or [0],
            "contexts": cmd.get("contexts"),
            "name_localizations": cmd.get("name_localizations"),
            "description_localizations": cmd.get("description_localizations"),
        }
        if scope is not None:
            stored["guild_id"] = str(scope)
        return stored

    def _record_sync(self, scope: int | None) -> None:
        self.sync_count += 1
        names = [name for (_, name) in self._commands.get(scope, {})]
        self.command_syncs.append(CommandSync(scope, names))
        self._state_signal.fire()

    # ------------------------------------------------------------------ HTTP plumbing

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        record = RequestRecord(request.method, request.path)
        self.requests.append(record)
        fault = next((f for f in self.faults if f.matches(request)), None)
        slower = sum(lat.seconds for lat in self.latencies if lat.matches(request))
        if slower:
            await asyncio.sleep(slower)
        try:
            if fault is not None:
                fault.hits += 1
                await asyncio.sleep(fault.delay)
                if fault.after:
                    await handler(request)
                self.errors.append(
                    ErrorRecord(request.method, request.path, fault.status, fault.code, "fault")
                )
                response = fault.response()
            else:
                self._check_auth(request)
                response = await handler(request)
        except ApiError as err:
            response = json_response(err.payload(), status=err.status)
            self.errors.append(
                ErrorRecord(request.method, request.path, err.status, err.code, err.message)
            )
        except web.HTTPException as exc:
            self.errors.append(
                ErrorRecord(request.method, request.path, exc.status, 0, exc.text or "")
            )
            raise
        except Exception as exc:  # a fake bug must surface as a 500, not a hang
            _log.exception("fake discord crashed on %s %s", request.method, request.path)
            self.errors.append(ErrorRecord(request.method, request.path, 500, 0, repr(exc)))
            response = json_response({"message": "500: fake crashed", "code": 0}, status=500)
        if request.path.startswith(API_PREFIX) and not response.prepared:
            reset = time.time() + 1.0
            response.headers.update(
                {
                    "X-RateLimit-Limit": "1000",
                    "X-RateLimit-Remaining": "999",
                    "X-RateLimit-Reset": f"{reset:.3f}",
                    "X-RateLimit-Reset-After": "1.000",
                    "X-RateLimit-Bucket": self._bucket(request),
                }
            )
        record.status = response.status
        record.duration = time.perf_counter() - record.started_at
        return response

    @staticmethod
    def _bucket(request: web.Request) -> str:
        # One bucket per route template, like Discord's per-route buckets.
        resource = request.match_info.route.resource
        key = resource.canonical if resource is not None else request.path
        return f"fake-{zlib.crc32(key.encode()):08x}"

    def _check_auth(self, request: web.Request) -> None:
        path = request.path
        if not path.startswith(API_PREFIX):
            return
        rest = path[len(API_PREFIX) :]
        if rest.startswith(("/webhooks/", "/interactions/")) or rest == "/gateway":
            return  # interaction webhooks authenticate with their token in the URL
        if request.headers.get("Authorization") != f"Bot {self.token}":
            raise ApiError(401, 0, "401: Unauthorized")

    async def _read_json(self, request: web.Request) -> Any:
        raw = await request.read()
        if not raw:
            return {}
        try:
            return json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise ApiError(400, 50109, "The request body contains invalid JSON.") from None

    async def _read_body(self, request: web.Request) -> tuple[JSON, dict[int, CallbackFile]]:
        """JSON, or multipart/form-data with ``payload_json`` and ``files[n]`` parts."""
        if not _is_multipart(request):
            body = await self._read_json(request)
            if not isinstance(body, dict):
                raise form_error("_", "Must be an object.")
            return body, {}
        body = {}
        files: dict[int, CallbackFile] = {}
        total = 0
        try:
            reader = _MultipartReader(request.headers, request.content)
            async for part in reader:
                if not isinstance(part, BodyPartReader):
                    continue
                name = part.name or ""
                if name == "payload_json":
                    body = json.loads(await part.text())
                    continue
                match = re.fullmatch(r"files\[(\d+)\]|file(\d*)", name)
                if match is None:
                    continue
                index = int(match.group(1) or match.group(2) or 0)
                data = bytes(await part.read(decode=False))
                total += len(data)
                filename = part.filename or f"file{index}"
                files[index] = CallbackFile(filename, data, guess_content_type(filename, data))
        except (ValueError, UnicodeDecodeError):
            raise ApiError(400, 50109, "The request body contains invalid JSON.") from None
        if not isinstance(body, dict):
            raise form_error("payload_json", "Must be an object.")
        if total > ATTACHMENT_SIZE_LIMIT:
            raise ApiError(413, 40005, "Request entity too large")
        return body, files

    @staticmethod
    def _int(request: web.Request, key: str) -> int:
        return int(request.match_info[key])

    def _route_channel(self, request: web.Request) -> FakeChannel:
        channel = self.channel(self._int(request, "channel_id"))
        if channel is None:
            raise ApiError(404, 10003, "Unknown Channel")
        if not self.bot_can_access(channel):
            # A server the bot is not in, a group DM, other people's DM: whatever the app's
            # user installs, the bot itself has no access (only interaction webhooks work).
            raise ApiError(403, 50001, "Missing Access")
        return channel

    def _route_app(self, request: web.Request) -> None:
        if self._int(request, "app_id") != self.application_id:
            raise ApiError(403, 50001, "Missing Access")

    def _route_scope(self, request: web.Request) -> int | None:
        self._route_app(request)
        if "guild_id" not in request.match_info:
            return None
        guild_id = self._int(request, "guild_id")
        if guild_id not in self.guilds:
            raise ApiError(403, 50001, "Missing Access")
        return guild_id

    def _add_routes(self, app: web.Application) -> None:
        a = API_PREFIX
        snow = r"{%s:\d+}"
        app_ = snow % "app_id"
        chan = snow % "channel_id"
        msg = snow % "message_id"
        guild = snow % "guild_id"
        cmd = snow % "command_id"
        r = app.router
        r.add_get(GATEWAY_PATH, self._gateway_handler)
        r.add_get(f"{a}/gateway", self._get_gateway)
        r.add_get(f"{a}/gateway/bot", self._get_gateway_bot)
        r.add_get(f"{a}/users/@me", self._get_me)
        r.add_get(f"{a}/users/{snow % 'user_id'}", self._get_user)
        r.add_get(f"{a}/applications/@me", self._get_application)
        r.add_get(f"{a}/oauth2/applications/@me", self._get_application)
        for base in (
            f"{a}/applications/{app_}/commands",
            f"{a}/applications/{app_}/guilds/{guild}/commands",
        ):
            r.add_get(base, self._get_commands)
            r.add_put(base, self._put_commands)
            r.add_post(base, self._post_command)
            r.add_get(f"{base}/{cmd}", self._get_command)
            r.add_patch(f"{base}/{cmd}", self._patch_command)
            r.add_delete(f"{base}/{cmd}", self._delete_command)
        r.add_post(f"{a}/interactions/{snow % 'interaction_id'}/{{token}}/callback", self._callback)
        hook = f"{a}/webhooks/{app_}/{{token}}"
        r.add_post(hook, self._followup)
        r.add_get(f"{hook}/messages/@original", self._get_original)
        r.add_patch(f"{hook}/messages/@original", self._patch_original)
        r.add_delete(f"{hook}/messages/@original", self._delete_original)
        r.add_get(f"{hook}/messages/{msg}", self._get_webhook_message)
        r.add_patch(f"{hook}/messages/{msg}", self._patch_webhook_message)
        r.add_delete(f"{hook}/messages/{msg}", self._delete_webhook_message)
        r.add_get(f"{a}/channels/{chan}", self._get_channel)
        r.add_get(f"{a}/channels/{chan}/messages", self._get_channel_messages)
        r.add_post(f"{a}/channels/{chan}/messages", self._post_channel_message)
        r.add_get(f"{a}/channels/{chan}/messages/{msg}", self._get_channel_message)
        r.add_patch(f"{a}/channels/{chan}/messages/{msg}", self._patch_channel_message)
        r.add_delete(f"{a}/channels/{chan}/messages/{msg}", self._delete_channel_message)
        r.add_post(f"{a}/channels/{chan}/typing", self._typing)
        r.add_post(f"{a}/channels/{chan}/threads", self._create_thread)
        r.add_post(f"{a}/channels/{chan}/messages/{msg}/threads", self._create_thread)
        r.add_get(f"{a}/guilds/{guild}", self._get_guild)
        r.add_get(f"{a}/guilds/{guild}/channels", self._get_guild_channels)
        r.add_get(f"{a}/guilds/{guild}/roles", self._get_guild_roles)
        r.add_get(f"{a}/guilds/{guild}/members/{snow % 'user_id'}", self._get_member)
        r.add_get(
            f"/attachments/{chan}/{snow % 'attachment_id'}/{{filename}}", self._get_attachment
        )
        r.add_get(f"{CDN_PREFIX}/{{tail:.*}}", self._get_cdn)
        r.add_route("*", "/{tail:.*}", self._unknown)

    async def _unknown(self, request: web.Request) -> web.StreamResponse:
        self.unknown_routes.append(RequestRecord(request.method, request.path))
        raise ApiError(
            404, 0, f"404: Not Found (fake has no route {request.method} {request.path})"
        )

    # ------------------------------------------------------------------ gateway endpoint

    async def _gateway_handler(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, compress=False, timeout=2.0)
        if not ws.can_prepare(request).ok:
            raise ApiError(400, 0, "expected a websocket upgrade")
        await ws.prepare(request)
        query = dict(request.query)
        self.gateway_queries.append(query)
        self._session_numbers += 1
        session = GatewaySession(
            ws, number=self._session_numbers, zlib_stream=query.get("compress") == "zlib-stream"
        )
        self._sessions.add(session)
        try:
            if query.get("v", "10") != "10" or query.get("encoding", "json") != "json":
                await session.close(4012, "fake supports v=10 encoding=json only")
                return ws
            session.send_op(OP_HELLO, {"heartbeat_interval": self.heartbeat_interval_ms})
            async for frame in ws:
                if frame.type is not WSMsgType.TEXT:
                    await session.close(4002, "decode error")
                    break
                try:
                    message = json.loads(frame.data)
                    op = message["op"]
                except (ValueError, KeyError, TypeError):
                    await session.close(4002, "decode error")
                    break
                if not await self._gateway_op(session, op, message.get("d")):
                    break
        finally:
            self.gateway_close_codes.append(ws.close_code)
            session.closed = True
            self._sessions.discard(session)
            if self._active is session:
                # Another process's shards may still be connected.
                self._active = self._session_for(None)
                self._state_signal.fire()
            await session.shutdown(1000)
        return ws

    async def _gateway_op(self, session: GatewaySession, op: int, data: Any) -> bool:
        """Handle one client opcode; False ends the connection."""
        if op == OP_HEARTBEAT:
            session.send_op(OP_HEARTBEAT_ACK, None)
        elif op == OP_IDENTIFY:
            return await self._identify(session, data)
        elif op == OP_RESUME:
            # Sessions are not kept: ask for a fresh IDENTIFY, which discord.py handles.
            session.send_op(OP_INVALID_SESSION, False)
        elif session.identify is None:
            await session.close(4003, "not authenticated")
            return False
        elif op == OP_REQUEST_MEMBERS:
            self._members_chunk(session, data if isinstance(data, dict) else {})
        elif op in (OP_PRESENCE, OP_VOICE_STATE):
            pass
        else:
            await session.close(4001, "unknown opcode")
            return False
        return True

    async def _identify(self, session: GatewaySession, data: Any) -> bool:
        if session.identify is not None:
            await session.close(4005, "already authenticated")
            return False
        if not isinstance(data, dict) or data.get("token") != self.token:
            await session.close(4004, "authentication failed")
            return False
        shard = data.get("shard")
        if shard is not None:
            if (
                not isinstance(shard, list)
                or len(shard) != 2
                or not all(isinstance(n, int) for n in shard)
                or not 0 <= shard[0] < shard[1]
            ):
                await session.close(4010, "invalid shard")
                return False
            session.shard = (shard[0], shard[1])
        session.identify = data
        session.intents = int(data.get("intents", 0) or 0)
        self.identifies.append(data)
        self.identify_log.append((time.monotonic(), session.shard))
        guilds = [
            g
            for g in self.guilds.values()
            if session.covers(g.id) and self.bot_user.id in g.members
        ]
        ready: JSON = {
            "v": 10,
            "user": self.bot_user.payload(),
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "auth": {},
        }
        if session.shard is not None:
            ready["shard"] = list(session.shard)
        sent = [session.dispatch("READY", ready)]
        sent.extend(
            session.dispatch("GUILD_CREATE", g.create_payload(self.bot_user.joined_at))
            for g in guilds
        )
        try:
            await asyncio.gather(*sent)
        except ConnectionError:
            return False
        session.ready = True
        previous = self._active
        self._active = session
        self.ready_count += 1
        self._state_signal.fire()
        _log.debug("fake gateway session %s ready (previous %s)", session.number, previous)
        return True

    def _members_chunk(self, session: GatewaySession, data: JSON) -> None:
        raw_guild = data.get("guild_id")
        guild = self.guild
        if isinstance(raw_guild, str) and raw_guild.isdigit():
            guild = self.guilds.get(int(raw_guild), self.guild)
        members = list(guild.members.values())
        user_ids = data.get("user_ids")
        if isinstance(user_ids, list):
            wanted = {int(u) for u in user_ids if str(u).isdigit()}
            members = [m for m in members if m.id in wanted]
        elif isinstance(data.get("query"), str) and data["query"]:
            prefix = data["query"].lower()
            members = [m for m in members if m.username.lower().startswith(prefix)]
        limit = data.get("limit")
        if isinstance(limit, int) and limit > 0:
            members = members[:limit]
        chunk: JSON = {
            "guild_id": str(guild.id),
            "members": [m.member_payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("presences"):
            chunk["presences"] = []
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        session.dispatch("GUILD_MEMBERS_CHUNK", chunk)

    # ------------------------------------------------------------------ REST: identity

    async def _get_gateway(self, request: web.Request) -> web.StreamResponse:
        return json_response({"url": self.gateway_url})

    async def _get_gateway_bot(self, request: web.Request) -> web.StreamResponse:
        return json_response(
            {
                "url": self.gateway_url,
                "shards": self.recommended_shards,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": self.max_concurrency,
                },
            }
        )

    async def _get_me(self, request: web.Request) -> web.StreamResponse:
        return json_response(
            {**self.bot_user.payload(), "verified": True, "mfa_enabled": False, "email": None}
        )

    async def _get_user(self, request: web.Request) -> web.StreamResponse:
        user_id = self._int(request, "user_id")
        user = next(
            (g.members[user_id] for g in self.guilds.values() if user_id in g.members), None
        )
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return json_response(user.payload())

    async def _get_application(self, request: web.Request) -> web.StreamResponse:
        return json_response(
            {
                "id": str(self.application_id),
                "name": self.bot_user.username,
                "icon": None,
                "description": "fake application",
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": self.owner.payload(),
                "verify_key": "0" * 64,
                "team": None,
                "flags": 0,
                "bot": self.bot_user.payload(),
                "interactions_endpoint_url": None,
                "redirect_uris": [],
                "tags": [],
                "integration_types_config": {"0": {}},
            }
        )

    # ------------------------------------------------------------------ REST: app commands

    async def _get_commands(self, request: web.Request) -> web.StreamResponse:
        scope = self._route_scope(request)
        return json_response(self.commands(scope))

    async def _put_commands(self, request: web.Request) -> web.StreamResponse:
        scope = self._route_scope(request)
        commands = validate_commands(await self._read_json(request))
        old = self._commands.get(scope, {})
        new: dict[tuple[int, str], JSON] = {}
        for cmd in commands:
            key = (cmd.get("type", 1), cmd["name"])
            new[key] = self._store_command(scope, cmd, old.get(key))
        self._commands[scope] = new
        self._record_sync(scope)
        return json_response(list(new.values()))

    async def _post_command(self, request: web.Request) -> web.StreamResponse:
        scope = self._route_scope(request)
        cmd = await self._read_json(request)
        validate_command(cmd, "_")
        table = self._commands.setdefault(scope, {})
        key = (cmd.get("type", 1), cmd["name"])
        existing = table.get(key)
        table[key] = self._store_command(scope, cmd, existing)
        self._record_sync(scope)
        return json_response(table[key], status=200 if existing else 201)

    def _find_command_by_id(self, request: web.Request) -> tuple[int | None, tuple[int, str]]:
        scope = self._route_scope(request)
        wanted = request.match_info["command_id"]
        for key, cmd in self._commands.get(scope, {}).items():
            if cmd["id"] == wanted:
                return scope, key
        raise ApiError(404, 10063, "Unknown application command")

    async def _get_command(self, request: web.Request) -> web.StreamResponse:
        scope, key = self._find_command_by_id(request)
        return json_response(self._commands[scope][key])

    async def _patch_command(self, request: web.Request) -> web.StreamResponse:
        scope, key = self._find_command_by_id(request)
        patch = await self._read_json(request)
        if not isinstance(patch, dict):
            raise form_error("_", "Must be an object.")
        current = self._commands[scope][key]
        merged = {**current, **patch}
        validate_command(merged, "_")
        del self._commands[scope][key]
        new_key = (merged.get("type", 1), merged["name"])
        self._commands[scope][new_key] = self._store_command(scope, merged, current)
        self._record_sync(scope)
        return json_response(self._commands[scope][new_key])

    async def _delete_command(self, request: web.Request) -> web.StreamResponse:
        scope, key = self._find_command_by_id(request)
        del self._commands[scope][key]
        self._record_sync(scope)
        return web.Response(status=204)

    # ------------------------------------------------------------------ REST: interactions

    def _handle_for(self, request: web.Request) -> InteractionHandle:
        token = request.match_info["token"]
        handle = self._handles_by_token.get(token)
        if handle is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        if token in self._expired_tokens:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        return handle

    async def _callback(self, request: web.Request) -> web.StreamResponse:
        handle = self._handles_by_token.get(request.match_info["token"])
        if handle is None or handle.id != self._int(request, "interaction_id"):
            raise ApiError(404, 10062, "Unknown interaction")
        if (
            self.callback_deadline is not None
            and handle.dispatched_at is not None
            and time.perf_counter() - handle.dispatched_at > self.callback_deadline
        ):
            raise ApiError(404, 10062, "Unknown interaction")
        if handle.callback is not None:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        body, files = await self._read_body(request)
        cb_type = body.get("type")
        data = body.get("data")
        data = data if isinstance(data, dict) else {}
        if not isinstance(cb_type, int) or cb_type not in ALLOWED_CALLBACKS.get(handle.type, ()):
            raise form_error(
                "type", f"Invalid callback type {cb_type!r} for interaction type {handle.type}"
            )
        message = self._apply_callback(handle, cb_type, data, files)
        handle.callback = Callback(cb_type, data, [files[i] for i in sorted(files)])
        handle.record_event(f"callback:{cb_type}")
        if request.query.get("with_response", "").lower() not in ("1", "true"):
            return web.Response(status=204)
        info: JSON = {"id": str(handle.id), "type": handle.type}
        resource: JSON = {"type": cb_type}
        if message is not None:
            info["response_message_id"] = str(message.id)
            info["response_message_loading"] = message.loading
            info["response_message_ephemeral"] = message.ephemeral
            resource["message"] = message.payload()
        return json_response({"interaction": info, "resource": resource})

    def _apply_callback(
        self, handle: InteractionHandle, cb_type: int, data: JSON, files: dict[int, CallbackFile]
    ) -> FakeMessage | None:
        if cb_type == CB_CHANNEL_MESSAGE:
            handle.original = self._create_message(
                handle.channel, data, files, allow_ephemeral=True, handle=handle
            )
            return handle.original
        if cb_type == CB_DEFERRED_CHANNEL_MESSAGE:
            flags = FLAG_LOADING | ((data.get("flags") or 0) & FLAG_EPHEMERAL)
            placeholder = FakeMessage(
                id=self.snowflakes.next(),
                channel_id=handle.channel.id,
                guild_id=handle.channel.guild_id,
                author=self.bot_user,
                flags=flags,
            )
            self._attach_interaction(placeholder, handle)
            handle.original = self._store_message(placeholder)
            return handle.original
        if cb_type in (CB_DEFERRED_UPDATE_MESSAGE, CB_UPDATE_MESSAGE):
            target = handle.message
            if target is None or target.deleted:
                raise form_error("type", "This interaction has no message to update")
            if cb_type == CB_UPDATE_MESSAGE:
                self._edit_message(target, data, files)
            handle.original = target
            return target
        if cb_type == CB_AUTOCOMPLETE_RESULT:
            handle.autocomplete_choices = validate_choices(data.get("choices", []))
            return None
        if cb_type == CB_MODAL:
            if not isinstance(data.get("custom_id"), str) or not isinstance(data.get("title"), str):
                raise form_error("data", "A modal needs custom_id and title")
            if not data.get("components"):
                raise form_error("data.components", "A modal needs components")
            handle.modal = data
            return None
        return None

    async def _followup(self, request: web.Request) -> web.StreamResponse:
        self._route_app(request)
        handle = self._handle_for(request)
        if handle.callback is None or handle.type == AUTOCOMPLETE:
            raise ApiError(404, 10015, "Unknown Webhook")
        body, files = await self._read_body(request)
        original = handle.original
        if original is not None and original.loading and not original.deleted:
            # A followup while "thinking" resolves the deferral; the defer's ephemerality wins.
            msg = self._edit_message(original, body, files)
        else:
            msg = self._create_message(
                handle.channel, body, files, allow_ephemeral=True, handle=handle
            )
        handle.followups.append(msg)
        handle.record_event("followup")
        if request.query.get("wait", "").lower() in ("1", "true"):
            return json_response(msg.payload())
        return web.Response(status=204)

    def _original_of(self, request: web.Request) -> tuple[InteractionHandle, FakeMessage]:
        self._route_app(request)
        handle = self._handle_for(request)
        msg = handle.original
        if msg is None or msg.deleted:
            raise ApiError(404, 10008, "Unknown Message")
        return handle, msg

    async def _get_original(self, request: web.Request) -> web.StreamResponse:
        _, msg = self._original_of(request)
        return json_response(msg.payload())

    async def _patch_original(self, request: web.Request) -> web.StreamResponse:
        handle, msg = self._original_of(request)
        body, files = await self._read_body(request)
        self._edit_message(msg, body, files)
        handle.record_event("edit-original")
        return json_response(msg.payload())

    async def _delete_original(self, request: web.Request) -> web.StreamResponse:
        handle, msg = self._original_of(request)
        self._delete_message(msg)
        handle.record_event("delete-original")
        return web.Response(status=204)

    def _webhook_message(self, request: web.Request) -> tuple[InteractionHandle, FakeMessage]:
        self._route_app(request)
        handle = self._handle_for(request)
        wanted = self._int(request, "message_id")
        for msg in handle.messages:
            if msg.id == wanted:
                return handle, msg
        raise ApiError(404, 10008, "Unknown Message")

    async def _get_webhook_message(self, request: web.Request) -> web.StreamResponse:
        _, msg = self._webhook_message(request)
        return json_response(msg.payload())

    async def _patch_webhook_message(self, request: web.Request) -> web.StreamResponse:
        handle, msg = self._webhook_message(request)
        body, files = await self._read_body(request)
        self._edit_message(msg, body, files)
        handle.record_event("edit-message")
        return json_response(msg.payload())

    async def _delete_webhook_message(self, request: web.Request) -> web.StreamResponse:
        handle, msg = self._webhook_message(request)
        self._delete_message(msg)
        handle.record_event("delete-message")
        return web.Response(status=204)

    # ------------------------------------------------------------------ REST: channels

    def _channel_message(self, request: web.Request) -> tuple[FakeChannel, FakeMessage]:
        channel = self._route_channel(request)
        msg = self._messages.get(self._int(request, "message_id"))
        # Ephemeral messages only exist for the interaction webhook, as on Discord.
        if msg is None or msg.deleted or msg.ephemeral or msg.channel_id != channel.id:
            raise ApiError(404, 10008, "Unknown Message")
        return channel, msg

    async def _get_channel(self, request: web.Request) -> web.StreamResponse:
        channel = self._route_channel(request)
        return json_response(channel.payload())

    async def _get_channel_messages(self, request: web.Request) -> web.StreamResponse:
        channel = self._route_channel(request)
        try:
            limit = max(1, min(100, int(request.query.get("limit", "50"))))
            before = int(request.query["before"]) if "before" in request.query else None
            after = int(request.query["after"]) if "after" in request.query else None
        except ValueError:
            raise form_error("limit", "Value is not int.") from None
        msgs = [m for m in self.messages_in(channel) if not m.ephemeral and not m.loading]
        if before is not None:
            msgs = [m for m in msgs if m.id < before]
        if after is not None:
            msgs = [m for m in msgs if m.id > after][:limit]
        newest_first = list(reversed(msgs))[:limit]
        return json_response([m.payload() for m in newest_first])

    async def _post_channel_message(self, request: web.Request) -> web.StreamResponse:
        channel = self._route_channel(request)
        if channel.is_thread and (channel.archived or channel.locked):
            raise ApiError(400, 50083, "Thread is archived")
        body, files = await self._read_body(request)
        nonce = body.get("nonce")
        if nonce is not None and len(str(nonce)) > 25:
            raise form_error("nonce", "Must be 25 or fewer in length.")
        if nonce is not None and body.get("enforce_nonce") and self.enforce_nonces:
            # Discord: a message with the same nonce from the same author in the last few
            # minutes is returned instead of creating a second one.
            key = (channel.id, str(nonce))
            known = self._nonces.get(key)
            if known is not None and time.monotonic() - known[1] < NONCE_SECONDS:
                existing = self._messages.get(known[0])
                if existing is not None and not existing.deleted:
                    self.nonce_hits += 1
                    return json_response(existing.payload())
        msg = self._create_message(channel, body, files)
        if nonce is not None:
            msg.nonce = str(nonce)
            self._nonces[(channel.id, str(nonce))] = (msg.id, time.monotonic())
        return json_response(msg.payload())

    async def _get_channel_message(self, request: web.Request) -> web.StreamResponse:
        _, msg = self._channel_message(request)
        return json_response(msg.payload())

    async def _patch_channel_message(self, request: web.Request) -> web.StreamResponse:
        _, msg = self._channel_message(request)
        if msg.author is not self.bot_user:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        body, files = await self._read_body(request)
        self._edit_message(msg, body, files)
        return json_response(msg.payload())

    async def _delete_channel_message(self, request: web.Request) -> web.StreamResponse:
        _, msg = self._channel_message(request)
        self._delete_message(msg)
        return web.Response(status=204)

    async def _typing(self, request: web.Request) -> web.StreamResponse:
        self._route_channel(request)
        self.typing_count += 1
        return web.Response(status=204)

    async def _create_thread(self, request: web.Request) -> web.StreamResponse:
        parent = self._route_channel(request)
        if parent.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        body = await self._read_json(request)
        if not isinstance(body, dict):
            raise form_error("_", "Must be an object.")
        name = body.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            raise form_error("name", "Must be between 1 and 100 in length.")
        if "message_id" in request.match_info:
            _, starter = self._channel_message(request)
            thread_type, thread_id = PUBLIC_THREAD, starter.id
        else:
            thread_type = body.get("type", PRIVATE_THREAD)
            if thread_type not in (PUBLIC_THREAD, PRIVATE_THREAD):
                raise form_error("type", "Invalid thread type")
            thread_id = self.snowflakes.next()
        guild = self.guilds[parent.guild_id]
        if thread_id in guild.channels:
            raise ApiError(400, 160004, "A thread has already been created for this message")
        thread = FakeChannel(
            id=thread_id,
            name=name,
            guild_id=guild.id,
            type=thread_type,
            parent_id=parent.id,
            owner_id=self.bot_user.id,
        )
        guild.channels[thread.id] = thread
        self._dispatch_if(
            "THREAD_CREATE", {**thread.payload(), "newly_created": True}, INTENT_GUILDS
        )
        return json_response(thread.payload(), status=201)

    # ------------------------------------------------------------------ REST: guild, files

    def _route_guild(self, request: web.Request) -> FakeGuild:
        guild = self.guilds.get(self._int(request, "guild_id"))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild

    async def _get_guild(self, request: web.Request) -> web.StreamResponse:
        return json_response(self._route_guild(request).payload())

    async def _get_guild_channels(self, request: web.Request) -> web.StreamResponse:
        guild = self._route_guild(request)
        return json_response([c.payload() for c in guild.text_channels()])

    async def _get_guild_roles(self, request: web.Request) -> web.StreamResponse:
        guild = self._route_guild(request)
        return json_response([r.payload() for r in guild.roles.values()])

    async def _get_member(self, request: web.Request) -> web.StreamResponse:
        guild = self._route_guild(request)
        member = guild.members.get(self._int(request, "user_id"))
        if member is None:
            raise ApiError(404, 10007, "Unknown Member")
        return json_response(member.member_payload())

    async def _get_attachment(self, request: web.Request) -> web.StreamResponse:
        att = self._attachments.get(self._int(request, "attachment_id"))
        if att is None:
            raise ApiError(404, 0, "404: Not Found")
        return web.Response(body=att.data, content_type=att.content_type)

    async def _get_cdn(self, request: web.Request) -> web.StreamResponse:
        # Any avatar/icon path gets a small solid PNG, enough for code that draws avatars.
        seed = zlib.crc32(request.path.encode())
        rgb = (seed & 0xFF, (seed >> 8) & 0xFF, (seed >> 16) & 0xFF)
        return web.Response(body=_solid_png(64, 64, rgb), content_type="image/png")
