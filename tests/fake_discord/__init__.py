"""A fake Discord (REST + gateway) on 127.0.0.1 for driving the real discord.py client in tests.

Typical use::

    async with FakeDiscord() as fake:
        apply_endpoint_overrides(fake.api_base, fake.gateway_url)  # or fake.env() for a subprocess
        ... start the bot with fake.token ...
        await fake.wait_ready()
        alice = fake.add_user("alice")
        resp = await fake.slash(alice, fake.general, "move", play="24/18")
        callback = await resp.wait_initial()
"""

from .interactions import Callback, CallbackFile, InteractionHandle
from .models import (
    FLAG_COMPONENTS_V2,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeRole,
    FakeUser,
)
from .server import (
    BotNotConnectedError,
    CommandSync,
    ErrorRecord,
    FakeDiscord,
    Fault,
    ReadyMarker,
    RequestRecord,
    UnknownCommandError,
)
from .signal import FakeTimeoutError

__all__ = [
    "FLAG_COMPONENTS_V2",
    "FLAG_EPHEMERAL",
    "FLAG_LOADING",
    "BotNotConnectedError",
    "Callback",
    "CallbackFile",
    "CommandSync",
    "ErrorRecord",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMessage",
    "FakeRole",
    "FakeTimeoutError",
    "FakeUser",
    "Fault",
    "InteractionHandle",
    "ReadyMarker",
    "RequestRecord",
    "UnknownCommandError",
]
