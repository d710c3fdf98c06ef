"""/challenge, /accept and /decline, the challenge buttons, and the expiry of challenges."""

from __future__ import annotations

import logging
from typing import Any

import aiohttp
import discord
from discord import app_commands
from discord.ext import tasks

from ai.types import LEVELS, STRONGEST
from app.challenges import Answering, BotOpponent, describe_options, option_suggestions
from app.computer import LEVEL_ABOUT, computer_name
from app.errors import Refusal
from app.faults import kill_point
from app.league import Shards
from app.table import Challenge, Outcome
from app.venues import Venue
from discord_ui.boards import actor_id, board_nonce, ping
from discord_ui.common import anywhere, mention, where
from discord_ui.options import MatchLength, Variant
from engine import get_variant
from render.game_scene import plural

from .base import GamesBase, board_buttons, board_text, display, recorded
from .buttons import ChallengeButton

log = logging.getLogger(__name__)


class NotAPlayer(Refusal):
    def __init__(self) -> None:
        super().__init__("Only the players of this game can ask for a rematch.")


LEVEL_CHOICES = [
    app_commands.Choice(name=f"{level}: {LEVEL_ABOUT[level]}"[:100], value=level)
    for level in LEVELS
]


class ChallengeCommands(GamesBase):
    @app_commands.command(name="challenge", description="Challenge someone (or anyone) to a game")
    @app_commands.describe(
        variant="Which game to play",
        opponent="Who you play (empty: an open challenge; in DMs or where the bot is absent: the "
        "computer)",
        length="Match length in points (default 1: a single game)",
        options="Rule options, e.g. plakoto (pin-mother), mustEnterAll (Dutch), previousWinner",
        level="Against this bot (the computer): how strong it plays (default: expert)",
        hints="Allow /hint for both players (the game is then not rated); always on against "
        "the computer",
    )
    @app_commands.choices(level=LEVEL_CHOICES)
    @anywhere
    async def challenge(
        self,
        interaction: discord.Interaction[Any],
        variant: Variant,
        opponent: discord.Member | None = None,
        length: MatchLength = 1,
        options: str | None = None,
        level: app_commands.Choice[str] | None = None,
        hints: bool = False,
    ) -> None:
        assert interaction.channel_id is not None
        me = self.bot.user
        here = where(interaction)
        # Outside a server with the bot only the computer plays: no opponent means it.
        computer = (opponent is None and here != "guild") or (
            opponent is not None and me is not None and opponent.id == me.id
        )
        if opponent is not None and opponent.bot and not computer:
            raise BotOpponent(
                f"Other bots do not play here; challenge a person, or me "
                f"({me.mention if me else 'this bot'}) to play the computer."
            )
        opened = await self.challenges.open(
            guild_id=interaction.guild_id or 0,
            channel_id=interaction.channel_id,
            challenger_id=interaction.user.id,
            opponent_id=me.id if computer and me is not None else getattr(opponent, "id", None),
            variant=variant.value,
            length=length,
            options=options or "",
            hints=hints,
            computer=computer,
            level=level.value if level else None,
            where=here,
        )
        challenge = opened.challenge
        if computer:
            await self._start_against_computer(
                interaction, challenge, level.value if level else STRONGEST, here
            )
            return
        view = discord.ui.View(timeout=None)
        view.add_item(ChallengeButton("accept", challenge.id))
        view.add_item(ChallengeButton("decline", challenge.id))
        game = (
            f"**{get_variant(variant.value).name}**"
            + (f" (match to {plural(length, 'point')})" if length > 1 else "")
            + describe_options(variant.value, challenge.options)
            + (" with hints allowed (not rated)" if hints else "")
        )
        minutes = plural(opened.minutes, "minute")
        if opponent is None:
            text = (
                f"{interaction.user.mention} is looking for an opponent: {game}. Anyone may "
                f"accept within {minutes} (Accept button or /accept)."
            )
        else:
            text = (
                f"{opponent.mention}, {interaction.user.mention} challenges you to {game}. "
                f"Accept or decline within {minutes} (buttons, /accept or /decline)."
            )
        await interaction.response.send_message(
            text, view=view, allowed_mentions=ping(None if opponent is None else opponent.id)
        )
        try:
            message = await interaction.original_response()
        except (discord.HTTPException, aiohttp.ClientError, TimeoutError) as exc:
            # The challenge is posted and its buttons and /accept work without the id, which
            # only lets the bot tidy the message up later.
            log.warning("challenge %s posted but its message not re-read: %s", challenge.id, exc)
            return
        await self.challenges.remember_message(challenge.id, message.id)

    @challenge.autocomplete("options")
    async def challenge_options_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """The chosen variant's options; what is typed so far is kept in front of each."""
        variant = str(getattr(interaction.namespace, "variant", "") or "")
        return [
            app_commands.Choice(name=label, value=value)
            for label, value in option_suggestions(variant, current)
        ]

    @app_commands.command(name="accept", description="Accept the challenge in this channel")
    @app_commands.guild_only()
    async def accept(self, interaction: discord.Interaction[Any]) -> None:
        await self.answer_challenge(interaction, True, None)

    @app_commands.command(name="decline", description="Decline the challenge in this channel")
    @app_commands.guild_only()
    async def decline(self, interaction: discord.Interaction[Any]) -> None:
        await self.answer_challenge(interaction, False, None)

    async def answer_challenge(
        self, interaction: discord.Interaction[Any], accept: bool, challenge_id: int | None
    ) -> None:
        assert interaction.channel_id is not None
        answering = await self.challenges.answering(
            interaction.channel_id, interaction.user.id, accept, challenge_id
        )
        await self.acknowledge(interaction)
        challenge = answering.challenge
        if not accept:
            who = display(interaction.user)
            word = "withdrawn" if answering.status == "cancelled" else f"declined by {who}"

            async def tidy() -> None:
                await self._close_challenge(interaction, challenge, f"*Challenge {word}.*")

            await self.challenges.close(answering, tidy)
            await self.confirm(interaction, f"The challenge was {word}.")
            return
        names = (await self._challenger_name(interaction, challenge), display(interaction.user))
        await self._accept(interaction, answering, names)

    async def _challenger_name(
        self, interaction: discord.Interaction[Any], challenge: Challenge
    ) -> str:
        guild = interaction.guild
        challenger = guild.get_member(challenge.challenger_id) if guild else None
        if challenger is None and guild is not None:
            try:  # not cached without the members intent: ask Discord once
                challenger = await guild.fetch_member(challenge.challenger_id)
            except discord.HTTPException:
                challenger = None
        return display(challenger) if challenger else f"Player {challenge.challenger_id}"

    async def _accept(
        self, interaction: discord.Interaction[Any], answering: Answering, names: tuple[str, str]
    ) -> None:
        challenge = answering.challenge
        thread_id = await self._game_thread(interaction, challenge, names)

        async def show(outcome: Outcome) -> None:
            where = f"in <#{thread_id}>" if thread_id is not None else "below"
            await self._close_challenge(
                interaction, challenge, f"*Accepted by {names[1]}: the game is on {where}.*"
            )
            header = (
                f"**{get_variant(challenge.variant).name}**: {names[0]} (light) vs "
                f"{names[1]} (dark)"
                + (f", match to {challenge.match_length}" if challenge.match_length > 1 else "")
                + describe_options(challenge.variant, challenge.options)
            )
            opening = outcome.state.record
            header += "\n" + "; ".join(line for line in opening if line.startswith("opening roll"))
            await self.reply_committed(
                interaction,
                outcome.game.channel_id,
                self._first_board(interaction, outcome, header),
                "You accepted: the game has started, but Discord did not take the reply. "
                "/board shows the game.",
            )

        await self.challenges.accept(
            answering, interaction.user.id, names, show, thread_id=thread_id
        )

    async def _game_thread(
        self,
        interaction: discord.Interaction[Any],
        challenge: Challenge,
        names: tuple[str, str],
        message_id: int | None = None,
    ) -> int | None:
        """Open the game's public thread on the challenge's message, where the server wants
        threads (/settings threads) and the bot may create them; None: the game stays in the
        channel. A thread opened on a message has that message's id, so two accepts racing
        find the same thread."""
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel):
            return None  # already a thread, a forum, a voice channel's chat: play here
        perms = interaction.app_permissions
        if not (perms.create_public_threads and perms.send_messages_in_threads):
            return None
        if not (await self.server_settings.current(challenge.guild_id)).game_threads:
            return None
        if message_id is None:
            msg = interaction.message
            message_id = msg.id if msg is not None else await self.challenges.message_id(challenge)
        if message_id is None:
            return None
        name = f"{names[0]} vs {names[1]} · {get_variant(challenge.variant).name}"
        try:
            thread = await channel.get_partial_message(message_id).create_thread(
                name=name[:100], auto_archive_duration=1440
            )
        except discord.HTTPException as exc:
            if exc.code == 160004:  # a thread has already been created for this message
                return message_id
            log.info("no thread for challenge %s: %s", challenge.id, exc)
            return None
        return thread.id

    async def _first_board(
        self, interaction: discord.Interaction[Any], outcome: Outcome, header: str
    ) -> None:
        state, game = outcome.state, outcome.game
        content = board_text(outcome, [line for line in (header, *outcome.events) if line])
        pinged = actor_id(game, state)
        if not await self.play.should_ping(game, pinged, just_acted=interaction.user.id):
            pinged = None
        parts = await self.boards.public(game, state, content, board_buttons(game, state))
        message = await self._new_board(interaction, game, parts, pinged)
        await self.play.board_posted(game, message.id)
        self.after_action(outcome)

    async def _start_against_computer(
        self,
        interaction: discord.Interaction[Any],
        challenge: Challenge,
        level: str,
        here: Venue = "guild",
    ) -> None:
        """No accept step: the game starts at once (in a thread of its own where the server
        has threads), and the computer plays if it is its turn. Outside a server with the
        bot (``here``) the game is played in the channel, shown through the interaction."""
        names = (display(interaction.user), computer_name(level))
        header = (
            # The computer's name carries its level in brackets already: its colour goes
            # after a comma, not in a second pair of brackets.
            f"**{get_variant(challenge.variant).name}**: {names[0]} (light) vs "
            f"{names[1]}, dark: {LEVEL_ABOUT[level]}"
            + (f", match to {challenge.match_length}" if challenge.match_length > 1 else "")
            + describe_options(challenge.variant, challenge.options)
            + ". Not rated; /hint is allowed."
        )
        # Nothing slow before this answer: the game's opening line (a thread is opened on it)
        # or, without a thread, the "thinking" that the first board fills.
        await interaction.response.defer(thinking=True)
        thread_id = None
        if here == "guild" and isinstance(interaction.channel, discord.TextChannel):
            started = await interaction.edit_original_response(
                content=f"{header}\n*The game is on in its thread.*"
            )
            await self.challenges.remember_message(challenge.id, started.id)
            thread_id = await self._game_thread(interaction, challenge, names, started.id)
            if thread_id is None:
                await interaction.edit_original_response(content=header)

        async def show(outcome: Outcome) -> None:
            opening = outcome.state.record
            lines = [header, "; ".join(line for line in opening if line.startswith("opening"))]
            await self.reply_committed(
                interaction,
                outcome.game.channel_id,
                self._computer_first_board(interaction, outcome, lines, thread_id is None),
                recorded(outcome),
            )

        outcome = await self.challenges.start_against_computer(
            challenge, names, level, show, thread_id=thread_id, where=here
        )
        self.after_action(outcome)

    async def _computer_first_board(
        self,
        interaction: discord.Interaction[Any],
        outcome: Outcome,
        lines: list[str],
        in_reply: bool,
    ) -> None:
        """The first board against the computer: the command's own reply (``in_reply``),
        else a message in the game's thread."""
        state, game = outcome.state, outcome.game
        content = board_text(outcome, [line for line in (*lines, *outcome.events) if line])
        parts = await self.boards.public(game, state, content, board_buttons(game, state))
        message: discord.Message
        self.boards.note(game)
        if in_reply:
            message = await interaction.edit_original_response(**parts.to_edit())
            self.boards.remember_original(message.id, interaction)
            self.boards.remember_face(message.id, parts.face)
        else:
            # The player has just asked for the game: no ping.
            message = await self.boards.post(
                game.channel_id, parts, None, nonce=board_nonce(game.id, game.version)
            )
        kill_point("board_posted")
        await self.play.board_posted(game, message.id)

    async def _rematch(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """A result card's Rematch: the same game again, challenged by the player who clicks
        (against the computer it starts at once)."""
        game = await self.play.game(game_id)
        if game is None or not game.has_player(interaction.user.id):
            raise NotAPlayer()
        state = self.table.state_of(game)
        opponent = game.player_o if game.player_x == interaction.user.id else game.player_x
        # Where the button was clicked: the game's thread (the rematch is played there) or
        # the channel of its result card.
        channel_id = interaction.channel_id
        assert channel_id is not None
        opened = await self.challenges.open(
            guild_id=game.guild_id,
            channel_id=channel_id,
            challenger_id=interaction.user.id,
            opponent_id=opponent,
            variant=game.variant,
            length=game.match_length,
            options=",".join(state.options),
            hints=game.hints and not game.against_computer,
            computer=game.against_computer,
            level=game.ai_level,
            where=game.context,
        )
        if game.against_computer:
            await self._start_against_computer(
                interaction, opened.challenge, game.ai_level or STRONGEST, game.context
            )
            return
        view = discord.ui.View(timeout=None)
        view.add_item(ChallengeButton("accept", opened.challenge.id))
        view.add_item(ChallengeButton("decline", opened.challenge.id))
        minutes = plural(opened.minutes, "minute")
        await interaction.response.send_message(
            f"{mention(opponent)}, {interaction.user.mention} asks for a rematch: "
            f"**{get_variant(game.variant).name}**"
            + (f" (match to {plural(game.match_length, 'point')})" if game.match_length > 1 else "")
            + f". Accept or decline within {minutes}.",
            view=view,
            allowed_mentions=ping(opponent),
        )
        message = await interaction.original_response()
        await self.challenges.remember_message(opened.challenge.id, message.id)

    async def _close_challenge(
        self, interaction: discord.Interaction[Any], challenge: Challenge, status: str
    ) -> None:
        """Retire a challenge just answered (under its channel's lock): its message loses its
        buttons and says ``status``; the debt the answer's commit left is paid."""
        kill_point("challenge_closed")
        msg = interaction.message
        if msg is not None:  # the challenge's own button was clicked
            done = await self.boards.retire(challenge.channel_id, msg.id, status, message=msg)
        else:
            message_id = await self.challenges.message_id(challenge)
            if message_id is None:
                return  # not stored yet: the sweep retires it once it is
            done = await self.boards.retire(challenge.channel_id, message_id, status)
        kill_point("challenge_retired")
        if done:  # else the sweep tries again
            await self.challenges.retired(challenge)

    @tasks.loop(seconds=30)
    async def expire_challenges(self) -> None:
        try:
            await self.expire_due()
        except Exception:
            log.exception("expiring challenges failed")

    async def expire_due(self) -> int:
        """Expire the challenges past their time, then retire the message of every closed
        challenge that still shows it open (those just expired, and any an answer or a crash
        left behind); returns how many expired."""
        owned = getattr(self.bot, "owned_shards", None)
        shards = owned if isinstance(owned, Shards) else None
        expired = await self.challenges.expire_due(shards)
        for challenge in expired:
            log.info("challenge %s expired", challenge.id)
        await self.retire_closed(shards)
        return len(expired)

    async def retire_closed(self, shards: Shards | None = None) -> int:
        """Pay the closed challenges' debts: each message loses its buttons and says how the
        challenge ended (an edit a second time changes nothing). Never raises for one
        challenge's failure; returns how many were paid."""
        paid = 0
        for owed in await self.challenges.unretired(shards):
            kill_point("challenge_closed")
            async with self.table.lock(owed.channel_id):
                challenge = await self.challenges.still_unretired(owed)
                if challenge is None or self.challenges.message_pending(challenge):
                    continue  # paid by its answer's own path meanwhile; or its id is coming
                try:
                    status = await self._closed_line(challenge)
                    # No message id after the grace: the post's note was lost, nothing to edit.
                    done = await self.boards.retire(
                        challenge.channel_id, challenge.message_id, status
                    )
                    kill_point("challenge_retired")
                    if done:
                        await self.challenges.retired(challenge)
                        paid += 1
                except Exception:
                    log.warning("could not retire challenge %s", challenge.id, exc_info=True)
        return paid

    async def _closed_line(self, challenge: Challenge) -> str:
        """The status line of a closed challenge's message, from what the database knows (the
        names its answer wrote are mentions here: an edit pings nobody)."""
        if challenge.status == "expired":
            return EXPIRED_LINE
        if challenge.status == "cancelled":
            return "*Challenge withdrawn.*"
        if challenge.status == "declined" and challenge.opponent_id is not None:
            return f"*Challenge declined by {mention(challenge.opponent_id)}.*"
        game = await self.challenges.started_game(challenge)
        if challenge.status != "accepted" or game is None:
            return f"*Challenge {challenge.status}.*"
        where = "below" if game.channel_id == challenge.channel_id else f"in <#{game.channel_id}>"
        return f"*Accepted by {mention(game.player_o)}: the game is on {where}.*"


#: How an expired challenge's message ends.
EXPIRED_LINE = "*Expired: nobody accepted in time.*"
