"""Leaderboards, player statistics, game history and records, claims on time, guild settings,
and the background sweep that reminds idle players.

Like the game cog it is thin: storage computes ratings and statistics, the engine decides what a
claim does, the GameTable commits it. Refusals are ephemeral replies that say why.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import logging
import math
import re
from functools import partial
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands, tasks

from app.table import GameTable, Outcome
from cogs.boards import Boards
from cogs.common import guarded, mention, reply_error, send_committed
from cogs.looks import ServerTheme, forget_server_theme, known_theme, server_theme, theme_label
from cogs.options import ChallengeMinutes, GameNumber, Hours, Variant
from engine import VARIANTS, EngineError
from engine.game import GameState
from interop.gnubg import gnubg_id, record_with_ids
from interop.mat import export_mat
from render.chart import render_rating_chart
from render.game_scene import plural, result_text
from storage import (
    OVERALL,
    ConflictError,
    DatabaseGoneError,
    Game,
    GuildSettings,
    PlayerStats,
    Storage,
)
from storage.models import DRAWN_KINDS

log = logging.getLogger(__name__)

PAGE_SIZE = 10
HISTORY_SIZE = 10
#: Rating-history points drawn per series (the latest ones).
CHART_POINTS = 1000
CHART_FILE = "rating.png"
BOARD_FILE = "board.png"
RECORD_FORMATS = [
    app_commands.Choice(name="text record", value="text"),
    app_commands.Choice(name="mat (Jellyfish match file, classic only)", value="mat"),
]
MANAGE_GUILD_REFUSAL = "Only members with the Manage Server permission can use /settings."


def variant_name(variant: str) -> str:
    if variant == OVERALL:
        return "Overall"
    rules = VARIANTS.get(variant)
    return rules.name if rules is not None else variant


def rating_text(rating: float, provisional: bool) -> str:
    return f"{rating:.0f}{'?' if provisional else ''}"


def duration(seconds: float) -> str:
    """A short human duration: "3 days 4 h", "5 h 12 min", "7 min" (rounded up to a minute)."""
    minutes = max(1, math.ceil(max(0.0, seconds) / 60))
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days:
        unit = "day" if days == 1 else "days"
        return f"{days} {unit} {hours} h" if hours else f"{days} {unit}"
    if hours:
        return f"{hours} h {mins} min" if mins else f"{hours} h"
    return f"{mins} min"


def _utc(timestamp: float | None) -> str:
    if timestamp is None or not math.isfinite(timestamp):
        return "unknown"
    try:
        return dt.datetime.fromtimestamp(timestamp, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    except (OverflowError, OSError, ValueError):
        return "unknown"


def _discord_date(timestamp: float | None) -> str:
    if timestamp is None or not math.isfinite(timestamp):
        return "?"
    return f"<t:{int(timestamp)}:d>"


def _state_or_none(game: Game) -> GameState | None:
    """The stored engine state; None for games imported without one (or unreadable)."""
    try:
        return GameState.from_json(game.state_json)
    except Exception:
        return None


def _names(game: Game, state: GameState | None) -> tuple[str, str]:
    if state is not None:
        return state.players
    return (f"Player {game.player_x}", f"Player {game.player_o}")


def game_outcome_for(game: Game, user_id: int) -> str:
    """How a finished (or aborted) game went for ``user_id``, e.g. "Won 2 (gammon)"."""
    if game.status == "aborted":
        return "Aborted"
    if game.status == "active":
        return "In progress"
    kind = game.result_kind or "?"
    if game.winner_id is None or kind in DRAWN_KINDS:
        return f"Draw ({kind})"
    verb = "Won" if game.winner_id == user_id else "Lost"
    if game.match_length > 1:
        mine, theirs = (
            (game.score_x, game.score_o)
            if user_id == game.player_x
            else (game.score_o, game.score_x)
        )
        return f"{verb} the match {mine}-{theirs} ({kind})"
    points = game.points or 0
    return f"{verb} {points} pt{'s' if points != 1 else ''} ({kind})"


def final_line(game: Game, state: GameState | None) -> str:
    """The last line of a game record: the final result of the game or match."""
    names = _names(game, state)
    if game.status == "aborted":
        return "final: aborted (not rated)"
    if game.status == "active":
        return "final: in progress"
    if game.winner_id is None:
        return f"final: {game.result_kind or 'draw'} (0 points)"
    winner = names[0] if game.winner_id == game.player_x else names[1]
    if game.match_length > 1:
        return (
            f"final: {winner} wins the match {game.score_x}-{game.score_o} "
            f"(last game: {game.result_kind})"
        )
    return f"final: {winner} wins {game.points} ({game.result_kind})"


def game_record(game: Game) -> str:
    """The full record of a game (RULES §7.7 lines) with a header, as a text file body.

    Classic records also give gnubg's ID (position ID:match ID) of the final position and,
    before each decision, of the position it was taken in. Replays the record: call it off the
    event loop.
    """
    state = _state_or_none(game)
    names = _names(game, state)
    lines = [
        f"game: {game.id}",
        f"variant: {game.variant} ({variant_name(game.variant)})",
        f"players: {names[0]} (X, id {game.player_x}) vs {names[1]} (O, id {game.player_o})",
        f"match length: {game.match_length}",
        f"date: {_utc(game.created_at)}",
    ]
    if game.finished_at is not None:
        lines.append(f"ended: {_utc(game.finished_at)}")
    body: list[str] | None = None
    if state is not None and state.rules.has_gnubg_ids:
        lines.append(f"gnubg ID: {gnubg_id(state)}")
        try:
            body = record_with_ids(state)
        except EngineError:
            log.warning("record of game %s cannot be replayed; shown without gnubg IDs", game.id)
    lines.append("")
    if body is not None:
        lines.extend(body)
    elif state is not None and state.record:
        lines.extend(state.record)
    else:
        lines.append("(no move record stored for this game)")
    lines.append("")
    lines.append(final_line(game, state))
    return "\n".join(lines) + "\n"


async def recent_game_choices(
    db: Storage, interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[int]]:
    """The asking user's recent games, filtered by the number typed so far (autocomplete)."""
    if interaction.guild_id is None:
        return []
    typed = str(current).strip().lstrip("#")
    games = await db.recent_games(interaction.guild_id, interaction.user.id, limit=25)
    choices = []
    for game in games:
        if typed and not str(game.id).startswith(typed):
            continue
        state = _state_or_none(game)
        names = _names(game, state)
        mine = 0 if game.player_x == interaction.user.id else 1
        label = (
            f"#{game.id} {variant_name(game.variant)} vs {names[1 - mine]}: "
            f"{game_outcome_for(game, interaction.user.id)}"
        )
        choices.append(app_commands.Choice(name=label[:100], value=game.id))
    return choices


class LeaderboardButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lb:(?P<guild>\d+):(?P<board>[a-z][a-z-]*):(?P<page>\d+)",
):
    """Prev / Next under a leaderboard; persistent across restarts (everything in custom_id)."""

    def __init__(
        self, guild_id: int, board: str, page: int, label: str = "Page", disabled: bool = False
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=f"lb:{guild_id}:{board}:{page}",
                disabled=disabled,
            )
        )
        self.guild_id = guild_id
        self.board = board
        self.page = page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> LeaderboardButton:
        return cls(int(match["guild"]), match["board"], int(match["page"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog("League")
        assert isinstance(cog, League)
        await guarded(interaction, cog.turn_page(interaction, self.guild_id, self.board, self.page))


class League(commands.Cog):
    """Ratings, statistics, records, claims and reminders."""

    #: Seconds between two sweeps for reminders and claimable games.
    SWEEP_SECONDS = 60.0

    def __init__(self, bot: commands.Bot, table: GameTable) -> None:
        self.bot = bot
        self.table = table
        self.db: Storage = table.db

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(LeaderboardButton)
        self.reminder_loop.change_interval(seconds=self.SWEEP_SECONDS)
        self.reminder_loop.start()

    async def cog_unload(self) -> None:
        self.reminder_loop.cancel()
        self.bot.remove_dynamic_items(LeaderboardButton)

    # --- helpers ------------------------------------------------------------------------------

    @staticmethod
    def _target(
        interaction: discord.Interaction[Any], user: discord.User | discord.Member | None
    ) -> discord.User | discord.Member:
        return user if user is not None else interaction.user

    # --- leaderboard --------------------------------------------------------------------------

    async def leaderboard_page(
        self, guild_id: int, board: str, page: int
    ) -> tuple[discord.Embed, discord.ui.View | None]:
        """The embed and Prev/Next buttons of one page (clamped to the pages that exist)."""
        variant = None if board == OVERALL else board
        total = await self.db.leaderboard_count(guild_id, variant)
        pages = max(1, math.ceil(total / PAGE_SIZE))
        page = max(0, min(page, pages - 1))
        title = f"Leaderboard: {'all variants' if variant is None else variant_name(board)}"
        embed = discord.Embed(title=title, colour=discord.Colour.dark_gold())
        if total == 0:
            embed.description = (
                "No rated games on this server yet. Finish a game to get on the board!"
                if variant is None
                else f"No rated {variant_name(board)} games on this server yet."
            )
            return embed, None
        rows = await self.db.leaderboard(
            guild_id, variant, limit=PAGE_SIZE, offset=page * PAGE_SIZE
        )
        lines = []
        for row in rows:
            record = f"{row.wins}-{row.losses}" + (f"-{row.draws}" if row.draws else "")
            games = plural(row.games, "game")
            lines.append(
                f"**{row.rank}.** {mention(row.user_id)} · "
                f"**{rating_text(row.rating, row.provisional)}** · {games} · {record} · "
                f"{row.points_won} pts"
            )
        embed.description = "\n".join(lines)
        embed.set_footer(
            text=f"Page {page + 1}/{pages} · {total} players · W-L(-D) · "
            "? = provisional rating (RD above 110)"
        )
        view = discord.ui.View(timeout=None)
        view.add_item(
            LeaderboardButton(guild_id, board, max(page - 1, 0), "◀ Prev", disabled=page == 0)
        )
        view.add_item(
            LeaderboardButton(guild_id, board, page + 1, "Next ▶", disabled=page >= pages - 1)
        )
        return embed, view

    @app_commands.command(name="leaderboard", description="Top players of this server")
    @app_commands.describe(variant="Which variant (default: the overall rating)")
    @app_commands.guild_only()
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        variant: Variant | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        board = OVERALL if variant is None else variant.value
        embed, view = await self.leaderboard_page(interaction.guild_id, board, 0)
        if view is None:
            await interaction.response.send_message(embed=embed)
        else:
            await interaction.response.send_message(embed=embed, view=view)

    async def turn_page(
        self, interaction: discord.Interaction[Any], guild_id: int, board: str, page: int
    ) -> None:
        if interaction.guild_id != guild_id or (board != OVERALL and board not in VARIANTS):
            await reply_error(interaction, "This leaderboard cannot be shown here.")
            return
        embed, view = await self.leaderboard_page(guild_id, board, page)
        await interaction.response.edit_message(embed=embed, view=view)

    # --- statistics ---------------------------------------------------------------------------

    @staticmethod
    def _stats_field(stats: PlayerStats) -> str:
        lines = [
            f"Rating **{rating_text(stats.rating, stats.provisional)}** (RD {stats.rd:.0f})",
            f"{plural(stats.games, 'game')}: {stats.wins} W · {stats.losses} L · {stats.draws} D",
            f"Points: {stats.points_won} won · {stats.points_lost} lost",
        ]
        rules = VARIANTS.get(stats.variant)  # None for the overall figures
        if (
            stats.variant == OVERALL
            or (rules is not None and rules.scores_gammons)
            or stats.gammons_won
            or stats.backgammons_won
        ):
            lines.append(f"Gammons {stats.gammons_won} · backgammons {stats.backgammons_won}")
        if (rules is not None and rules.has_mother) or stats.mother_wins:
            lines.append(f"Mother wins {stats.mother_wins}")
        streak = stats.current_streak
        now = plural(streak, "win") if streak > 0 else "none"
        if streak < 0:
            now = plural(-streak, "loss", "losses")
        lines.append(f"Streak: {now} · best {plural(stats.best_streak, 'win')}")
        return "\n".join(lines)

    async def _chart(
        self, guild_id: int, user_id: int, rows: list[PlayerStats], name: str
    ) -> bytes:
        series: dict[str, list[tuple[float, float]]] = {}
        for stats in rows:
            variant = None if stats.variant == OVERALL else stats.variant
            history = await self.db.rating_history(guild_id, user_id, variant, limit=CHART_POINTS)
            series[variant_name(stats.variant)] = [(p.at, p.rating) for p in history]
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            None, partial(render_rating_chart, series, title=f"Rating history: {name}")
        )

    @app_commands.command(name="stats", description="A player's ratings and statistics")
    @app_commands.describe(user="Whose statistics (default: yours)")
    @app_commands.guild_only()
    async def stats(
        self, interaction: discord.Interaction[Any], user: discord.User | None = None
    ) -> None:
        assert interaction.guild_id is not None
        target = self._target(interaction, user)
        rows = await self.db.player_stats(interaction.guild_id, target.id)
        computer = await self.db.computer_record(interaction.guild_id, target.id)
        name = target.display_name[:32]
        if not rows and not computer:
            who = "You have" if target.id == interaction.user.id else f"{name} has"
            await interaction.response.send_message(
                f"{who} not finished a rated game on this server yet. "
                "Challenge someone with /challenge!",
                ephemeral=True,
            )
            return
        embed = discord.Embed(title=f"Statistics: {name}", colour=discord.Colour.blurple())
        for stats in rows[:24]:
            embed.add_field(name=variant_name(stats.variant), value=self._stats_field(stats))
        if computer:
            embed.add_field(
                name="Against the computer (not rated)",
                value="\n".join(
                    f"{r.level}: {plural(r.games, 'game')} · {r.wins} W · "
                    f"{r.losses} L" + (f" · {r.draws} D" if r.draws else "")
                    for r in computer
                ),
                inline=False,
            )
        embed.set_footer(text="? = provisional rating (RD above 110); ratings are Glicko-2")
        if not rows:
            await interaction.response.send_message(embed=embed)
            return
        # The rating histories and the chart can take a while on a busy bot: answer first.
        await interaction.response.defer(thinking=True)
        png = await self._chart(interaction.guild_id, target.id, rows, name)
        embed.set_image(url=f"attachment://{CHART_FILE}")
        await interaction.followup.send(
            embed=embed, file=discord.File(io.BytesIO(png), filename=CHART_FILE)
        )

    # --- history and records ------------------------------------------------------------------

    @app_commands.command(name="history", description="A player's recent finished games")
    @app_commands.describe(user="Whose games (default: yours)")
    @app_commands.guild_only()
    async def history(
        self, interaction: discord.Interaction[Any], user: discord.User | None = None
    ) -> None:
        assert interaction.guild_id is not None
        target = self._target(interaction, user)
        games = await self.db.recent_games(interaction.guild_id, target.id, limit=HISTORY_SIZE)
        name = target.display_name[:32]
        if not games:
            who = "You have" if target.id == interaction.user.id else f"{name} has"
            await interaction.response.send_message(
                f"{who} no finished games on this server yet.", ephemeral=True
            )
            return
        lines = []
        for game in games:
            opponent = game.opponent_of(target.id)
            lines.append(
                f"`#{game.id}` {_discord_date(game.finished_at)} · "
                f"**{variant_name(game.variant)}** · vs {mention(opponent)} · "
                f"{game_outcome_for(game, target.id)}"
            )
        embed = discord.Embed(
            title=f"Recent games: {name}",
            description="\n".join(lines),
            colour=discord.Colour.blurple(),
        )
        embed.set_footer(text="/record game:<number> gives the full record of a game")
        await interaction.response.send_message(embed=embed)

    @app_commands.command(name="record", description="The full record of a game, as a file")
    @app_commands.describe(
        game="The game number (see /history)",
        format="text (default), or mat: a backgammon match file for GNU Backgammon, XG, ...",
    )
    @app_commands.choices(format=RECORD_FORMATS)
    @app_commands.guild_only()
    async def record(
        self,
        interaction: discord.Interaction[Any],
        game: GameNumber,
        format: app_commands.Choice[str] | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        found = await self.db.get_game(game)
        if found is None or found.guild_id != interaction.guild_id:
            await reply_error(interaction, f"There is no game #{game} on this server.")
            return
        state = _state_or_none(found)
        names = _names(found, state)
        loop = asyncio.get_running_loop()
        mat = format is not None and format.value == "mat"
        rules = VARIANTS.get(found.variant)
        if mat and (rules is None or not rules.has_gnubg_ids or state is None):
            await reply_error(
                interaction,
                "Only backgammon (classic) games can be exported as a .mat match file; "
                f"game #{found.id} is {variant_name(found.variant)}. "
                "Use /record without format for its text record.",
            )
            return
        # Replaying a long match for its gnubg ids or .mat can take seconds: answer first.
        await interaction.response.defer(thinking=True)
        if mat:
            assert state is not None
            date = dt.datetime.fromtimestamp(found.created_at, dt.UTC).date()
            try:
                text = await loop.run_in_executor(None, partial(export_mat, state, date=date))
            except EngineError as exc:
                log.warning("game %s cannot be exported: %s", found.id, exc)
                await reply_error(interaction, f"Game #{found.id} cannot be exported: {exc}")
                return
            body, filename = text.encode("utf-8"), f"game-{found.id}.mat"
        else:
            text = await loop.run_in_executor(None, game_record, found)
            body, filename = text.encode("utf-8"), f"game-{found.id}.txt"
        await interaction.followup.send(
            f"Record of game #{found.id}: {names[0]} vs {names[1]} "
            f"({variant_name(found.variant)}).",
            file=discord.File(io.BytesIO(body), filename=filename),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @record.autocomplete("game")
    async def record_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await recent_game_choices(self.db, interaction, current)

    # --- claims on time -----------------------------------------------------------------------

    @app_commands.command(
        name="claim", description="Claim the game when your opponent has been idle too long"
    )
    @app_commands.guild_only()
    async def claim(self, interaction: discord.Interaction[Any]) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        game = await self.db.get_active_game(interaction.channel_id)
        if game is None:
            await reply_error(interaction, "There is no game in this channel to claim.")
            return
        user = interaction.user.id
        seat = GameTable.seat_of(game, user)
        if seat is None:
            await reply_error(interaction, "Only the players of this game can claim it.")
            return
        state = self.table.state_of(game)
        if state.mover == seat:
            await reply_error(
                interaction, "The game is waiting for you: it is your turn, so you cannot claim."
            )
            return
        settings = await self.db.get_guild_settings(interaction.guild_id)
        now = self.table.clock()
        idle = game.idle_seconds(now)
        left = settings.claim_after_seconds - idle
        if left > 0:
            await reply_error(
                interaction,
                f"Too early to claim: {state.players[state.mover]} has been idle for "
                f"{duration(idle)}, and a claim needs {duration(settings.claim_after_seconds)} "
                f"without a move. You can claim in {duration(left)}.",
            )
            return
        async with self.table.lock(game.channel_id):
            fresh = await self.db.get_game(game.id)
            if fresh is None or fresh.status != "active" or fresh.version != game.version:
                await reply_error(interaction, "The game has moved on; look again.")
                return
            try:
                outcome = await self.table.act(fresh, user, lambda s, seat: s.claim(seat), "claim")
            except EngineError as exc:
                await reply_error(interaction, exc.message)
                return
            except ConflictError:
                await reply_error(
                    interaction, "Someone acted on this game at the same moment; look again."
                )
                return
        idle_user = GameTable.user_of(game, state.mover)
        header = (
            f"{interaction.user.mention} claims the game on time: {mention(idle_user)} "
            f"did not move for {duration(idle)}."
        )
        await send_committed(
            interaction,
            self._send_result(interaction, outcome, header, fresh.board_message_id),
            "Your claim was recorded and the game is over, but Discord did not take the reply. "
            "/history shows the result.",
        )

    async def _send_result(
        self,
        interaction: discord.Interaction[Any],
        outcome: Outcome,
        header: str,
        board_message_id: int | None,
    ) -> None:
        state = outcome.state
        lines = [header, f"**Game over.** {result_text(state, state.players)}"]
        finished = outcome.finished
        if finished is not None:
            changes = []
            for seat in (0, 1):
                change = finished.change_for(GameTable.user_of(outcome.game, seat), state.variant)
                if change is not None:
                    changes.append(
                        f"{state.players[seat]} {change.after.rating:.0f} ({change.delta:+.0f})"
                    )
            if changes:
                lines.append("Ratings: " + ", ".join(changes))
        # Committed: answer Discord at once, then draw the final board and tidy the old one.
        await interaction.response.defer(thinking=True)
        boards = Boards(self.bot, self.table)
        theme = await server_theme(self.db, outcome.game.guild_id)
        await interaction.followup.send(
            "\n".join(lines)[:1900],
            file=await boards.file(state, theme=theme),
            allowed_mentions=discord.AllowedMentions.none(),  # the game is over: nobody to act
        )
        await boards.retire(outcome.game.channel_id, board_message_id, "*Claimed on time.*")

    # --- settings -----------------------------------------------------------------------------

    @staticmethod
    def _settings_embed(settings: GuildSettings, title: str) -> discord.Embed:
        embed = discord.Embed(title=title, colour=discord.Colour.dark_teal())
        embed.add_field(
            name="Reminder after", value=duration(settings.reminder_after_seconds), inline=True
        )
        embed.add_field(
            name="Claim allowed after", value=duration(settings.claim_after_seconds), inline=True
        )
        embed.add_field(
            name="Challenges expire after",
            value=duration(settings.challenge_expiry_seconds),
            inline=True,
        )
        embed.add_field(
            name="Board theme",
            value=theme_label(known_theme(settings.board_theme)),
            inline=False,
        )
        embed.set_footer(
            text="The theme is the look of every board the bot posts in this server; each "
            "player may pick their own for /board with /preferences."
        )
        return embed

    @app_commands.command(
        name="settings", description="Show or change this server's timers and board theme"
    )
    @app_commands.describe(
        reminder_hours="Remind the player to act after this many idle hours",
        claim_hours="Let the waiting player /claim after this many idle hours",
        challenge_minutes="Challenges expire after this many minutes",
        theme="The look of every board the bot posts in this server",
    )
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    async def settings(
        self,
        interaction: discord.Interaction[Any],
        reminder_hours: Hours | None = None,
        claim_hours: Hours | None = None,
        challenge_minutes: ChallengeMinutes | None = None,
        theme: ServerTheme | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        # default_permissions only hides the command by default; server admins can override
        # that in the integration settings, so the permission is checked here too.
        if not interaction.permissions.manage_guild:
            await reply_error(interaction, MANAGE_GUILD_REFUSAL)
            return
        current = await self.db.get_guild_settings(interaction.guild_id)
        if (
            reminder_hours is None
            and claim_hours is None
            and challenge_minutes is None
            and theme is None
        ):
            await interaction.response.send_message(
                embed=self._settings_embed(current, "Settings of this server"), ephemeral=True
            )
            return
        reminder = (
            current.reminder_after_seconds if reminder_hours is None else reminder_hours * 3600
        )
        claim = current.claim_after_seconds if claim_hours is None else claim_hours * 3600
        if reminder >= claim:
            await reply_error(
                interaction,
                f"The reminder ({duration(reminder)}) must come before the claim time "
                f"({duration(claim)}). Nothing was changed.",
            )
            return
        new = await self.db.set_guild_settings(
            interaction.guild_id,
            reminder_after_seconds=reminder,
            claim_after_seconds=claim,
            challenge_expiry_seconds=None if challenge_minutes is None else challenge_minutes * 60,
            board_theme=theme,
        )
        forget_server_theme(self.db, interaction.guild_id)
        log.info("guild %s settings changed by %s: %s", new.guild_id, interaction.user.id, new)
        await interaction.response.send_message(
            embed=self._settings_embed(new, "Settings updated"), ephemeral=True
        )

    # --- reminders ----------------------------------------------------------------------------

    @tasks.loop(seconds=60)
    async def reminder_loop(self) -> None:
        try:
            await self.sweep()
        except DatabaseGoneError:
            pass  # logged CRITICAL once by the storage; a traceback a minute adds nothing
        except Exception:
            log.exception("the reminder sweep failed")

    @reminder_loop.before_loop
    async def _before_reminders(self) -> None:
        await self.bot.wait_until_ready()

    async def sweep(self) -> int:
        """Post the due reminders and claim notices; returns how many were posted.

        A game idle past the claim time gets one claim notice (telling the waiting player he
        may /claim); one idle past the reminder time gets one reminder (mentioning the player
        to act). Each is posted once per idle period: ``reminded_at`` records it, and any action
        clears it.
        """
        now = self.table.clock()
        settings: dict[int, GuildSettings] = {}
        posted = 0
        seen: set[int] = set()
        # Sharded, each process sweeps only the guilds of its own shards.
        shards = getattr(self.bot, "owned_shards", None)
        for game in await self.db.claimable_games(now, shards=shards):
            seen.add(game.id)
            if game.guild_id not in settings:
                settings[game.guild_id] = await self.db.get_guild_settings(game.guild_id)
            claim_at = game.last_action_at + settings[game.guild_id].claim_after_seconds
            if game.reminded_at is not None and game.reminded_at >= claim_at:
                continue  # already told in this idle period
            posted += await self._notify(game, now, settings[game.guild_id], claim=True)
        for game in await self.db.games_needing_reminder(now, shards=shards):
            if game.id in seen:
                continue
            if game.guild_id not in settings:
                settings[game.guild_id] = await self.db.get_guild_settings(game.guild_id)
            posted += await self._notify(game, now, settings[game.guild_id], claim=False)
        return posted

    async def _notify(
        self, game: Game, now: float, settings: GuildSettings, *, claim: bool
    ) -> bool:
        async with self.table.lock(game.channel_id):
            fresh = await self.db.get_game(game.id)
            # The game may have moved on between the query and the lock.
            if fresh is None or fresh.status != "active" or fresh.version != game.version:
                return False
            state = _state_or_none(fresh)
            if state is None or state.is_over:
                return False
            idle_user = GameTable.user_of(fresh, state.mover)
            waiting_user = GameTable.user_of(fresh, 1 - state.mover)
            if fresh.against_computer and (claim or state.mover == 1):
                # The computer neither claims nor needs a reminder (its turns are resumed).
                return False
            idle = duration(fresh.idle_seconds(now))
            what = variant_name(fresh.variant)
            if claim:
                text = (
                    f"{mention(waiting_user)}, {mention(idle_user)} has not moved for {idle} "
                    f"in your {what} game: you may claim the win with /claim."
                )
            else:
                text = (
                    f"{mention(idle_user)}, it is your turn in your {what} game against "
                    f"{mention(waiting_user)} (no move for {idle}). After "
                    f"{duration(settings.claim_after_seconds)} without a move, your opponent "
                    "may claim the game with /claim."
                )
            # Claimed first, with a compare-and-set on the game as read: at most one notice per
            # idle period even if the bot dies right after posting or another process sharing
            # the database swept the same game, and no retry every sweep when posting fails
            # (channel gone, no access), which would only repeat the failure.
            if not await self.db.mark_reminded(fresh.id, now=now, expected=fresh):
                return False
            return await self._post(fresh.channel_id, text)

    async def _post(self, channel_id: int, text: str) -> bool:
        try:
            channel = self.bot.get_channel(channel_id) or await self.bot.fetch_channel(channel_id)
            if not isinstance(channel, discord.abc.Messageable):
                return False
            await channel.send(text, allowed_mentions=discord.AllowedMentions(users=True))
        except discord.HTTPException as exc:
            log.warning("could not post a reminder in channel %s: %s", channel_id, exc)
            return False
        return True


async def setup(bot: commands.Bot) -> None:
    table = getattr(bot, "table", None)
    if not isinstance(table, GameTable):
        raise RuntimeError("the bot must create its GameTable before loading cogs.league")
    await bot.add_cog(League(bot, table))
