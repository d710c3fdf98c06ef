"""Learning from games: animated replays, post-game reviews and hints.

Thin like the other cogs: the renderer draws, the computer players (ai/ worker pool) judge; the
cog defers first (the channel shows the bot thinking) and answers when the work is done. The
heavy work never runs on the event loop: replays are drawn in a worker process of their own.
"""

from __future__ import annotations

import asyncio
import io
import logging
import multiprocessing
from concurrent.futures import Executor, ProcessPoolExecutor
from functools import partial
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.common import reply_error
from cogs.league import MAX_OPTION_INT, recent_game_choices, variant_name
from cogs.table import GameTable
from engine.errors import EngineError
from engine.game import GameState
from render.replay import MAX_BYTES, render_replay_json
from storage import Game

log = logging.getLogger(__name__)

REPLAY_FILE = "replay-{id}.gif"


def _state(game: Game) -> GameState | None:
    try:
        return GameState.from_json(game.state_json)
    except Exception:
        return None


class Coach(commands.Cog):
    """/replay (and the post-game tools that share its plumbing)."""

    def __init__(self, bot: commands.Bot, table: GameTable) -> None:
        self.bot = bot
        self.table = table
        self.db = table.db
        self._renderer: Executor | None = None

    def renderer(self) -> Executor:
        """One spawned worker process for long renders (replays): a minute of drawing there
        does not slow the games being played meanwhile."""
        if self._renderer is None:
            context = multiprocessing.get_context("spawn")
            self._renderer = ProcessPoolExecutor(max_workers=1, mp_context=context)
        return self._renderer

    async def cog_unload(self) -> None:
        if self._renderer is not None:
            self._renderer.shutdown(wait=False, cancel_futures=True)
            self._renderer = None

    async def _game_here(self, interaction: discord.Interaction[Any], number: int) -> Game | None:
        found = await self.db.get_game(number)
        if found is None or found.guild_id != interaction.guild_id:
            await reply_error(interaction, f"There is no game #{number} on this server.")
            return None
        return found

    @app_commands.command(name="replay", description="An animated replay of a game")
    @app_commands.describe(game="The game number (see /history)")
    @app_commands.guild_only()
    async def replay(
        self,
        interaction: discord.Interaction[Any],
        game: app_commands.Range[int, 1, MAX_OPTION_INT],
    ) -> None:
        found = await self._game_here(interaction, game)
        if found is None:
            return
        state = _state(found)
        if state is None or not state.record:
            await reply_error(interaction, f"Game #{found.id} has no move record to replay.")
            return
        await interaction.response.defer(thinking=True)
        loop = asyncio.get_running_loop()
        try:
            gif = await loop.run_in_executor(
                self.renderer(), partial(render_replay_json, found.state_json, MAX_BYTES)
            )
        except (EngineError, ValueError) as exc:
            log.warning("replay of game %s failed: %s", found.id, exc)
            await interaction.followup.send(
                f"Game #{found.id} cannot be replayed: {exc}", ephemeral=True
            )
            return
        names = state.players
        await interaction.followup.send(
            f"Replay of game #{found.id}: {names[0]} vs {names[1]} "
            f"({variant_name(found.variant)}), one frame per play.",
            file=discord.File(io.BytesIO(gif), filename=REPLAY_FILE.format(id=found.id)),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @replay.autocomplete("game")
    async def replay_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await recent_game_choices(self.db, interaction, current)


async def setup(bot: commands.Bot) -> None:
    table = getattr(bot, "table", None)
    if not isinstance(table, GameTable):
        raise RuntimeError("the bot must create its GameTable before loading cogs.coach")
    await bot.add_cog(Coach(bot, table))
