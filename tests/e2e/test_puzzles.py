"""End to end: /puzzle answered right and wrong through the Answer button's modal, the streak
in /stats, and the daily puzzle posted once a day across a restart, through the fake Discord.
The benchmark is the test fixture (tests/fixtures/benchmarks: real rollouts)."""

from __future__ import annotations

import asyncio
import io
import random
from collections.abc import Awaitable
from pathlib import Path

from PIL import Image

from app.puzzles import Puzzle, load_puzzles
from discord_ui.client import BackgammonBot
from engine import legal_plays, parse_play
from engine.builder import encode_steps
from tests.fake_discord import FakeDiscord
from tests.fake_discord.interactions import InteractionHandle
from tests.fake_discord.models import FakeMessage, FakeUser

from .harness import TIMEOUT, bot_in_process, eventually

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "benchmarks"
MANAGE_GUILD = 1 << 5


def use_fixture(bot: BackgammonBot) -> None:
    bot.services.puzzles.directory = FIXTURES
    bot.services.puzzles.rng = random.Random(4)


def shown_puzzle(message: FakeMessage) -> Puzzle:
    return next(p for ps in load_puzzles(FIXTURES).values() for p in ps if p.text in message.text())


async def answer(fake: FakeDiscord, user: FakeUser, message: FakeMessage, play: str) -> str:
    (button,) = [cid for cid in message.custom_ids() if cid.startswith("pz:ans:")]
    click = await fake.click(user, message, button)
    opened = await click.wait_initial(TIMEOUT)
    assert opened.type == 9 and click.modal is not None  # the answer form
    submitted = await fake.submit_modal(user, click, {"play": play})
    reply = await submitted.wait_initial(TIMEOUT)
    assert reply.ephemeral
    return reply.text() or ""


async def test_a_puzzle_answered_right_then_wrong_and_the_streak_in_stats(
    fake: FakeDiscord, bot: BackgammonBot
) -> None:
    use_fixture(bot)
    alice = fake.add_user("alice")
    seen: dict[str, FakeMessage] = {}
    for _ in range(6):  # both Pin puzzles (a seeded draw)
        handle = await fake.slash(alice, fake.general, "puzzle", variant="pin")
        first = await handle.wait_initial(TIMEOUT)
        assert first.type == 5 and first.ephemeral
        (shown,) = await handle.wait_followups(1, timeout=60)
        assert shown.ephemeral and "**Puzzle** (The Pin Game): you are to play" in shown.text()
        assert [a.filename for a in shown.attachments] == ["puzzle.png"]
        assert Image.open(io.BytesIO(shown.attachments[0].data)).format == "PNG"
        seen.setdefault(shown_puzzle(shown).key, shown)
        if len(seen) == 2:
            break
    assert len(seen) == 2
    first_msg, second_msg = seen.values()
    right = shown_puzzle(first_msg)
    text = await answer(fake, alice, first_msg, right.candidates[0].play)
    assert text.startswith("✅ **Right**") and f"rolled out {right.trials} times" in text
    assert "Puzzles solved: 1 of 1 · streak 1" in text
    wrong = shown_puzzle(second_msg)
    text = await answer(fake, alice, second_msg, wrong.candidates[1].play)
    assert text.startswith("❌") and f"the best is `{wrong.candidates[0].play}`" in text
    assert "Puzzles solved: 1 of 2 · streak 0" in text
    bad = await answer(fake, alice, second_msg, "24/1")
    assert "not a legal play" in bad and "as for `/move`" in bad

    # Bob builds the best play of the first puzzle step by step, with Undo on the way.
    bob = fake.add_user("bob")
    (build,) = [cid for cid in first_msg.custom_ids() if cid.startswith("pz:bld:")]
    opened = await fake.click(bob, first_msg, build)
    assert (await opened.wait_initial(TIMEOUT)).ephemeral
    (builder_msg,) = await opened.wait_followups(1, timeout=60)
    assert builder_msg.ephemeral and "Your answer: **nothing yet**" in builder_msg.content
    pos, dice = right.decision()
    best = parse_play(pos, legal_plays(pos, dice, right.rules), right.candidates[0].play)

    async def edited(action: Awaitable[InteractionHandle]) -> None:
        before = builder_msg.edit_count
        await (await action).wait_initial(TIMEOUT)
        await eventually(lambda: builder_msg.edit_count > before, "the builder's edit")

    for i, step in enumerate(best.steps):
        value = encode_steps((step,))
        menu = next(
            c["custom_id"]
            for c in builder_msg.all_components()
            if c.get("type") == 3 and value in [o["value"] for o in c["options"]]
        )
        await edited(fake.select(bob, builder_msg, menu, [value]))
        assert "nothing yet" not in builder_msg.content
        if i == 0:  # Undo takes it back, then it is chosen again
            (undo,) = [c for c in builder_msg.custom_ids() if c.startswith("pz:undo:")]
            await edited(fake.click(bob, builder_msg, undo))
            assert "Your answer: **nothing yet**" in builder_msg.content
            menu = next(
                c["custom_id"]
                for c in builder_msg.all_components()
                if c.get("type") == 3 and value in [o["value"] for o in c["options"]]
            )
            await edited(fake.select(bob, builder_msg, menu, [value]))
    (confirm,) = [c for c in builder_msg.custom_ids() if c.startswith("pz:confirm:")]
    done = await fake.click(bob, builder_msg, confirm)
    assert (await done.wait_initial(TIMEOUT)).type == 7  # the builder becomes the verdict
    assert builder_msg.content.startswith("✅ **Right**")

    stats = await (await fake.slash(alice, fake.general, "stats")).wait_initial(TIMEOUT)
    fields = {f["name"]: f["value"] for f in stats.data["embeds"][0]["fields"]}
    assert fields["Puzzles"] == "1 solved of 2 · streak 0 (best 1)"
    none = await (await fake.slash(alice, fake.general, "puzzle", variant="dutch")).wait_initial(
        TIMEOUT
    )
    assert none.ephemeral and "no puzzles for Dutch Backgammon" in (none.text() or "")
    assert fake.errors == []


