"""Slash commands and buttons that run games in channels (one game per channel or thread).

The cog is thin: it checks who may act, asks the GameTable to do it, and replies. Players get
engine messages verbatim (what is wrong and what would be legal) as ephemeral replies.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Callable, Coroutine
from typing import Any

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands, tasks

from ai.pool import AIPool
from ai.types import LEVELS, STRONGEST
from cogs.common import guarded, mention, reply_error, send_committed
from cogs.computer import LEVEL_ABOUT, ComputerTurns, computer_name, computer_to_act
from cogs.options import MatchLength, Variant
from cogs.table import Action, GameTable, Outcome
from engine import VARIANTS, EngineError, get_variant
from engine.game import DOUBLE, MOVE, ROLL, GameState
from interop.gnubg import gnubg_id
from render.game_scene import result_text
from storage import (
    Challenge,
    ChannelBusyError,
    ConflictError,
    DatabaseGoneError,
    Game,
    NewMove,
    Storage,
)

log = logging.getLogger(__name__)

LEVEL_CHOICES = [
    app_commands.Choice(name=f"{level}: {LEVEL_ABOUT[level]}"[:100], value=level)
    for level in LEVELS
]
BOARD_FILE = "board.png"


def _display(user: discord.abc.User) -> str:
    return user.display_name[:32]


class GameButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:(?P<action>roll|double|take|pass):(?P<game>\d+):(?P<version>\d+)",
):
    """Roll / Double / Take / Pass under a board; persistent across restarts (ids in custom_id)."""

    LABELS = {"roll": "Roll", "double": "Double", "take": "Take", "pass": "Pass"}
    STYLES = {
        "roll": discord.ButtonStyle.primary,
        "double": discord.ButtonStyle.secondary,
        "take": discord.ButtonStyle.success,
        "pass": discord.ButtonStyle.danger,
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
            interaction, cog.cube_action(interaction, self.action, self.game_id, self.version)
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
    if state.phase == ROLL and state.rules.has_cube:
        actions = ["roll", "double"] if state.can_double(state.turn) else ["roll"]
    elif state.phase == DOUBLE:
        actions = ["take", "pass"]
    else:
        return None
    view = discord.ui.View(timeout=None)
    for action in actions:
        view.add_item(GameButton(action, game.id, game.version))
    return view


def prompt(game: Game, state: GameState) -> str:
    """Who must do what now, with a mention so the player is notified."""
    if state.is_over:
        return ""
    if computer_to_act(game, state):
        return f"{state.players[state.mover]} is thinking..."
    who = mention(GameTable.user_of(game, state.mover))
    if state.phase == ROLL:
        return f"{who}, roll (or double) with the buttons, /roll or /double."
    if state.phase == DOUBLE:
        return f"{who}, you are offered a double to {state.cube * 2}: /take or /pass."
    if state.chain is not None:
        value, copies = state.chain.pending[0]
        later = ", ".join(f"{k}x {v}" for v, k in state.chain.pending[1:])
        then = f" (then {later})" if later else ""
        return f"{who}, your turn in the chain: play {copies}x {value}{then} with /move."
    assert state.dice is not None
    return f"{who}, you rolled {state.dice.high}-{state.dice.low}: play with /move."


class Games(commands.Cog):
    """Challenges and games."""

    def __init__(self, bot: commands.Bot, table: GameTable, pool: AIPool) -> None:
        self.bot = bot
        self.table = table
        self.db: Storage = table.db
        #: Channels whose latest board never reached Discord (an action was committed but its
        #: reply failed): the board is posted the next time anyone uses a game command there.
        self._owed_boards: set[int] = set()
        self.computer = ComputerTurns(bot, table, pool, self.post_board)

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(GameButton, ChallengeButton)
        self.expire_challenges.start()

    async def cog_unload(self) -> None:
        self.expire_challenges.cancel()
        self.bot.remove_dynamic_items(GameButton, ChallengeButton)
        await self.computer.close()

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        # Turns the computer owed when the bot stopped (even killed) are played now.
        resumed = await self.computer.resume()
        if resumed:
            log.info("resumed the computer's turn in %d game(s)", resumed)

    def _after_action(self, outcome: Outcome) -> None:
        """Hand the turn to the computer when it is its move."""
        if computer_to_act(outcome.game, outcome.state):
            self.computer.schedule(outcome.game)

    # --- helpers ----------------------------------------------------------------------------

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        command = interaction.command.name if interaction.command else ""
        if command != "board":  # /board shows it anyway
            await self._deliver_owed_board(interaction)
        return True

    async def _deliver_owed_board(self, interaction: discord.Interaction[Any]) -> None:
        """Post the board a failed reply left out, as a plain channel message (never raises)."""
        channel_id = interaction.channel_id
        if channel_id is None or channel_id not in self._owed_boards:
            return
        self._owed_boards.discard(channel_id)
        try:
            game = await self.db.get_active_game(channel_id)
            channel = interaction.channel
            if game is None or channel is None or not hasattr(channel, "send"):
                return
            state = self.table.state_of(game)
            png = await self.table.render(state)
            kwargs: dict[str, Any] = {
                "content": prompt(game, state) or "The current board:",
                "file": discord.File(io.BytesIO(png), filename=BOARD_FILE),
                "allowed_mentions": discord.AllowedMentions(users=True),
            }
            view = board_view(game, state)
            if view is not None:
                kwargs["view"] = view
            await channel.send(**kwargs)
        except Exception:
            self._owed_boards.add(channel_id)  # try again at the next command
            log.warning("could not post the owed board in channel %s", channel_id, exc_info=True)

    async def _reply_committed(
        self,
        interaction: discord.Interaction[Any],
        channel_id: int,
        send: Coroutine[Any, Any, None],
        recorded: str,
    ) -> None:
        """Send the reply to an action that is already committed (see ``send_committed``);
        if Discord did not take it, the channel is owed its board."""
        if await send_committed(interaction, send, recorded):
            self._owed_boards.discard(channel_id)
        else:
            self._owed_boards.add(channel_id)

    async def _active_game(self, interaction: discord.Interaction[Any]) -> Game | None:
        assert interaction.channel_id is not None
        game = await self.db.get_active_game(interaction.channel_id)
        if game is None:
            await reply_error(
                interaction, "There is no game in this channel. Start one with /challenge."
            )
        return game

    async def _board_message(self, outcome: Outcome, header: str) -> dict[str, Any]:
        state = outcome.state
        png = await self.table.render(state, elsewhere=outcome.game.against_computer)
        lines = [header] if header else []
        lines.extend(outcome.events)
        if outcome.finished is not None:
            lines.append(self._final_text(outcome))
        else:
            lines.append(prompt(outcome.game, state))
        content = "\n".join(line for line in lines if line)[:1900]
        file = discord.File(io.BytesIO(png), filename=BOARD_FILE)
        view = board_view(outcome.game, state)
        kwargs: dict[str, Any] = {"content": content, "file": file}
        if view is not None:
            kwargs["view"] = view
        kwargs["allowed_mentions"] = discord.AllowedMentions(
            users=True, roles=False, everyone=False
        )
        return kwargs

    async def _send_board(
        self, interaction: discord.Interaction[Any], outcome: Outcome, header: str
    ) -> None:
        try:
            kwargs = await self._board_message(outcome, header)
            if interaction.response.is_done():
                await interaction.followup.send(**kwargs)
            else:
                await interaction.response.send_message(**kwargs)
        finally:
            # After the person's board (so the computer's comes second), even if Discord
            # refused the reply: the action is committed and the computer must answer it.
            self._after_action(outcome)

    async def post_board(self, game: Game, outcome: Outcome, header: str) -> None:
        """Post a board in the game's channel without an interaction (the computer's turns)."""
        kwargs = await self._board_message(outcome, header)
        channel = self.bot.get_channel(game.channel_id)
        try:
            if channel is None:
                channel = await self.bot.fetch_channel(game.channel_id)
            if isinstance(channel, discord.abc.Messageable):
                await channel.send(**kwargs)
        except (discord.HTTPException, aiohttp.ClientError, TimeoutError, OSError) as exc:
            # The move is committed: the channel is owed its board (posted at the next command).
            log.warning("could not post the board of game %s: %s", game.id, exc)
            self._owed_boards.add(game.channel_id)
        else:
            self._owed_boards.discard(game.channel_id)
        self._after_action(outcome)

    def _final_text(self, outcome: Outcome) -> str:
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
                    changes.append(
                        f"{state.players[seat]} {change.after.rating:.0f} ({delta:+.0f})"
                    )
            if changes:
                text += "\nRatings: " + ", ".join(changes)
        if not outcome.game.rated:
            text += "\nNot rated" + (
                " (a game against the computer)." if outcome.game.against_computer else "."
            )
        return text

    async def _run_action(
        self,
        interaction: discord.Interaction[Any],
        game: Game,
        action: Action,
        kind: str,
        header: Callable[[Outcome], str],
        text: str = "",
    ) -> None:
        """Apply an action under the channel lock; reply with the board or the reason why not."""
        async with self.table.lock(game.channel_id):
            fresh = await self.db.get_game(game.id)
            if fresh is None or fresh.status != "active":
                await reply_error(interaction, "This game is over.")
                return
            try:
                outcome = await self.table.act(fresh, interaction.user.id, action, kind, text)
            except EngineError as exc:
                await reply_error(interaction, exc.message)
                return
            except ConflictError:
                await reply_error(
                    interaction, "Someone acted on this game at the same moment; look again."
                )
                return
        await self._reply_committed(
            interaction,
            game.channel_id,
            self._send_board(interaction, outcome, header(outcome)),
            _recorded(outcome),
        )

    # --- challenges -------------------------------------------------------------------------

    @app_commands.command(name="challenge", description="Challenge someone to a game here")
    @app_commands.describe(
        opponent="Who you want to play",
        variant="Which game to play",
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
        opponent: discord.Member,
        variant: Variant,
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
        if opponent.id == interaction.user.id:
            await reply_error(interaction, "You cannot challenge yourself.")
            return
        computer = self.bot.user is not None and opponent.id == self.bot.user.id
        if opponent.bot and not computer:
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
                opponent.id,
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
        match = f" (match to {length} points)" if length > 1 else ""
        minutes = max(1, settings.challenge_expiry_seconds // 60)
        await interaction.response.send_message(
            f"{opponent.mention}, {interaction.user.mention} challenges you to "
            f"**{get_variant(variant.value).name}**{match}"
            f"{describe_options(variant.value, chosen)}"
            f"{' with hints allowed (not rated)' if hints else ''}. Accept or decline within "
            f"{minutes} min (buttons, /accept or /decline).",
            view=view,
            allowed_mentions=discord.AllowedMentions(users=[opponent]),
        )
        try:
            message = await interaction.original_response()
        except (discord.HTTPException, aiohttp.ClientError, TimeoutError) as exc:
            # The challenge is posted and its buttons and /accept work without the id, which
            # only lets the bot tidy the message up later.
            log.warning("challenge %s posted but its message not re-read: %s", challenge.id, exc)
            return
        await self.db.set_challenge_message(challenge.id, message.id)

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
        await self._send_board(interaction, outcome, header)

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
        return choices[:25]

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
            status = "cancelled"  # the challenger withdraws it
        elif user == challenge.opponent_id:
            status = "accepted" if accept else "declined"
        else:
            await reply_error(interaction, "Only the challenged player can answer this challenge.")
            return
        async with self.table.lock(challenge.channel_id):
            if not accept:
                if await self.db.set_challenge_status(challenge.id, status) is None:
                    await reply_error(interaction, "This challenge was already answered.")
                    return
                await interaction.response.send_message(
                    f"The challenge by {mention(challenge.challenger_id)} was {status}.",
                    allowed_mentions=discord.AllowedMentions.none(),
                )
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
                outcome = await self.table.start(challenge, names)
            except ChannelBusyError:
                await reply_error(interaction, "A game is already running in this channel.")
                return
            except ConflictError:
                await reply_error(
                    interaction, "This challenge was already answered or has expired."
                )
                return
        header = (
            f"**{get_variant(challenge.variant).name}**: {names[0]} (light) vs {names[1]} (dark)"
            + (f", match to {challenge.match_length}" if challenge.match_length > 1 else "")
            + describe_options(challenge.variant, challenge.options)
        )
        opening = outcome.state.record
        header += "\n" + "; ".join(line for line in opening if line.startswith("opening roll"))
        await self._reply_committed(
            interaction,
            challenge.channel_id,
            self._send_board(interaction, outcome, header),
            "You accepted: the game has started, but Discord did not take the reply. "
            "/board shows the game.",
        )

    @tasks.loop(seconds=30)
    async def expire_challenges(self) -> None:
        try:
            shards = getattr(self.bot, "owned_shards", None)
            for challenge in await self.db.expire_challenges(self.table.clock(), shards=shards):
                log.info("challenge %s expired", challenge.id)
        except DatabaseGoneError:
            pass  # logged CRITICAL once by the storage; a traceback every 30 s adds nothing
        except Exception:
            log.exception("expiring challenges failed")

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
            return outcome.action_line or f"{_display(interaction.user)}: {play}"

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
        typed = " ".join(current.lower().replace(",", " ").split())
        texts = self.table.legal_texts(game)
        starts = [t for t in texts if (t or "pass").startswith(typed)]
        contains = [t for t in texts if typed in (t or "pass") and t not in starts]
        return [
            app_commands.Choice(name=t or "pass (no legal move)", value=t or "pass")
            for t in (starts + contains)[:25]
        ]

    async def _check_turn(
        self, interaction: discord.Interaction[Any], game: Game, phase: str
    ) -> bool:
        seat = GameTable.seat_of(game, interaction.user.id)
        if seat is None:
            await reply_error(interaction, "You are watching this game; only the players can act.")
            return False
        state = self.table.state_of(game)
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

    async def cube_action(
        self, interaction: discord.Interaction[Any], action: str, game_id: int, version: int
    ) -> None:
        game = await self.db.get_game(game_id)
        if game is None or game.status != "active":
            await reply_error(interaction, "This game is over.")
            return
        if game.version != version:
            await reply_error(interaction, "These buttons belong to an older board.")
            return
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
        name = _display(interaction.user)

        def header(outcome: Outcome) -> str:
            state = outcome.state
            if action == "roll":
                return f"{name} rolls."
            if action == "double":
                return f"{name} doubles to {state.cube * 2}."
            if action == "take":
                return f"{name} takes: the cube is at {state.cube}."
            return f"{name} passes."

        await self._run_action(interaction, game, actions[action], action, header)

    # --- other game commands -------------------------------------------------------------------

    @app_commands.command(name="board", description="Show the current board again")
    @app_commands.guild_only()
    async def board(self, interaction: discord.Interaction[Any]) -> None:
        game = await self._active_game(interaction)
        if game is None:
            return
        state = self.table.state_of(game)
        header = f"gnubg ID: `{gnubg_id(state)}`" if state.variant == "classic" else ""
        await self._send_board(interaction, Outcome(game, state), header)
        self._owed_boards.discard(game.channel_id)

    @app_commands.command(name="resign", description="Resign the current game")
    @app_commands.guild_only()
    async def resign(self, interaction: discord.Interaction[Any]) -> None:
        game = await self._active_game(interaction)
        if game is None:
            return
        if GameTable.seat_of(game, interaction.user.id) is None:
            await reply_error(interaction, "Only the players can resign.")
            return
        name = _display(interaction.user)
        await self._run_action(
            interaction,
            game,
            lambda s, seat: s.resign(seat),
            "resign",
            lambda outcome: f"{name} resigns.",
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
                allowed_mentions=discord.AllowedMentions(users=True),
            )
        elif result == "repeated":
            await reply_error(
                interaction,
                "You have already asked to abort this game; "
                f"waiting for {mention(other) if other else 'your opponent'} to agree with /abort.",
            )
        else:
            await self._reply_committed(
                interaction,
                game.channel_id,
                interaction.response.send_message("The game was aborted; it is not rated."),
                "The game was aborted (not rated), but Discord did not take the reply.",
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
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @app_commands.command(name="help", description="How to play with this bot")
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        embed = discord.Embed(title="Backgammon variants", description=HELP_TEXT)
        await interaction.response.send_message(embed=embed, ephemeral=True)


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


HELP_TEXT = """\
**Start**: `/challenge @someone variant [length] [options] [hints]`, then the opponent presses
Accept (or `/accept`). `/rules variant` lists a game's options (e.g. `plakoto`, `mustEnterAll`).
`hints:true` lets both players use `/hint` (the game is then not rated).
**The computer**: `/challenge @this-bot variant [length] [level]` starts at once (not rated,
`/hint` allowed). Levels, weakest first: {levels}.
**Play**: `/move 24/18 13/11` in standard notation: `bar/22*` enters and hits, `6/off` bears off,
`8/2(2)` moves two checkers, `^` marks a pin/trap, `pass` when you cannot move. The move box
suggests your legal plays as you type. Forced moves are played for you.
**Cube** (backgammon only): `/double` or the Double button before rolling; `/take` or `/pass`.
**More**: `/board` shows the board again, `/resign`, `/abort` (both players or a moderator),
`/rules variant` for a rules card.
**League**: `/leaderboard`, `/stats`, `/history`, `/record` (a game's record as a file),
`/claim` (your opponent has been idle too long), `/settings` (server managers).
**Learn**: `/hint` (best plays, only you see it), `/review game` (mistakes and luck, with a chart
of the winning chances), `/replay game` (an animated replay), `/record game format:mat`
(backgammon: a match file for GNU Backgammon).
""".replace("{levels}", ", ".join(f"`{level}` ({LEVEL_ABOUT[level]})" for level in LEVELS))


async def setup(bot: commands.Bot) -> None:
    table = getattr(bot, "table", None)
    if not isinstance(table, GameTable):
        raise RuntimeError("the bot must create its GameTable before loading cogs.games")
    pool = getattr(bot, "ai_pool", None)
    if not isinstance(pool, AIPool):
        raise RuntimeError("the bot must start its AIPool before loading cogs.games")
    await bot.add_cog(Games(bot, table, pool))
