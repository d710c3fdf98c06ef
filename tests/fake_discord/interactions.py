"""Injected interactions: payload builders and the handle a test awaits the bot's answer on."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .models import (
    FLAG_EPHEMERAL,
    JSON,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeRole,
    FakeUser,
    message_text,
)
from .signal import Signal

if TYPE_CHECKING:
    from .server import FakeDiscord

# Interaction types.
PING = 1
APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
AUTOCOMPLETE = 4
MODAL_SUBMIT = 5

# Callback (response) types.
CB_PONG = 1
CB_CHANNEL_MESSAGE = 4
CB_DEFERRED_CHANNEL_MESSAGE = 5
CB_DEFERRED_UPDATE_MESSAGE = 6
CB_UPDATE_MESSAGE = 7
CB_AUTOCOMPLETE_RESULT = 8
CB_MODAL = 9
CB_PREMIUM_REQUIRED = 10
CB_LAUNCH_ACTIVITY = 12

# Which callback types Discord accepts for which interaction type.
ALLOWED_CALLBACKS: dict[int, frozenset[int]] = {
    APPLICATION_COMMAND: frozenset({4, 5, 9, 10, 12}),
    MESSAGE_COMPONENT: frozenset({4, 5, 6, 7, 9, 10, 12}),
    AUTOCOMPLETE: frozenset({8}),
    MODAL_SUBMIT: frozenset({4, 5, 6, 7, 10}),
}

# Option types (https://discord.com/developers/docs/interactions/application-commands).
OPT_SUB_COMMAND = 1
OPT_SUB_COMMAND_GROUP = 2
OPT_STRING = 3
OPT_INTEGER = 4
OPT_BOOLEAN = 5
OPT_USER = 6
OPT_CHANNEL = 7
OPT_ROLE = 8
OPT_NUMBER = 10
OPT_ATTACHMENT = 11

OptionValue = str | int | float | bool | FakeUser | FakeChannel | FakeRole | FakeAttachment


@dataclass
class CallbackFile:
    filename: str
    data: bytes
    content_type: str


@dataclass
class Callback:
    """The bot's initial response (``POST /interactions/{id}/{token}/callback``)."""

    type: int
    data: JSON
    files: list[CallbackFile] = field(default_factory=list)
    received_at: float = field(default_factory=time.perf_counter)

    @property
    def ephemeral(self) -> bool:
        return bool((self.data.get("flags") or 0) & FLAG_EPHEMERAL)

    @property
    def content(self) -> str | None:
        value = self.data.get("content")
        return value if isinstance(value, str) else None

    def text(self) -> str:
        """What a reader sees, as :meth:`FakeMessage.text` (content or a layout's text)."""
        return message_text(self.content, self.data.get("embeds") or [], self.components())

    def components(self) -> list[JSON]:
        found = self.data.get("components")
        return found if isinstance(found, list) else []


