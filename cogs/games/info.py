"""/games, /rules and /help: what is going on and how to play."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from ai.types import LEVELS
from app.computer import LEVEL_ABOUT
from app.table import Game, GameTable
from discord_ui.boards import NO_PINGS, actor_id
from discord_ui.common import anywhere, mention
from discord_ui.options import Variant
from engine import get_variant
from render.game_scene import plural

from .base import GamesBase

MAX_GAMES_LISTED = 30


def games_line(game: Game) -> str:
    """One game of /games: players, variant, whose turn, and a link to its board/channel."""
    state = GameTable.state_of(game)
    names = f"{mention(game.player_x)} vs {mention(game.player_o)}"
    variant = get_variant(game.variant).name
    match = f", match to {game.match_length} ({state.score[0]}-{state.score[1]})"
    actor = actor_id(game, state)
    turn = f"{mention(actor)} to play" if actor is not None else "finishing"
    link = (
        f"https://discord.com/channels/{game.guild_id}/{game.channel_id}/{game.board_message_id}"
        if game.board_message_id is not None
        else f"<#{game.channel_id}>"
    )
    return (
        f"**{variant}**{match if game.match_length > 1 else ''}: {names} · {turn} · "
        f"<#{game.channel_id}> ([board]({link}))"
    )


#: One line per topic: Discord wraps long lines itself, so a newline only ever ends a topic.
HELP_LINES = (
    "**Start**: `/challenge @someone variant [length] [options] [hints]`, then the opponent "
    "presses Accept (or `/accept`). Without `@someone` the challenge is open to anyone in the "
    "channel. `/rules variant` lists a game's options (e.g. `plakoto`, `mustEnterAll`); "
    "`hints:true` lets both players use `/hint` (the game is then not rated).",
    "**The computer**: `/challenge @this-bot variant [length] [level]` starts at once (not "
    "rated, `/hint` allowed). In the bot's direct messages, or anywhere with the app added to "
    "your account, `/challenge variant` alone plays the computer (practice, shown apart in "
    "`/stats`). Levels, weakest first: {levels}.",
    "**Play**: `/move 24/18 13/11` in standard notation: `bar/22*` enters and hits, `6/off` "
    "bears off, `8/2(2)` moves two checkers, `^` marks a pin/trap, `pass` when you cannot "
    "move. The move box suggests your legal plays as you type (`8/` shows the plays from the "
    "8-point). Forced moves are played for you.",
    "**Cube** (backgammon only): `/double` or the Double button before rolling; `/take` or "
    "`/pass`.",
    "**More**: `/board` shows the board again (only to you; `public:true` for everyone), "
    "`/resign [level]` (in backgammon and the Pin games an offer your opponent accepts or "
    "rejects), `/abort` (both players or a moderator), `/games` (the games in progress here), "
    "`/rules variant` for a rules card.",
    "**Your look**: `/preferences` picks your board theme (e.g. `high-contrast`) and whether "
    "`/board` shows the board from your own side.",
    "**League**: `/leaderboard`, `/stats`, `/history`, `/record` (a game's record as a file), "
    "`/claim` (your opponent has been idle too long), `/settings` (server managers: timers and "
    "the server's board theme).",
    "**Learn**: `/hint` (best plays, only you see it; `depth:deep` by rollouts), `/review game` "
    "(error rate, performance rating, mistakes and luck, with a chart of the winning chances), "
    "`/analyze` (any position ranked by rollouts), `/puzzle` (find the best play), `/replay "
    "game` (an animated replay), `/record game format:mat` (backgammon: a match file for GNU "
    "Backgammon).",
)
HELP_TEXT = "\n".join(HELP_LINES).replace(
    "{levels}", " · ".join(f"`{level}`: {LEVEL_ABOUT[level]}" for level in LEVELS)
)


class InfoCommands(GamesBase):
    @app_commands.command(name="games", description="The games in progress in this server")
    @app_commands.guild_only()
    async def games(self, interaction: discord.Interaction[Any]) -> None:
        assert interaction.guild_id is not None
        active = await self.play.active_games(interaction.guild_id)
        if not active:
            await interaction.response.send_message(
                "No games in progress. Start one with /challenge.", ephemeral=True
            )
            return
        lines = []
        for game in active[:MAX_GAMES_LISTED]:
            lines.append(games_line(game))
        more = len(active) - MAX_GAMES_LISTED
        if more > 0:
            lines.append(f"...and {plural(more, 'more game')}.")
        embed = discord.Embed(
            title=f"{plural(len(active), 'game')} in progress",
            description="\n".join(lines)[:4000],
        )
        await interaction.response.send_message(
            embed=embed, ephemeral=True, allowed_mentions=NO_PINGS
        )

    @app_commands.command(name="rules", description="A short rules card for a variant")
    @app_commands.describe(variant="Which game")
    @anywhere
    async def rules(self, interaction: discord.Interaction[Any], variant: Variant) -> None:
        rules = get_variant(variant.value)
        embed = discord.Embed(title=rules.name, description=rules.rules_card)
        if rules.options:
            embed.add_field(
                name="Options (/challenge ... options:)",
                value="\n".join(f"`{name}`: {o.about}" for name, o in rules.options.items()),
                inline=False,
            )
        page = f"variants/{rules.id}.md"
        base = getattr(getattr(self.bot, "config", None), "docs_url", None)
        if base:
            embed.url = f"{base}/{page}"
            embed.add_field(
                name="More",
                value=f"[Rules of {rules.name}]({base}/{page}) · "
                f"[complete rules and rulings]({base}/rules.md)",
                inline=False,
            )
        else:
            embed.set_footer(
                text=f"More: docs/{page} and docs/rules.md (complete rules) in the bot's source."
            )
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @app_commands.command(name="help", description="How to play with this bot")
    @anywhere
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        embed = discord.Embed(title="Backgammon variants", description=HELP_TEXT)
        await interaction.response.send_message(embed=embed, ephemeral=True)
