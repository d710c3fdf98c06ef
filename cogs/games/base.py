"""What the game commands share: the services they call and how a game is shown in its
channel (one board message per human turn; see :class:`discord_ui.boards.Boards`).

Every handler that can take a while (rendering, long Express chains) acknowledges the
interaction first: a click updates its message later, a command "thinks" privately, so a
refusal stays private. The board is then shown through the interaction itself (its response
and webhook, which Discord's global rate limit does not count): a new board as a follow-up,
a board edited in place through the webhook that posted it. Against the computer, a person's
action is shown with the computer's whole reply, on one board.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord
from discord.ext import commands

from app.computer import COMPUTER_SEAT, computer_to_act
from app.faults import kill_point
from app.records import rating_changes
from app.services import Services
from app.table import Game, GameTable, Outcome, describe_play
from discord_ui.boards import (
    BoardParts,
    Boards,
    OutOfReach,
    actor_id,
    board_nonce,
    clip,
    has_buttons,
    ping,
)
from discord_ui.common import mention, message_link, send_committed
from discord_ui.layout import MAX_TEXT
from discord_ui.looks import player_theme
from engine.game import DOUBLE, MOVE, RESIGN_NAMES, ROLL, GameState
from render.game_scene import chain_text, plural, result_text, roll_text

log = logging.getLogger(__name__)

RESULT_ACTIONS = ("rematch", "review", "replay", "record")


def board_buttons(game: Game, state: GameState) -> list[discord.ui.Item[Any]]:
    """The buttons of a board's action row (none: nothing to press; the computer's would be
    refused)."""
    from .buttons import GameButton, ResultButton  # they call back into the cog

    if state.is_over:
        return [ResultButton(action, game.id) for action in RESULT_ACTIONS]
    if computer_to_act(game, state):
        return []
    if state.resign_offer is not None:
        actions = ["rsyes", "rsno"]
    elif state.phase == ROLL:
        if not has_buttons(state):
            return []
        actions = ["roll", "double"] if state.can_double(state.turn) else ["roll"]
    elif state.phase == DOUBLE:
        actions = ["take", "pass"]
    else:
        actions = ["play"]
    return [GameButton(action, game.id, game.version) for action in actions]


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
        return (
            f"{who}, your turn in the chain: play {chain_text(value, copies)}{then} with the "
            "Play button or /move."
        )
    assert state.dice is not None
    return (
        f"{who}, you rolled {roll_text(state.dice.high, state.dice.low)}: play with the Play "
        "button or /move."
    )


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


def status_line(state: GameState) -> str:
    """Pips, score and cube under a board (what the picture shows, for screen readers too)."""
    names = state.players
    parts = [f"Pips: {names[0]} {state.pips(0)}, {names[1]} {state.pips(1)}"]
    if state.match_length > 1:
        parts.append(f"score {state.score[0]}-{state.score[1]} (match to {state.match_length})")
    if state.rules.has_cube and state.cube > 1:
        parts.append(f"cube at {state.cube}")
    return "-# " + " · ".join(parts)


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
        self.server_settings = services.server_settings
        self.reports = services.reports
        self.analyst = services.analyst
        self.league = services.league
        self.boards = Boards(bot, services.table, services.server_settings.theme)
        #: Channels whose latest board never reached Discord (an action was committed but its
        #: reply failed): the board is posted the next time anyone uses a game command there.
        #: The debt itself is in the database (``Game.board_owed_version``, written with the
        #: action), so boards owed when the bot stopped are posted when it starts again.
        self._owed_boards: set[int] = set()
        #: game id -> a person's action waiting to be shown with the computer's reply.
        self._waiting: dict[int, Waiting] = {}
        #: Tasks making sure a waiting action is shown even if the computer shows nothing.
        self._watchers: set[asyncio.Task[None]] = set()
        self.computer = services.computer
        self.computer.post = self.post_board
        self.computer.indicate = self._typing

    async def _typing(self, channel_id: int) -> None:
        """ "Bot is typing..." in the channel until cancelled (best effort). Not while a
        person's command waits for the reply: its own "thinking" says so, for free."""
        if any(w.channel_id == channel_id for w in self._waiting.values()):
            return
        if not self.boards.reachable(channel_id):
            return  # the bot is not a member there
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
            self.boards.note(game)
            if not game.channel_reachable:
                # Only an interaction reaches that channel: the player's next one shows the
                # board (/board, or the board of their next action).
                continue
            if self.bot.get_channel(game.channel_id) is None and not self._shard_has(game):
                continue  # another process's guild
            try:
                state = self.table.state_of(game)
            except Exception:
                log.warning("game %s has an unreadable state", game.id)
                continue
            if computer_to_act(game, state) or self.computer.busy(game.id):
                continue
            try:
                if await self._post_owed(game.channel_id, game.id):
                    posted += 1
            except (discord.HTTPException, aiohttp.ClientError, TimeoutError, OSError) as exc:
                log.warning("could not post the owed board of game %s: %s", game.id, exc)
        return posted

    def _shard_has(self, game: Game) -> bool:
        if not game.in_server:
            # Discord sends direct messages to shard 0 (a game of no server has guild id 0).
            shards = getattr(self.bot, "owned_shards", None)
            return shards is None or 0 in shards.ids
        return self.bot.get_guild(game.guild_id) is not None

    async def _post_owed(self, channel_id: int, game_id: int | None) -> bool:
        """Post the board the channel is owed (of ``game_id``, or of its active game) unless
        it was paid meanwhile; True if a board was posted. Raises on Discord failures.

        Posted with the nonce of the game's version: if the board did reach the channel (the
        bot stopped before writing that down), Discord returns that message, not a second."""
        async with self.table.lock(channel_id):
            game = await self.play.owed_board(channel_id, game_id)
            if game is None:
                return False
            state = self.table.state_of(game)
            # The board may be out already (only the note of it lost): take it as paid.
            found = await self.boards.find_board(game.channel_id, game.id, game.version)
            if found is not None:
                await self._result_card(Outcome(game, state))
                if found.id == game.board_message_id:  # edited in place before the stop
                    notified = await self.play.turn_notice_owed(game, actor_id(game, state))
                    if notified is not None:
                        await self._turn_notice(game, state, found.id, notified)
                    await self.play.board_shown(game)
                else:
                    if game.board_message_id is not None:
                        await self.boards.clear_buttons(game.channel_id, game.board_message_id)
                    await self.play.board_posted(game, found.id)
                self._owed_boards.discard(channel_id)
                return False
            played = describe_play(state, state.last) if state.last is not None else ""
            parts = await self.boards.public(
                game, state, board_text(Outcome(game, state), [played]), board_buttons(game, state)
            )
            posted = await self.boards.post(
                game.channel_id,
                parts,
                actor_id(game, state),
                nonce=board_nonce(game.id, game.version),
            )
            kill_point("board_posted")
            if game.board_message_id is not None and game.board_message_id != posted.id:
                await self.boards.clear_buttons(game.channel_id, game.board_message_id)
            await self._result_card(Outcome(game, state))
            await self.play.board_posted(game, posted.id)
            self._owed_boards.discard(channel_id)
            return True

    async def deliver_owed_board(self, interaction: discord.Interaction[Any]) -> None:
        """Post the board a failed reply left out, as a plain channel message (never raises)."""
        channel_id = interaction.channel_id
        if channel_id is None or channel_id not in self._owed_boards:
            return
        if not self.boards.reachable(channel_id):
            return  # the command's own board pays it (see ``show``, ``board``)
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
            if outcome.game.id in self._waiting:
                task = asyncio.create_task(self._unanswered(outcome.game.id))
                self._watchers.add(task)
                task.add_done_callback(self._watchers.discard)

    async def _unanswered(self, game_id: int) -> None:
        """If the computer's turn ends without showing anything (it failed, the person
        resigned meanwhile), the person's action still gets its board: never a "thinking"
        left hanging."""
        await self.computer.settled(game_id)
        waiting = self._waiting.get(game_id)
        if waiting is None:
            return
        game = await self.play.game(game_id)
        if game is None or game.status == "aborted":
            # Nothing to show: the game ended without a result meanwhile (it said so itself).
            if self._waiting.pop(game_id, None) is waiting:
                await self.confirm(waiting.interaction, "")
            return
        async with self.table.lock(game.channel_id):
            if self._waiting.pop(game_id, None) is not waiting:
                return
            try:
                await self.show(
                    waiting.interaction,
                    waiting.before,
                    waiting.old,
                    Outcome(game, self.table.state_of(game)),
                    waiting.lines,
                    new=waiting.new,
                )
            except (discord.HTTPException, aiohttp.ClientError, TimeoutError, OSError) as exc:
                log.warning("could not show game %s after the computer's turn: %s", game_id, exc)
                self._owed_boards.add(game.channel_id)

    async def post_board(self, game: Game, outcome: Outcome, header: str) -> None:
        """Show the computer's reply: with the person's action that it answers when that
        interaction waits for it (one board, posted for free), else on the game's board."""
        self.boards.note(game)
        async with self.table.lock(game.channel_id):
            waiting = self._waiting.pop(game.id, None)
            lines = [line for line in (header, *outcome.events) if line]
            try:
                if waiting is not None:
                    try:
                        await self.show(
                            waiting.interaction,
                            waiting.before,
                            waiting.old,
                            outcome,
                            [*waiting.lines, *lines],
                            new=waiting.new,
                        )
                        self._owed_boards.discard(game.channel_id)
                        return
                    except discord.HTTPException as exc:
                        # The interaction has expired or was refused: post it the usual way.
                        log.info("reply to interaction %s failed: %s", waiting.interaction.id, exc)
                        lines = [*waiting.lines, *lines]
                await self._show_in_channel(outcome, lines)
            except (discord.HTTPException, aiohttp.ClientError, TimeoutError, OSError) as exc:
                # The move is committed: the channel is owed its board (posted at the next command).
                log.warning("could not post the board of game %s: %s", game.id, exc)
                self._owed_boards.add(game.channel_id)
            else:
                self._owed_boards.discard(game.channel_id)
        self.after_action(outcome)

    async def _show_in_channel(self, outcome: Outcome, lines: list[str]) -> None:
        """The computer's reply without an interaction (a resumed turn, the game's start):
        the board of the turn edited in place, or a new one when there is none."""
        state, game = outcome.state, outcome.game
        content = board_text(outcome, lines)
        buttons = board_buttons(game, state)
        if game.board_message_id is not None:
            try:
                await self.boards.redraw(
                    game.channel_id,
                    game.board_message_id,
                    await self.boards.public(game, state, content, buttons),
                )
            except discord.NotFound:
                pass  # deleted meanwhile: a new board below
            else:
                kill_point("board_edited")
                # The card before the note that the board is out: a crash in between leaves
                # the debt, whose payment posts the card (see _post_owed).
                await self._result_card(outcome)
                await self.play.board_shown(game)
                return
        pinged = actor_id(game, state)
        if not await self.play.should_ping(game, pinged):
            pinged = None
        posted = await self.boards.post(
            game.channel_id,
            await self.boards.public(game, state, content, buttons),
            pinged,
            nonce=board_nonce(game.id, game.version),
        )
        kill_point("board_posted")
        await self._result_card(outcome)
        await self.play.board_posted(game, posted.id)

    async def _rematch(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """A result card's Rematch (the challenge commands implement it)."""
        raise NotImplementedError

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
        """Close a command's private "thinking" with a short note, or remove it (a click on a
        board needs none)."""
        if interaction.type == discord.InteractionType.component:
            return
        try:
            if text:
                await interaction.edit_original_response(content=text[:1900])
            else:
                await interaction.delete_original_response()
        except discord.HTTPException:
            log.info("could not close interaction %s", interaction.id)

    async def present(
        self,
        interaction: discord.Interaction[Any],
        before: Game,
        old: GameState,
        outcome: Outcome,
        header: str,
        kind: str,
    ) -> None:
        """Show an accepted action: a new board when the turn passes to the other player,
        else the board of the turn redrawn in place. When the computer answers next, the
        action is shown with its reply (one board), so the interaction waits for it."""
        state, game = outcome.state, outcome.game
        self.boards.note(game)
        lines = [line for line in (header, *outcome.events) if line]
        new = (kind in ("play", "start") and not same_turn(old, state)) or (
            state.game_number != old.game_number
        )
        superseded = self._waiting.pop(game.id, None)
        if superseded is not None:
            # An earlier action still waiting for the computer's reply (the person acted
            # again meanwhile, e.g. resigned): this board shows both; close its "thinking".
            lines = [*superseded.lines, *lines]
            await self.confirm(superseded.interaction, "")
        if outcome.finished is None and computer_to_act(game, state):
            self._waiting[game.id] = Waiting(interaction, before, old, lines, new)
            return
        if kind == "play" and outcome.finished is None and same_turn(old, state):
            await self._show_privately(interaction, outcome, lines)
            return
        await self.show(interaction, before, old, outcome, lines, new=new)

    async def _show_privately(
        self, interaction: discord.Interaction[Any], outcome: Outcome, lines: list[str]
    ) -> None:
        """A step inside a turn (an Express chain's) is shown to its player alone, with the
        Play button of the next step; the channel sees the whole turn on the next board."""
        state, game = outcome.state, outcome.game
        if interaction.type == discord.InteractionType.component:
            # A move builder's Confirm: the builder goes on with the next step itself.
            await self.play.board_shown(game)
            return
        prefs, seat = await self.play.viewer_preferences(game, interaction.user.id)
        parts = await self.boards.parts(
            state,
            board_text(outcome, lines),
            board_buttons(game, state),
            theme=player_theme(prefs, await self.boards.theme(game.guild_id)),
            viewer=seat,
            elsewhere=game.against_computer,
        )
        await interaction.edit_original_response(**parts.to_edit())
        kill_point("board_edited")
        await self.play.board_shown(game)

    async def show(
        self,
        interaction: discord.Interaction[Any],
        before: Game,
        old: GameState,
        outcome: Outcome,
        lines: list[str],
        *,
        new: bool,
    ) -> None:
        """Show ``outcome`` through ``interaction`` (its response and webhook: free of the
        global rate limit) where it can reach, then close the interaction."""
        state, game = outcome.state, outcome.game
        content = board_text(outcome, lines)
        buttons = board_buttons(game, state)
        actor = actor_id(game, state)
        turn_starts = (
            new
            or actor != actor_id(before, old)
            or (state.resign_offer is not None and old.resign_offer is None)
        )
        pinged = actor if turn_starts else None
        if not await self.play.should_ping(game, pinged, just_acted=interaction.user.id):
            pinged = None
        parts = await self.boards.public(game, state, content, buttons)
        on_board = _clicked_on(interaction, before.board_message_id)
        board_id = before.board_message_id
        if (
            not new
            and board_id is not None
            and not on_board
            and not self.boards.can_edit(game.channel_id, board_id)
        ):
            # Where the bot is not a member, a board whose webhook has expired cannot be
            # edited: this interaction's follow-up is the board now.
            new = True
        if not new and board_id is not None:
            try:
                if on_board:
                    await interaction.edit_original_response(**parts.to_edit())
                    self.boards.remember_original(board_id, interaction)
                    self.boards.remember_face(board_id, parts.face)
                else:
                    await self.boards.redraw(game.channel_id, board_id, parts)
            except (discord.NotFound, OutOfReach):
                # Deleted, or out of reach (its webhook expired where the bot is not a
                # member): a new one below, with a fresh picture.
                new = True
                parts = await self.boards.public(game, state, content, buttons)
            else:
                kill_point("board_edited")
                await self._result_card(outcome)
                # The command's private note first: a follow-up would otherwise fill it.
                await self.confirm(interaction, lines[0] if lines else "Done.")
                if pinged is not None:
                    # Part of the board's debt: marked shown only once the notice is out too.
                    await self._turn_notice(game, state, board_id, pinged, interaction)
                await self.play.board_shown(game)
        if new or board_id is None:
            message = await self._new_board(interaction, game, parts, pinged)
            kill_point("board_posted")
            await self._result_card(outcome)
            await self.play.board_posted(game, message.id)
            if board_id is not None and board_id != message.id and board_buttons(before, old):
                # The new board has the live buttons; the old one's no longer apply.
                if on_board:
                    try:
                        await interaction.edit_original_response(
                            **await self.boards.without_buttons(
                                game.channel_id, board_id, interaction.message
                            )
                        )
                    except discord.HTTPException:
                        log.info("could not clear the buttons of board %s", board_id)
                else:
                    await self.boards.clear_buttons(game.channel_id, board_id)

    async def _new_board(
        self,
        interaction: discord.Interaction[Any],
        game: Game,
        parts: BoardParts,
        pinged: int | None,
    ) -> discord.Message:
        """A new board message: the interaction's follow-up when it was used in the game's
        channel (free), else a channel message."""
        # The command's private "thinking" goes first: a follow-up would otherwise fill it
        # (and be private too).
        await self.confirm(interaction, "")
        if interaction.channel_id == game.channel_id:
            try:
                message: discord.Message = await interaction.followup.send(
                    wait=True, **parts.to_send(pinged)
                )
            except discord.HTTPException as exc:
                # The interaction is gone (acknowledged too late, expired): the board does not
                # need it, it goes to the channel (a fresh picture: the sent one is consumed).
                log.info("board of game %s not sent as a follow-up: %s", game.id, exc)
                parts = await self.boards.public(
                    game, self.table.state_of(game), parts.face.text, parts.buttons
                )
            else:
                self.boards.remember_followup(message.id, interaction)
                self.boards.remember_face(message.id, parts.face)
                return message
        return await self.boards.post(
            game.channel_id, parts, pinged, nonce=board_nonce(game.id, game.version)
        )

    async def _turn_notice(
        self,
        game: Game,
        state: GameState,
        board_id: int,
        pinged: int,
        interaction: discord.Interaction[Any] | None = None,
    ) -> None:
        """The ping of a player whose decision a board edited in place now waits for (an
        offer to resign, a double), when they are away: edits never notify. It belongs to the
        board's debt (posted before the board is marked shown), so a crash in between posts
        it from the restart instead: once, since a notice already out (found in the channel,
        or by its nonce) is not posted again. Never raises."""
        link = message_link(game.guild_id, game.channel_id, board_id)
        content = clip(f"{prompt(game, state)} ({link})")
        try:
            if interaction is not None and interaction.channel_id == game.channel_id:
                await interaction.followup.send(content, allowed_mentions=ping(pinged))
            elif interaction is None and await self.boards.find_text(game.channel_id, content):
                return  # out before the crash, only the board's note of it lost
            else:
                await self.boards.send_text(
                    game.channel_id, content, pinged, nonce=f"bg{game.id}n{game.version}"[:25]
                )
            kill_point("turn_notice_posted")
        except discord.HTTPException as exc:
            log.info("could not post the turn notice of game %s: %s", game.id, exc)

    async def _result_card(self, outcome: Outcome) -> None:
        """When a game played in a thread ends, its result card in the channel it came from
        (the thread's last board is the card there): a board layout in the winner's colour
        with the result and the buttons of a finished game (the picture stays in the thread).
        Posted while the last board is still
        owed, so a crash before the card leaves a debt whose payment posts it; posted once:
        a card already in the channel (a crash after it) is not posted again, and the nonce
        covers a second process racing this one."""
        game = outcome.game
        state = outcome.state
        if not state.is_over or game.parent_channel_id is None:
            return
        if game.board_owed_version is None and outcome.finished is None:
            return  # nothing owed: the card went out with the board
        kill_point("before_result_card")
        link = f"<#{game.channel_id}>"
        content = f"{final_text(outcome)}\nPlayed in {link}."
        try:
            # Paying a debt (a restart): the card may be out already, only its note lost.
            if outcome.finished is None and await self.boards.find_result_card(
                game.parent_channel_id, game.id
            ):
                return
            await self.boards.post_card(
                game.parent_channel_id,
                state,
                content,
                board_buttons(game, state),
                theme=await self.boards.theme(game.guild_id),
                nonce=f"bgr{game.id}"[:25],
            )
            kill_point("result_card_posted")
        except discord.HTTPException as exc:
            log.info("could not post the result card of game %s: %s", game.id, exc)


@dataclass
class Waiting:
    """A person's accepted action, shown with the computer's reply that follows it."""

    interaction: discord.Interaction[Any]
    before: Game
    old: GameState
    lines: list[str]
    new: bool

    @property
    def channel_id(self) -> int:
        return self.before.channel_id


def _clicked_on(interaction: discord.Interaction[Any], message_id: int | None) -> bool:
    """Whether ``interaction`` is a click on message ``message_id`` (its response can edit
    that message for free)."""
    msg = interaction.message
    return (
        message_id is not None
        and interaction.type == discord.InteractionType.component
        and msg is not None
        and msg.id == message_id
    )


def board_text(outcome: Outcome, lines: list[str], limit: int = MAX_TEXT) -> str:
    """A board's text: what happened since the last board, pips and score, who acts now (or
    the result); at most ``limit`` characters (a layout's text display)."""
    state, game = outcome.state, outcome.game
    last = final_text(outcome) if state.is_over else prompt(game, state)
    tail = "\n".join(line for line in (status_line(state), last) if line)
    # Whatever the names' lengths, the result and who acts now are never cut: the lines of
    # what happened give way first, oldest first.
    room = limit - len(tail) - 1
    kept: list[str] = []
    for line in reversed([line for line in lines[-8:] if line]):
        line = line if len(line) <= 400 else line[:397] + "..."
        if len(line) + 1 > room:
            break
        kept.insert(0, line)
        room -= len(line) + 1
    return "\n".join([*kept, tail])
