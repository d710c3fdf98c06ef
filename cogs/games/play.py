"""Playing: /move (with its suggestions), /roll, /double, /take, /pass, the board's buttons,
/board, /resign, /abort and /claim."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands

from app.errors import Refusal
from app.play import AbortAlreadyAsked
from app.records import duration
from app.table import Action, Game, Outcome
from discord_ui.boards import NO_PINGS, ping
from discord_ui.common import anywhere, expensive, mention, message_link, scope
from discord_ui.looks import player_theme
from discord_ui.report_messages import record_message, replay_message, review_message
from discord_ui.review_pages import send_mistakes
from engine import builder
from engine.game import DOUBLE, MOVE, RESIGN_NAMES, ROLL, GameState
from interop.gnubg import gnubg_id
from render.game_scene import plural, roll_text

from .base import GamesBase, board_buttons, board_text, player_name, prompt, recorded
from .buttons import BuilderButton, BuilderSelect, ConfirmButton


class StaleBuilder(Refusal):
    def __init__(self) -> None:
        super().__init__(
            "This move builder belongs to an older position: press Play on the latest board."
        )


class NotAWholePlay(Refusal):
    """Confirm before the chosen steps make a whole legal play."""


RESIGN_CHOICES = [
    app_commands.Choice(name="single game (Pin games: the loser's pips)", value=1),
    app_commands.Choice(name="gammon (x2)", value=2),
    app_commands.Choice(name="backgammon (x3)", value=3),
]
#: Autocomplete shows at most this many choices (Discord's limit).
MAX_CHOICES = 25


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


def play_choices(texts: list[str], pin_word: str) -> list[tuple[str, str]]:
    """(label, value) of the /move suggestions for the matching plays ``texts``: at most
    Discord's 25, every value a legal play; when more match, the last label says how many
    are hidden and how to narrow them (rather than leaving the list silently cut)."""
    shown = [(play_label(t, pin_word), t or "pass") for t in texts[:MAX_CHOICES]]
    if len(texts) > MAX_CHOICES:
        note = f" · {MAX_CHOICES} of {len(texts)} shown: type a point (e.g. 13/) to narrow"
        label, value = shown[-1]
        shown[-1] = (label[: 100 - len(note)] + note, value)
    return shown


class PlayCommands(GamesBase):
    async def _run_action(
        self,
        interaction: discord.Interaction[Any],
        game: Game,
        action: Action,
        kind: str,
        header: Callable[[Outcome], str],
        text: str = "",
    ) -> None:
        """Apply an action (the app refuses it with the reason) and show it under the lock."""
        await self.acknowledge(interaction)

        async def show(before: Game, old: Any, outcome: Outcome) -> None:
            # Still under the lock: the next action waits until its board is out.
            await self.reply_committed(
                interaction,
                game.channel_id,
                self.present(interaction, before, old, outcome, header(outcome), kind),
                recorded(outcome),
            )

        outcome = await self.play.act(game, interaction.user.id, action, kind, show, text)
        self.after_action(outcome)

    async def _active_game(self, interaction: discord.Interaction[Any]) -> Game:
        assert interaction.channel_id is not None
        return await self.play.active_game(interaction.channel_id)

    @app_commands.command(name="move", description="Play your move in standard notation")
    @app_commands.describe(play="Your play, e.g. 24/18 13/11, bar/22*, 6/off, 8/2(2) or pass")
    @anywhere
    async def move(self, interaction: discord.Interaction[Any], play: str) -> None:
        game = await self._active_game(interaction)
        self.play.check_turn(game, interaction.user.id, MOVE)

        def header(outcome: Outcome) -> str:
            name = player_name(game, outcome.state, interaction.user)
            return outcome.action_line or f"{name}: {play}"

        rng = self.table.rng
        await self._run_action(
            interaction, game, lambda s, seat: s.play(seat, play, rng), "play", header
        )

    @move.autocomplete("play")
    async def move_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.channel_id is None:
            return []
        game = await self.play.find_active_game(interaction.channel_id)
        if game is None:
            return []
        chosen = self.play.play_suggestions(game, interaction.user.id, current)
        pin_word = self.table.state_of(game).rules.pin_word
        return [
            app_commands.Choice(name=label, value=value)
            for label, value in play_choices(chosen, pin_word)
        ]

    @app_commands.command(name="roll", description="Roll the dice (classic: instead of doubling)")
    @anywhere
    async def roll(self, interaction: discord.Interaction[Any]) -> None:
        await self._cube(interaction, await self._active_game(interaction), "roll")

    @app_commands.command(name="double", description="Offer a double before rolling (classic)")
    @anywhere
    async def double(self, interaction: discord.Interaction[Any]) -> None:
        await self._cube(interaction, await self._active_game(interaction), "double")

    @app_commands.command(name="take", description="Take the double you were offered")
    @anywhere
    async def take(self, interaction: discord.Interaction[Any]) -> None:
        await self._cube(interaction, await self._active_game(interaction), "take")

    @app_commands.command(
        name="pass", description="Pass the double you were offered (lose the game)"
    )
    @anywhere
    async def pass_(self, interaction: discord.Interaction[Any]) -> None:
        await self._cube(interaction, await self._active_game(interaction), "pass")

    async def button_action(
        self, interaction: discord.Interaction[Any], action: str, game_id: int, version: int
    ) -> None:
        if action == "play":
            # Always the current position: the builder is built on it (a board's Play button
            # stays valid through its player's Express chain, whose steps are private).
            await self._open_builder(interaction, await self.play.game_for_button(game_id, None))
            return
        game = await self.play.game_for_button(game_id, version)
        if action in ("rsyes", "rsno"):
            await self._answer_resign(interaction, game, action == "rsyes")
        else:
            await self._cube(interaction, game, action)

    # --- the move builder: click to play, with undo ----------------------------------------

    async def _open_builder(self, interaction: discord.Interaction[Any], game: Game) -> None:
        """The private move builder of the player to move (refused to anyone else)."""
        self.play.check_turn(game, interaction.user.id, MOVE)
        await interaction.response.defer(ephemeral=True, thinking=True)
        content, file, view = await self._builder_parts(interaction, game, ())
        await interaction.followup.send(
            content, file=file, view=view, ephemeral=True, allowed_mentions=NO_PINGS
        )

    async def _builder_parts(
        self, interaction: discord.Interaction[Any], game: Game, chosen: tuple[Any, ...]
    ) -> tuple[str, discord.File, discord.ui.View]:
        state = self.table.state_of(game)
        made = builder.progress(state, chosen)
        encoded = builder.encode_steps(made.chosen)
        view = discord.ui.View(timeout=None)
        by_die: dict[int, list[builder.StepOption]] = {}
        for option in made.options:
            by_die.setdefault(option.step.die, []).append(option)
        for row, (die, options) in enumerate(sorted(by_die.items(), reverse=True)[:2]):
            view.add_item(
                BuilderSelect(
                    row,
                    game.id,
                    game.version,
                    encoded,
                    [
                        discord.SelectOption(label=o.caption, value=builder.encode_steps((o.step,)))
                        for o in options[:25]
                    ],
                    placeholder=f"Play a {die}" if len(by_die) > 1 else "Your next step",
                )
            )
        view.add_item(
            BuilderButton("undo", game.id, game.version, encoded, disabled=not made.chosen)
        )
        view.add_item(
            BuilderButton("reset", game.id, game.version, encoded, disabled=not made.chosen)
        )
        view.add_item(
            BuilderButton("confirm", game.id, game.version, encoded, disabled=made.play is None)
        )
        so_far = made.text or "nothing yet"
        if made.play is not None and not made.options:
            doing = "Confirm to play it" if made.play.text else "No legal move: Confirm to pass"
        elif made.play is not None:
            doing = "Confirm, or play on"
        else:
            left = ", ".join(str(d) for d in made.dice_left)
            doing = f"choose your next step (dice left: {left})"
        content = f"Your play: **{so_far}**. {doing}. Undo takes back the last step."
        preview = dataclasses.replace(state, board=builder.board_after(state, made.chosen))
        prefs, _ = await self.play.viewer_preferences(game, interaction.user.id)
        theme = player_theme(prefs, await self.boards.theme(game.guild_id))
        file = await self.boards.file(preview, theme=theme, elsewhere=game.against_computer)
        return content, file, view

    async def builder_action(
        self,
        interaction: discord.Interaction[Any],
        action: str,
        game_id: int,
        version: int,
        steps: str,
        value: str | None,
    ) -> None:
        game = await self.play.game_for_button(game_id, version)
        self.play.check_turn(game, interaction.user.id, MOVE)
        state = self.table.state_of(game)
        try:
            chosen = builder.decode_prefix(state, steps)
            if action == "step":
                chosen = builder.decode_prefix(
                    state, steps + (value if value and len(value) == 2 else "??")
                )
        except ValueError:
            raise StaleBuilder() from None
        if action == "undo":
            chosen = chosen[:-1]
        elif action == "reset":
            chosen = ()
        elif action == "confirm":
            play = builder.complete(state, chosen)
            if play is None:
                raise NotAWholePlay(
                    "These steps are not a whole play yet: choose the next step (the menus "
                    "offer only steps that lead to a legal play)."
                )
            await self._submit_play(interaction, game, play.text or "pass")
            return
        await interaction.response.defer()
        content, file, view = await self._builder_parts(interaction, game, chosen)
        await interaction.edit_original_response(content=content, attachments=[file], view=view)

    async def _submit_play(
        self, interaction: discord.Interaction[Any], game: Game, text: str
    ) -> None:
        """Play ``text`` as /move does, then close the builder."""

        def header(outcome: Outcome) -> str:
            name = player_name(game, outcome.state, interaction.user)
            return outcome.action_line or f"{name}: {text}"

        rng = self.table.rng
        await self._run_action(
            interaction, game, lambda s, seat: s.play(seat, text, rng), "play", header
        )
        fresh = await self.play.game(game.id)
        with contextlib.suppress(discord.HTTPException):  # the builder may be dismissed
            if fresh is not None and self._still_moving(fresh, interaction.user.id):
                # An Express chain goes on: the builder offers its next step.
                content, file, view = await self._builder_parts(interaction, fresh, ())
                await interaction.edit_original_response(
                    content=f"You played **{text}**. {content}", attachments=[file], view=view
                )
                return
            await interaction.edit_original_response(
                content=f"You played **{text}**.", attachments=[], view=None
            )

    def _still_moving(self, game: Game, user_id: int) -> bool:
        if not game.is_active:
            return False
        state = self.table.state_of(game)
        return state.phase == MOVE and self.table.user_of(game, state.mover) == user_id

    # --- confirmations ---------------------------------------------------------------------

    async def confirm_action(
        self,
        interaction: discord.Interaction[Any],
        action: str,
        game_id: int,
        version: int,
        level: int,
    ) -> None:
        if action == "cancel":
            await interaction.response.edit_message(
                content="Cancelled: the game goes on.", view=None
            )
            return
        game = await self.play.game_for_button(game_id, version)
        if action == "resign":
            await self._resign(interaction, game, level)
            with contextlib.suppress(discord.HTTPException):  # the question is answered
                await interaction.edit_original_response(view=None)
            return
        # Checked first (refusals stay private); the question is closed by the response,
        # the public line follows.
        if not (game.has_player(interaction.user.id) or interaction.permissions.manage_messages):
            await self._abort(interaction, game)  # refused with the reason
        await interaction.response.edit_message(content="You chose to abort.", view=None)
        await self._abort(interaction, game)

    # --- result cards ----------------------------------------------------------------------

    async def result_action(
        self, interaction: discord.Interaction[Any], action: str, game_id: int
    ) -> None:
        """A result card's buttons: the review, replay and record privately; a rematch."""
        guild_id = scope(interaction)  # a practice game's buttons: its player's, anywhere
        if action == "rematch":
            await self._rematch(interaction, game_id)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        if action == "review":
            done = await self.reports.review(
                await self.reports.review_job(guild_id, game_id, interaction.user.id)
            )
            embed, file = review_message(done)
            await interaction.followup.send(embed=embed, file=file, ephemeral=True)
            await send_mistakes(interaction, self.analyst, game_id)
        elif action == "replay":
            job = await self.reports.replay_job(guild_id, game_id, interaction.user.id)
            text, file = replay_message(job, await self.reports.replay(job))
            await interaction.followup.send(text, file=file, ephemeral=True)
        else:
            made = await self.league.record(
                await self.league.record_request(
                    guild_id, game_id, mat=False, user_id=interaction.user.id
                )
            )
            text, file = record_message(made)
            await interaction.followup.send(text, file=file, ephemeral=True)

    async def _cube(self, interaction: discord.Interaction[Any], game: Game, action: str) -> None:
        phase = DOUBLE if action in ("take", "pass") else ROLL
        self.play.check_turn(game, interaction.user.id, phase)
        rng = self.table.rng
        actions: dict[str, Action] = {
            "roll": lambda s, seat: s.roll(seat, rng),
            "double": lambda s, seat: s.double(seat),
            "take": lambda s, seat: s.take(seat, rng),
            "pass": lambda s, seat: s.drop(seat),
        }
        name = player_name(game, self.table.state_of(game), interaction.user)

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

    @app_commands.command(name="board", description="Show the current board (only to you)")
    @app_commands.describe(public="Post it in the channel for everyone (pings nobody)")
    @anywhere
    @expensive
    async def board(self, interaction: discord.Interaction[Any], public: bool = False) -> None:
        game = await self._active_game(interaction)
        self.boards.note(game)
        if not self.boards.reachable(game.channel_id):
            await self._live_board(interaction, game)
            return
        await interaction.response.defer(ephemeral=not public, thinking=True)
        state = self.table.state_of(game)
        theme, viewer = await self.view_for(interaction, game, public)
        lines = [prompt(game, state)]
        if state.rules.has_gnubg_ids:
            lines.append(f"gnubg ID: `{gnubg_id(state)}`")
        if game.board_message_id is not None:
            link = message_link(game.guild_id, game.channel_id, game.board_message_id)
            lines.append(f"Live board: {link}")
        # A board like the channel's (a layout in the colour of the player to act), without
        # buttons: the live board has them.
        parts = await self.boards.parts(
            state, "\n".join(line for line in lines if line), (), theme=theme, viewer=viewer
        )
        await interaction.followup.send(ephemeral=not public, **parts.to_send(None))
        if public:  # the channel has seen the board now
            self._owed_boards.discard(game.channel_id)
            await self.play.board_shown(game)

    async def _live_board(self, interaction: discord.Interaction[Any], game: Game) -> None:
        """Where the bot is not a member, /board posts the game's live board anew as this
        command's reply (with its buttons): the earlier board's webhook may have expired (15
        minutes), and a board owed since a restart is shown here. Nothing is lost: the game
        is in the database, the board only shows it."""
        await interaction.response.defer(thinking=True)
        async with self.table.lock(game.channel_id):
            game = await self.play.active_game(game.channel_id)
            state = self.table.state_of(game)
            old = game.board_message_id
            parts = await self.boards.public(
                game, state, board_text(Outcome(game, state), []), board_buttons(game, state)
            )
            message = await interaction.edit_original_response(**parts.to_edit())
            self.boards.remember_face(message.id, parts.face)
            self.boards.remember_original(message.id, interaction)
            await self.play.board_posted(game, message.id)
            self._owed_boards.discard(game.channel_id)
            if old is not None and old != message.id:
                await self.boards.clear_buttons(game.channel_id, old)  # only while it can

    async def view_for(
        self, interaction: discord.Interaction[Any], game: Game, public: bool
    ) -> tuple[str, int | None]:
        """(theme, seat seen from) for a board shown to the user who asked: in the channel the
        server's look (like every board there); privately the player's /preferences: their
        theme, and their own side of the table if they play in this game and asked for it."""
        server = await self.boards.theme(game.guild_id)
        if public:
            return server, None
        prefs, seat = await self.play.viewer_preferences(game, interaction.user.id)
        return player_theme(prefs, server), seat

    @app_commands.command(name="resign", description="Resign the game, or offer to (classic, Pin)")
    @app_commands.describe(
        level="What you concede (classic and the Pin games; default a single game)"
    )
    @app_commands.choices(level=RESIGN_CHOICES)
    @anywhere
    async def resign(
        self, interaction: discord.Interaction[Any], level: app_commands.Choice[int] | None = None
    ) -> None:
        """Asks first, privately, showing what is at stake."""
        game = await self._active_game(interaction)
        seat = self.play.check_resign(game, interaction.user.id)
        chosen = 1 if level is None else level.value
        state = self.table.state_of(game)
        view = discord.ui.View(timeout=None)
        view.add_item(ConfirmButton("resign", game.id, game.version, chosen))
        view.add_item(ConfirmButton("cancel", game.id, game.version, chosen))
        await interaction.response.send_message(
            resign_question(state, seat, chosen), view=view, ephemeral=True
        )

    async def _resign(self, interaction: discord.Interaction[Any], game: Game, level: int) -> None:
        self.play.check_resign(game, interaction.user.id)
        name = player_name(game, self.table.state_of(game), interaction.user)

        def header(outcome: Outcome) -> str:
            if outcome.state.resign_offer is not None:
                return f"{name} offers to resign."
            return f"{name} resigns."

        await self._run_action(
            interaction, game, lambda s, seat: s.offer_resign(seat, level), "resign", header
        )

    async def _answer_resign(
        self, interaction: discord.Interaction[Any], game: Game, accept: bool
    ) -> None:
        seat = self.play.check_resign_answer(game, interaction.user.id, accept)
        state = self.table.state_of(game)
        offer = state.resign_offer
        assert offer is not None
        name = state.players[seat]

        def header(outcome: Outcome) -> str:
            if accept:
                return f"{name} accepts the resignation."
            if seat == offer[0]:
                return f"{name} withdraws the offer to resign."
            return f"{name} rejects the offer to resign: the game goes on."

        answer: Action = (
            (lambda s, st: s.accept_resign(st)) if accept else (lambda s, st: s.reject_resign(st))
        )
        await self._run_action(interaction, game, answer, "resign" if accept else "note", header)

    @app_commands.command(
        name="claim", description="Claim the game when your opponent has been idle too long"
    )
    @app_commands.guild_only()
    async def claim(self, interaction: discord.Interaction[Any]) -> None:
        """Ends the game on time: shown like any game's end (a new board, since the last one
        is long past; the result card in the channel a thread came from)."""
        assert interaction.guild_id is not None and interaction.channel_id is not None
        game = await self._active_game(interaction)
        old = self.table.state_of(game)
        await self.acknowledge(interaction)
        claim = await self.league.claim(
            interaction.guild_id, interaction.channel_id, interaction.user.id
        )
        claimant = player_name(game, old, interaction.user)
        header = (
            f"{claimant} claims the game on time: {old.players[old.mover]} did not move for "
            f"{duration(claim.idle_seconds)}."
        )
        await self.reply_committed(
            interaction,
            game.channel_id,
            self.show(interaction, game, old, claim.outcome, [header], new=True),
            recorded(claim.outcome),
        )
        self.after_action(claim.outcome)

    @app_commands.command(
        name="abort", description="End the game without a result (both players, or a moderator)"
    )
    @app_commands.guild_only()
    async def abort(self, interaction: discord.Interaction[Any]) -> None:
        """Asks first, privately: an abort cannot be undone."""
        game = await self._active_game(interaction)
        moderator = bool(interaction.permissions.manage_messages)
        if game.has_player(interaction.user.id) or moderator:
            if game.against_computer or not game.has_player(interaction.user.id):
                what = "The game ends at once, without a result; it is not rated."
            else:
                what = (
                    "Your opponent is asked to agree (with /abort); the game then ends "
                    "without a result and is not rated."
                )
            view = discord.ui.View(timeout=None)
            view.add_item(ConfirmButton("abort", game.id, game.version))
            view.add_item(ConfirmButton("cancel", game.id, game.version))
            await interaction.response.send_message(
                f"Abort this game? {what}", view=view, ephemeral=True
            )
            return
        await self._abort(interaction, game)  # refused with the reason

    async def _abort(self, interaction: discord.Interaction[Any], game: Game) -> None:
        moderator = bool(interaction.permissions.manage_messages)
        done = await self.play.abort(game, interaction.user.id, moderator=moderator)
        other = done.other
        if done.result == "requested":
            await self._say(
                interaction,
                game,
                f"{interaction.user.mention} wants to abort this game. "
                f"{mention(other) if other else 'The opponent'}, use /abort to agree.",
                other,  # the opponent is asked to answer
            )
        elif done.result == "repeated":
            raise AbortAlreadyAsked(
                "You have already asked to abort this game; "
                f"waiting for {mention(other) if other else 'your opponent'} to agree with /abort."
            )
        else:
            await self.boards.clear_buttons(game.channel_id, game.board_message_id)
            await self.reply_committed(
                interaction,
                game.channel_id,
                self._say(interaction, game, "The game was aborted; it is not rated.", None),
                "The game was aborted (not rated), but Discord did not take the reply.",
            )

    async def _say(
        self,
        interaction: discord.Interaction[Any],
        game: Game,
        text: str,
        pinged: int | None,
    ) -> None:
        """A public line in the game's channel: the interaction's answer where it can be."""
        if interaction.channel_id == game.channel_id:
            if interaction.response.is_done():
                await interaction.followup.send(text, allowed_mentions=ping(pinged))
            else:
                await interaction.response.send_message(text, allowed_mentions=ping(pinged))
            return
        await self.boards.send_text(game.channel_id, text, pinged)


def resign_question(state: GameState, seat: int, level: int) -> str:
    """What /resign asks before it acts: what the player concedes, and how it goes on."""
    value = state.resignation_value(seat, level)
    cube = state.cube if state.rules.has_cube else 1
    stake = plural(value, "point")
    if cube > 1 and value % cube == 0:
        stake = f"{plural(value // cube, 'point')}, {value} with the cube at {cube}"
    offered = state.offer_resign(seat, level).resign_offer is not None
    if offered:
        how = "Your opponent accepts or rejects the offer."
        return f"Offer to resign {RESIGN_NAMES[level]} ({stake})? {how}"
    return f"Resign {RESIGN_NAMES[level]} ({stake})? The game ends at once."
