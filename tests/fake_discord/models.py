"""Entities held by the fake Discord and their JSON payloads (the shapes discord.py parses)."""

from __future__ import annotations

import datetime as dt
import mimetypes
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]

DISCORD_EPOCH_MS = 1420070400000

# Message flags (https://discord.com/developers/docs/resources/message#message-object-message-flags)
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_COMPONENTS_V2 = 1 << 15

# Channel types.
GUILD_TEXT = 0
DM = 1
GROUP_DM = 3
PRIVATE_TYPES = frozenset({DM, GROUP_DM})
#: The guild id of a DM or group DM channel (Discord's ids are never 0): no guild.
NO_GUILD = 0
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
THREAD_TYPES = frozenset({10, PUBLIC_THREAD, PRIVATE_THREAD})

# Permission bits used to build plausible role payloads.
PERM_VIEW_CHANNEL = 1 << 10
PERM_SEND_MESSAGES = 1 << 11
PERM_EMBED_LINKS = 1 << 14
PERM_ATTACH_FILES = 1 << 15
PERM_READ_MESSAGE_HISTORY = 1 << 16
PERM_ADD_REACTIONS = 1 << 6
PERM_USE_APPLICATION_COMMANDS = 1 << 31
PERM_MANAGE_MESSAGES = 1 << 13
PERM_MANAGE_THREADS = 1 << 34
PERM_CREATE_PUBLIC_THREADS = 1 << 35
PERM_SEND_MESSAGES_IN_THREADS = 1 << 38
EVERYONE_PERMISSIONS = (
    PERM_VIEW_CHANNEL
    | PERM_SEND_MESSAGES
    | PERM_EMBED_LINKS
    | PERM_ATTACH_FILES
    | PERM_READ_MESSAGE_HISTORY
    | PERM_ADD_REACTIONS
    | PERM_USE_APPLICATION_COMMANDS
    | PERM_CREATE_PUBLIC_THREADS
    | PERM_SEND_MESSAGES_IN_THREADS
)
BOT_PERMISSIONS = EVERYONE_PERMISSIONS | PERM_MANAGE_MESSAGES | PERM_MANAGE_THREADS


class SnowflakeFactory:
    """Time-based, strictly increasing snowflakes (so ids sort like creation order)."""

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> int:
        candidate = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        self._last = max(candidate, self._last + 1)
        return self._last

    def advance_to(self, snowflake: int) -> None:
        """Continue after ``snowflake`` (an id made by hand, e.g. for a chosen shard)."""
        self._last = max(self._last, snowflake)

    @property
    def last(self) -> int:
        return self._last


def snowflake_iso(snowflake: int) -> str:
    ms = (snowflake >> 22) + DISCORD_EPOCH_MS
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).isoformat()


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


def png_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG's IHDR chunk, None when the bytes are not a PNG."""
    if len(data) >= 24 and data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    return None


def guess_content_type(filename: str, data: bytes) -> str:
    if png_size(data) is not None:
        return "image/png"
    guessed, _ = mimetypes.guess_type(filename)
    return guessed or "application/octet-stream"


@dataclass(eq=False)
class FakeRole:
    id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False
    color: int = 0

    def payload(self) -> JSON:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": self.color,
            "colors": {
                "primary_color": self.color,
                "secondary_color": None,
                "tertiary_color": None,
            },
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
        }

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"


