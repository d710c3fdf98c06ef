"""Leaderboards, player statistics, game history and records, guild settings, and the
background sweep that reminds idle players and tells waiting ones they may claim (/claim itself
ends a game, so the game commands show it like any other end).

The Discord side only: app.league finds the figures and says which notices are due,
app.settings keeps the server's settings; this cog shows the results as
embeds, files and buttons. Refusals are ephemeral replies that say why.
"""

from __future__ import annotations

import io
import logging
import math
from typing import Any, Self

import discord
from discord import app_commands
from discord.ext import commands, tasks

from app.faults import kill_point
from app.league import (
    OVERALL,
    DatabaseGoneError,
    Leaderboard,
    LeaderboardPage,
    Notice,
    PlayerStats,
    Shards,
)
from app.puzzles import record_line
from app.records import duration, game_outcome_for, rating_text, variant_name
from app.seasons import SeasonPage
from app.services import Services
from app.settings import GuildSettings, NotAServerManager
from discord_ui.common import anywhere, game_choices, mention, scope
from discord_ui.custom_ids import PAGE_TEMPLATE, Click, PageClick
from discord_ui.items import PageButton
from discord_ui.looks import ServerTheme, known_theme, theme_label
from discord_ui.options import ChallengeMinutes, GameNumber, Hours, SeasonMonths, Variant
from discord_ui.report_messages import record_message
from engine import VARIANTS
from render.game_scene import plural

log = logging.getLogger(__name__)

CHART_FILE = "rating.png"
BOARD_FILE = "board.png"
RECORD_FORMATS = [
    app_commands.Choice(name="text record", value="text"),
    app_commands.Choice(name="mat (Jellyfish match file, classic only)", value="mat"),
]


def _discord_date(timestamp: float | None) -> str:
    if timestamp is None or not math.isfinite(timestamp):
        return "?"
    return f"<t:{int(timestamp)}:d>"


def leaderboard_message(
    shown: LeaderboardPage,
) -> tuple[discord.Embed, discord.ui.View | None]:
    """The embed and Prev/Next buttons of one leaderboard page."""
    board, page, pages, total = shown.board, shown.page, shown.pages, shown.total
    variant = shown.variant
    title = f"Leaderboard: {'all variants' if variant is None else variant_name(board)}"
    embed = discord.Embed(title=title, colour=discord.Colour.dark_gold())
    if total == 0:
        embed.description = (
            "No rated games on this server yet. Finish a game to get on the board!"
            if variant is None
            else f"No rated {variant_name(board)} games on this server yet."
        )
        return embed, None
    lines = []
    for row in shown.rows:
        record = f"{row.wins}-{row.losses}" + (f"-{row.draws}" if row.draws else "")
        games = plural(row.games, "game")
        lines.append(
            f"**{row.rank}.** {mention(row.user_id)} · "
            f"**{rating_text(row.rating, row.provisional)}** · {games} · {record} · "
            f"{plural(row.points_won, 'point')}"
        )
    embed.description = "\n".join(lines)
    embed.set_footer(
        text=f"Page {page + 1}/{pages} · {total} players · W-L(-D) · "
        "? = provisional rating (RD above 110)"
    )
    guild_id = shown.guild_id
    view = discord.ui.View(timeout=None)
    view.add_item(
        LeaderboardButton(
            PageClick(guild_id, board, max(page - 1, 0)), "◀ Prev", disabled=page == 0
        )
    )
    view.add_item(
        LeaderboardButton(
            PageClick(guild_id, board, page + 1), "Next ▶", disabled=page >= pages - 1
        )
    )
    return embed, view


