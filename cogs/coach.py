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
import os
from concurrent.futures import Executor, ProcessPoolExecutor
from functools import partial
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from ai.pool import AIPool, PoolError, ReviewDecision
from ai.report import PlayerReview, Verdict, game_breaks, review_player, win_series
from ai.types import STRONGEST, RankedPlay
from app.computer import match_context
from app.table import GameTable
from cogs.common import reply_error
from cogs.league import recent_game_choices, variant_name
from cogs.looks import server_theme
from cogs.options import GameNumber
from engine.errors import EngineError
from engine.game import DOUBLE, MOVE, ROLL, GameState
from engine.history import PLAY, Decision, replay
from render.chart import render_win_chart
from render.game_scene import chain_text, roll_text
from render.pool import background_worker_init
from render.replay import MAX_BYTES, render_replay_json
from storage import Game

log = logging.getLogger(__name__)

REPLAY_FILE = "replay-{id}.gif"
CHART_FILE = "chances-{id}.png"
#: Thinking time of a hint, and of each play of a review.
HINT_SECONDS = 1.5
REVIEW_SECONDS = 0.4
HINTS_REFUSED = (
    "Hints are off in this game. They are allowed against the computer, and in a game "
    "between people when both agreed at the challenge (`/challenge ... hints:true`, which "
    "makes the game unrated)."
)


def _state(game: Game) -> GameState | None:
    try:
        return GameState.from_json(game.state_json)
    except Exception:
        return None


#: bgsage's cube verdict as advice to the player about to roll.
CUBE_ADVICE = {
    "no double": "roll, no double",
    "too good": "roll: too good to double (play on for the gammon)",
    "double, take": "double (your opponent should take)",
    "double, pass": "double (your opponent should pass)",
}


