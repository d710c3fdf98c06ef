"""Slash commands and buttons that run games in channels (one game per channel or thread).

The cog is an adapter: it parses interactions, calls the use cases of ``app/`` (challenges,
play, the computer's turns) and shows their outcomes, keeping one live board message per game
(:class:`discord_ui.boards.Boards`). Refusals come back as :class:`app.errors.Refusal` and are shown
privately by the error boundary. The commands are split by topic into mixins of one cog.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord.ext import commands

from app.services import Services

from .buttons import (
    BuilderButton,
    BuilderSelect,
    ChallengeButton,
    ConfirmButton,
    GameButton,
    ResultButton,
)
from .challenges import ChallengeCommands
from .info import InfoCommands
from .play import PlayCommands

log = logging.getLogger(__name__)

#: Every persistent component of games (their state is in their custom_id).
DYNAMIC_ITEMS = (
    GameButton,
    ChallengeButton,
    ResultButton,
    ConfirmButton,
    BuilderButton,
    BuilderSelect,
)


class Games(ChallengeCommands, PlayCommands, InfoCommands):
    """Challenges and games."""

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(*DYNAMIC_ITEMS)
        self.expire_challenges.start()

    async def cog_unload(self) -> None:
        self.expire_challenges.cancel()
        await self.computer.close()
        self.bot.remove_dynamic_items(*DYNAMIC_ITEMS)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        # Turns the computer owed when the bot stopped (even killed) are played now, and the
        # boards committed but never posted are posted.
        resumed = await self.computer.resume()
        if resumed:
            log.info("resumed the computer's turn in %d game(s)", resumed)
        posted = await self.post_owed_boards()
        if posted:
            log.info("posted %d board(s) owed since before the restart", posted)

    @commands.Cog.listener()
    async def on_board_owed(self, channel_id: int, game_id: int) -> None:
        """A game started elsewhere (a tournament's match in its thread) owes its first
        board: posted like any owed board (and at the next start if this fails)."""
        try:
            await self._post_owed(channel_id, game_id)
        except Exception as exc:
            log.warning("could not post the first board of game %s: %s", game_id, exc)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A game's thread deleted under it: the game goes on in the channel it came from."""
        try:
            game = await self.play.thread_gone(payload.thread_id)
            if game is None:
                return
            if game.status != "active":
                await self.boards.send_text(
                    game.home_channel_id,
                    "A game's thread was deleted while this channel had a game of its own: "
                    f"that game (#{game.id}) was aborted, not rated.",
                    None,
                )
                return
            log.info("game %s moved to channel %s: its thread is gone", game.id, game.channel_id)
            await self._post_owed(game.channel_id, game.id)
        except Exception:
            log.exception("could not move the game of deleted thread %s", payload.thread_id)

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        command = interaction.command.name if interaction.command else ""
        public = bool(getattr(interaction.namespace, "public", False))
        if command != "board" or not public:  # a public /board shows it anyway
            await self.deliver_owed_board(interaction)
        return True


async def setup(bot: commands.Bot) -> None:
    services = getattr(bot, "services", None)
    if not isinstance(services, Services):
        raise RuntimeError("the bot must open its services before loading cogs.games")
    await bot.add_cog(Games(bot, services))
