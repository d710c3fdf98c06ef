"""End to end: the per-user limit on expensive commands, checked at the tree's front door."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.limits import DEFAULT_EXPENSIVE_RATE, EXPENSIVE_COMMANDS, Rate, RateLimiter
from discord_ui.client import BackgammonBot
from tests.fake_discord import FakeDiscord

from .harness import TIMEOUT

pytestmark = pytest.mark.slow

MISSING = 987_654
#: Discord's limit for the first answer to an interaction.
DEADLINE = 3.0


async def test_a_flood_of_expensive_commands_is_refused_before_any_work(
    fake: FakeDiscord, bot: BackgammonBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [1000.0]
    bot.services.front_door = RateLimiter(Rate(2, 60), EXPENSIVE_COMMANDS, lambda: now[0])
    reached: list[int] = []
    reports = bot.services.reports
    original = reports.review_job

    async def counted(*args: Any, **kwargs: Any) -> Any:
        reached.append(1)
        return await original(*args, **kwargs)

    monkeypatch.setattr(reports, "review_job", counted)
    flooder, carol = fake.add_user("flooder"), fake.add_user("carol")
    channel = fake.general

    for _ in range(2):  # within the limit: the command runs (and finds no such game)
        handle = await fake.slash(flooder, channel, "review", game=MISSING)
        answer = await handle.wait_initial(TIMEOUT)
        assert answer.ephemeral and f"no game #{MISSING}" in (answer.text() or "")
    assert len(reached) == 2

    # Over it, every expensive command (a hint, a replay, a review) is answered at once,
    # privately, with when to try again, and the command never runs.
    expensive: list[tuple[str, dict[str, int]]] = [
        ("hint", {}),
        ("replay", {"game": MISSING}),
        ("review", {"game": MISSING}),
    ]
    for command, options in expensive:
        handle = await fake.slash(flooder, channel, command, **options)
        refused = await handle.wait_initial(TIMEOUT)
        assert refused.type == 4 and refused.ephemeral, command  # a message, not a deferral
        assert refused.text() == (
            "You asked for replays, reviews, hints, analyses and boards too often: "
            "try again in 60 s."
        )
        assert handle.latency is not None and handle.latency < DEADLINE
        await asyncio.sleep(0.2)
        assert handle.followups == [], command  # nothing more comes
    assert len(reached) == 2

    # Someone else is not limited, nor are the flooder's ordinary commands.
    other = await (await fake.slash(carol, channel, "review", game=MISSING)).wait_initial(TIMEOUT)
    assert f"no game #{MISSING}" in (other.text() or "")
    rules = await (await fake.slash(flooder, channel, "rules")).wait_initial(TIMEOUT)
    assert "try again" not in (rules.text() or "")
    assert len(reached) == 3

    now[0] += 45  # the window slides: the answer counts down
    later = await (await fake.slash(flooder, channel, "board")).wait_initial(TIMEOUT)
    assert later.ephemeral and "try again in 15 s" in (later.text() or "")
    now[0] += 16  # out of the window: served again
    again = await (await fake.slash(flooder, channel, "review", game=MISSING)).wait_initial(TIMEOUT)
    assert f"no game #{MISSING}" in (again.text() or "")
    assert len(reached) == 4
    assert fake.errors == []


async def test_the_default_front_door_is_the_configured_rate(bot: BackgammonBot) -> None:
    assert bot.services.front_door.rate == DEFAULT_EXPENSIVE_RATE
