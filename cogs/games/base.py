"""What the game commands share: the services they call and how a game is shown in its
channel (one live board message per game; see :class:`cogs.boards.Boards`).

Every handler that can take a while (rendering, long Express chains) acknowledges the
interaction first: a click updates its message later, a command "thinks" privately, so a
refusal stays private and the public board is a message of its own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

import aiohttp
import discord
from discord.ext import commands

from app.computer import COMPUTER_SEAT, computer_to_act
from app.records import rating_changes
from app.services import Services
from app.table import Game, GameTable, Outcome, describe_play
from cogs.boards import Boards, actor_id, has_buttons
from cogs.common import mention, send_committed
from engine.game import DOUBLE, MOVE, RESIGN_NAMES, ROLL, GameState
from render.game_scene import chain_text, plural, result_text, roll_text

log = logging.getLogger(__name__)


def board_view(game: Game, state: GameState) -> discord.ui.View | None:
    """The buttons under a board (None: nothing to press; the computer's would be refused)."""
    from cogs.games.buttons import GameButton  # the buttons call back into the cog

    if not has_buttons(state) or computer_to_act(game, state):
        return None
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


def same_turn(old: GameState, new: GameState) -> bool:
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
    changes = rating_changes(outcome.game, state, outcome.finished)
    if changes:
        text += f"\nRatings: {changes}"
    if not outcome.game.rated:
        text += "\nNot rated" + (
            " (a game against the computer)." if outcome.game.against_computer else "."
        )
    return text


def recorded(outcome: Outcome) -> str:
    """The follow-up after a committed action whose reply failed."""
    if outcome.game.status != "active":
        return (
            "Your action was recorded and the game is over, but Discord did not take the "
            "reply. /history shows the result."
        )
    return "Your action was recorded, but Discord did not take the reply. /board shows the game."


def message_link(guild_id: int, channel_id: int, message_id: int) -> str:
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


def display(user: discord.abc.User) -> str:
    return user.display_name[:32]


def player_name(game: Game, state: GameState, user: discord.abc.User) -> str:
    """``user``'s name in ``game``, as its record and boards write it (namesakes are told
    apart there, see ``engine.game.distinct_names``)."""
    seat = GameTable.seat_of(game, user.id)
    return state.players[seat] if seat is not None else display(user)


class GamesBase(commands.Cog):
    """The services of the game commands and the presentation of their results."""

    def __init__(self, bot: commands.Bot, services: Services) -> None:
        self.bot = bot
        self.table = services.table
        self.play = services.play
        self.challenges = services.challenges
        self.boards = Boards(bot, services.table, services.server_settings.theme)
        #: Channels whose latest board never reached Discord (an action was committed but its
        #: reply failed): the board is posted the next time anyone uses a game command there.
        #: The debt itself is in the database (``Game.board_owed_version``, written with the
        #: action), so boards owed when the bot stopped are posted when it starts again.
        self._owed_boards: set[int] = set()
        self.computer = services.computer
        self.computer.post = self.post_board
        self.computer.indicate = self._typing

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

    # --- boards owed -------------------------------------------------------------------------

    async def post_owed_boards(self) -> int:
        """Post every board the database says a channel is owed (never raises); returns how
        many were posted. A game where the computer is about to act is left to its turn,
        whose board shows the position anyway."""
        try:
            owed = await self.play.owed_boards()
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

    def _shard_has(self, game: Game) -> bool:
        return self.bot.get_guild(game.guild_id) is not None

    async def _post_owed(self, channel_id: int, game_id: int | None) -> bool:
        """Post the board the channel is owed (of ``game_id``, or of its active game) unless
        it was paid meanwhile; True if a board was posted. Raises on Discord failures."""
        async with self.table.lock(channel_id):
            game = await self.play.owed_board(channel_id, game_id)
            if game is None:
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
            await self.play.board_posted(game, posted.id)
            self._owed_boards.discard(channel_id)
            return True

    async def deliver_owed_board(self, interaction: discord.Interaction[Any]) -> None:
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

    def after_action(self, outcome: Outcome) -> None:
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
                await self.play.board_posted(outcome.game, posted.id)
        except (discord.HTTPException, aiohttp.ClientError, TimeoutError, OSError) as exc:
            # The move is committed: the channel is owed its board (posted at the next command).
            log.warning("could not post the board of game %s: %s", game.id, exc)
            self._owed_boards.add(game.channel_id)
        else:
            self._owed_boards.discard(game.channel_id)
        self.after_action(outcome)

    # --- answering interactions --------------------------------------------------------------

    async def reply_committed(
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
        new_board = (kind in ("play", "start") and not same_turn(old, state)) or (
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
                await self.play.board_shown(game)
                if outcome.finished is not None:
                    await self.boards.send_text(channel_id, "\n".join([*lines, last]), None)
                elif actor is not None and (
                    actor != actor_id(before, old)
                    or (state.resign_offer is not None and old.resign_offer is None)
                ):
                    # The link names the guild itself: a message edited through a partial
                    # channel has none, and its jump_url would point at direct messages.
                    link = message_link(game.guild_id, channel_id, edited.id)
                    await self.boards.send_text(
                        channel_id, "\n".join([*lines, f"{last} ({link})"]), actor
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
        await self.play.board_posted(game, posted.id)
        await self.confirm(interaction, "")