@dataclass(eq=False)
class FakeUser:
    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    role_ids: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=now_iso)

    def payload(self) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "username": self.username,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": None,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
        }
        if self.bot:
            data["bot"] = True
        return data

    def member_payload(self, *, with_user: bool = True, permissions: int | None = None) -> JSON:
        data: JSON = {
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "roles": [str(role_id) for role_id in self.role_ids],
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.payload()
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    @property
    def display_name(self) -> str:
        return self.nick or self.global_name or self.username


@dataclass(eq=False)
class FakeChannel:
    id: int
    name: str
    guild_id: int
    type: int = GUILD_TEXT
    position: int = 0
    parent_id: int | None = None
    topic: str | None = None
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    last_message_id: int | None = None
    #: A DM's or group DM's members (guild_id is NO_GUILD then).
    recipients: list[FakeUser] = field(default_factory=list)

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def is_private(self) -> bool:
        return self.type in PRIVATE_TYPES

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def payload(self, *, permissions: int | None = None) -> JSON:
        if self.is_private:
            private: JSON = {
                "id": str(self.id),
                "type": self.type,
                "last_message_id": str(self.last_message_id) if self.last_message_id else None,
                "flags": 0,
                "recipients": [user.payload() for user in self.recipients],
            }
            if self.type == GROUP_DM:
                private.update(name=self.name, icon=None, owner_id=str(self.owner_id))
            if permissions is not None:
                private["permissions"] = str(permissions)
            return private
        data: JSON = {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "parent_id": str(self.parent_id) if self.parent_id is not None else None,
            "last_message_id": str(self.last_message_id) if self.last_message_id else None,
            "rate_limit_per_user": 0,
            "nsfw": False,
            "flags": 0,
        }
        if self.is_thread:
            data.update(
                {
                    "owner_id": str(self.owner_id) if self.owner_id is not None else None,
                    "message_count": 0,
                    "member_count": 1,
                    "total_message_sent": 0,
                    "thread_metadata": {
                        "archived": self.archived,
                        "auto_archive_duration": 1440,
                        "archive_timestamp": snowflake_iso(self.id),
                        "locked": self.locked,
                        "create_timestamp": snowflake_iso(self.id),
                    },
                }
            )
        else:
            data.update(
                {"position": self.position, "topic": self.topic, "permission_overwrites": []}
            )
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, FakeRole] = field(default_factory=dict)
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    members: dict[int, FakeUser] = field(default_factory=dict)

    def permissions_for(self, user: FakeUser) -> int:
        # Channel overwrites are not modelled: roles decide everything.
        value = self.roles[self.id].permissions if self.id in self.roles else 0
        for role_id in user.role_ids:
            role = self.roles.get(role_id)
            if role is not None:
                value |= role.permissions
        return value

    def text_channels(self) -> Iterator[FakeChannel]:
        return (c for c in self.channels.values() if not c.is_thread)

    def threads(self) -> Iterator[FakeChannel]:
        return (c for c in self.channels.values() if c.is_thread)

    def create_payload(self, joined_at: str) -> JSON:
        """The GUILD_CREATE payload: full guild with channels, threads, roles and members."""
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "preferred_locale": "en-US",
            "features": [],
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "application_id": None,
            "max_members": 500000,
            "max_video_channel_users": 25,
            "joined_at": joined_at,
            "large": False,
            "unavailable": False,
            "member_count": len(self.members),
            "roles": [role.payload() for role in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "channels": [c.payload() for c in self.text_channels()],
            "threads": [c.payload() for c in self.threads()],
            "members": [m.member_payload() for m in self.members.values()],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    def payload(self) -> JSON:
        """The REST ``GET /guilds/{id}`` shape (no channels or members)."""
        data = self.create_payload(joined_at=now_iso())
        for key in (
            "channels",
            "threads",
            "members",
            "presences",
            "voice_states",
            "joined_at",
            "large",
            "unavailable",
            "member_count",
            "stage_instances",
            "guild_scheduled_events",
            "soundboard_sounds",
        ):
            data.pop(key, None)
        return data


@dataclass(eq=False)
class FakeAttachment:
    id: int
    filename: str
    data: bytes
    content_type: str
    url: str
    description: str | None = None

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def is_png(self) -> bool:
        return png_size(self.data) is not None

    def dimensions(self) -> JSON:
        """``width`` and ``height`` of a picture (nothing for other files)."""
        dims = png_size(self.data)
        return {} if dims is None else {"width": dims[0], "height": dims[1]}

    def payload(self) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
        }
        if self.description is not None:
            data["description"] = self.description
        dims = png_size(self.data)
        if dims is not None:
            data["width"], data["height"] = dims
        return data