def season_embed(shown: SeasonPage) -> discord.Embed:
    """A season's leaderboard: results within its dates, the continuous rating beside them."""
    what = "all variants" if shown.board == OVERALL else variant_name(shown.board)
    embed = discord.Embed(
        title=f"Season {shown.season.label}: {what}", colour=discord.Colour.dark_gold()
    )
    if not shown.rows:
        embed.description = "No rated games in this season."
        return embed
    lines = []
    for row in shown.rows:
        record = f"{row.wins}-{row.losses}" + (f"-{row.draws}" if row.draws else "")
        lines.append(
            f"**{row.rank}.** {mention(row.user_id)} · **{row.score:g}** ({record}) · "
            f"rating {row.rating:.0f} ({row.change:+.0f})"
        )
    embed.description = "\n".join(lines)
    embed.set_footer(
        text=f"{shown.total} players · score: a win 1, a draw 1/2 · ranked by score, then by "
        "rating gained in the season (ratings carry over between seasons)"
    )
    return embed


def notice_text(notice: Notice) -> str:
    """A claim notice (to the waiting player) or a reminder (to the player to act)."""
    idle = duration(notice.idle_seconds)
    what = variant_name(notice.game.variant)
    if notice.claim:
        return (
            f"{mention(notice.waiting_user)}, {mention(notice.idle_user)} has not moved for "
            f"{idle} in your {what} game: you may claim the win with /claim."
        )
    return (
        f"{mention(notice.idle_user)}, it is your turn in your {what} game against "
        f"{mention(notice.waiting_user)} (no move for {idle}). After "
        f"{duration(notice.claim_after_seconds)} without a move, your opponent "
        "may claim the game with /claim."
    )


class LeaderboardButton(PageButton[PageClick], template=PAGE_TEMPLATE):
    """Prev / Next under a leaderboard; persistent across restarts (everything in custom_id)."""

    @staticmethod
    def custom_id_of(page: PageClick) -> str:
        return f"lb:{page.guild_id}:{page.board}:{page.page}"

    @classmethod
    def from_click(cls, click: Click) -> Self | None:
        if isinstance(click, PageClick):
            return cls(click)
        return None

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog("League")
        assert isinstance(cog, League)
        await cog.turn_page(interaction, self.page.guild_id, self.page.board, self.page.page)


