"""/tournament: events in a server (Swiss, knockout, round robin, arena), the sign-up message
with its Join and Leave buttons, a thread per pairing with both players pinged once, and the
standings.

The Discord side only: app.tournaments registers, pairs (each round exactly once), starts the
matches' games and moves events on; this cog posts what a pairing is owed (its message and
thread, then the first board through the games' own owed-board path) and reports it posted.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import io
import logging
from typing import Any, Self

import discord
from discord import app_commands
from discord.ext import commands

from app.errors import Refusal
from app.faults import kill_point
from app.services import Services
from app.tournaments import (
    Advanced,
    StandingsView,
    Tournament,
    TournamentPairing,
    Tournaments,
    format_name,
    variant_label,
)
from discord_ui.boundary import tell_user
from discord_ui.common import mention
from discord_ui.custom_ids import SIGNUP_TEMPLATE, STALE_BUTTON, Click, SignupClick
from discord_ui.items import ActionButton
from discord_ui.options import MatchLength, Variant, WholeNumber
from render.game_scene import plural

log = logging.getLogger(__name__)

#: How often the sweep runs when no game finishing wakes it (start times, round time limits).
SWEEP_SECONDS = 20.0
NO_PINGS = discord.AllowedMentions.none()
MAX_TEXT = 1900
STANDINGS_FILE = "standings.png"
#: Messages read after an owed post's commit when looking for the post already out.
HISTORY_LIMIT = 100
#: How much earlier than our clock Discord's may stamp a message (the search starts there).
CLOCK_SLACK_SECONDS = 15.0

Rounds = app_commands.Transform[int, WholeNumber("The number of rounds", 1, 64)]
Minutes = app_commands.Transform[int, WholeNumber("The number of minutes", 1, 60 * 24 * 30)]
Players = app_commands.Transform[int, WholeNumber("The number of players", 2, 1024)]

FORMATS = [
    app_commands.Choice(name="Swiss", value="swiss"),
    app_commands.Choice(name="knockout", value="knockout"),
    app_commands.Choice(name="round robin", value="round-robin"),
    app_commands.Choice(name="arena", value="arena"),
]


def clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


def describe(t: Tournament) -> str:
    """One line: what kind of event it is."""
    parts = [f"{format_name(t.format)}", variant_label(t.variant)]
    parts.append(f"matches to {plural(t.match_length, 'point')}")
    if t.format == "arena":
        parts.append(f"{plural(t.minutes, 'minute')} of play")
    else:
        if t.rounds:
            parts.append(plural(t.rounds, "round"))
        parts.append(f"{plural(t.minutes, 'minute')} to start each match")
    parts.append("rated" if t.rated else "not rated")
    if t.max_players:
        parts.append(f"up to {t.max_players} players")
    return ", ".join(parts)


def signup_text(t: Tournament, players: list[int]) -> str:
    head = f"**{t.name}** (#{t.id}): {describe(t)}."
    if t.starts_at is not None and t.state == "registration":
        head += f"\nStarts <t:{int(t.starts_at)}:R>."
    if t.state != "registration":
        head += f"\nRegistration is closed ({t.state})."
    listed = ", ".join(mention(p) for p in players) or "nobody yet"
    return clip(f"{head}\nRegistered ({len(players)}): {listed}")


def pairing_line(p: TournamentPairing) -> str:
    if p.second_id is None:
        return f"Table {p.table_no}: {mention(p.first_id)} has a bye"
    line = f"Table {p.table_no}: {mention(p.first_id)} vs {mention(p.second_id)}"
    if p.state == "finished":
        won = "draw" if p.winner_id is None else f"{mention(p.winner_id)} won"
        line += f": {won} {p.first_points}-{p.second_points}"
    elif p.state == "forfeited":
        line += (
            ": double forfeit" if p.winner_id is None else f": {mention(p.winner_id)} by forfeit"
        )
    elif p.thread_id is not None:
        line += f" in <#{p.thread_id}>"
    return line


def standings_text(view: StandingsView) -> str:
    t = view.tournament
    title = f"**{t.name}**: standings" + (
        f" after round {t.current_round}" if t.format != "arena" else ""
    )
    if t.state == "finished":
        title = f"**{t.name}**: final standings"
    lines = [title]
    for row in view.rows:
        record = f"{row.wins}-{row.losses}" + (f", {plural(row.byes, 'bye')}" if row.byes else "")
        breaks = " · ".join(
            f"{name} {value:g}" for name, value in zip(view.tiebreaks, row.tiebreaks, strict=False)
        )
        dropped = " (withdrawn)" if row.withdrawn else ""
        lines.append(
            f"{row.rank}. {mention(row.player_id)}{dropped}: {row.score:g} ({record})"
            + (f" · {breaks}" if breaks else "")
        )
    return clip("\n".join(lines))


class NotATextChannel(Refusal):
    def __init__(self) -> None:
        super().__init__(
            "Tournaments are run from a server's text channel, where each match gets a thread "
            "(and the bot needs permission to create public threads and write in them)."
        )


def role_ids(interaction: discord.Interaction[Any]) -> list[int]:
    return [role.id for role in getattr(interaction.user, "roles", [])]


class SignupButton(ActionButton, template=SIGNUP_TEMPLATE):
    """Join and Leave under a tournament's sign-up message."""

    LABELS = {"join": "Join", "leave": "Leave"}
    STYLES = {"join": discord.ButtonStyle.success}

    def __init__(self, action: str, tournament_id: int) -> None:
        super().__init__(action, f"tn:{action}:{tournament_id}")
        self.tournament_id = tournament_id

    @classmethod
    def from_click(cls, click: Click) -> Self | None:
        if isinstance(click, SignupClick):
            return cls(click.action, click.tournament_id)
        return None

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog("Tournaments")
        if not isinstance(cog, TournamentCog):
            await tell_user(interaction, STALE_BUTTON)
            return
        await cog.signup_click(interaction, self.action, self.tournament_id)


