"""/puzzle, its Answer button and modal, and the daily puzzle's sweep.

The Answer button is persistent (the puzzle's key is in its custom_id); it opens a modal where
the player writes their play as for /move; the verdict, the rollout figures and the player's
record come back privately. The modal is persistent too: its custom_id names the puzzle and
every submit is decoded from it (:meth:`PuzzleCog.answer_form`), so a form opened before a
restart is judged after it. The daily puzzle is posted by a sweep that only touches the
servers of this process's shards, claimed in the database first and posted with a nonce, so it
appears once a day however many sweeps, processes or restarts there are.
"""

from __future__ import annotations

import asyncio
import io
import logging
from functools import partial
from typing import Any, Self

import discord
from discord import app_commands
from discord.ext import commands, tasks

from app.puzzles import (
    PUZZLE_FILE,
    BuiltAnswer,
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
from discord_ui.custom_ids import (
    PUZZLE_BUILDER_TEMPLATE,
    PUZZLE_FORM_PREFIX,
    PUZZLE_STEP_TEMPLATE,
    PUZZLE_TEMPLATE,
    STALE_FORM,
    Click,
    PuzzleBuilderClick,
    PuzzleClick,
    PuzzleFormSubmit,
    decode_custom_id,
    submitted_value,
)
from discord_ui.items import ActionButton, AnsweredItem
from discord_ui.options import Variant
from engine import builder

log = logging.getLogger(__name__)


class PuzzleButton(ActionButton, template=PUZZLE_TEMPLATE):
    """Under a puzzle: Answer (``ans``, opens the answer form) and Build it (``bld``, opens
    the move builder)."""

    LABELS = {"ans": "Answer", "bld": "Build it"}
    STYLES = {"ans": discord.ButtonStyle.primary}

    def __init__(self, puzzle: str, action: str = "ans") -> None:
        variant, _, key = puzzle.partition(":")
        super().__init__(action, f"pz:{action}:{variant}:{key}")
        self.puzzle = puzzle

    @classmethod
    def from_click(cls, click: Click) -> Self | None:
        if isinstance(click, PuzzleClick):
            return cls(click.puzzle, click.action)
        return None

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        cog = _cog(interaction)
        if self.action == "bld":
            await cog.open_builder(interaction, self.puzzle)
        else:
            await cog.open_answer(interaction, self.puzzle)


def _cog(interaction: discord.Interaction[Any]) -> PuzzleCog:
    cog = interaction.client.get_cog("PuzzleCog")
    assert isinstance(cog, PuzzleCog), "the puzzle cog is loaded"
    return cog


class PuzzleBuilderButton(ActionButton, template=PUZZLE_BUILDER_TEMPLATE):
    """Undo, Confirm and Start over in a puzzle's move builder."""

    LABELS = {"undo": "Undo", "confirm": "Confirm", "reset": "Start over"}
    STYLES = {"confirm": discord.ButtonStyle.success}

    def __init__(self, action: str, puzzle: str, steps: str, *, disabled: bool = False) -> None:
        variant, _, key = puzzle.partition(":")
        super().__init__(action, f"pz:{action}:{variant}:{key}:{steps}", disabled=disabled)
        self.puzzle = puzzle
        self.steps = steps

    @classmethod
    def from_click(cls, click: Click) -> Self | None:
        if isinstance(click, PuzzleBuilderClick):
            return cls(click.action, click.puzzle, click.steps)
        return None

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        await _cog(interaction).builder_action(interaction, self.action, self.puzzle, self.steps)


class PuzzleStepSelect(AnsweredItem[discord.ui.Select[Any]], template=PUZZLE_STEP_TEMPLATE):
    """The legal next steps of a puzzle's move builder (one menu per die value)."""

    def __init__(
        self,
        row: int,
        puzzle: str,
        steps: str,
        options: list[discord.SelectOption] | None = None,
        placeholder: str | None = None,
    ) -> None:
        variant, _, key = puzzle.partition(":")
        super().__init__(
            discord.ui.Select(
                custom_id=f"pz:s{row}:{variant}:{key}:{steps}",
                options=options or [discord.SelectOption(label="-", value="-")],
                placeholder=placeholder,
            )
        )
        self.row_number = row
        self.puzzle = puzzle
        self.steps = steps

    @classmethod
    def from_click(cls, click: Click) -> Self | None:
        if isinstance(click, PuzzleBuilderClick):
            return cls(click.row, click.puzzle, click.steps)
        return None

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values
        await _cog(interaction).builder_action(
            interaction, "step", self.puzzle, self.steps, values[0] if values else None
        )


class AnswerModal(discord.ui.Modal):
    play: discord.ui.TextInput[AnswerModal] = discord.ui.TextInput(
        label="Your play (as for /move)",
        placeholder="e.g. 24/18 13/10",
        max_length=80,
        custom_id="play",
    )

    def __init__(self, puzzle: str) -> None:
        variant, _, key = puzzle.partition(":")
        super().__init__(title="Your answer", custom_id=f"{PUZZLE_FORM_PREFIX}{variant}:{key}")
        # Not kept by discord.py (a finished modal is not stored): every submit, before or
        # after a restart, is answered from its custom_id by PuzzleCog.answer_form, once.
        self.stop()


def answer_view(puzzle: Puzzle) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(PuzzleButton(puzzle.key, "ans"))
    view.add_item(PuzzleButton(puzzle.key, "bld"))
    return view


def builder_view(built: BuiltAnswer) -> discord.ui.View:
    made, key, steps = built.made, built.puzzle.key, built.steps
    view = discord.ui.View(timeout=None)
    by_die: dict[int, list[builder.StepOption]] = {}
    for option in made.options:
        by_die.setdefault(option.step.die, []).append(option)
    for row, (die, options) in enumerate(sorted(by_die.items(), reverse=True)[:2]):
        view.add_item(
            PuzzleStepSelect(
                row,
                key,
                steps,
                [
                    discord.SelectOption(label=o.caption, value=builder.encode_steps((o.step,)))
                    for o in options[:25]
                ],
                placeholder=f"Play a {die}" if len(by_die) > 1 else "Your next step",
            )
        )
    view.add_item(PuzzleBuilderButton("undo", key, steps, disabled=not made.chosen))
    view.add_item(PuzzleBuilderButton("reset", key, steps, disabled=not made.chosen))
    view.add_item(PuzzleBuilderButton("confirm", key, steps, disabled=made.play is None))
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
        self._warm: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(PuzzleButton, PuzzleBuilderButton, PuzzleStepSelect)
        self.daily_loop.change_interval(seconds=self.SWEEP_SECONDS)
        self.daily_loop.start()
        # The first /puzzle should not wait for the benchmark to be read.
        self._warm = asyncio.create_task(self.puzzles.ready())

    async def cog_unload(self) -> None:
        self.daily_loop.cancel()
        if self._warm is not None:
            self._warm.cancel()
        self.bot.remove_dynamic_items(PuzzleButton, PuzzleBuilderButton, PuzzleStepSelect)

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
        await self.puzzles.ready()
        chosen = self.puzzles.pick(interaction.user.id, variant.value if variant else None)
        await interaction.response.defer(ephemeral=True, thinking=True)
        file = await self._picture(chosen, interaction.guild_id)
        await interaction.followup.send(
            puzzle_text(chosen), file=file, view=answer_view(chosen), ephemeral=True
        )

    async def open_answer(self, interaction: discord.Interaction[Any], puzzle: str) -> None:
        await self.puzzles.ready()
        self.puzzles.find(puzzle)  # a puzzle gone from the benchmark is refused here
        await interaction.response.send_modal(AnswerModal(puzzle))

    async def _builder_parts(
        self, built: BuiltAnswer, guild_id: int | None
    ) -> tuple[str, discord.File, discord.ui.View]:
        theme = await self.puzzles.theme(guild_id)
        png = await self.table.draw(partial(puzzle_picture, built.preview(), theme))
        file = discord.File(io.BytesIO(png), filename=PUZZLE_FILE, description=built.text())
        return built.text(), file, builder_view(built)

    async def open_builder(self, interaction: discord.Interaction[Any], puzzle: str) -> None:
        """The puzzle's move builder, on a private message of its own."""
        await self.puzzles.ready()
        built = self.puzzles.build(puzzle, "", "open")
        await interaction.response.defer(ephemeral=True, thinking=True)
        content, file, view = await self._builder_parts(built, interaction.guild_id)
        await interaction.followup.send(content, file=file, view=view, ephemeral=True)

    async def builder_action(
        self,
        interaction: discord.Interaction[Any],
        action: str,
        puzzle: str,
        steps: str,
        value: str | None = None,
    ) -> None:
        """A click in the builder: the message is edited with the next state, or with the
        verdict once the play is confirmed."""
        await self.puzzles.ready()
        built = self.puzzles.build(puzzle, steps, action, value)
        if action == "confirm":
            play = built.made.play
            if play is None:
                await tell_user(interaction, "These steps are not a whole play yet.")
                return
            verdict = await self.puzzles.answer(
                interaction.user.id, interaction.guild_id, puzzle, play.text
            )
            await interaction.response.edit_message(
                content=verdict_text(verdict)[:1990], attachments=[], view=None
            )
            return
        await interaction.response.defer()
        content, file, view = await self._builder_parts(built, interaction.guild_id)
        await interaction.edit_original_response(content=content, attachments=[file], view=view)

    @commands.Cog.listener("on_interaction")
    async def answer_form(self, interaction: discord.Interaction[Any]) -> None:
        """A submitted answer form, judged from its custom_id (the puzzle) and its field."""
        if interaction.type != discord.InteractionType.modal_submit:
            return
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = data.get("custom_id")
        if not isinstance(custom_id, str) or not custom_id.startswith(PUZZLE_FORM_PREFIX):
            return  # another form: its own handler answers it
        form = decode_custom_id(custom_id)
        play = submitted_value(data, "play")
        if not isinstance(form, PuzzleFormSubmit) or play is None:
            await tell_user(interaction, STALE_FORM)
            return
        await guarded(interaction, self.judge(interaction, form.puzzle, play))

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