def iter_components(components: list[Any]) -> Iterator[JSON]:
    """Every component dict in a tree (action rows, containers, sections, labels...). A media
    gallery's ``items`` are not components (no type, no id, not counted in the limits)."""
    for comp in components:
        if not isinstance(comp, dict):
            continue
        yield comp
        children = comp.get("components")
        if isinstance(children, list):
            yield from iter_components(children)
        for key in ("component", "accessory"):
            child = comp.get(key)
            if isinstance(child, dict):
                yield from iter_components([child])


def message_text(content: str | None, embeds: list[JSON], components: list[JSON]) -> str:
    """Content plus embed and text-display texts: what a reader would see."""
    parts = [content or ""]
    for embed in embeds:
        for key in ("title", "description"):
            if isinstance(embed.get(key), str):
                parts.append(embed[key])
        for fld in embed.get("fields", []) or []:
            if isinstance(fld, dict):
                parts.extend(str(fld.get(k, "")) for k in ("name", "value"))
    for comp in iter_components(components):
        if comp.get("type") == 10 and isinstance(comp.get("content"), str):
            parts.append(comp["content"])
    return "\n".join(p for p in parts if p)


@dataclass(eq=False)
class FakeMessage:
    """A stored message. Mutated in place on edits, so references stay current."""

    id: int
    channel_id: int
    guild_id: int
    author: FakeUser
    content: str = ""
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    tts: bool = False
    nonce: str | None = None
    mentions: list[FakeUser] = field(default_factory=list)
    #: Who was notified when the message was created, after allowed_mentions (edits never
    #: notify, ephemeral messages neither).
    pinged: list[FakeUser] = field(default_factory=list)
    pinged_roles: list[int] = field(default_factory=list)
    pinged_everyone: bool = False
    webhook_id: int | None = None
    application_id: int | None = None
    interaction_id: int | None = None
    interaction_metadata: JSON | None = None
    legacy_interaction: JSON | None = None
    message_reference: JSON | None = None
    created_at: float = field(default_factory=time.perf_counter)
    edited_at: float | None = None
    edited_timestamp: str | None = None
    edit_count: int = 0
    deleted: bool = False

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True for a deferred ("... is thinking") response not yet resolved."""
        return bool(self.flags & FLAG_LOADING)

    @property
    def components_v2(self) -> bool:
        return bool(self.flags & FLAG_COMPONENTS_V2)

    def all_components(self) -> list[JSON]:
        return list(iter_components(self.components))

    def find_component(self, custom_id: str) -> JSON | None:
        for comp in iter_components(self.components):
            if comp.get("custom_id") == custom_id:
                return comp
        return None

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in iter_components(self.components) if "custom_id" in c]

    def mention_text(self) -> str:
        """Where mentions notify: the content, or a layout's text displays (Discord pings
        mentions there as in content, under ``allowed_mentions``); never embeds."""
        return message_text(self.content, [], self.components)

    def text(self) -> str:
        """What a reader sees, for assertions: the content of a plain message or the text
        displays of a layout (components V2), with the embeds' texts."""
        return message_text(self.content, self.embeds, self.components)

    def payload(self, *, gateway: bool = False) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": self.author.payload(),
            "content": self.content,
            "timestamp": snowflake_iso(self.id),
            "edited_timestamp": self.edited_timestamp,
            "tts": self.tts,
            **({"nonce": self.nonce} if self.nonce is not None else {}),
            "mention_everyone": False,
            "mentions": [u.payload() for u in self.mentions],
            "mention_roles": [],
            "attachments": [a.payload() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "reactions": [],
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
        }
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            data["application_id"] = str(self.application_id)
        if self.interaction_metadata is not None:
            data["interaction_metadata"] = self.interaction_metadata
        if self.legacy_interaction is not None:
            data["interaction"] = self.legacy_interaction
        if self.message_reference is not None:
            data["message_reference"] = self.message_reference
        if gateway and self.guild_id != NO_GUILD:
            data["guild_id"] = str(self.guild_id)
            if not self.author.bot or self.webhook_id is None:
                data["member"] = self.author.member_payload(with_user=False)
        return data