class InteractionHandle:
    """Tracks one injected interaction and everything the bot did in answer to it.

    ``original`` is the message the initial response created (types 4/5) or, for component
    and modal interactions answered with types 6/7, the message they updated. It is the live
    ``FakeMessage``, so later ``PATCH @original`` edits show up in place.
    """

    def __init__(
        self,
        fake: FakeDiscord,
        *,
        id: int,
        token: str,
        type: int,
        user: FakeUser,
        channel: FakeChannel,
        payload: JSON,
        message: FakeMessage | None = None,
        name: str | None = None,
    ) -> None:
        self._fake = fake
        self.id = id
        self.token = token
        self.type = type
        self.user = user
        self.channel = channel
        self.payload = payload
        self.message = message  # the message a component was clicked on
        self.name = name  # command name for application commands / autocomplete
        self.created_at = time.perf_counter()
        self.dispatched_at: float | None = None
        self.responded_at: float | None = None
        self.callback: Callback | None = None
        self.original: FakeMessage | None = None
        self.followups: list[FakeMessage] = []
        self.autocomplete_choices: list[JSON] | None = None
        self.modal: JSON | None = None
        self.events: list[tuple[float, str]] = []  # (perf_counter, what) for benchmarks
        self.signal = Signal()

    def __repr__(self) -> str:
        return f"<InteractionHandle id={self.id} type={self.type} name={self.name!r}>"

    # State changes, called by the server.
    def record_event(self, what: str) -> None:
        now = time.perf_counter()
        if self.responded_at is None:
            self.responded_at = now
        self.events.append((now, what))
        self.signal.fire()

    def notify(self) -> None:
        self.signal.fire()

    # Read-only views.
    @property
    def acknowledged(self) -> bool:
        return self.callback is not None

    @property
    def latency(self) -> float | None:
        """Seconds from the INTERACTION_CREATE hitting the socket to the bot's first response."""
        if self.dispatched_at is None or self.responded_at is None:
            return None
        return self.responded_at - self.dispatched_at

    @property
    def content(self) -> str | None:
        """The visible content of the original response, after any edits."""
        return self.original.content if self.original is not None else None

    @property
    def messages(self) -> list[FakeMessage]:
        """Original response then followups, without duplicates, deleted ones excluded."""
        seen: set[int] = set()
        out: list[FakeMessage] = []
        for msg in ([self.original] if self.original else []) + self.followups:
            if msg.id not in seen and not msg.deleted:
                seen.add(msg.id)
                out.append(msg)
        return out

    # Waiting.
    async def wait_for(
        self, predicate: Callable[[InteractionHandle], bool], timeout: float = 10.0
    ) -> InteractionHandle:
        """Wait until ``predicate(handle)`` holds; re-checked after every bot action."""
        return await self.signal.wait_for(
            lambda: self if predicate(self) else None, timeout, self._describe
        )

    async def wait_initial(self, timeout: float = 10.0) -> Callback:
        """The initial callback (type, data, files)."""

        def check() -> Callback | None:
            return self.callback

        return await self.signal.wait_for(check, timeout, self._describe)

    async def wait_followups(self, n: int = 1, timeout: float = 10.0) -> list[FakeMessage]:
        """The first ``n`` followup messages (a followup resolving a deferral counts too)."""

        def check() -> list[FakeMessage] | None:
            return self.followups[:n] if len(self.followups) >= n else None

        return await self.signal.wait_for(check, timeout, self._describe)

    async def wait_original(
        self, predicate: Callable[[FakeMessage], bool] | None = None, timeout: float = 10.0
    ) -> FakeMessage:
        """The original response once it is no longer "thinking" (and ``predicate`` holds)."""

        def check() -> FakeMessage | None:
            msg = self.original
            if msg is None or msg.loading:
                return None
            if predicate is not None and not predicate(msg):
                return None
            return msg

        return await self.signal.wait_for(check, timeout, self._describe)

    async def wait_autocomplete(self, timeout: float = 10.0) -> list[JSON]:
        def check() -> list[JSON] | None:
            return self.autocomplete_choices

        return await self.signal.wait_for(check, timeout, self._describe)

    def _describe(self) -> str:
        cb = f"callback type {self.callback.type}" if self.callback else "no callback"
        orig = (
            f"original={self.original.content!r} loading={self.original.loading}"
            if self.original
            else "no original"
        )
        recent = self._fake.errors[-3:]
        return (
            f"{self!r}: {cb}, {orig}, {len(self.followups)} followup(s); "
            f"recent fake API errors: {recent}"
        )


# Payload construction ------------------------------------------------------------------------


def _option_type(value: object) -> int:
    # bool before int: bool is a subclass of int.
    if isinstance(value, bool):
        return OPT_BOOLEAN
    if isinstance(value, int):
        return OPT_INTEGER
    if isinstance(value, float):
        return OPT_NUMBER
    if isinstance(value, FakeUser):
        return OPT_USER
    if isinstance(value, FakeChannel):
        return OPT_CHANNEL
    if isinstance(value, FakeRole):
        return OPT_ROLE
    if isinstance(value, FakeAttachment):
        return OPT_ATTACHMENT
    return OPT_STRING