class League(commands.Cog):
    """Ratings, statistics, records, reminders and claim notices."""

    #: Seconds between two sweeps for reminders and claimable games.
    SWEEP_SECONDS = 60.0

    def __init__(self, bot: commands.Bot, services: Services) -> None:
        self.bot = bot
        self.table = services.table
        self.league = services.league
        self.seasons = services.seasons
        self.reminders = services.reminders
        self.server_settings = services.server_settings
        self.puzzles = services.puzzles

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

    @staticmethod
    def _name(target: discord.abc.Snowflake) -> str:
        """The player's display name; for a user Discord sent without their data (someone no
        longer on the server, a forged id) their mention, which shows as their name without
        pinging (these replies allow no mentions)."""
        name = getattr(target, "display_name", None)
        return name[:32] if isinstance(name, str) else f"<@{target.id}>"

    # --- leaderboard --------------------------------------------------------------------------

    @property
    def boards(self) -> Leaderboard:
        return self.league.leaderboard

    @app_commands.command(name="leaderboard", description="Top players of this server")
    @app_commands.describe(
        variant="Which variant (default: the overall rating)",
        season="Results within a season: current, previous, or a month YYYY-MM",
    )
    @app_commands.guild_only()
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        variant: Variant | None = None,
        season: app_commands.Range[str, 0, 40] | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        board = OVERALL if variant is None else variant.value
        if season is not None:
            shown = await self.seasons.page(interaction.guild_id, board, season)
            await interaction.response.send_message(
                embed=season_embed(shown), allowed_mentions=discord.AllowedMentions.none()
            )
            return
        embed, view = leaderboard_message(await self.boards.page(interaction.guild_id, board, 0))
        if view is None:
            await interaction.response.send_message(embed=embed)
        else:
            await interaction.response.send_message(embed=embed, view=view)

    @leaderboard.autocomplete("season")
    async def _season_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.guild_id is None:
            return []
        offered = await self.seasons.offered(interaction.guild_id, current)
        return [app_commands.Choice(name=label, value=value) for label, value in offered]

    async def turn_page(
        self, interaction: discord.Interaction[Any], guild_id: int, board: str, page: int
    ) -> None:
        shown = await self.boards.turn_page(interaction.guild_id, guild_id, board, page)
        embed, view = leaderboard_message(shown)
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

    @app_commands.command(name="stats", description="A player's ratings and statistics")
    @app_commands.describe(user="Whose statistics (default: yours)")
    @anywhere
    async def stats(
        self, interaction: discord.Interaction[Any], user: discord.User | None = None
    ) -> None:
        guild_id = scope(interaction)
        target = self._target(interaction, user)
        found = await self.league.statistics(guild_id, target.id, asked_by=interaction.user.id)
        rows, computer, practice = found.rows, found.computer, found.practice
        puzzles = await self.puzzles.record(target.id)
        name = self._name(target)
        if not rows and not computer and not practice and not puzzles.answered:
            who = "You have" if target.id == interaction.user.id else f"{name} has"
            what = (
                "a rated game on this server yet. Challenge someone with /challenge!"
                if guild_id
                else "a game against the computer here yet. Play one with /challenge!"
            )
            await interaction.response.send_message(f"{who} not finished {what}", ephemeral=True)
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
        if practice:
            # Games of no server (the bot's DM, the app installed to the player): never rated,
            # never on a server's leaderboard, shown apart.
            embed.add_field(
                name="Practice (direct messages and elsewhere, not rated)",
                value="\n".join(
                    f"{r.level}: {plural(r.games, 'game')} · {r.wins} W · "
                    f"{r.losses} L" + (f" · {r.draws} D" if r.draws else "")
                    for r in practice
                ),
                inline=False,
            )
        if puzzles.answered:
            embed.add_field(name="Puzzles", value=record_line(puzzles), inline=False)
        embed.set_footer(text="? = provisional rating (RD above 110); ratings are Glicko-2")
        if not rows:
            await interaction.response.send_message(embed=embed)
            return
        # The rating histories and the chart can take a while on a busy bot: answer first.
        await interaction.response.defer(thinking=True)
        chart = await self.league.rating_picture(guild_id, target.id, rows, name)
        embed.set_image(url=f"attachment://{CHART_FILE}")
        await interaction.followup.send(
            embed=embed,
            file=discord.File(io.BytesIO(chart.png), filename=CHART_FILE, description=chart.alt),
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
        games = await self.league.history(interaction.guild_id, target.id)
        name = self._name(target)
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
    @anywhere
    async def record(
        self,
        interaction: discord.Interaction[Any],
        game: GameNumber,
        format: app_commands.Choice[str] | None = None,
    ) -> None:
        mat = format is not None and format.value == "mat"
        request = await self.league.record_request(
            scope(interaction), game, mat=mat, user_id=interaction.user.id
        )
        # Replaying a long match for its gnubg ids or .mat can take seconds: answer first.
        await interaction.response.defer(thinking=True)
        made = await self.league.record(request)
        text, file = record_message(made)
        await interaction.followup.send(
            text, file=file, allowed_mentions=discord.AllowedMentions.none()
        )

    @record.autocomplete("game")
    async def record_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return game_choices(
            await self.league.games.recent_choices(scope(interaction), interaction.user.id, current)
        )

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
        embed.add_field(
            name="Games",
            value="in a thread of their own, opened on the challenge"
            if settings.game_threads
            else "in the channel of the challenge",
            inline=False,
        )
        embed.add_field(
            name="Tournament organisers",
            value="Manage Server"
            + (f" and <@&{settings.organiser_role_id}>" if settings.organiser_role_id else ""),
            inline=True,
        )
        embed.add_field(
            name="Leaderboard seasons",
            value="a calendar month"
            if settings.season_months == 1
            else f"{settings.season_months} calendar months",
            inline=True,
        )
        embed.set_footer(
            text="The theme is the look of every board the bot posts in this server; each "
            "player may pick their own for /board with /preferences."
        )
        return embed

    @app_commands.command(
        name="settings", description="Show or change this server's timers, board theme and threads"
    )
    @app_commands.describe(
        reminder_hours="Remind the player to act after this many idle hours",
        claim_hours="Let the waiting player /claim after this many idle hours",
        challenge_minutes="Challenges expire after this many minutes",
        theme="The look of every board the bot posts in this server",
        threads="Open a thread for each game (where the bot may create threads)",
        organiser_role="Members with this role may run tournaments (besides Manage Server)",
        no_organiser_role="Forget the organiser role (only Manage Server runs tournaments)",
        season_months="How many calendar months a leaderboard season lasts (1-12)",
        daily_puzzle="Post a puzzle every day (in puzzle_channel, else this channel)",
        puzzle_channel="Where the daily puzzle is posted (turns it on)",
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
        threads: bool | None = None,
        organiser_role: discord.Role | None = None,
        no_organiser_role: bool = False,
        season_months: SeasonMonths | None = None,
        daily_puzzle: bool | None = None,
        puzzle_channel: discord.TextChannel | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        if not interaction.permissions.manage_guild and (
            daily_puzzle is not None or puzzle_channel is not None
        ):
            raise NotAServerManager()
        changed = False
        if daily_puzzle is not None or puzzle_channel is not None:
            where = puzzle_channel.id if puzzle_channel is not None else interaction.channel_id
            await self.puzzles.set_daily(
                interaction.guild_id, None if daily_puzzle is False else where
            )
            changed = True
        # default_permissions only hides the command by default; server admins can override
        # that in the integration settings, so the permission is checked too.
        shown = await self.server_settings.show_or_change(
            interaction.guild_id,
            may_manage=interaction.permissions.manage_guild,
            by=interaction.user.id,
            reminder_hours=reminder_hours,
            claim_hours=claim_hours,
            challenge_minutes=challenge_minutes,
            theme=theme,
            threads=threads,
            organiser_role_id=None if organiser_role is None else organiser_role.id,
            no_organiser_role=no_organiser_role,
            season_months=season_months,
        )
        title = "Settings updated" if shown.changed or changed else "Settings of this server"
        embed = self._settings_embed(shown.settings, title)
        daily = await self.puzzles.daily_channel(interaction.guild_id)
        embed.add_field(
            name="Daily puzzle",
            value="off" if daily is None else f"posted every day (UTC) in <#{daily}>",
            inline=False,
        )
        await interaction.response.send_message(embed=embed, ephemeral=True)

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
        """Post the due reminders and claim notices; returns how many were posted."""
        # Sharded, each process sweeps only the guilds of its own shards.
        shards = getattr(self.bot, "owned_shards", None)
        posted = 0
        async for notice in self.reminders.due(shards if isinstance(shards, Shards) else None):
            posted += await self._post(notice.game.channel_id, notice_text(notice), notice.nonce)
            kill_point("notice_posted")
            await self.reminders.sent(notice)
        return posted

    async def _post(self, channel_id: int, text: str, nonce: str) -> bool:
        try:
            channel = self.bot.get_channel(channel_id) or await self.bot.fetch_channel(channel_id)
            if not isinstance(channel, discord.abc.Messageable):
                return False
            await channel.send(
                text, allowed_mentions=discord.AllowedMentions(users=True), nonce=nonce
            )
        except discord.HTTPException as exc:
            log.warning("could not post a reminder in channel %s: %s", channel_id, exc)
            return False
        return True


async def setup(bot: commands.Bot) -> None:
    services = getattr(bot, "services", None)
    if not isinstance(services, Services):
        raise RuntimeError("the bot must open its services before loading cogs.league")
    await bot.add_cog(League(bot, services))