class Coach(commands.Cog):
    """/replay (and the post-game tools that share its plumbing)."""

    def __init__(self, bot: commands.Bot, table: GameTable, pool: AIPool) -> None:
        self.bot = bot
        self.table = table
        self.db = table.db
        self.pool = pool
        self._renderer: Executor | None = None

    def renderer(self) -> Executor:
        """One spawned worker process for long renders (replays): a minute of drawing there
        does not slow the games being played meanwhile."""
        if self._renderer is None:
            context = multiprocessing.get_context("spawn")
            self._renderer = ProcessPoolExecutor(
                max_workers=1,
                mp_context=context,
                initializer=background_worker_init,
                initargs=(os.getpid(), 10),
            )
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
        game: GameNumber,
    ) -> None:
        found = await self._game_here(interaction, game)
        if found is None:
            return
        state = _state(found)
        if state is None or not state.record:
            await reply_error(interaction, f"Game #{found.id} has no move record to replay.")
            return
        await interaction.response.defer(thinking=True)
        # Posted in the channel: in the server's theme, like its boards.
        theme = await server_theme(self.db, found.guild_id)
        loop = asyncio.get_running_loop()
        try:
            gif = await loop.run_in_executor(
                self.renderer(), partial(render_replay_json, found.state_json, MAX_BYTES, theme)
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

    # --- hints --------------------------------------------------------------------------------

    @app_commands.command(name="hint", description="The best plays for your turn (only you see)")
    @app_commands.guild_only()
    async def hint(self, interaction: discord.Interaction[Any]) -> None:
        assert interaction.channel_id is not None
        game = await self.db.get_active_game(interaction.channel_id)
        if game is None:
            await reply_error(interaction, "There is no game in this channel.")
            return
        seat = GameTable.seat_of(game, interaction.user.id)
        if seat is None:
            await reply_error(interaction, "Only the players of this game can ask for hints.")
            return
        if not (game.against_computer or game.hints):
            await reply_error(interaction, HINTS_REFUSED)
            return
        state = self.table.state_of(game)
        if state.mover != seat:
            await reply_error(interaction, "Hints are for your own turn: it is not your turn.")
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            text = await self._hint_text(state, seat)
        except PoolError as exc:
            log.warning("hint failed in game %s: %s", game.id, exc)
            text = "The computer is too busy to give a hint right now; try again in a moment."
        await interaction.followup.send(text[:1990], ephemeral=True)

    async def _hint_text(self, state: GameState, seat: int) -> str:
        pos = state.position_for(seat)
        match = match_context(state, seat)
        if state.phase == ROLL:
            cube = await self.pool.cube(pos, match, level=STRONGEST, time_limit=HINT_SECONDS)
            advice = CUBE_ADVICE.get(cube.action, "double" if cube.double else "roll, no double")
            return (
                f"**Cube**: {advice}. Your equity: no double "
                f"{cube.no_double:+.3f}, double/take {cube.double_take:+.3f}, double/pass "
                f"{cube.double_pass:+.3f}. Winning chance {cube.win:.1%} "
                f"(gammons {cube.gammon:.1%}, lost gammons {cube.gammon_loss:.1%})."
            )
        if state.phase == DOUBLE:
            doubler = state.turn
            cube = await self.pool.cube(
                state.position_for(doubler),
                match_context(state, doubler),
                level=STRONGEST,
                time_limit=HINT_SECONDS,
            )
            advice = "take" if cube.take else "pass"
            return (
                f"**Take or pass**: {advice}. Your equity after a take "
                f"{-cube.double_take:+.3f} against {-cube.double_pass:+.3f} for passing; "
                f"your winning chance {1 - cube.win:.1%}."
            )
        assert state.phase == MOVE
        dice = state.current_dice()
        assert dice is not None
        ranked = await self.pool.rank(
            state.rules, pos, dice, level=STRONGEST, match=match, time_limit=HINT_SECONDS
        )
        return hint_lines(ranked)

    # --- reviews ------------------------------------------------------------------------------

    @app_commands.command(name="review", description="Mistakes, equity lost and luck of a game")
    @app_commands.describe(game="The game number (see /history)")
    @app_commands.guild_only()
    async def review(
        self,
        interaction: discord.Interaction[Any],
        game: GameNumber,
    ) -> None:
        found = await self._game_here(interaction, game)
        if found is None:
            return
        state = _state(found)
        if found.status == "active":
            await reply_error(
                interaction, f"Game #{found.id} is still being played: review it when it is over."
            )
            return
        if state is None or not state.record:
            await reply_error(interaction, f"Game #{found.id} has no move record to review.")
            return
        await interaction.response.defer(thinking=True)
        loop = asyncio.get_running_loop()
        try:
            decisions = await loop.run_in_executor(None, replay, state)
            verdicts = await self._verdicts(state, decisions)
        except (EngineError, PoolError) as exc:
            log.warning("review of game %s failed: %s", found.id, exc)
            await interaction.followup.send(
                f"Game #{found.id} cannot be reviewed now: {exc}", ephemeral=True
            )
            return
        names = state.players
        reviews = (review_player(verdicts, 0), review_player(verdicts, 1))
        series = win_series(verdicts, 0)
        png = await loop.run_in_executor(
            None,
            partial(
                render_win_chart,
                series,
                title=f"Game #{found.id}: winning chances of {names[0]}",
                label=names[0],
                breaks=game_breaks(verdicts),
            ),
        )
        embed = discord.Embed(
            title=f"Review of game #{found.id}: {names[0]} vs {names[1]}",
            description=f"{variant_name(found.variant)}. Equity is in points per unit of stake; "
            "the error rate is the average equity lost per decision, in thousandths.",
            colour=discord.Colour.dark_green(),
        )
        for seat in (0, 1):
            embed.add_field(
                name=names[seat][:250], value=review_text(reviews[seat])[:1024], inline=False
            )
        embed.set_image(url=f"attachment://{CHART_FILE.format(id=found.id)}")
        await interaction.followup.send(
            embed=embed,
            file=discord.File(io.BytesIO(png), filename=CHART_FILE.format(id=found.id)),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @review.autocomplete("game")
    async def review_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await recent_game_choices(self.db, interaction, current)

    async def _verdicts(self, final: GameState, decisions: list[Decision]) -> list[Verdict]:
        """Judge every play in the worker pool, one at a time: games in progress keep their
        share of the workers while a long review runs."""
        rules = final.rules
        verdicts = []
        for d in decisions:
            if d.kind != PLAY or d.play is None:
                continue
            dice = d.before.current_dice()
            assert dice is not None
            pos = d.before.position_for(d.seat)
            match = match_context(d.before, d.seat)
            ranked = await self.pool.rank(
                rules,
                pos,
                dice,
                level=STRONGEST,
                match=match,
                time_limit=REVIEW_SECONDS,
                wait=None,
                background=True,  # games in progress go first
            )
            mine = next((r for r in ranked if r.play.after == d.play.after), None)
            best = ranked[0]
            if mine is None:
                raise EngineError("E_REVIEW", "a played move is not among the legal plays")
            luck = None
            if rules.has_cube and len(ranked) > 0:
                items = await self.pool.review(
                    rules,
                    [ReviewDecision(pos, dice, d.play.after, match)],
                    level=STRONGEST,
                    time_limit=REVIEW_SECONDS,
                )
                luck = items[0].luck if items and items[0] is not None else None
            verdicts.append(
                Verdict(
                    seat=d.seat,
                    game=d.game_number,
                    line=decision_line(final, d),
                    played=mine.play.text or "(no move)",
                    best=best.play.text or "(no move)",
                    lost=max(0.0, best.equity - mine.equity) if len(ranked) > 1 else 0.0,
                    win=mine.win,
                    luck=luck,
                    choices=len(ranked),
                )
            )
        return verdicts


def decision_line(final: GameState, d: Decision) -> str:
    """A play as messages show it: "alice 6-5: 24/18 13/8", "bob three 4s: 8/4(3)" (the
    record file keeps its own notation)."""
    before = d.before
    if before.chain is not None:
        dice = chain_text(*before.chain.pending[0])
    elif before.dice is not None:
        dice = roll_text(before.dice.high, before.dice.low)
    else:
        return d.line
    played = d.play.text if d.play is not None and d.play.text else "no move"
    return f"{final.players[d.seat]} {dice}: {played}"


def hint_lines(ranked: list[RankedPlay]) -> str:
    """The best three plays with equity and winning chance, and how much worse the rest are."""
    if len(ranked) == 1:
        only = ranked[0].play.text or "pass (no legal move)"
        return f"Your only legal play is **{only}**: it is played for you."
    best = ranked[0]
    lines = ["**Best plays** (equity for you; win = your winning chance):"]
    for i, r in enumerate(ranked[:3], start=1):
        win = f", win {r.win:.1%}" if r.win is not None else ""
        behind = "" if i == 1 else f" ({r.equity - best.equity:+.3f})"
        mark = "*" if best.searched and not r.searched else ""
        lines.append(f"{i}. `{r.play.text or 'pass'}`{mark}: {r.equity:+.3f}{behind}{win}")
    rest = ranked[3:]
    if rest:
        worst = best.equity - rest[-1].equity
        nearest = best.equity - rest[0].equity
        lines.append(
            f"The other {len(rest)} plays are {nearest:.3f} to {worst:.3f} worse than the best."
            if len(rest) > 1
            else f"The other play is {nearest:.3f} worse than the best."
        )
    if best.searched and any(not r.searched for r in ranked[:3]):
        lines.append("*Not searched deeply (only the closest plays are): a quick estimate.")
    return "\n".join(lines)


def review_text(review: PlayerReview) -> str:
    lines = [
        f"Decisions: {review.decisions} (+{review.forced} forced)",
        f"Equity lost: {review.total_lost:.3f} in total, {review.average_lost:.3f} per decision "
        f"(error rate {review.error_rate:.1f})",
    ]
    if review.luck is not None:
        lines.append(f"Luck: {review.luck:+.3f} ({'lucky' if review.luck >= 0 else 'unlucky'})")
    else:
        lines.append("Luck: not measured for this variant")
    if review.mistakes:
        lines.append("Biggest mistakes:")
        for v in review.mistakes:
            lines.append(f"• {v.line} (−{v.lost:.3f}); better: `{v.best}`")
    else:
        lines.append("No mistakes found.")
    return "\n".join(lines)


async def setup(bot: commands.Bot) -> None:
    table = getattr(bot, "table", None)
    if not isinstance(table, GameTable):
        raise RuntimeError("the bot must create its GameTable before loading cogs.coach")
    pool = getattr(bot, "ai_pool", None)
    if not isinstance(pool, AIPool):
        raise RuntimeError("the bot must start its AIPool before loading cogs.coach")
    await bot.add_cog(Coach(bot, table, pool))