def build_options(
    values: Mapping[str, object],
    schema: list[JSON] | None,
    guild: FakeGuild,
    *,
    focused: str | None = None,
) -> tuple[list[JSON], JSON]:
    """Turn Python values into interaction ``options`` plus ``resolved`` data.

    Types come from the synced command's schema when present, else from the Python value.
    Entities (users, channels, roles, attachments) are sent as ids with their ``resolved``
    objects, as Discord does; autocomplete interactions carry no resolved data.
    """
    by_name = {opt.get("name"): opt for opt in schema or [] if isinstance(opt, dict)}
    options: list[JSON] = []
    resolved: JSON = {}
    for name, value in values.items():
        declared = by_name.get(name, {}).get("type")
        opt_type = declared if isinstance(declared, int) else _option_type(value)
        option: JSON = {"name": name, "type": opt_type}
        if name == focused:
            option["focused"] = True
            option["value"] = value if isinstance(value, str) else str(value)
            options.append(option)
            continue
        if isinstance(value, FakeUser):
            option["value"] = str(value.id)
            if focused is None:
                resolved.setdefault("users", {})[str(value.id)] = value.payload()
                if value.id in guild.members:
                    resolved.setdefault("members", {})[str(value.id)] = value.member_payload(
                        with_user=False, permissions=guild.permissions_for(value)
                    )
        elif isinstance(value, FakeChannel):
            option["value"] = str(value.id)
            if focused is None:
                channel = value.payload(permissions=0)
                resolved.setdefault("channels", {})[str(value.id)] = channel
        elif isinstance(value, FakeRole):
            option["value"] = str(value.id)
            if focused is None:
                resolved.setdefault("roles", {})[str(value.id)] = value.payload()
        elif isinstance(value, FakeAttachment):
            option["value"] = str(value.id)
            if focused is None:
                resolved.setdefault("attachments", {})[str(value.id)] = value.payload()
        else:
            option["value"] = value
        options.append(option)
    return options, resolved


def nest_subcommands(
    path: list[str], leaf_options: list[JSON], schema: JSON | None
) -> tuple[list[JSON], list[JSON] | None]:
    """Wrap options for ``/group sub ...`` invocations; also return the leaf's option schema."""
    if len(path) == 1:
        return leaf_options, (schema or {}).get("options")
    levels: list[JSON] = []
    current_schema = schema
    for depth, name in enumerate(path[1:]):
        child = None
        if current_schema is not None:
            for opt in current_schema.get("options") or []:
                if isinstance(opt, dict) and opt.get("name") == name:
                    child = opt
        is_last = depth == len(path) - 2
        default_type = OPT_SUB_COMMAND if is_last else OPT_SUB_COMMAND_GROUP
        levels.append({"name": name, "type": (child or {}).get("type", default_type)})
        current_schema = child
    leaf_schema = (current_schema or {}).get("options") if current_schema is not None else None
    inner: list[JSON] = leaf_options
    for level in reversed(levels):
        inner = [{**level, "options": inner}]
    return inner, leaf_schema


def modal_submit_components(modal: JSON, values: Mapping[str, str | list[str]]) -> list[JSON]:
    """Echo a modal's layout back with the user's values, the way a client submits it."""

    def convert(comp: JSON) -> JSON | None:
        ctype = comp.get("type")
        if ctype == 1:
            children = [c for c in (convert(x) for x in comp.get("components", [])) if c]
            return {"type": 1, "components": children}
        if ctype == 18:  # Label wrapping one component
            inner = comp.get("component")
            child = convert(inner) if isinstance(inner, dict) else None
            return {"type": 18, "component": child} if child else None
        custom_id = comp.get("custom_id")
        if custom_id is None:
            return None
        value = values.get(custom_id, comp.get("value", ""))
        if ctype == 4:
            return {"type": 4, "custom_id": custom_id, "value": str(value)}
        chosen = value if isinstance(value, list) else ([value] if value else [])
        return {"type": ctype, "custom_id": custom_id, "values": chosen}

    out = [convert(c) for c in modal.get("components", []) if isinstance(c, dict)]
    return [c for c in out if c]