def signup_view(t: Tournament) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(SignupButton("join", t.id))
    view.add_item(SignupButton("leave", t.id))
    return view


class TournamentCog(commands.GroupCog, name="Tournaments", group_name="tournament"):
    """Tournaments: sign-up, rounds, threads per pairing, standings."""

    def __init__(self, bot: commands.Bot, services: Services) -> None:
        self.bot = bot
        self.events: Tournaments = services.tournaments
        self._runner: asyncio.Task[None] | None = None
        self._posting = asyncio.Lock()
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(SignupButton)
        self.events.changed.set()  # a first sweep as soon as the bot is ready
        self._runner = asyncio.create_task(self._run(), name="tournament-sweep")

    async def cog_unload(self) -> None:
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._runner
        self.bot.remove_dynamic_items(SignupButton)

    # --- finding the event ------------------------------------------------------------------

    async def _event(self, interaction: discord.Interaction[Any], asked: str | None) -> Tournament:
        assert interaction.guild_id is not None
        return await self.events.find(interaction.guild_id, asked)

    async def _choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.guild_id is None:
            return []
        found = await self.events.recent(interaction.guild_id)
        typed = current.lower().lstrip("#")
        return [
            app_commands.Choice(name=f"{t.name} (#{t.id}, {t.state})"[:100], value=f"#{t.id}")
            for t in found
            if typed in t.name.lower() or typed == str(t.id)
        ][:25]

    # --- commands ---------------------------------------------------------------------------

    @app_commands.command(name="create", description="Open a tournament for sign-up")
    @app_commands.describe(
        format="Swiss, knockout, round robin or arena",
        variant="The variant every match is played in",
        length="Each match is played to this many points",
        rounds="Swiss only: the number of rounds (default: enough to find a winner)",
        minutes="Time to start each round's match (arena: how long the arena runs)",
        starts="Start automatically: minutes from now, or a UTC time YYYY-MM-DD HH:MM",
        rated="Whether the games count for the ratings (default: yes)",
        max_players="Close sign-up at this many players",
        name="The tournament's name",
    )
    @app_commands.choices(format=FORMATS)
    @app_commands.guild_only()
    async def create(
        self,
        interaction: discord.Interaction[Any],
        format: app_commands.Choice[str],
        variant: Variant,
        length: MatchLength,
        rounds: Rounds | None = None,
        minutes: Minutes | None = None,
        starts: str | None = None,
        rated: bool = True,
        max_players: Players | None = None,
        name: app_commands.Range[str, 1, 80] | None = None,
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        perms = interaction.app_permissions
        if not isinstance(interaction.channel, discord.TextChannel) or not (
            perms.create_public_threads and perms.send_messages_in_threads
        ):
            raise NotATextChannel()
        t = await self.events.create(
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            organiser_id=interaction.user.id,
            may_manage=interaction.permissions.manage_guild,
            role_ids=role_ids(interaction),
            fmt=format.value,
            variant=variant.value,
            length=length,
            rounds=rounds,
            minutes=minutes,
            starts=starts,
            rated=rated,
            max_players=max_players,
            name=name,
        )
        await interaction.response.send_message(
            signup_text(t, []), view=signup_view(t), allowed_mentions=NO_PINGS
        )
        message = await interaction.original_response()
        await self.events.signup_posted(t, message.id)

    @app_commands.command(name="join", description="Sign up for a tournament")
    @app_commands.describe(tournament="Which tournament (default: the one open here)")
    @app_commands.guild_only()
    async def join(
        self, interaction: discord.Interaction[Any], tournament: str | None = None
    ) -> None:
        t = await self._event(interaction, tournament)
        count = await self.events.join(t, interaction.user.id)
        await interaction.response.send_message(
            f"You are registered for **{t.name}** ({plural(count, 'player')} so far).",
            ephemeral=True,
        )
        await self._refresh_signup(t)

    @app_commands.command(name="leave", description="Take back your sign-up")
    @app_commands.describe(tournament="Which tournament (default: the one open here)")
    @app_commands.guild_only()
    async def leave(
        self, interaction: discord.Interaction[Any], tournament: str | None = None
    ) -> None:
        t = await self._event(interaction, tournament)
        count = await self.events.leave(t, interaction.user.id)
        await interaction.response.send_message(
            f"You left **{t.name}** ({plural(count, 'player')} registered).", ephemeral=True
        )
        await self._refresh_signup(t)

    async def signup_click(
        self, interaction: discord.Interaction[Any], action: str, tournament_id: int
    ) -> None:
        """Join or Leave under the sign-up message: the message shows the new list."""
        t = await self.events.get(tournament_id)
        if t is None or t.guild_id != interaction.guild_id:
            await tell_user(interaction, STALE_BUTTON)
            return
        if action == "join":
            await self.events.join(t, interaction.user.id)
        else:
            await self.events.leave(t, interaction.user.id)
        players = [e.user_id for e in await self.events.entrants(t)]
        await interaction.response.edit_message(
            content=signup_text(t, players), allowed_mentions=NO_PINGS
        )

    async def _refresh_signup(self, t: Tournament) -> None:
        """The sign-up message lists the players (an edit: nobody is pinged)."""
        fresh = await self.events.get(t.id)
        if fresh is None or fresh.signup_message_id is None:
            return
        players = [e.user_id for e in await self.events.entrants(fresh)]
        view = signup_view(fresh) if fresh.state == "registration" else None
        try:
            channel = self.bot.get_partial_messageable(fresh.channel_id)
            await channel.get_partial_message(fresh.signup_message_id).edit(
                content=signup_text(fresh, players), view=view, allowed_mentions=NO_PINGS
            )
        except discord.HTTPException as exc:
            log.info("could not refresh the sign-up of tournament %s: %s", t.id, exc)

    @app_commands.command(name="start", description="Close sign-up and pair round 1")
    @app_commands.describe(tournament="Which tournament (default: the one open here)")
    @app_commands.guild_only()
    async def start(
        self, interaction: discord.Interaction[Any], tournament: str | None = None
    ) -> None:
        t = await self._event(interaction, tournament)
        advanced = await self.events.start(
            t,
            may_manage=interaction.permissions.manage_guild,
            role_ids=role_ids(interaction),
            user_id=interaction.user.id,
        )
        t = advanced.tournament
        await interaction.response.send_message(
            f"**{t.name}** has started with {plural(len(advanced.paired), 'table')}: the "
            "pairings of round 1 follow, each match in a thread of its own.",
            allowed_mentions=NO_PINGS,
        )
        await self._refresh_signup(t)
        # The round's announcement and its matches' threads are owed: the sweep posts them.
        self.events.changed.set()

    @app_commands.command(name="standings", description="A tournament's standings")
    @app_commands.describe(tournament="Which tournament (default: the one on here)")
    @app_commands.guild_only()
    async def standings(
        self, interaction: discord.Interaction[Any], tournament: str | None = None
    ) -> None:
        t = await self._event(interaction, tournament)
        # The picture is drawn by the render workers: the answer is acknowledged first.
        await interaction.response.defer(ephemeral=True, thinking=True)
        view = await self.events.standings(t)
        picture = await self._picture(view)
        await interaction.followup.send(
            standings_text(view),
            file=discord.File(io.BytesIO(picture), filename=STANDINGS_FILE),
            allowed_mentions=NO_PINGS,
            ephemeral=True,
        )

    async def _picture(self, view: StandingsView) -> bytes:
        t = view.tournament
        ids = {r.player_id for r in view.rows}
        names = {user: await self._name(t, user) for user in ids}
        return await self.events.picture(view, names)

    @app_commands.command(name="pairings", description="The pairings of a round")
    @app_commands.describe(
        tournament="Which tournament (default: the one on here)",
        round="Which round (default: the current one)",
    )
    @app_commands.guild_only()
    async def pairings(
        self,
        interaction: discord.Interaction[Any],
        tournament: str | None = None,
        round: Rounds | None = None,
    ) -> None:
        t = await self._event(interaction, tournament)
        shown = round or t.current_round
        found = await self.events.pairings(t, shown)
        if not found:
            text = f"**{t.name}** has no pairings for round {shown} yet."
        else:
            text = "\n".join([f"**{t.name}**, round {shown}:", *map(pairing_line, found)])
        await interaction.response.send_message(
            clip(text), allowed_mentions=NO_PINGS, ephemeral=True
        )

    @app_commands.command(name="list", description="Open, running and recent tournaments here")
    @app_commands.guild_only()
    async def list_events(self, interaction: discord.Interaction[Any]) -> None:
        assert interaction.guild_id is not None
        found = await self.events.recent(interaction.guild_id)
        if not found:
            text = "No tournaments in this server yet. Organisers open one with /tournament create."
        else:
            lines = []
            for t in found:
                state = t.state if t.state != "running" else f"round {t.current_round}"
                lines.append(f"#{t.id} **{t.name}**: {describe(t)} · {state}")
            text = "\n".join(lines)
        await interaction.response.send_message(
            clip(text), allowed_mentions=NO_PINGS, ephemeral=True
        )

    @app_commands.command(name="cancel", description="Cancel a tournament (organisers)")
    @app_commands.describe(tournament="Which tournament (default: the one on here)")
    @app_commands.guild_only()
    async def cancel(
        self, interaction: discord.Interaction[Any], tournament: str | None = None
    ) -> None:
        t = await self._event(interaction, tournament)
        threads = await self.events.cancel(
            t,
            may_manage=interaction.permissions.manage_guild,
            role_ids=role_ids(interaction),
            user_id=interaction.user.id,
        )
        await interaction.response.send_message(
            f"**{t.name}** is cancelled"
            + (f"; {plural(len(threads), 'game')} in progress aborted." if threads else "."),
            allowed_mentions=NO_PINGS,
        )
        await self._refresh_signup(t)
        for thread in threads:
            await self._say(thread, f"**{t.name}** was cancelled: this game is aborted.")

    @app_commands.command(name="drop", description="Withdraw from a tournament you play in")
    @app_commands.describe(tournament="Which tournament (default: the one on here)")
    @app_commands.guild_only()
    async def drop(
        self, interaction: discord.Interaction[Any], tournament: str | None = None
    ) -> None:
        t = await self._event(interaction, tournament)
        forfeited = await self.events.drop(t, interaction.user.id)
        await interaction.response.send_message(
            f"You withdrew from **{t.name}**"
            + (f"; {plural(len(forfeited), 'match', 'matches')} forfeited." if forfeited else "."),
            ephemeral=True,
        )
        if t.state == "registration":
            await self._refresh_signup(t)
        for pairing in forfeited:
            if pairing.thread_id is not None and pairing.winner_id is not None:
                await self._say(
                    pairing.thread_id,
                    f"{mention(interaction.user.id)} withdrew from **{t.name}**: "
                    f"{mention(pairing.winner_id)} wins this match by forfeit.",
                )

    join.autocomplete("tournament")(_choices)
    leave.autocomplete("tournament")(_choices)
    start.autocomplete("tournament")(_choices)
    standings.autocomplete("tournament")(_choices)
    pairings.autocomplete("tournament")(_choices)
    cancel.autocomplete("tournament")(_choices)
    drop.autocomplete("tournament")(_choices)

    # --- the sweep: start times, forfeits, next rounds, owed threads ------------------------

    async def _run(self) -> None:
        await self.bot.wait_until_ready()
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.events.changed.wait(), SWEEP_SECONDS)
            self.events.changed.clear()
            try:
                await self.sweep()
            except Exception:
                log.exception("the tournament sweep failed")

    async def sweep(self) -> None:
        """Move the events of this process's shards on and post what their pairings are owed
        (one sweep at a time in this process; the database keeps processes apart)."""
        shards = getattr(self.bot, "owned_shards", None)
        async with self._posting:
            await self.events.sweep(shards)
            # What the sweep did, and whatever a process that died before announcing it left:
            # each announcement is owed from the commit that made it, claimed by one process
            # at a time (a rolling restart runs a shard twice), and looked for in the channel
            # before it is posted (a kill after the post, long before this restart).
            for owed in await self.events.owed_announcements(shards):
                for advanced in owed:  # in order: the event's later ones wait for this one
                    if not await self._announce_once(advanced):
                        break
            for t, pairing in await self.events.owed(shards):
                attempt = await self.events.claim_match(pairing)
                if not attempt:
                    continue
                try:
                    await self._post_pairing(t, pairing, retry=attempt > 1)
                except (discord.HTTPException, OSError, TimeoutError) as exc:
                    log.warning("could not post tournament match %s: %s", pairing.id, exc)
                    await self.events.release_match(pairing)

    async def _announce_once(self, advanced: Advanced) -> bool:
        """Claim, post and record one owed announcement; whether it is done with."""
        attempt = await self.events.claim_announcement(advanced)
        if not attempt:
            return False  # another process of this shard is on it
        try:
            done = await self._announce(advanced, retry=attempt > 1)
        except (OSError, TimeoutError) as exc:
            log.warning("could not announce tournament %s: %s", advanced.tournament.id, exc)
            done = False
        if not done:
            await self.events.release_announcement(advanced)
            return False
        kill_point("tournament_announced")
        await self.events.announced(advanced)
        return True

    def _round_text(self, advanced: Advanced) -> str:
        t = advanced.tournament
        if t.format == "arena" and advanced.round_number > 1:
            head = f"**{t.name}**: new pairings"
        else:
            head = f"**{t.name}**, round {advanced.round_number}" + (
                f" of {t.rounds}" if t.rounds else ""
            )
        return "\n".join([head + ":", *map(pairing_line, advanced.paired)])

    async def _announce(self, advanced: Advanced, *, retry: bool) -> bool:
        """Post what ``advanced`` owes the event's channel, unless (``retry``: an earlier
        attempt may have got it out) it is there already; whether it is done with (see
        :meth:`_say`)."""
        t = advanced.tournament
        if advanced.finished:
            since = t.finished_at
            if t.state == "cancelled":
                text = f"**{t.name}** did not start: not enough players signed up."
                out = retry and await self._already_posted(t.channel_id, text, since) is not None
                if not out and not await self._say(t.channel_id, text, nonce=f"tf{t.id}"):
                    return False
            else:
                view = await self.events.standings(t)
                text = standings_text(view)
                if not retry or await self._already_posted(t.channel_id, text, since) is None:
                    picture = await self._picture(view)
                    if not await self._say(t.channel_id, text, nonce=f"tf{t.id}", picture=picture):
                        return False
            await self._refresh_signup(t)
            return True
        text = clip(self._round_text(advanced))
        number = advanced.round_number
        # Paired by one commit: its pairings' time (the current round's start, or earlier).
        since = min((p.created_at for p in advanced.paired), default=t.round_started_at)
        out = retry and await self._already_posted(t.channel_id, text, since) is not None
        if not out and not await self._say(t.channel_id, text, nonce=f"tr{t.id}r{number}"):
            return False
        if number == 1:
            await self._refresh_signup(t)  # closed by the start (command or clock)
        return True

    async def _already_posted(
        self,
        channel_id: int,
        text: str,
        since: float | None,
        *,
        where: discord.abc.Messageable | None = None,
    ) -> discord.Message | None:
        """The bot's message in the channel whose first line is ``text``'s, posted after the
        commit at ``since`` that made it owed: a post that got out before its record was lost
        (a kill in between; a nonce only guards a few minutes). A failed read counts as none.
        ``where``: the channel itself when known (its messages can open threads)."""
        me = self.bot.user
        if me is None or since is None:
            return None
        head = text.split("\n", 1)[0]
        after = dt.datetime.fromtimestamp(max(since - CLOCK_SLACK_SECONDS, 0.0), dt.UTC)
        try:
            channel = where or self.bot.get_partial_messageable(channel_id)
            async for message in channel.history(limit=HISTORY_LIMIT, after=after):
                if message.author.id == me.id and message.content.split("\n", 1)[0] == head:
                    return message
        except discord.HTTPException as exc:
            log.info("could not read the history of channel %s: %s", channel_id, exc)
        return None

    async def _post_pairing(
        self, t: Tournament, pairing: TournamentPairing, *, retry: bool
    ) -> None:
        """The match's message pinging both players once, its thread, and its game there
        (``retry``: an earlier attempt may have got the message out: adopted if so)."""
        assert pairing.second_id is not None
        thread_id = pairing.thread_id
        if pairing.game_id is None:
            channel = self.bot.get_channel(t.channel_id) or await self.bot.fetch_channel(
                t.channel_id
            )
            if not isinstance(channel, discord.TextChannel):
                log.info("tournament %s: channel %s cannot hold threads", t.id, t.channel_id)
                return
            names = (await self._name(t, pairing.first_id), await self._name(t, pairing.second_id))
            round_text = f"round {pairing.round}" if t.format != "arena" else "arena"
            text = (
                f"**{t.name}**, {round_text}: {mention(pairing.first_id)} vs "
                f"{mention(pairing.second_id)}. Your match ({variant_label(t.variant)}, to "
                f"{plural(t.match_length, 'point')}) is in this thread."
            )
            # Out already when a kill came before its record: the players are pinged once.
            message = None
            if retry:
                message = await self._already_posted(
                    t.channel_id, text, pairing.created_at, where=channel
                )
            if message is None:
                message = await channel.send(
                    text,
                    allowed_mentions=discord.AllowedMentions(
                        everyone=False,
                        roles=False,
                        users=[
                            discord.Object(pairing.first_id),
                            discord.Object(pairing.second_id),
                        ],
                    ),
                    nonce=f"tp{pairing.id}",
                )
                kill_point("tournament_match_posted")
            try:
                thread = await message.create_thread(
                    name=f"{t.name} {round_text}: {names[0]} vs {names[1]}"[:100],
                    auto_archive_duration=1440,
                )
                thread_id = thread.id
            except discord.HTTPException as exc:
                if exc.code == 160004:  # a thread already exists for this message: its id
                    thread_id = message.id
                else:
                    # No thread (permissions taken away): the match cannot start and is
                    # forfeited when its round's time is up. Retrying would post the
                    # announcement again once Discord forgets its nonce.
                    log.warning("tournament %s: no thread for match %s: %s", t.id, pairing.id, exc)
                    thread_id = None
            outcome = await self.events.start_match(t, pairing, names, thread_id)
            if outcome is not None:
                # The games' own path posts the first board the new game owes its thread.
                self.bot.dispatch("board_owed", outcome.game.channel_id, outcome.game.id)
        await self.events.match_posted(pairing, thread_id)

    async def _name(self, t: Tournament, user_id: int) -> str:
        guild = self.bot.get_guild(t.guild_id)
        member = guild.get_member(user_id) if guild is not None else None
        if member is None and guild is not None:
            with contextlib.suppress(discord.HTTPException):
                member = await guild.fetch_member(user_id)
        return member.display_name if member is not None else f"player {user_id}"

    async def _say(
        self,
        channel_id: int,
        text: str,
        *,
        nonce: str | None = None,
        picture: bytes | None = None,
    ) -> bool:
        """Post ``text``; whether the channel has it now or never will (refused: no channel,
        no permission), so that only a passing failure (5xx) is tried again."""
        try:
            channel = self.bot.get_partial_messageable(channel_id)
            kwargs: dict[str, Any] = {"allowed_mentions": NO_PINGS}
            if nonce is not None:
                kwargs["nonce"] = nonce
            if picture is not None:
                kwargs["file"] = discord.File(io.BytesIO(picture), filename=STANDINGS_FILE)
            await channel.send(clip(text), **kwargs)
        except discord.HTTPException as exc:
            log.info("could not post in channel %s: %s", channel_id, exc)
            return exc.status < 500
        return True


async def setup(bot: commands.Bot) -> None:
    services = getattr(bot, "services", None)
    if not isinstance(services, Services):
        raise RuntimeError("the bot must open its services before loading cogs.tournaments")
    await bot.add_cog(TournamentCog(bot, services))
