"""/puzzle, its Answer button and modal, and the daily puzzle's sweep.

The Answer button is persistent (the puzzle's key is in its custom_id); it opens a modal where
the player writes their play as for /move; the verdict, the rollout figures and the player's
record come back privately. The daily puzzle is posted by a sweep that only touches the
servers of this process's shards, claimed in the database first and posted with a nonce, so it
appears once a day however many sweeps, processes or restarts there are.
"""

from __future__ import annotations

import io
import logging
import re
from functools import partial
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands, tasks

from app.puzzles import (
    PUZZLE_FILE,
    DailyDue,
    DatabaseGoneError,
    Puzzle,
    Puzzles,
    Shards,
    puzzle_picture,
    puzzle_text,
    verdict_text,
)
from app.services import Services
from app.table import GameTable
from discord_ui.boundary import tell_user
from discord_ui.common import guarded
from discord_ui.custom_ids import PUZZLE_TEMPLATE, STALE_BUTTON, PuzzleClick, decode_custom_id
from discord_ui.options import Variant

log = logging.getLogger(__name__)


class PuzzleButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=PUZZLE_TEMPLATE,
):
    """Answer, under a puzzle: opens the answer modal."""

    def __init__(self, puzzle: str, *, unusable: str = "") -> None:
        variant, _, key = puzzle.partition(":")
        super().__init__(
            discord.ui.Button(
                label="Answer",
                style=discord.ButtonStyle.primary,
                custom_id=unusable or f"pz:ans:{variant}:{key}",
            )
        )
        self.puzzle = puzzle
        self.unusable = bool(unusable)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PuzzleButton:
        click = decode_custom_id(match.string)
        if not isinstance(click, PuzzleClick) or click.action != "ans":
            return cls("x:0", unusable=match.string)
        return cls(click.puzzle)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if self.unusable:
            await tell_user(interaction, STALE_BUTTON)
            return
        cog = interaction.client.get_cog("PuzzleCog")
        assert isinstance(cog, PuzzleCog)
        await guarded(interaction, cog.open_answer(interaction, self.puzzle))


class AnswerModal(discord.ui.Modal):
    play: discord.ui.TextInput[AnswerModal] = discord.ui.TextInput(
        label="Your play (as for /move)",
        placeholder="e.g. 24/18 13/10",
        max_length=80,
        custom_id="play",
    )

    def __init__(self, cog: PuzzleCog, puzzle: str) -> None:
        variant, _, key = puzzle.partition(":")
        super().__init__(title="Your answer", custom_id=f"pz:sub:{variant}:{key}", timeout=1800)
        self.cog = cog
        self.puzzle = puzzle

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        await guarded(interaction, self.cog.judge(interaction, self.puzzle, self.play.value))


def answer_view(puzzle: Puzzle) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(PuzzleButton(puzzle.key))
    return view


def daily_nonce(due: DailyDue) -> str:
    """Discord's nonce of a day's puzzle post: a repost after a crash returns the first."""
    return f"pz{due.guild_id % 10**12}{due.day.replace('-', '')}"[:25]


class PuzzleCog(commands.Cog):
    """/puzzle and the daily puzzle."""

    #: Seconds between two sweeps for daily puzzles (tests call ``daily_sweep`` directly).
    SWEEP_SECONDS = 300.0

    def __init__(self, bot: commands.Bot, services: Services) -> None:
        self.bot = bot
        self.puzzles: Puzzles = services.puzzles
        self.table: GameTable = services.table

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(PuzzleButton)
        self.daily_loop.change_interval(seconds=self.SWEEP_SECONDS)
        self.daily_loop.start()

    async def cog_unload(self) -> None:
        self.daily_loop.cancel()
        self.bot.remove_dynamic_items(PuzzleButton)

    async def _picture(self, puzzle: Puzzle, guild_id: int | None) -> discord.File:
        theme = await self.puzzles.theme(guild_id)
        png = await self.table.draw(partial(puzzle_picture, puzzle.text, theme))
        return discord.File(
            io.BytesIO(png),
            filename=PUZZLE_FILE,
            description=f"Puzzle board: {puzzle.text}"[:1024],
        )

    @app_commands.command(name="puzzle", description="A position whose best play is clear")
    @app_commands.describe(variant="The game (default: any)")
    @app_commands.guild_only()
    async def puzzle(
        self, interaction: discord.Interaction[Any], variant: Variant | None = None
    ) -> None:
        chosen = self.puzzles.pick(interaction.user.id, variant.value if variant else None)
        await interaction.response.defer(ephemeral=True, thinking=True)
        file = await self._picture(chosen, interaction.guild_id)
        await interaction.followup.send(
            puzzle_text(chosen), file=file, view=answer_view(chosen), ephemeral=True
        )

    async def open_answer(self, interaction: discord.Interaction[Any], puzzle: str) -> None:
        self.puzzles.find(puzzle)  # a puzzle gone from the benchmark is refused here
        await interaction.response.send_modal(AnswerModal(self, puzzle))

    async def judge(self, interaction: discord.Interaction[Any], puzzle: str, play: str) -> None:
        verdict = await self.puzzles.answer(interaction.user.id, interaction.guild_id, puzzle, play)
        await interaction.response.send_message(verdict_text(verdict)[:1990], ephemeral=True)

    # --- the daily puzzle ----------------------------------------------------------------------

    @tasks.loop(seconds=300)
    async def daily_loop(self) -> None:
        try:
            await self.daily_sweep()
        except DatabaseGoneError:
            pass  # logged CRITICAL once by the storage
        except Exception:
            log.exception("the daily puzzle sweep failed")

    @daily_loop.before_loop
    async def _before_daily(self) -> None:
        await self.bot.wait_until_ready()

    async def daily_sweep(self) -> int:
        """Post today's puzzle where it is due; returns how many were posted."""
        shards = getattr(self.bot, "owned_shards", None)
        posted = 0
        for due in await self.puzzles.daily_due(shards if isinstance(shards, Shards) else None):
            message = await self._post_daily(due)
            if message is None:
                continue
            if await self.puzzles.daily_posted(due, message.id):
                posted += 1
        return posted

    async def _post_daily(self, due: DailyDue) -> discord.Message | None:
        try:
            channel = self.bot.get_channel(due.channel_id) or await self.bot.fetch_channel(
                due.channel_id
            )
            if not isinstance(channel, discord.abc.Messageable):
                return None
            file = await self._picture(due.puzzle, due.guild_id)
            return await channel.send(
                puzzle_text(due.puzzle, daily=due.day),
                file=file,
                view=answer_view(due.puzzle),
                nonce=daily_nonce(due),
                allowed_mentions=discord.AllowedMentions.none(),
            )
        except discord.HTTPException as exc:
            log.warning("could not post the daily puzzle in channel %s: %s", due.channel_id, exc)
            return None


async def setup(bot: commands.Bot) -> None:
    services = getattr(bot, "services", None)
    if not isinstance(services, Services):
        raise RuntimeError("the bot must open its services before loading cogs.puzzles")
    await bot.add_cog(PuzzleCog(bot, services))