async def test_the_daily_puzzle_is_posted_once_across_a_restart(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    admin = fake.add_user("admin", roles=[fake.add_role("admins", permissions=MANAGE_GUILD)])
    channel = fake.add_channel("puzzles")
    db_path = tmp_path / "bot.sqlite3"

    def daily_posts() -> list[FakeMessage]:
        return [m for m in fake.messages_in(channel) if "**Daily puzzle of" in m.text()]

    async with bot_in_process(fake, db_path) as bot:
        use_fixture(bot)
        refused = await (
            await fake.slash(fake.add_user("eve"), channel, "settings", daily_puzzle=True)
        ).wait_initial(TIMEOUT)
        assert refused.ephemeral and "Manage Server" in (refused.text() or "")
        shown = await (
            await fake.slash(admin, fake.general, "settings", puzzle_channel=channel)
        ).wait_initial(TIMEOUT)
        fields = {f["name"]: f["value"] for f in shown.data["embeds"][0]["fields"]}
        assert fields["Daily puzzle"] == f"posted every day (UTC) in <#{channel.id}>"
        cog = bot.get_cog("PuzzleCog")
        assert cog is not None
        assert await cog.daily_sweep() == 1  # type: ignore[attr-defined]
        assert await cog.daily_sweep() == 0  # type: ignore[attr-defined]
        (posted,) = daily_posts()
        assert any(cid.startswith("pz:ans:") for cid in posted.custom_ids())
    async with bot_in_process(fake, db_path) as bot:
        use_fixture(bot)
        cog = bot.get_cog("PuzzleCog")
        assert cog is not None
        assert await cog.daily_sweep() == 0  # type: ignore[attr-defined]
        assert len(daily_posts()) == 1
        # The posted puzzle still answers after the restart (its button is persistent).
        text = await answer(fake, admin, posted, shown_puzzle(posted).candidates[0].play)
        assert text.startswith("✅ **Right**")
        off = await (
            await fake.slash(admin, fake.general, "settings", daily_puzzle=False)
        ).wait_initial(TIMEOUT)
        fields = {f["name"]: f["value"] for f in off.data["embeds"][0]["fields"]}
        assert fields["Daily puzzle"] == "off"
    assert fake.errors == []


async def test_an_answer_form_opened_before_a_restart_is_judged_after_it(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """The answer form (a modal) names its puzzle in its custom_id: a form opened in one bot
    process and submitted to the next is judged, once; a form id the bot could not have made
    is told the form no longer works."""
    alice = fake.add_user("alice")
    db_path = tmp_path / "bot.sqlite3"
    async with bot_in_process(fake, db_path) as bot:
        use_fixture(bot)
        handle = await fake.slash(alice, fake.general, "puzzle", variant="pin")
        await handle.wait_initial(TIMEOUT)
        (shown,) = await handle.wait_followups(1, timeout=60)
        puzzle = shown_puzzle(shown)
        (button,) = [cid for cid in shown.custom_ids() if cid.startswith("pz:ans:")]
        forms = []
        for _ in range(2):
            click = await fake.click(alice, shown, button)
            opened = await click.wait_initial(TIMEOUT)
            assert opened.type == 9 and click.modal is not None
            assert click.modal["custom_id"] == f"pzform:{puzzle.key}"
            forms.append(click)
    async with bot_in_process(fake, db_path) as bot:
        use_fixture(bot)
        submitted = await fake.submit_modal(alice, forms[0], {"play": puzzle.candidates[1].play})
        reply = await submitted.wait_initial(TIMEOUT)
        assert reply.ephemeral and (reply.text() or "").startswith("❌")
        assert puzzle.candidates[0].play in (reply.text() or "")
        # Answered once: no second response, no follow-up.
        await asyncio.sleep(0.5)
        assert submitted.followups == [] and len(submitted.events) == 1
        assert "Puzzles solved: 0 of 1" in (reply.text() or "")  # the first answer counted

        assert forms[1].modal is not None
        forms[1].modal["custom_id"] = f"pzform:{puzzle.key[:-1]}"  # a key the bot never made
        forged = await fake.submit_modal(alice, forms[1], {"play": puzzle.candidates[0].play})
        told = await forged.wait_initial(TIMEOUT)
        assert told.ephemeral and "This form does not work any more" in (told.text() or "")
    assert fake.errors == []
