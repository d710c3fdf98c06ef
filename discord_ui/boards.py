"""How games appear in a channel: one board message per human turn, edited in place while
the same player acts (a roll, a cube action, the computer's reply), a new one when the turn
passes to the other player. Only the player to act is ever pinged, and only when they are away.

Discord's global rate limit counts every REST call of the bot except interaction responses and
their webhook. So a board is shown through the interaction that caused it wherever possible:
the webhook of the interaction that posted a board can edit it for 15 minutes
(:meth:`Boards.remember`), and only what no interaction can reach goes through the channel.
"""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import discord

from app.table import SHARED_VIEWER, Game, GameTable
from engine.game import DOUBLE, ROLL, GameState
from render.game_scene import alt_text

from .layout import (
    BOARD_FILE,
    BoardFace,
    board_layout,
    clip_text,
    custom_ids_of,
    face_of,
    seat_colour,
    seat_to_show,
)

log = logging.getLogger(__name__)

#: Discord's message length is 2000; keep room for a status line added later.
MAX_CONTENT = 1800
#: How many boards' faces are kept to take their buttons away without reading them back.
FACES_KEPT = 2000
NO_PINGS = discord.AllowedMentions.none()
#: An interaction's webhook works for 15 minutes; leave a margin for the edit in flight.
HOOK_SECONDS = 14 * 60.0
#: Edits a message through an interaction's webhook (keyword arguments of a message edit).
Hook = Callable[..., Awaitable[Any]]


class OutOfReach(discord.HTTPException):
    """A channel where the bot is not a member (the app is installed to a player's account
    there): Discord would refuse any channel call (403, Missing Access), so none is made.
    A :class:`discord.HTTPException`, so every "Discord refused" path handles it."""

    def __init__(self, channel_id: int) -> None:
        Exception.__init__(self, f"channel {channel_id} is reachable only through interactions")
        self.response: Any = None
        self.text = str(self)
        self.status = 403
        self.code = 50001  # Discord's Missing Access


def board_nonce(game_id: int, version: int) -> str:
    """The nonce of the board of ``game_id`` at ``version``: posting it twice (a restart, a
    second process) returns the first message instead of a second one (Discord keeps nonces
    for a few minutes; at most 25 characters)."""
    return f"bg{game_id}v{version}"[:25]


def ping(user_id: int | None) -> discord.AllowedMentions:
    """Allow exactly one user to be pinged (never roles, never everyone)."""
    if user_id is None:
        return NO_PINGS
    return discord.AllowedMentions(
        everyone=False, roles=False, users=[discord.Object(id=user_id)], replied_user=False
    )


def actor_id(game: Game, state: GameState) -> int | None:
    """The user who must act now (None once the game is over)."""
    if state.is_over:
        return None
    if state.resign_offer is not None:
        return GameTable.user_of(game, 1 - state.resign_offer[0])
    return GameTable.user_of(game, state.mover)


def has_buttons(state: GameState) -> bool:
    if state.is_over:
        return False
    return (
        state.resign_offer is not None
        or state.phase == DOUBLE
        or (state.phase == ROLL and state.rules.has_cube)
    )


def clip(text: str) -> str:
    """A plain message's text (a notice, a challenge), within Discord's content limit."""
    return clip_text(text, MAX_CONTENT)


@dataclass
class BoardParts:
    """One board message to send: its layout (face and buttons) and its picture."""

    face: BoardFace
    file: discord.File
    buttons: list[discord.ui.Item[Any]] = field(default_factory=list)

    @property
    def layout(self) -> discord.ui.LayoutView:
        return board_layout(self.face, self.buttons)

    def to_send(self, pinged: int | None) -> dict[str, Any]:
        """Keyword arguments of a new message (a channel's send, a follow-up)."""
        return {"view": self.layout, "file": self.file, "allowed_mentions": ping(pinged)}

    def to_edit(self) -> dict[str, Any]:
        """Keyword arguments of an edit that redraws a board (edits never ping). ``content``
        goes empty: a message with text content cannot become a layout."""
        return {
            "content": None,
            "view": self.layout,
            "attachments": [self.file],
            "allowed_mentions": NO_PINGS,
        }


