"""Play the computer in a terminal, without Discord or a token.

    python terminal.py --variant pin          (what `make play VARIANT=pin` runs)

A game (or a match with --length) against the computer through the bot's own use cases: a
challenge against the computer, your plays and cube actions through ``Play.act``, the
computer's turns through ``ComputerTurns`` and hints through ``Reports``, on a SQLite database
of its own (a temporary one, unless --db names a file: a game left with ``quit`` then goes on
at the next start). The board is drawn as text from your side for the whole game; --images DIR
also writes its picture after each turn.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import logging
import os
import re
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

from ai.types import LEVELS
from app.challenges import describe_options
from app.computer import LEVEL_ABOUT, computer_name, computer_to_act
from app.config import Config
from app.errors import Refusal
from app.play import Preview
from app.services import Services, open_services
from app.table import SHARED_VIEWER, Action, Game, Outcome
from engine import VARIANTS, get_variant
from engine.game import DOUBLE, MAX_MATCH_LENGTH, MOVE, ROLL, GameState
from engine.text import format_position
from render.game_scene import chain_text, roll_text, scene_for_game
from render.textboard import text_board

#: The terminal's own server, channel and users in its database (the bot's are Discord ids).
GUILD = 1
CHANNEL = 1
PERSON = 1
COMPUTER = 2
#: The person challenges, so they have the first seat (light checkers, the board's bottom).
PERSON_SEAT = SHARED_VIEWER
#: Plays listed by `moves` before the list asks to be narrowed.
MAX_LISTED = 30
#: The computer's turns in a row the terminal waits for before it gives up on a stuck game.
MAX_COMPUTER_RUNS = 20
RESIGN_WORDS = {"": 1, "1": 1, "single": 1, "2": 2, "gammon": 2, "3": 3, "backgammon": 3}

HELP = """\
Type your play as for /move: 24/18 13/11, bar/22*, 6/off, 8/2(2), or pass. It is shown on
the board first: press Enter to play it, type undo to take it back (or type another play).
  moves [13/]    your legal plays (those matching what you type)
  hint           the computer's best plays for you, with their equities
  roll, double   roll, or offer a double first (backgammon)
  take, pass     answer a double (backgammon)
  resign [1-3]   resign; in backgammon and the Pin games 2 is a gammon and 3 a backgammon,
                 an offer the computer accepts or rejects
  board          the board again
  position       the position as one line of text (the engine's notation, your side)
  help, quit     this text; leave (with --db FILE the game goes on at the next start)"""


def for_terminal(message: str) -> str:
    """A refusal written for Discord, with the terminal's commands instead of its slash
    commands and buttons (the message is otherwise the app's or the engine's, verbatim)."""
    message = message.replace("use /roll or the Roll button", "type roll or double")
    message = message.replace("Use /move to play your roll", "Type your play")
    message = re.sub(r" ?\(buttons\)| with the buttons", "", message)
    # A slash command follows a space or starts the text; in a play ("bar/22") it never does.
    return re.sub(r"(?<![\w*^)])/([a-z]+)", r"\1", message)


def from_markdown(text: str, colour: bool) -> str:
    """Discord's **bold** and `code` as a terminal shows them."""
    text = re.sub(r"\*\*(.+?)\*\*", "\x1b[1m\\1\x1b[0m" if colour else r"\1", text)
    return re.sub(r"`([^`]*)`", r"\1", text)


def dice_text(state: GameState) -> str:
    if state.chain is not None:
        value, copies = state.chain.pending[0]
        return chain_text(value, copies)
    return "" if state.dice is None else roll_text(state.dice.high, state.dice.low)


class Reader:
    """Lines from stdin with a prompt, None at the end of input. ``input()`` runs on a daemon
    thread, so the event loop (the worker pools' housekeeping) goes on while the person thinks
    and Ctrl-C is not held up by a blocked read."""

    def __init__(self, echo: bool) -> None:
        #: Input from a pipe or file is not echoed by a terminal: the transcript shows it.
        self.echo = echo

    async def line(self, prompt: str) -> str | None:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[str | None] = loop.create_future()

        def deliver(value: str | None) -> None:
            if not answer.done():
                answer.set_result(value)

        def read() -> None:
            try:
                value: str | None = input(prompt)
            except EOFError:
                value = None
            except (OSError, ValueError):  # stdin closed under us: as good as its end
                value = None
            loop.call_soon_threadsafe(deliver, value)

        # The blank line apart from input()'s prompt: readline redraws only the prompt's line.
        print(flush=True)
        threading.Thread(target=read, name="stdin", daemon=True).start()
        value = await answer
        if self.echo and value is not None:
            print(value, flush=True)
        return value


class Terminal:
    """One person against the computer in this terminal."""

    def __init__(
        self,
        services: Services,
        reader: Reader,
        *,
        name: str,
        colour: bool,
        images: Path | None,
    ) -> None:
        self.services = services
        self.play = services.play
        self.table = services.table
        self.reader = reader
        self.name = name
        self.colour = colour
        self.images = images
        self.pictures = 0
        #: A typed play shown but not committed yet, with the game version it was made on.
        self.pending: tuple[int, Preview] | None = None
        services.computer.post = self._computer_posted

    def say(self, *lines: str) -> None:
        print("\n".join(lines), flush=True)

    # --- the board ---------------------------------------------------------------------------

    async def show_board(
        self, state: GameState, *, picture: bool = False, status: str | None = None
    ) -> None:
        scene = scene_for_game(state, state.players, PERSON_SEAT)
        if status is not None:
            scene = replace(scene, status=status)
        self.say("", text_board(scene, colour=self.colour))
        if picture and self.images is not None:
            png = await self.table.render(state)
            self.pictures += 1
            path = self.images / f"board-{self.pictures:03d}.png"
            path.write_bytes(png)
            self.say(f" (picture: {path})")

    async def present(self, outcome: Outcome, lines: list[str]) -> None:
        """What an action did; the board when the person acts next or the game is over (the
        computer's turn shows its own)."""
        self.say(*[line for line in (*lines, *outcome.events) if line])
        state = outcome.state
        if outcome.finished is not None or not computer_to_act(outcome.game, state):
            await self.show_board(state, picture=True)
        # The terminal has shown it: nothing is owed to the "channel" any more.
        await self.play.board_shown(outcome.game)

    async def _computer_posted(self, game: Game, outcome: Outcome, header: str) -> None:
        await self.present(outcome, [header])

    # --- starting ----------------------------------------------------------------------------

    async def start(self, variant: str, level: str, length: int, options: str) -> Game:
        """The game in this database's channel: the one left unfinished, else a new one
        against the computer."""
        game = await self.play.find_active_game(CHANNEL)
        if game is not None:
            state = self.table.state_of(game)
            self.say(
                f"Going on with game #{game.id}: {state.rules.name}, {state.players[0]} against "
                f"{state.players[1]} (left unfinished in this database).",
            )
            await self.show_board(state)
            return game
        services = self.services
        opened = await services.challenges.open(
            guild_id=GUILD,
            channel_id=CHANNEL,
            challenger_id=PERSON,
            opponent_id=COMPUTER,
            variant=variant,
            length=length,
            options=options,
            computer=True,
            level=level,
        )
        challenge = opened.challenge
        names = (self.name, computer_name(level))

        async def show(outcome: Outcome) -> None:
            heading = (
                f"{get_variant(variant).name}: {names[0]} (X, bottom) against {names[1]} (O): "
                f"{LEVEL_ABOUT[level]}"
                + (f"; match to {length}" if length > 1 else "")
                + describe_options(variant, challenge.options)
                + ". Type help for the commands."
            )
            opening = [line for line in outcome.state.record if line.startswith("opening roll")]
            await self.present(outcome, [heading, *opening])

        outcome = await services.challenges.start_against_computer(challenge, names, level, show)
        return outcome.game

    # --- the game ----------------------------------------------------------------------------

    async def run(self, game: Game) -> int:
        """Play until the match is over, the input ends or the person quits."""
        while True:
            game = await self.computer_turns(game)
            if not game.is_active:
                return 0
            state = self.table.state_of(game)
            line = await self.reader.line(self.prompt(game, state))
            if line is None:
                self.say("", "End of input: leaving the game.")
                return 0
            try:
                leave = await self.command(game, line.strip())
            except Refusal as refusal:
                self.say(for_terminal(str(refusal)))
                leave = False
            if leave:
                self.say("Leaving the game.")
                return 0
            fresh = await self.play.game(game.id)
            assert fresh is not None
            game = fresh

    async def computer_turns(self, game: Game) -> Game:
        """Let the computer take its turns (its task posts each one here); the game after."""
        computer = self.services.computer
        for _ in range(MAX_COMPUTER_RUNS):
            if not computer_to_act(game, self.table.state_of(game)):
                return game
            computer.schedule(game)
            await computer.settled(game.id)
            fresh = await self.play.game(game.id)
            assert fresh is not None
            if fresh.version == game.version:
                raise RuntimeError(f"the computer could not act in game #{game.id} (see the log)")
            game = fresh
        raise RuntimeError(f"the computer keeps acting in game #{game.id}")

    def preview_for(self, game: Game) -> Preview | None:
        if self.pending is None or self.pending[0] != game.version:
            return None
        return self.pending[1]

    def prompt(self, game: Game, state: GameState) -> str:
        preview = self.preview_for(game)
        if preview is not None:
            return f"Enter plays {preview.text or 'pass'}, undo takes it back> "
        if state.phase == ROLL:
            return "roll or double> "
        if state.phase == DOUBLE:
            return f"take or pass (the cube to {state.cube * 2})> "
        if state.phase == MOVE:
            return f"Your move ({dice_text(state)})> "
        return "> "

    async def command(self, game: Game, line: str) -> bool:
        """Carry out one typed line; True to leave. Refusals propagate with their message."""
        word, _, rest = line.partition(" ")
        word = word.lower()
        rest = rest.strip()
        state = self.table.state_of(game)
        if not line:
            preview = self.preview_for(game)
            if preview is not None:
                await self.confirm(game, preview)
            else:
                self.say("Type your play, a command, or help.")
        elif word in ("quit", "exit"):
            return True
        elif word == "help":
            self.say(HELP)
        elif word == "board":
            await self.show_board(state)
        elif word == "position":
            seat_view = state.position_for(PERSON_SEAT)
            self.say(format_position(seat_view, state.current_dice()))
        elif word == "moves":
            self.list_moves(game, rest)
        elif word == "hint":
            await self.hint()
        elif word == "undo":
            await self.undo(game, state)
        elif word == "resign":
            await self.resign(game, rest)
        elif word in ("roll", "double", "take") or (word == "pass" and state.phase == DOUBLE):
            await self.cube(game, word)
        elif word not in ("pass", "bar", "b") and re.fullmatch(r"[a-z]+", line.lower()):
            self.say(f"Unknown command '{line[:40]}'. Type help for the commands.")
        else:
            await self.preview(game, line)
        return False

    # --- commands ----------------------------------------------------------------------------

    async def preview(self, game: Game, typed: str) -> None:
        preview = self.play.preview(game, PERSON, typed)
        self.pending = (game.version, preview)
        shown = preview.text or "pass (no move)"
        await self.show_board(preview.state, status=f"Your play: {shown}. Not played yet.")

    async def confirm(self, game: Game, preview: Preview) -> None:
        self.pending = None
        rng = self.table.rng
        text = preview.text or "pass"

        async def show(before: Game, old: GameState, outcome: Outcome) -> None:
            await self.present(outcome, [outcome.action_line or f"{self.name}: {text}"])

        await self.act(game, lambda s, seat: s.play(seat, text, rng), "play", show)

    async def undo(self, game: Game, state: GameState) -> None:
        if self.preview_for(game) is None:
            self.say("Nothing to undo: a play counts only once you press Enter on it.")
            return
        self.pending = None
        self.say("Taken back.")
        await self.show_board(state)

    async def act(
        self,
        game: Game,
        action: Action,
        kind: str,
        show: Callable[[Game, GameState, Outcome], Awaitable[None]],
    ) -> None:
        self.pending = None  # whatever was shown belongs to the board before this action
        await self.play.act(game, PERSON, action, kind, show)

    async def cube(self, game: Game, word: str) -> None:
        phase = DOUBLE if word in ("take", "pass") else ROLL
        self.play.check_turn(game, PERSON, phase)
        rng = self.table.rng
        actions: dict[str, Action] = {
            "roll": lambda s, seat: s.roll(seat, rng),
            "double": lambda s, seat: s.double(seat),
            "take": lambda s, seat: s.take(seat, rng),
            "pass": lambda s, seat: s.drop(seat),
        }

        async def show(before: Game, old: GameState, outcome: Outcome) -> None:
            state = outcome.acted or outcome.state  # forced plays may have moved on since
            if word == "roll":
                dice = state.dice
                header = f"{self.name} rolls" + (
                    f" {roll_text(dice.high, dice.low)}." if dice is not None else "."
                )
            elif word == "double":
                header = f"{self.name} doubles to {state.cube * 2}."
            elif word == "take":
                header = f"{self.name} takes: the cube is at {state.cube}."
            else:
                header = f"{self.name} passes."
            await self.present(outcome, [header])

        await self.act(game, actions[word], word, show)

    async def resign(self, game: Game, typed: str) -> None:
        level = RESIGN_WORDS.get(typed.lower())
        if level is None:
            self.say("resign, resign 2 (a gammon) or resign 3 (a backgammon).")
            return
        self.play.check_resign(game, PERSON)

        async def show(before: Game, old: GameState, outcome: Outcome) -> None:
            offered = outcome.state.resign_offer is not None
            said = "offers to resign; the computer answers." if offered else "resigns."
            await self.present(outcome, [f"{self.name} {said}"])

        await self.act(game, lambda s, seat: s.offer_resign(seat, level), "resign", show)

    async def hint(self) -> None:
        reports = self.services.reports
        job = await reports.hint_job(CHANNEL, PERSON)
        self.say(from_markdown(await reports.hint(job), self.colour))

    def list_moves(self, game: Game, typed: str) -> None:
        texts = self.play.play_suggestions(game, PERSON, typed)
        if not texts:
            state = self.table.state_of(game)
            if state.phase != MOVE or state.mover != PERSON_SEAT:
                self.say("No plays to list: it is not your move.")
            else:
                self.say(f"None of your legal plays matches '{typed}'.")
            return
        self.say(*[f"  {text or 'pass'}" for text in texts[:MAX_LISTED]])
        if len(texts) > MAX_LISTED:
            self.say(f"  ... {len(texts) - MAX_LISTED} more: narrow them, e.g. moves 13/")


def _default_name() -> str:
    try:
        login = getpass.getuser()
    except (KeyError, OSError):  # no user name in this environment
        login = ""
    return (login[:1].upper() + login[1:])[:32] if login else "Player"


def _colour_wanted() -> bool:
    """ANSI colours only on a terminal, and never with NO_COLOR set (no-color.org)."""
    term = os.environ.get("TERM", "")
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR") and term != "dumb"


async def _play(args: argparse.Namespace, db_path: Path) -> int:
    # The bot's configuration minus Discord: no token is read, none is needed.
    config = Config(
        token="",
        database_path=db_path,
        api_base=None,
        gateway_url=None,
        guild_id=None,
        log_level="WARNING",
        dice_seed=args.seed,
    )
    services = await open_services(config, lambda: COMPUTER)
    interactive = sys.stdin.isatty()
    terminal = Terminal(
        services,
        Reader(echo=not interactive),
        name=args.name,
        colour=_colour_wanted(),
        images=args.images,
    )
    try:
        try:
            game = await terminal.start(args.variant, args.level, args.length, args.options)
        except Refusal as refusal:
            print(f"error: {for_terminal(str(refusal))}", file=sys.stderr)
            return 2
        return await terminal.run(game)
    finally:
        await services.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", default="classic", choices=sorted(VARIANTS))
    parser.add_argument("--level", default="intermediate", choices=LEVELS)
    parser.add_argument("--length", type=int, default=1, help="match length (default 1 game)")
    parser.add_argument("--seed", type=int, default=None, help="dice seed (default: random)")
    parser.add_argument("--options", default="", help="rule options, e.g. mustEnterAll")
    parser.add_argument("--name", default=_default_name(), help="your name in the game")
    parser.add_argument("--images", type=Path, default=None, help="write board-NNN.png here")
    parser.add_argument(
        "--db", type=Path, default=None, help="keep the game in this SQLite file (default: temp)"
    )
    args = parser.parse_args(argv)
    if not 1 <= args.length <= MAX_MATCH_LENGTH:
        parser.error(f"--length must be 1 to {MAX_MATCH_LENGTH}")
    if args.images is not None:
        args.images.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if sys.stdin.isatty():
        import readline  # noqa: F401  (line editing and history for input())
    try:
        if args.db is not None:
            args.db.parent.mkdir(parents=True, exist_ok=True)
            return asyncio.run(_play(args, args.db))
        with tempfile.TemporaryDirectory(prefix="backgammon-play-") as folder:
            return asyncio.run(_play(args, Path(folder) / "terminal.sqlite3"))
    except BrokenPipeError:
        # Whoever read the output has gone (`| head`): no traceback, and no second error when
        # Python flushes stdout on the way out.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print(flush=True)
        # The stdin thread may still hold stdin's lock; ending the usual way could then abort.
        sys.stdout.flush()
        os._exit(130)


if __name__ == "__main__":
    sys.exit(main())
