"""Hypothesis through the fake Discord: every slash command the bot registers, with option
values a modified client could send (garbled text, unknown choices, huge numbers, the wrong
type, users and channels that are not there), from a server channel, a thread or a DM, and
the autocomplete of every option that has one. Each interaction is answered within Discord's
3 s, with a specific message (never the error boundary's generic one), autocompletes with
the autocomplete callback, and nothing is logged as an error.

Hypothesis runs in a thread; each example's interactions run on the test's event loop, where
the bot and the fake Discord live (so the bot is started once, not per example)."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Coroutine
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discord_ui.client import BackgammonBot
from tests.fake_discord import FakeDiscord, InteractionHandle
from tests.fake_discord.models import JSON, FakeChannel, FakeUser

from .harness import TIMEOUT, reply_of

pytestmark = pytest.mark.slow

GENERIC = "Something went wrong"
#: Discord's limit for the first response to an interaction.
DEADLINE = 3.0
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = (
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
    11,
)
AUTOCOMPLETE_RESULT = 8
#: Snowflakes of things that do not exist, and numbers no id can be.
huge = st.integers(min_value=-(2**70), max_value=2**70)
garbled = st.text(
    st.sampled_from("0123456789/*abcxyz -_:@<>#`\n\t٣３\x00\u200b\U0001f3b2") | st.characters(),
    max_size=120,
)


def leaves(command: JSON) -> list[tuple[str, list[JSON]]]:
    """``(path, options)`` of every invocable form of a command (subcommands walked)."""
    found: list[tuple[str, list[JSON]]] = []

    def walk(path: str, options: list[JSON]) -> None:
        subs = [o for o in options if o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)]
        if not subs:
            found.append((path, options))
        for sub in subs:
            walk(f"{path} {sub['name']}", sub.get("options") or [])

    walk(command["name"], command.get("options") or [])
    return found


def right_type(option: JSON, people: list[FakeUser], places: list[FakeChannel]) -> Any:
    """Values of the option's declared type: its choices, near-misses and extremes."""
    kind = option.get("type")
    choices = [c["value"] for c in option.get("choices") or []]
    if kind == STRING:
        given_ = st.sampled_from(choices) if choices else st.nothing()
        return given_ | garbled | st.text(min_size=101, max_size=6000)
    if kind == INTEGER:
        low, high = option.get("min_value"), option.get("max_value")
        inside = st.integers(low, high) if low is not None and high is not None else st.nothing()
        return (st.sampled_from(choices) if choices else st.nothing()) | inside | huge
    if kind == NUMBER:
        return st.floats(allow_nan=False, allow_infinity=False) | huge
    if kind == BOOLEAN:
        return st.booleans()
    if kind in (USER, MENTIONABLE):
        return st.sampled_from(people) | huge.map(str)
    if kind == CHANNEL:
        return st.sampled_from(places) | huge.map(str)
    return huge.map(str)  # roles, attachments: ids of nothing


def option_values(
    options: list[JSON], people: list[FakeUser], places: list[FakeChannel]
) -> st.SearchStrategy[dict[str, Any]]:
    """Some of the options (required ones usually, not always), each of its declared type or
    of another."""
    wrong = garbled | huge | st.booleans() | st.floats(allow_nan=False, allow_infinity=False)

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for option in options:
            keep = draw(st.floats(0, 1)) < (0.9 if option.get("required") else 0.5)
            if not keep:
                continue
            strategy = right_type(option, people, places)
            values[option["name"]] = draw(strategy if draw(st.floats(0, 1)) < 0.8 else wrong)
        return values

    return build()


async def _answered(handle: InteractionHandle, autocomplete: bool) -> str:
    """What the user sees, checked: in time, of the right kind, not the generic error."""
    callback = await handle.wait_initial(TIMEOUT)
    assert handle.latency is not None and handle.latency < DEADLINE, handle.latency
    if autocomplete:
        assert callback.type == AUTOCOMPLETE_RESULT, callback
        choices = callback.data.get("choices") or []
        assert len(choices) <= 25
        return ""
    reply = await reply_of(handle)
    assert GENERIC not in reply.content, reply.content
    return reply.content


async def test_every_command_with_generated_options_is_answered(
    fake: FakeDiscord, bot: BackgammonBot, caplog: pytest.LogCaptureFixture
) -> None:
    loop = asyncio.get_running_loop()
    stranger_guild = fake.add_guild("Elsewhere")
    people = [
        fake.add_user("alice"),
        fake.add_user("bob"),
        fake.add_user("outsider", guilds=[stranger_guild]),  # no member data here
        fake.bot_user,
    ]
    thread = fake.add_thread(fake.general, "a thread")
    places = [fake.general, thread, next(iter(stranger_guild.text_channels()))]
    forms = [
        form
        for scope in (None, fake.guild.id)
        for command in fake.commands(scope)
        if command.get("type", 1) == 1
        for form in leaves(command)
    ]
    assert {"challenge", "stats", "record", "review", "replay", "move"} <= {p for p, _ in forms}
    seen: set[str] = set()

    def run(coro: Coroutine[Any, Any, str]) -> str:
        return asyncio.run_coroutine_threadsafe(coro, loop).result(TIMEOUT * 2)

    @settings(
        max_examples=int(os.environ.get("COMMAND_FUZZ_EXAMPLES", "200")),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
    )
    @given(data=st.data())
    def example(data: st.DataObject) -> None:
        path, options = data.draw(st.sampled_from(forms), label="command")
        values = data.draw(option_values(options, people, places), label="options")
        user = data.draw(st.sampled_from(people[:3]), label="user")
        where = data.draw(st.sampled_from(["channel", "thread", "dm"]), label="where")
        focusable = [o["name"] for o in options if o.get("autocomplete")]
        focused = data.draw(st.sampled_from([None, *focusable]), label="autocomplete")
        seen.add(path)

        async def send() -> str:
            channel = thread if where == "thread" else fake.general
            if focused is not None:
                typed = {**values, focused: str(values.get(focused, ""))}
                if where == "dm":
                    handle = await fake.autocomplete_in_dm(user, path, focused, typed)
                else:
                    handle = await fake.autocomplete(user, channel, path, focused, typed)
                return await _answered(handle, autocomplete=True)
            if where == "dm":
                handle = await fake.slash_in_dm(user, path, values)
            else:
                handle = await fake.slash(user, channel, path, values)
            return await _answered(handle, autocomplete=False)

        run(send())

    await asyncio.to_thread(example)
    bad = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert not bad, bad
    assert len(seen) >= len({p for p, _ in forms}) // 2, sorted(seen)