class Boards:
    """Posts, edits and retires board messages (the Discord side of a game's presentation)."""

    def __init__(
        self, client: discord.Client, table: GameTable, theme: Callable[[int], Awaitable[str]]
    ) -> None:
        self.client = client
        self.table = table
        #: The theme of the boards posted in a guild's channels (/settings theme).
        self._theme = theme
        #: message id -> (an interaction webhook that can edit it, until when).
        self._hooks: dict[int, tuple[Hook, float]] = {}
        #: message id -> what that board shows, to take its buttons away without reading it.
        self._faces: dict[int, BoardFace] = {}
        #: Channels of games where the bot is not a member: only interactions reach them.
        self._interaction_only: set[int] = set()

    def remember_face(self, message_id: int, face: BoardFace) -> None:
        """Board ``message_id`` now shows ``face``."""
        if len(self._faces) >= FACES_KEPT:  # the oldest boards are the least likely cleared
            for old in list(self._faces)[: FACES_KEPT // 2]:
                del self._faces[old]
        self._faces.pop(message_id, None)
        self._faces[message_id] = face

    def note(self, game: Game) -> None:
        """Learn whether ``game``'s channel takes channel calls (see :class:`OutOfReach`)."""
        if not game.channel_reachable:
            self._interaction_only.add(game.channel_id)

    def reachable(self, channel_id: int) -> bool:
        """Whether the bot may post, edit or read in the channel itself."""
        return channel_id not in self._interaction_only

    def can_edit(self, channel_id: int, message_id: int) -> bool:
        """Whether message ``message_id`` can be edited (through a live webhook, or through
        the channel where the bot is a member)."""
        entry = self._hooks.get(message_id)
        return self.reachable(channel_id) or (entry is not None and entry[1] > time.monotonic())

    def remember(self, message_id: int, hook: Hook) -> None:
        """``hook`` edits message ``message_id`` for free for the next minutes."""
        now = time.monotonic()
        if len(self._hooks) > 1000:  # forget the expired ones now and then
            self._hooks = {k: v for k, v in self._hooks.items() if v[1] > now}
        self._hooks[message_id] = (hook, now + HOOK_SECONDS)

    def remember_followup(self, message_id: int, interaction: discord.Interaction[Any]) -> None:
        """A message that ``interaction`` posted as a followup."""

        async def hook(**kwargs: Any) -> Any:
            return await interaction.followup.edit_message(message_id, **kwargs)

        self.remember(message_id, hook)

    def remember_original(self, message_id: int, interaction: discord.Interaction[Any]) -> None:
        """The message of ``interaction``'s own response (a command's reply, or the message
        whose component was clicked)."""
        self.remember(message_id, interaction.edit_original_response)

    async def edit_message(self, channel_id: int, message_id: int, **kwargs: Any) -> Any:
        """Edit a message, through a remembered interaction webhook when one is still valid
        (free), else through the channel (one rate-limited call). Raises on failure."""
        entry = self._hooks.get(message_id)
        if entry is not None and entry[1] > time.monotonic():
            try:
                return await entry[0](**kwargs)
            except discord.HTTPException as exc:
                log.info(
                    "webhook edit of message %s failed (%s): editing directly", message_id, exc
                )
                self._hooks.pop(message_id, None)
        return await self.channel(channel_id).get_partial_message(message_id).edit(**kwargs)

    async def redraw(self, channel_id: int, message_id: int, parts: BoardParts) -> None:
        """Redraw board ``message_id`` in place (see :meth:`edit_message`). Raises."""
        await self.edit_message(channel_id, message_id, **parts.to_edit())
        self.remember_face(message_id, parts.face)

    async def find_board(
        self, channel_id: int, game_id: int, version: int, *, limit: int = 20
    ) -> discord.Message | None:
        """A board of ``game_id`` at ``version`` already in the channel: its buttons carry the
        game and version (a result card's, the game). Used before paying a board debt, in case
        the board got out and only the note of it was lost (a kill right after the post; a
        follow-up has no nonce). One read of the channel's latest messages."""
        me = self.client.user
        wanted = f":{game_id}:{version}"
        finished = f":{game_id}"
        try:
            async for message in self.channel(channel_id).history(limit=limit):
                if me is None or message.author.id != me.id or not message.attachments:
                    continue
                for custom_id in custom_ids_of(message):
                    if custom_id.endswith(wanted) or (
                        custom_id.startswith("bg:res:") and custom_id.endswith(finished)
                    ):
                        return message
        except discord.HTTPException as exc:
            log.info("could not read the history of channel %s: %s", channel_id, exc)
        return None

    async def find_result_card(
        self, channel_id: int, game_id: int, *, limit: int = 50
    ) -> discord.Message | None:
        """The result card of ``game_id`` already in the channel (its buttons name the game),
        or None. One read of the channel's latest messages; a failed read counts as none."""
        me = self.client.user
        try:
            async for message in self.channel(channel_id).history(limit=limit):
                if me is None or message.author.id != me.id:
                    continue
                for custom_id in custom_ids_of(message):
                    if custom_id.startswith("bg:res:") and custom_id.endswith(f":{game_id}"):
                        return message
        except discord.HTTPException as exc:
            log.info("could not read the history of channel %s: %s", channel_id, exc)
        return None

    async def without_buttons(
        self, channel_id: int, message_id: int, message: discord.Message | None = None
    ) -> dict[str, Any]:
        """The edit that takes board ``message_id``'s buttons away and keeps the rest: its
        layout again without the action row, its picture kept (an edit without
        ``attachments`` keeps the message's own). What the board shows comes from
        ``message`` when given (a clicked board), else from memory, else from Discord (one
        read, after a restart)."""
        face = face_of(message) if message is not None else self._faces.get(message_id)
        if face is None and message is None:
            message = await self.channel(channel_id).fetch_message(message_id)
            face = face_of(message)
        if face is None:
            return {"view": None}  # a plain message (from before layouts): text and picture stay
        self.remember_face(message_id, face)
        return {"view": board_layout(face), "allowed_mentions": NO_PINGS}

    async def clear_buttons(
        self, channel_id: int, message_id: int | None, message: discord.Message | None = None
    ) -> None:
        """Remove a board's buttons (they no longer apply); its text and picture stay. Never
        raises: a message deleted by a moderator needs no tidying."""
        if message_id is None:
            return
        try:
            edit = await self.without_buttons(channel_id, message_id, message)
            await self.edit_message(channel_id, message_id, **edit)
        except discord.HTTPException as exc:
            log.info("could not clear the buttons of %s in %s: %s", message_id, channel_id, exc)

    def channel(self, channel_id: int) -> discord.PartialMessageable:
        """The channel, for a REST call; raises :class:`OutOfReach` where the bot is not a
        member (no call is made that Discord would refuse)."""
        if channel_id in self._interaction_only:
            raise OutOfReach(channel_id)
        return self.client.get_partial_messageable(channel_id)

    async def file(
        self,
        state: GameState,
        *,
        theme: str = "default",
        viewer: int | None = None,
        elsewhere: bool = False,
    ) -> discord.File:
        png = await self.table.render(state, theme=theme, viewer=viewer, elsewhere=elsewhere)
        return discord.File(
            io.BytesIO(png),
            filename=BOARD_FILE,
            description=alt_text(state, state.players, SHARED_VIEWER if viewer is None else viewer),
        )

    async def theme(self, guild_id: int) -> str:
        """The theme of the boards posted in the guild's channels (/settings theme)."""
        return await self._theme(guild_id)

    async def parts(
        self,
        state: GameState,
        text: str,
        buttons: Sequence[discord.ui.Item[Any]] | None,
        *,
        theme: str,
        viewer: int | None = None,
        elsewhere: bool = False,
    ) -> BoardParts:
        """A board message: the picture drawn in ``theme`` (from ``viewer``'s side), the
        container in the colour of the player to act, ``text`` and ``buttons``."""
        file = await self.file(state, theme=theme, viewer=viewer, elsewhere=elsewhere)
        face = BoardFace(
            clip_text(text), seat_colour(theme, seat_to_show(state)), file.description or ""
        )
        return BoardParts(face, file, list(buttons or ()))

    async def public(
        self,
        game: Game,
        state: GameState,
        text: str,
        buttons: Sequence[discord.ui.Item[Any]] | None,
    ) -> BoardParts:
        """A board of ``game`` for its channel: the server's theme, the shared side."""
        return await self.parts(
            state,
            text,
            buttons,
            theme=await self.theme(game.guild_id),
            elsewhere=game.against_computer,
        )

    async def post(
        self,
        channel_id: int,
        parts: BoardParts,
        pinged: int | None,
        *,
        nonce: str | None = None,
    ) -> discord.Message:
        """A new board message in the channel; ``pinged`` is the only user it may notify.
        ``nonce``: see :func:`board_nonce`."""
        kwargs = parts.to_send(pinged)
        if nonce is not None:
            kwargs["nonce"] = nonce
        message = await self.channel(channel_id).send(**kwargs)
        self.remember_face(message.id, parts.face)
        return message

    async def post_card(
        self,
        channel_id: int,
        state: GameState,
        text: str,
        buttons: Sequence[discord.ui.Item[Any]],
        *,
        theme: str,
        nonce: str,
    ) -> discord.Message:
        """A board's layout without its picture (a result card where the game's thread has
        the final board): the colour of the winner, ``text`` and ``buttons``. Pings nobody."""
        face = BoardFace(clip_text(text), seat_colour(theme, seat_to_show(state)), None)
        message = await self.channel(channel_id).send(
            view=board_layout(face, buttons), allowed_mentions=NO_PINGS, nonce=nonce
        )
        self.remember_face(message.id, face)
        return message

    async def retire(
        self,
        channel_id: int,
        message_id: int | None,
        status: str,
        message: discord.Message | None = None,
    ) -> bool:
        """Remove a message's buttons and add a status line (its buttons no longer apply).
        A message without buttons is retired already (a second process, a restart paying the
        debt again): it is left as it is, so the line is never added twice. False only when
        Discord failed for now (a server error, a rate limit): worth another try later."""
        if message_id is None and message is None:
            return True
        try:
            if message is None:
                assert message_id is not None
                message = await self.channel(channel_id).fetch_message(message_id)
            if not custom_ids_of(message):
                return True
            face = face_of(message)
            if face is not None:  # a board layout: the line goes under its text
                if status and not face.text.endswith(status):
                    face = BoardFace(clip_text(f"{face.text}\n{status}"), face.colour, face.alt)
                self.remember_face(message.id, face)
                await message.edit(view=board_layout(face), allowed_mentions=NO_PINGS)
                return True
            content = message.content
            if status and not content.endswith(status):
                content = clip(f"{content}\n{status}" if content else status)
            await message.edit(content=content, view=None, allowed_mentions=NO_PINGS)
        except (discord.NotFound, discord.Forbidden) as exc:
            # Deleted by a moderator, or no access any more: nothing left to tidy.
            log.info("could not retire message %s in %s: %s", message_id, channel_id, exc)
        except discord.HTTPException as exc:
            log.info("could not retire message %s in %s yet: %s", message_id, channel_id, exc)
            return False
        return True

    async def send_text(
        self, channel_id: int, content: str, pinged: int | None, *, nonce: str | None = None
    ) -> None:
        """A plain message (a notice); ``nonce``: a second post returns the first message."""
        kwargs: dict[str, Any] = {"allowed_mentions": ping(pinged)}
        if nonce is not None:
            kwargs["nonce"] = nonce
        await self.channel(channel_id).send(clip(content), **kwargs)

    async def find_text(self, channel_id: int, content: str, *, limit: int = 20) -> bool:
        """Whether the bot's latest messages in the channel include a plain message saying
        exactly ``content`` (a notice out before a crash; a follow-up has no nonce). One read
        of the channel's history; a failed read counts as not found."""
        me = self.client.user
        wanted = clip(content)
        try:
            async for message in self.channel(channel_id).history(limit=limit):
                if me is not None and message.author.id == me.id and message.content == wanted:
                    return True
        except discord.HTTPException as exc:
            log.info("could not read the history of channel %s: %s", channel_id, exc)
        return False
