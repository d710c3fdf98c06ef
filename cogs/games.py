"""Slash commands and buttons that run games in channels (one game per channel or thread).

The cog is thin: it checks who may act, asks the GameTable to do it, and hands the outcome to
:class:`cogs.boards.Boards`, which keeps one live board message per game. Players get engine
messages verbatim (what is wrong and what would be legal) as ephemeral replies.

Every handler that can take a while (rendering, long Express chains, future computer turns)
acknowledges the interaction first: a click updates its message later, a command "thinks"
privately, so a refusal stays private and the public board is a message of its own.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands, tasks

from ai.pool import AIPool
from ai.types import LEVELS, STRONGEST
from app.computer import (
    COMPUTER_SEAT,
    LEVEL_ABOUT,
    ComputerTurns,
    computer_name,
    computer_to_act,
)
from app.table import Action, GameTable, Outcome, describe_play
from cogs.boards import NO_PINGS, Boards, actor_id, has_buttons, ping
from cogs.common import guarded, mention, reply_error, send_committed
from cogs.looks import player_theme
from cogs.options import MatchLength, Variant
from engine import VARIANTS, EngineError, get_variant
from engine.game import DOUBLE, MOVE, RESIGN_NAMES, ROLL, GameState
from interop.gnubg import gnubg_id
from render.game_scene import chain_text, plural, result_text, roll_text
from storage import (
    Challenge,
    ChannelBusyError,
    ConflictError,
    DatabaseGoneError,
    Game,
    NewMove,
    Storage,
)
from storage.models import ChallengeStatus

log = logging.getLogger(__name__)

RESIGN_CHOICES = [
    app_commands.Choice(name="single game (Pin games: the loser's pips)", value=1),
    app_commands.Choice(name="gammon (x2)", value=2),
    app_commands.Choice(name="backgammon (x3)", value=3),
]
LEVEL_CHOICES = [
    app_commands.Choice(name=f"{level}: {LEVEL_ABOUT[level]}"[:100], value=level)
    for level in LEVELS
]
MAX_MATCH_LENGTH = 25
#: Autocomplete shows at most this many choices (Discord's limit).
MAX_CHOICES = 25
STALE_BUTTON = (
    "This button is no longer in use (it belongs to an older message or an older version of "
    "the bot). Use /board to see the game as it stands."
)


def _display(user: discord.abc.User) -> str:
    return user.display_name[:32]


def _player_name(game: Game, state: GameState, user: discord.abc.User) -> str:
    """``user``'s name in ``game``, as its record and boards write it (namesakes are told
    apart there, see ``engine.game.distinct_names``)."""
    seat = GameTable.seat_of(game, user.id)
    return state.players[seat] if seat is not None else _display(user)


class GameButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:(?P<action>roll|double|take|pass|rsyes|rsno):(?P<game>\d+):(?P<version>\d+)",
):
    """The buttons under a board; persistent across restarts (ids in custom_id). ``rsyes`` and
    ``rsno`` accept or reject an offer to resign."""

    LABELS = {
        "roll": "Roll",
        "double": "Double",
        "take": "Take",
        "pass": "Pass",
        "rsyes": "Accept resignation",
        "rsno": "Reject",
    }
    STYLES = {
        "roll": discord.ButtonStyle.primary,
        "double": discord.ButtonStyle.secondary,
        "take": discord.ButtonStyle.success,
        "pass": discord.ButtonStyle.danger,
        "rsyes": discord.ButtonStyle.success,
        "rsno": discord.ButtonStyle.secondary,
    }

    def __init__(self, action: str, game_id: int, version: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=self.LABELS[action],
                style=self.STYLES[action],
                custom_id=f"bg:{action}:{game_id}:{version}",
            )
        )
        self.action = action
        self.game_id = game_id
        self.version = version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> GameButton:
        return cls(match["action"], int(match["game"]), int(match["version"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog("Games")
        assert isinstance(cog, Games)
        await guarded(
            interaction, cog.button_action(interaction, self.action, self.game_id, self.version)
        )


class ChallengeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:(?P<action>accept|decline):(?P<challenge>\d+)",
):
    def __init__(self, action: str, challenge_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=action.capitalize(),
                style=discord.ButtonStyle.success
                if action == "accept"
                else discord.ButtonStyle.secondary,
                custom_id=f"bg:{action}:{challenge_id}",
            )
        )
        self.action = action
        self.challenge_id = challenge_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ChallengeButton:
        return cls(match["action"], int(match["challenge"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog("Games")
        assert isinstance(cog, Games)
        await guarded(
            interaction,
            cog.answer_challenge(interaction, self.action == "accept", self.challenge_id),
        )


def board_view(game: Game, state: GameState) -> discord.ui.View | None:
    if not has_buttons(state) or computer_to_act(game, state):
        return None  # nothing to press (the computer's buttons would only be refused)
    if state.resign_offer is not None:
        actions = ["rsyes", "rsno"]
    elif state.phase == ROLL:
        actions = ["roll", "double"] if state.can_double(state.turn) else ["roll"]
    else:
        actions = ["take", "pass"]
    view = discord.ui.View(timeout=None)
    for action in actions:
        view.add_item(GameButton(action, game.id, game.version))
    return view


def prompt(game: Game, state: GameState) -> str:
    """Who must do what now, with a mention (the message decides whether it pings)."""
    if state.is_over:
        return ""
    if computer_to_act(game, state):
        return f"{state.players[COMPUTER_SEAT]} is thinking..."
    if state.resign_offer is not None:
        seat, level = state.resign_offer
        worth = plural(state.resignation_value(seat, level), "point")
        return (
            f"{mention(GameTable.user_of(game, 1 - seat))}, {state.players[seat]} offers to "
            f"resign {RESIGN_NAMES[level]} ({worth}): accept or reject with the buttons."
        )
    who = mention(GameTable.user_of(game, state.mover))
    if state.phase == ROLL:
        return f"{who}, roll or double with the buttons (or /roll, /double)."
    if state.phase == DOUBLE:
        return (
            f"{who}, {state.players[state.turn]} doubles to {state.cube * 2}: take or pass "
            "with the buttons (or /take, /pass)."
        )
    if state.chain is not None:
        value, copies = state.chain.pending[0]
        later = ", ".join(chain_text(v, k) for v, k in state.chain.pending[1:])
        then = f" (then {later})" if later else ""
        return f"{who}, your turn in the chain: play {chain_text(value, copies)}{then} with /move."
    assert state.dice is not None
    return f"{who}, you rolled {roll_text(state.dice.high, state.dice.low)}: play with /move."


def _same_turn(old: GameState, new: GameState) -> bool:
    """Whether a play left the same player deciding within one Express chain."""
    return (
        old.chain is not None
        and new.chain is not None
        and new.phase == MOVE
        and old.game_number == new.game_number
        and old.chain.roller == new.chain.roller
        and old.chain.controller == new.chain.controller
    )


def final_text(outcome: Outcome) -> str:
    state = outcome.state
    text = f"**Game over.** {result_text(state, state.players)}"
    finished = outcome.finished
    if finished is not None:
        changes = []
        for seat in (0, 1):
            user = GameTable.user_of(outcome.game, seat)
            change = finished.change_for(user, state.variant)
            if change is not None:
                delta = change.after.rating - change.before.rating
                changes.append(f"{state.players[seat]} {change.after.rating:.0f} ({delta:+.0f})")
        if changes:
            text += "\nRatings: " + ", ".join(changes)
    if not outcome.game.rated:
        text += "\nNot rated" + (
            " (a game against the computer)." if outcome.game.against_computer else "."
        )
    return text


class Games(commands.Cog):
    """Challenges and games."""

    def __init__(self, bot: commands.Bot, table: GameTable, pool: AIPool) -> None:
        self.bot = bot
        self.table = table
        self.db: Storage = table.db
        self.boards = Boards(bot, table)
        #: Channels whose latest board never reached Discord (an action was committed but its
        #: reply failed): the board is posted the next time anyone uses a game command there.
        #: The debt itself is in the database (``Game.board_owed_version``, written with the
        #: action), so boards owed when the bot stopped are posted when it starts again.
        self._owed_boards: set[int] = set()
        self.computer = ComputerTurns(
            table,
            pool,
            self._computer_user_id,
            shards=lambda: getattr(bot, "owned_shards", None),
        )
        self.computer.post = self.post_board
        self.computer.indicate = self._typing

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(GameButton, ChallengeButton)
        self.expire_challenges.start()

    async def cog_unload(self) -> None:
        self.expire_challenges.cancel()
        await self.computer.close()
        self.bot.remove_dynamic_items(GameButton, ChallengeButton)

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

    async def post_owed_boards(self) -> int:
        """Post every board the database says a channel is owed (never raises); returns how
        many were posted. A game where the computer is about to act is left to its turn,
        whose board shows the position anyway."""
        try:
            owed = await self.db.list_owed_boards()
        except DatabaseGoneError:
            return 0
        except Exception:
            log.exception("could not list the owed boards")
            return 0
        posted = 0
        for game in owed:
            if self.bot.get_channel(game.channel_id) is None and not self._shard_has(game):
                continue  # another process's guild
            try:
                state = self.table.state_of(game)
            except Exception:
                log.warning("game %s has an unreadable state", game.id)
                continue
            if computer_to_act(game, state) or self.computer.busy(game.id):
                continue
            if await self._post_owed(game.channel_id, game.id):
                posted += 1
        return posted

    def _computer_user_id(self) -> int:
        assert self.bot.user is not None
        return self.bot.user.id

    async def _typing(self, channel_id: int) -> None:
        """ "Bot is typing..." in the channel until cancelled (best effort)."""
        channel = self.bot.get_channel(channel_id)
        if not isinstance(channel, discord.abc.Messageable):
            return
        try:
            async with channel.typing():
                await asyncio.Event().wait()
        except (discord.HTTPException, aiohttp.ClientError, OSError):
            pass  # only the indicator failed; the decision goes on

    def _shard_has(self, game: Game) -> bool:
        return self.bot.get_guild(game.guild_id) is not None

    async def _post_owed(self, channel_id: int, game_id: int | None) -> bool:
        """Post the board the channel is owed (of ``game_id``, or of its active game) unless
        it was paid meanwhile; True if a board was posted. Raises on Discord failures."""
        async with self.table.lock(channel_id):
            if game_id is None:
                game = await self.db.get_active_game(channel_id)
            else:
                game = await self.db.get_game(game_id)
            if game is None or (game_id is not None and game.board_owed_version is None):
                return False
            state = self.table.state_of(game)
            if game.board_message_id is not None:  # its buttons (if any) belong to the past
                await self.boards.retire(channel_id, game.board_message_id, "*Next board below.*")
            last = final_text(Outcome(game, state)) if state.is_over else prompt(game, state)
            played = describe_play(state, state.last) if state.last is not None else ""
            lines = ["*The latest board, which had not reached the channel:*", played, last]
            posted = await self.boards.post(
                channel_id,
                state,
                "\n".join(line for line in lines if line),
                board_view(game, state),
                actor_id(game, state),
                elsewhere=game.against_computer,
                guild_id=game.guild_id,
            )
            await self.db.set_board_message(game.id, posted.id, shown_version=game.version)
            self._owed_boards.discard(channel_id)
            return True

    def _after_action(self, outcome: Outcome) -> None:
        """Hand the turn to the computer when it is its move."""
        if computer_to_act(outcome.game, outcome.state):
            self.computer.schedule(outcome.game)

    async def post_board(self, game: Game, outcome: Outcome, header: str) -> None:
        """Post the next board without an interaction (the computer's turns)."""
        try:
            async with self.table.lock(game.channel_id):
                # The previous board has no buttons to retire: it showed the computer's turn.
                state = outcome.state
                last = (
                    final_text(outcome)
                    if outcome.finished is not None
                    else prompt(outcome.game, state)
                )
                lines = [line for line in (header, *outcome.events, last) if line]
                posted = await self.boards.post(
                    game.channel_id,
                    state,
                    "\n".join(lines),
                    board_view(outcome.game, state),
                    actor_id(outcome.game, state),
                    elsewhere=outcome.game.against_computer,
                    guild_id=game.guild_id,
                )
                await self.db.set_board_message(
                    game.id, posted.id, shown_version=outcome.game.version
                )
        except (discord.HTTPException, aiohttp.ClientError, TimeoutError, OSError) as exc:
            # The move is committed: the channel is owed its board (posted at the next command).
            log.warning("could not post the board of game %s: %s", game.id, exc)
            self._owed_boards.add(game.channel_id)
        else:
            self._owed_boards.discard(game.channel_id)
        self._after_action(outcome)

    # --- helpers ----------------------------------------------------------------------------

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        command = interaction.command.name if interaction.command else ""
        public = bool(getattr(interaction.namespace, "public", False))
        if command != "board" or not public:  # a public /board shows it anyway
            await self._deliver_owed_board(interaction)
        return True

    async def _deliver_owed_board(self, interaction: discord.Interaction[Any]) -> None:
        """Post the board a failed reply left out, as a plain channel message (never raises)."""
        channel_id = interaction.channel_id
        if channel_id is None or channel_id not in self._owed_boards:
            return
        self._owed_boards.discard(channel_id)
        try:
            await self._post_owed(channel_id, None)
        except Exception:
            self._owed_boards.add(channel_id)  # try again at the next command
            log.warning("could not post the owed board in channel %s", channel_id, exc_info=True)

    async def _reply_committed(
        self,
        interaction: discord.Interaction[Any],
        channel_id: int,
        send: Coroutine[Any, Any, object],
        recorded: str,
    ) -> None:
        """Send the reply to an action that is already committed (see ``send_committed``);
        if Discord did not take it, the channel is owed its board."""
        if await send_committed(interaction, send, recorded):
            self._owed_boards.discard(channel_id)
        else:
            self._owed_boards.add(channel_id)

    @staticmethod
    async def acknowledge(interaction: discord.Interaction[Any]) -> None:
        """Answer Discord at once (its deadline is 3 s): a click will update its message, a
        command thinks privately (refusals stay private; the board is a message of its own)."""
        if interaction.response.is_done():
            return
        try:
            if interaction.type == discord.InteractionType.component:
                await interaction.response.defer()
            else:
                await interaction.response.defer(ephemeral=True, thinking=True)
        except (discord.HTTPException, aiohttp.ClientError, TimeoutError) as exc:
            # Nothing is done yet and the board goes to the channel, not to the interaction:
            # carry on; only this player's private notes may be lost.
            log.warning("could not acknowledge interaction %s: %s", interaction.id, exc)

    @staticmethod
    async def confirm(interaction: discord.Interaction[Any], text: str) -> None:
        """Close a command's private "thinking" with a short note (a click needs none)."""
        if interaction.type == discord.InteractionType.component:
            return
        try:
            if text:
                await interaction.edit_original_response(content=text[:1900])
            else:
                await interaction.delete_original_response()
        except discord.HTTPException:
            log.info("could not close interaction %s", interaction.id)

    async def _active_game(self, interaction: discord.Interaction[Any]) -> Game | None:
        assert interaction.channel_id is not None
        game = await self.db.get_active_game(interaction.channel_id)
        if game is None:
            await reply_error(
                interaction, "There is no game in this channel. Start one with /challenge."
            )
        return game

    async def _board_message(
        self, interaction: discord.Interaction[Any], game: Game
    ) -> discord.Message | None:
        if game.board_message_id is None:
            return None
        msg = interaction.message
        if msg is not None and msg.id == game.board_message_id:
            return msg
        try:
            return await self.boards.channel(game.channel_id).fetch_message(game.board_message_id)
        except discord.HTTPException:
            return None

    async def present(
        self,
        interaction: discord.Interaction[Any],
        before: Game,
        old: GameState,
        outcome: Outcome,
        header: str,
        kind: str,
    ) -> None:
        """Show an accepted action: a new board when the turn passes (one ping, for the player
        to act), else the waiting board redrawn in place; then close the interaction."""
        state, game = outcome.state, outcome.game
        channel_id = game.channel_id
        lines = [line for line in (header, *outcome.events) if line]
        last = final_text(outcome) if outcome.finished is not None else prompt(game, state)
        actor = actor_id(game, state)
        view = board_view(game, state)
        new_board = (kind in ("play", "start") and not _same_turn(old, state)) or (
            state.game_number != old.game_number
        )
        message = None if new_board else await self._board_message(interaction, before)
        if message is not None:
            kept = message.content.split("\n")
            if has_buttons(old) or not old.is_over:
                kept = kept[:-1]  # the old prompt goes; what happened this turn stays
            content = "\n".join([*kept[-6:], *lines, last])
            try:
                edited = await self.boards.edit(
                    message,
                    state,
                    content,
                    view,
                    elsewhere=game.against_computer,
                    guild_id=game.guild_id,
                )
            except discord.HTTPException as exc:
                log.info("board %s of game %s not editable: %s", message.id, game.id, exc)
            else:
                if game.board_owed_version is not None:
                    await self.db.board_shown(game.id, game.version)
                if outcome.finished is not None:
                    await self.boards.send_text(channel_id, "\n".join([*lines, last]), None)
                elif actor is not None and (
                    actor != actor_id(before, old)
                    or (state.resign_offer is not None and old.resign_offer is None)
                ):
                    await self.boards.send_text(
                        channel_id, "\n".join([*lines, f"{last} ({edited.jump_url})"]), actor
                    )
                await self.confirm(interaction, f"{lines[0] if lines else 'Done.'}")
                return
        if before.board_message_id is not None and has_buttons(old):
            await self.boards.retire(channel_id, before.board_message_id, "*Next board below.*")
        posted = await self.boards.post(
            channel_id,
            state,
            "\n".join([*lines, last]),
            view,
            actor,
            elsewhere=game.against_computer,
            guild_id=game.guild_id,
        )
        await self.db.set_board_message(game.id, posted.id, shown_version=game.version)
        await self.confirm(interaction, "")

    async def _run_action(
        self,
        interaction: discord.Interaction[Any],
        game: Game,
        action: Action,
        kind: str,
        header: Callable[[Outcome], str],
        text: str = "",
    ) -> None:
        """Apply an action under the channel lock and show it, or say privately why not."""
        await self.acknowledge(interaction)
        async with self.table.lock(game.channel_id):
            fresh = await self.db.get_game(game.id)
            if fresh is None or fresh.status != "active":
                await reply_error(interaction, "This game is over.")
                return
            old = self.table.state_of(fresh)
            try:
                outcome = await self.table.act(
                    fresh, interaction.user.id, action, kind, text, owe_board=True
                )
            except EngineError as exc:
                await reply_error(interaction, exc.message)
                return
            except ConflictError:
                await reply_error(
                    interaction, "Someone acted on this game at the same moment; look again."
                )
                return
            # Still under the lock: the next action waits until its board is out.
            await self._reply_committed(
                interaction,
                game.channel_id,
                self.present(interaction, fresh, old, outcome, header(outcome), kind),
                _recorded(outcome),
            )
        self._after_action(outcome)

    # --- challenges -------------------------------------------------------------------------

    @app_commands.command(name="challenge", description="Challenge someone (or anyone) to a game")
    @app_commands.describe(
        variant="Which game to play",
        opponent="Who you want to play (leave empty for an open challenge anyone may accept)",
        length="Match length in points (default 1: a single game)",
        options="Rule options, e.g. plakoto (pin-mother), mustEnterAll (Dutch), previousWinner",
        level="Against this bot (the computer): how strong it plays (default: expert)",
        hints="Allow /hint for both players (the game is then not rated); always on against "
        "the computer",
    )
    @app_commands.choices(level=LEVEL_CHOICES)
    @app_commands.guild_only()
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
        assert interaction.guild_id is not None and interaction.channel_id is not None
        try:
            chosen = parse_rule_options(variant.value, options or "")
        except ValueError as exc:
            await reply_error(interaction, str(exc))
            return
        if opponent is not None and opponent.id == interaction.user.id:
            await reply_error(interaction, "You cannot challenge yourself.")
            return
        computer = (
            opponent is not None and self.bot.user is not None and opponent.id == self.bot.user.id
        )
        if opponent is not None and opponent.bot and not computer:
            await reply_error(
                interaction,
                f"Other bots do not play here; challenge a person, or me "
                f"({self.bot.user.mention if self.bot.user else 'this bot'}) to play the computer.",
            )
            return
        if level is not None and not computer:
            await reply_error(
                interaction,
                "`level` is for games against the computer: challenge this bot to use it.",
            )
            return
        if await self.db.get_active_game(interaction.channel_id) is not None:
            await reply_error(
                interaction,
                "A game is already in progress in this channel. Finish it, or start a thread.",
            )
            return
        now = self.table.clock()
        if await self.db.get_open_challenge(interaction.channel_id, now=now) is not None:
            await reply_error(interaction, "There is already an open challenge in this channel.")
            return
        settings = await self.db.get_guild_settings(interaction.guild_id)
        try:
            challenge = await self.db.create_challenge(
                interaction.guild_id,
                interaction.channel_id,
                interaction.user.id,
                None if opponent is None else opponent.id,
                variant.value,
                now=now,
                match_length=length,
                expires_at=now + settings.challenge_expiry_seconds,
                options=chosen,
                hints=hints or computer,
            )
        except ChannelBusyError:
            # Another /challenge (or an accept) in this channel won the race since the checks.
            await reply_error(
                interaction,
                "Someone else just started a challenge or a game in this channel; "
                "answer it, or start a thread.",
            )
            return
        if computer:
            await self._start_against_computer(
                interaction, challenge, level.value if level else STRONGEST
            )
            return
        view = discord.ui.View(timeout=None)
        view.add_item(ChallengeButton("accept", challenge.id))
        view.add_item(ChallengeButton("decline", challenge.id))
        game = (
            f"**{get_variant(variant.value).name}**"
            + (f" (match to {plural(length, 'point')})" if length > 1 else "")
            + describe_options(variant.value, chosen)
            + (" with hints allowed (not rated)" if hints else "")
        )
        minutes = plural(max(1, settings.challenge_expiry_seconds // 60), "minute")
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
        await self.db.set_challenge_message(challenge.id, message.id)

    @challenge.autocomplete("options")
    async def challenge_options_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """The chosen variant's options; what is typed so far is kept in front of each."""
        variant = VARIANTS.get(str(getattr(interaction.namespace, "variant", "") or ""))
        if variant is None:
            return []
        done, _, partial = current.rpartition(",")
        prefix = ", ".join(p.strip() for p in done.split(",") if p.strip())
        taken = {p.strip().lower() for p in done.split(",")}
        choices = []
        for name, option in variant.options.items():
            if name.lower() in taken or not name.lower().startswith(partial.strip().lower()):
                continue
            value = f"{prefix}, {name}" if prefix else name
            choices.append(app_commands.Choice(name=f"{value} - {option.about}"[:100], value=value))
        return choices[:MAX_CHOICES]

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
        now = self.table.clock()
        if challenge_id is None:
            challenge = await self.db.get_open_challenge(interaction.channel_id, now=now)
        else:
            challenge = await self.db.get_challenge(challenge_id)
        if challenge is None or challenge.status != "open" or challenge.is_expired(now):
            await reply_error(interaction, "There is no open challenge here (it may have expired).")
            return
        user = interaction.user.id
        if user == challenge.challenger_id:
            if accept:
                await reply_error(interaction, "You cannot accept your own challenge.")
                return
            status: ChallengeStatus = "cancelled"  # the challenger withdraws it
        elif challenge.opponent_id is None:
            if not accept:
                await reply_error(
                    interaction, "This challenge is open to anyone: leave it if you do not want it."
                )
                return
            status = "accepted"
        elif user == challenge.opponent_id:
            status = "accepted" if accept else "declined"
        else:
            await reply_error(interaction, "Only the challenged player can answer this challenge.")
            return
        await self.acknowledge(interaction)
        async with self.table.lock(challenge.channel_id):
            if not accept:
                if await self.db.set_challenge_status(challenge.id, status) is None:
                    await reply_error(interaction, "This challenge was already answered.")
                    return
                who = _display(interaction.user)
                word = "withdrawn" if status == "cancelled" else f"declined by {who}"
                await self._close_challenge(interaction, challenge, f"*Challenge {word}.*")
                await self.confirm(interaction, f"The challenge was {word}.")
                return
            guild = interaction.guild
            challenger = guild.get_member(challenge.challenger_id) if guild else None
            if challenger is None and guild is not None:
                try:  # not cached without the members intent: ask Discord once
                    challenger = await guild.fetch_member(challenge.challenger_id)
                except discord.HTTPException:
                    challenger = None
            names = (
                _display(challenger) if challenger else f"Player {challenge.challenger_id}",
                _display(interaction.user),
            )
            try:
                # Marks the challenge accepted in the same transaction that creates the game.
                outcome = await self.table.start(replace(challenge, opponent_id=user), names)
            except ChannelBusyError:
                await reply_error(interaction, "A game is already running in this channel.")
                return
            except ConflictError:
                await reply_error(
                    interaction, "This challenge was already answered or has expired."
                )
                return
            await self._close_challenge(
                interaction, challenge, f"*Accepted by {names[1]}: the game starts below.*"
            )
            header = (
                f"**{get_variant(challenge.variant).name}**: {names[0]} (light) vs "
                f"{names[1]} (dark)"
                + (f", match to {challenge.match_length}" if challenge.match_length > 1 else "")
                + describe_options(challenge.variant, challenge.options)
            )
            opening = outcome.state.record
            header += "\n" + "; ".join(line for line in opening if line.startswith("opening roll"))
            await self._reply_committed(
                interaction,
                challenge.channel_id,
                self._first_board(interaction, outcome, header),
                "You accepted: the game has started, but Discord did not take the reply. "
                "/board shows the game.",
            )

    async def _first_board(
        self, interaction: discord.Interaction[Any], outcome: Outcome, header: str
    ) -> None:
        state, game = outcome.state, outcome.game
        last = final_text(outcome) if outcome.finished is not None else prompt(game, state)
        lines = [line for line in (header, *outcome.events, last) if line]
        posted = await self.boards.post(
            game.channel_id,
            state,
            "\n".join(lines),
            board_view(game, state),
            actor_id(game, state),
            elsewhere=game.against_computer,
            guild_id=game.guild_id,
        )
        await self.db.set_board_message(game.id, posted.id, shown_version=game.version)
        await self.confirm(interaction, "")
        self._after_action(outcome)

    async def _start_against_computer(
        self, interaction: discord.Interaction[Any], challenge: Challenge, level: str
    ) -> None:
        """No accept step: the game starts at once, and the computer plays if it is its turn."""
        names = (_display(interaction.user), computer_name(level))
        async with self.table.lock(challenge.channel_id):
            try:
                # Marks the challenge accepted in the same transaction that creates the game.
                outcome = await self.table.start(challenge, names, ai_level=level)
            except (ChannelBusyError, ConflictError):
                # Withdrawn, so that it does not hold the channel until it expires.
                await self.db.set_challenge_status(challenge.id, "cancelled")
                await reply_error(interaction, "A game is already running in this channel.")
                return
            header = (
                f"**{get_variant(challenge.variant).name}**: {names[0]} (light) vs {names[1]} "
                f"(dark), {LEVEL_ABOUT[level]}"
                + (f", match to {challenge.match_length}" if challenge.match_length > 1 else "")
                + describe_options(challenge.variant, challenge.options)
                + ". Not rated; /hint is allowed."
            )
            opening = outcome.state.record
            header += "\n" + "; ".join(line for line in opening if line.startswith("opening roll"))
            # Nothing slow before this answer (the computer thinks afterwards, in its pool):
            # the first board is the command's own reply.
            await self._reply_committed(
                interaction,
                challenge.channel_id,
                self._board_reply(interaction, outcome, header),
                _recorded(outcome),
            )
        self._after_action(outcome)

    async def _board_reply(
        self, interaction: discord.Interaction[Any], outcome: Outcome, header: str
    ) -> None:
        state, game = outcome.state, outcome.game
        # The game is committed. Its picture waits behind the boards of games between people,
        # which can take longer than Discord's 3 s: acknowledge first; the answer that fills
        # the "thinking" message is the first board.
        await interaction.response.defer(thinking=True)
        last = final_text(outcome) if outcome.finished is not None else prompt(game, state)
        kwargs: dict[str, Any] = {
            "content": "\n".join(line for line in (header, *outcome.events, last) if line),
            "file": await self.boards.file(
                state,
                theme=await self.boards.theme(game.guild_id),
                elsewhere=game.against_computer,
            ),
            "allowed_mentions": ping(actor_id(game, state)),
            "wait": True,
        }
        view = board_view(game, state)
        if view is not None:
            kwargs["view"] = view
        message = await interaction.followup.send(**kwargs)
        await self.db.set_board_message(game.id, message.id, shown_version=game.version)

    async def _close_challenge(
        self, interaction: discord.Interaction[Any], challenge: Challenge, status: str
    ) -> None:
        msg = interaction.message
        if msg is not None:  # the challenge's own button was clicked
            await self.boards.retire(challenge.channel_id, msg.id, status, message=msg)
            return
        # Re-read: the message id is stored just after the challenge is posted.
        fresh = await self.db.get_challenge(challenge.id)
        message_id = fresh.message_id if fresh is not None else challenge.message_id
        await self.boards.retire(challenge.channel_id, message_id, status)

    @tasks.loop(seconds=30)
    async def expire_challenges(self) -> None:
        try:
            await self.expire_due()
        except DatabaseGoneError:
            pass  # logged CRITICAL once by the storage; a traceback every 30 s adds nothing
        except Exception:
            log.exception("expiring challenges failed")

    async def expire_due(self) -> int:
        """Expire the challenges past their time and say so on their messages."""
        shards = getattr(self.bot, "owned_shards", None)
        expired = await self.db.expire_challenges(self.table.clock(), shards=shards)
        for challenge in expired:
            log.info("challenge %s expired", challenge.id)
            await self.boards.retire(
                challenge.channel_id, challenge.message_id, "*Expired: nobody accepted in time.*"
            )
        return len(expired)

    # --- playing ----------------------------------------------------------------------------

    @app_commands.command(name="move", description="Play your move in standard notation")
    @app_commands.describe(play="Your play, e.g. 24/18 13/11, bar/22*, 6/off, 8/2(2) or pass")
    @app_commands.guild_only()
    async def move(self, interaction: discord.Interaction[Any], play: str) -> None:
        game = await self._active_game(interaction)
        if game is None:
            return
        if not await self._check_turn(interaction, game, MOVE):
            return

        def header(outcome: Outcome) -> str:
            name = _player_name(game, outcome.state, interaction.user)
            return outcome.action_line or f"{name}: {play}"

        await self._run_action(
            interaction, game, lambda s, seat: s.play(seat, play, self.table.rng), "play", header
        )

    @move.autocomplete("play")
    async def move_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.channel_id is None:
            return []
        game = await self.db.get_active_game(interaction.channel_id)
        if game is None:
            return []
        state = self.table.state_of(game)
        if state.phase != MOVE or GameTable.user_of(game, state.mover) != interaction.user.id:
            return []
        texts = self.table.legal_texts(game)
        chosen = narrow_plays(texts, current)
        return [
            app_commands.Choice(name=play_label(t, state.rules.pin_word), value=t or "pass")
            for t in chosen[:MAX_CHOICES]
        ]

    async def _check_turn(
        self, interaction: discord.Interaction[Any], game: Game, phase: str
    ) -> bool:
        seat = GameTable.seat_of(game, interaction.user.id)
        if seat is None:
            await reply_error(interaction, "You are watching this game; only the players can act.")
            return False
        state = self.table.state_of(game)
        if state.resign_offer is not None:
            offerer = state.resign_offer[0]
            if seat == offerer:
                await reply_error(interaction, "Your offer to resign is waiting for an answer.")
            else:
                await reply_error(
                    interaction, "Accept or reject the offer to resign first (buttons)."
                )
            return False
        if state.mover != seat:
            other = state.players[state.mover]
            await reply_error(interaction, f"It is not your turn: waiting for {other}.")
            return False
        if state.phase != phase:
            if state.phase == ROLL:
                hint = "Roll first (or double): use /roll or the Roll button."
            elif state.phase == DOUBLE:
                hint = "You have been doubled: /take or /pass first."
            else:
                hint = "Use /move to play your roll."
            await reply_error(interaction, hint)
            return False
        return True

    @app_commands.command(name="roll", description="Roll the dice (classic: instead of doubling)")
    @app_commands.guild_only()
    async def roll(self, interaction: discord.Interaction[Any]) -> None:
        await self._cube_command(interaction, "roll")

    @app_commands.command(name="double", description="Offer a double before rolling (classic)")
    @app_commands.guild_only()
    async def double(self, interaction: discord.Interaction[Any]) -> None:
        await self._cube_command(interaction, "double")

    @app_commands.command(name="take", description="Take the double you were offered")
    @app_commands.guild_only()
    async def take(self, interaction: discord.Interaction[Any]) -> None:
        await self._cube_command(interaction, "take")

    @app_commands.command(
        name="pass", description="Pass the double you were offered (lose the game)"
    )
    @app_commands.guild_only()
    async def pass_(self, interaction: discord.Interaction[Any]) -> None:
        await self._cube_command(interaction, "pass")

    async def _cube_command(self, interaction: discord.Interaction[Any], action: str) -> None:
        game = await self._active_game(interaction)
        if game is not None:
            await self._cube(interaction, game, action)

    async def button_action(
        self, interaction: discord.Interaction[Any], action: str, game_id: int, version: int
    ) -> None:
        game = await self.db.get_game(game_id)
        if game is None or game.status != "active":
            await reply_error(interaction, "This game is over.")
            return
        if game.version != version:
            await reply_error(interaction, "These buttons belong to an older board.")
            return
        if action in ("rsyes", "rsno"):
            await self._answer_resign(interaction, game, action == "rsyes")
        else:
            await self._cube(interaction, game, action)

    async def _cube(self, interaction: discord.Interaction[Any], game: Game, action: str) -> None:
        phase = DOUBLE if action in ("take", "pass") else ROLL
        if not await self._check_turn(interaction, game, phase):
            return
        rng = self.table.rng
        actions = {
            "roll": lambda s, seat: s.roll(seat, rng),
            "double": lambda s, seat: s.double(seat),
            "take": lambda s, seat: s.take(seat, rng),
            "pass": lambda s, seat: s.drop(seat),
        }
        name = _player_name(game, self.table.state_of(game), interaction.user)

        def header(outcome: Outcome) -> str:
            # As the action left it: forced plays may already have moved the game on.
            state = outcome.acted or outcome.state
            if action == "roll":
                dice = state.dice
                rolled = f" {roll_text(dice.high, dice.low)}" if dice is not None else ""
                return f"{name} rolls{rolled}."
            if action == "double":
                return f"{name} doubles to {state.cube * 2}."
            if action == "take":
                return f"{name} takes: the cube is at {state.cube}."
            return f"{name} passes."

        await self._run_action(interaction, game, actions[action], action, header)

    # --- other game commands -------------------------------------------------------------------

    @app_commands.command(name="board", description="Show the current board (only to you)")
    @app_commands.describe(public="Post it in the channel for everyone (pings nobody)")
    @app_commands.guild_only()
    async def board(self, interaction: discord.Interaction[Any], public: bool = False) -> None:
        game = await self._active_game(interaction)
        if game is None:
            return
        await interaction.response.defer(ephemeral=not public, thinking=True)
        state = self.table.state_of(game)
        theme, viewer = await self.view_for(interaction, game, public)
        lines = [prompt(game, state)]
        if state.rules.has_gnubg_ids:
            lines.append(f"gnubg ID: `{gnubg_id(state)}`")
        if game.board_message_id is not None:
            lines.append(
                f"Live board: https://discord.com/channels/{game.guild_id}/{game.channel_id}/"
                f"{game.board_message_id}"
            )
        await interaction.followup.send(
            "\n".join(line for line in lines if line),
            file=await self.boards.file(state, theme=theme, viewer=viewer),
            allowed_mentions=NO_PINGS,
            ephemeral=not public,
        )
        if public:  # the channel has seen the board now
            self._owed_boards.discard(game.channel_id)
            if game.board_owed_version is not None:
                await self.db.board_shown(game.id, game.version)

    async def view_for(
        self, interaction: discord.Interaction[Any], game: Game, public: bool
    ) -> tuple[str, int | None]:
        """(theme, seat seen from) for a board shown to the user who asked: in the channel the
        server's look (like every board there); privately the player's /preferences: their
        theme, and their own side of the table if they play in this game and asked for it."""
        server = await self.boards.theme(game.guild_id)
        if public:
            return server, None
        prefs = await self.db.get_player_preferences(interaction.user.id)
        seat = GameTable.seat_of(game, interaction.user.id) if prefs.own_side else None
        return player_theme(prefs, server), seat

    @app_commands.command(name="resign", description="Resign the game, or offer to (classic, Pin)")
    @app_commands.describe(
        level="What you concede (classic and the Pin games; default a single game)"
    )
    @app_commands.choices(level=RESIGN_CHOICES)
    @app_commands.guild_only()
    async def resign(
        self, interaction: discord.Interaction[Any], level: app_commands.Choice[int] | None = None
    ) -> None:
        game = await self._active_game(interaction)
        if game is None:
            return
        if GameTable.seat_of(game, interaction.user.id) is None:
            await reply_error(interaction, "Only the players can resign.")
            return
        chosen = 1 if level is None else level.value
        name = _player_name(game, self.table.state_of(game), interaction.user)

        def header(outcome: Outcome) -> str:
            if outcome.state.resign_offer is not None:
                return f"{name} offers to resign."
            return f"{name} resigns."

        await self._run_action(
            interaction, game, lambda s, seat: s.offer_resign(seat, chosen), "resign", header
        )

    async def _answer_resign(
        self, interaction: discord.Interaction[Any], game: Game, accept: bool
    ) -> None:
        seat = GameTable.seat_of(game, interaction.user.id)
        state = self.table.state_of(game)
        if seat is None or state.resign_offer is None:
            await reply_error(interaction, "Only the players can answer an offer to resign.")
            return
        if accept and seat == state.resign_offer[0]:
            await reply_error(interaction, "Your opponent answers your offer, not you.")
            return
        name = state.players[seat]

        def header(outcome: Outcome) -> str:
            if accept:
                return f"{name} accepts the resignation."
            if seat == state.resign_offer[0]:  # type: ignore[index]
                return f"{name} withdraws the offer to resign."
            return f"{name} rejects the offer to resign: the game goes on."

        await self._run_action(
            interaction,
            game,
            (lambda s, st: s.accept_resign(st)) if accept else (lambda s, st: s.reject_resign(st)),
            "resign" if accept else "note",
            header,
        )

    @app_commands.command(
        name="abort", description="End the game without a result (both players, or a moderator)"
    )
    @app_commands.guild_only()
    async def abort(self, interaction: discord.Interaction[Any]) -> None:
        game = await self._active_game(interaction)
        if game is None:
            return
        user = interaction.user.id
        moderator = bool(interaction.permissions.manage_messages)
        seat = GameTable.seat_of(game, user)
        if seat is None and not moderator:
            await reply_error(
                interaction, "Only the players (both agreeing) or a moderator can abort a game."
            )
            return
        moves = [NewMove(user, "abort", "aborted")]
        async with self.table.lock(game.channel_id):
            try:
                # The computer always agrees: a game against it ends at its player's request.
                if moderator or game.against_computer:
                    await self.db.abort_game(game.id, now=self.table.clock(), moves=moves)
                    result = "aborted"
                else:
                    # Stored with the game, checked and acted on in one transaction: the two
                    # players' requests agree whichever lands first, also across a restart.
                    result, _ = await self.db.request_abort(
                        game.id, user, now=self.table.clock(), moves=moves
                    )
            except ConflictError:
                await reply_error(interaction, "This game has already ended.")
                return
        other = GameTable.user_of(game, 1 - seat) if seat is not None else None
        if result == "requested":
            await interaction.response.send_message(
                f"{interaction.user.mention} wants to abort this game. "
                f"{mention(other) if other else 'The opponent'}, use /abort to agree.",
                allowed_mentions=ping(other),  # the opponent is asked to answer
            )
        elif result == "repeated":
            await reply_error(
                interaction,
                "You have already asked to abort this game; "
                f"waiting for {mention(other) if other else 'your opponent'} to agree with /abort.",
            )
        else:
            if has_buttons(self.table.state_of(game)):
                await self.boards.retire(game.channel_id, game.board_message_id, "*Aborted.*")
            await self._reply_committed(
                interaction,
                game.channel_id,
                interaction.response.send_message(
                    "The game was aborted; it is not rated.", allowed_mentions=NO_PINGS
                ),
                "The game was aborted (not rated), but Discord did not take the reply.",
            )

    @app_commands.command(name="games", description="The games in progress in this server")
    @app_commands.guild_only()
    async def games(self, interaction: discord.Interaction[Any]) -> None:
        assert interaction.guild_id is not None
        active = await self.db.list_active_games(interaction.guild_id)
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
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        embed = discord.Embed(title="Backgammon variants", description=HELP_TEXT)
        await interaction.response.send_message(embed=embed, ephemeral=True)


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


_SEGMENT = re.compile(r"[\s,]+")


def _tokens(text: str) -> list[str]:
    return [t for t in _SEGMENT.split(text.lower()) if t]


def _token_matches(typed: str, token: str) -> bool:
    """A typed token matches a play's token from the start, or from one of its points:
    "8/" and "13/7" match "13/7/2"; "7/2" matches it too."""
    return token.startswith(typed) or ("/" + typed) in token


def _point_number(part: str) -> int:
    digits = "".join(c for c in part if c.isdigit())
    if part.startswith("bar"):
        return 25
    if part.startswith("off"):
        return 0
    return int(digits) if digits else 0


def play_order(text: str) -> tuple[tuple[int, int], ...]:
    """How players read a list of plays: by source point, high to low, numerically, then by
    destination (high first)."""
    key = []
    for token in text.split():
        parts = token.split("/")
        key.append((-_point_number(parts[0]), -_point_number(parts[-1])))
    return tuple(key)


def narrow_plays(texts: list[str], typed: str) -> list[str]:
    """The legal plays (canonical texts, "" for no play) that contain every token typed so
    far, in any order, each matched by a different token of the play; in reading order."""
    wanted = _tokens(typed)
    chosen = []
    for text in texts:
        tokens = _tokens(text or "pass")
        free = list(tokens)
        ok = True
        for typed_token in wanted:
            hit = next((t for t in free if _token_matches(typed_token, t)), None)
            if hit is None:
                ok = False
                break
            free.remove(hit)
        if ok:
            chosen.append(text)
    return sorted(chosen, key=lambda t: (play_order(t), t))


def play_label(text: str, pin_word: str) -> str:
    """An autocomplete choice's name: the play, and whether it hits or pins (``pin_word``:
    the variant's word, "traps" in NeverFinishing)."""
    if not text:
        return "pass (no legal move)"
    notes = []
    if "*" in text:
        notes.append("hits")
    if "^" in text:
        notes.append(pin_word)
    return (text + (f" - {', '.join(notes)}" if notes else ""))[:100]


def _recorded(outcome: Outcome) -> str:
    """The follow-up after a committed action whose reply failed."""
    if outcome.game.status != "active":
        return (
            "Your action was recorded and the game is over, but Discord did not take the "
            "reply. /history shows the result."
        )
    return "Your action was recorded, but Discord did not take the reply. /board shows the game."


def parse_rule_options(variant_id: str, text: str) -> tuple[str, ...]:
    """Option names typed by a player (comma or space separated, any case), checked against
    the variant; ValueError with a message for the player."""
    rules = get_variant(variant_id)
    by_lower = {name.lower(): name for name in rules.options}
    chosen = set()
    for word in re.split(r"[\s,]+", text.strip()):
        if not word:
            continue
        name = by_lower.get(word.lower())
        if name is None:
            offered = ", ".join(f"`{n}`" for n in rules.options) or "none"
            shown = word if len(word) <= 40 else word[:40] + "..."
            raise ValueError(f"{rules.name} has no option `{shown}`. Its options: {offered}.")
        chosen.add(name)
    return tuple(sorted(chosen))


def describe_options(variant_id: str, options: tuple[str, ...]) -> str:
    if not options:
        return ""
    known = get_variant(variant_id).options
    return ", with " + "; ".join(known[name].about for name in options)


#: One line per topic: Discord wraps long lines itself, so a newline only ever ends a topic.
HELP_LINES = (
    "**Start**: `/challenge @someone variant [length] [options] [hints]`, then the opponent "
    "presses Accept (or `/accept`). Without `@someone` the challenge is open to anyone in the "
    "channel. `/rules variant` lists a game's options (e.g. `plakoto`, `mustEnterAll`); "
    "`hints:true` lets both players use `/hint` (the game is then not rated).",
    "**The computer**: `/challenge @this-bot variant [length] [level]` starts at once (not "
    "rated, `/hint` allowed). Levels, weakest first: {levels}.",
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
    "**Learn**: `/hint` (best plays, only you see it), `/review game` (mistakes and luck, with "
    "a chart of the winning chances), `/replay game` (an animated replay), `/record game "
    "format:mat` (backgammon: a match file for GNU Backgammon).",
)
HELP_TEXT = "\n".join(HELP_LINES).replace(
    "{levels}", " · ".join(f"`{level}`: {LEVEL_ABOUT[level]}" for level in LEVELS)
)


async def setup(bot: commands.Bot) -> None:
    table = getattr(bot, "table", None)
    if not isinstance(table, GameTable):
        raise RuntimeError("the bot must create its GameTable before loading cogs.games")
    pool = getattr(bot, "ai_pool", None)
    if not isinstance(pool, AIPool):
        raise RuntimeError("the bot must start its AIPool before loading cogs.games")
    await bot.add_cog(Games(bot, table, pool))
