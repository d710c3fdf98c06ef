"""`make play`: a game against the computer in the terminal, driven through the stdin of a real
`python terminal.py` process as a person types, with the computer's real worker processes.

The person's plays are chosen by the test from what the terminal prints (its `position` line,
read back by the engine); the engine also says which refusal a bad play must get.
"""

from __future__ import annotations

import codecs
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PIL import Image

from engine import get_variant
from engine.errors import EngineError
from engine.movegen import legal_plays
from engine.notation import parse_play
from engine.position import X
from engine.text import parse_position

ROOT = Path(__file__).resolve().parents[1]
#: A prompt ends the output and waits: "Your move (6-5)> ", "roll or double> ".
PROMPT = re.compile(r"\n([^\n]*)> $")
#: A guard against a hung process (the test fails with the transcript), not a timing check.
PATIENCE = 600.0
CHAIN_PROMPT = re.compile(r"Your move \((one|two|three|four) \d+s?\)")
COMPUTER_PLAY = re.compile(r"^Computer \(beginner\) (\d-\d|(one|two|three|four) \d+s?): ", re.M)


class Session:
    """A running `python terminal.py` and everything it has printed."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
        self.proc = subprocess.Popen(
            [sys.executable, "terminal.py", "--name", "Ann", "--level", "beginner", *args],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.output = ""
        self.read_to = 0  # the part of the output already handed out
        self.ended = False
        self._changed = threading.Condition()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        decoder = codecs.getincrementaldecoder("utf-8")()
        fd = self.proc.stdout.fileno()
        while True:
            chunk = os.read(fd, 65536)
            with self._changed:
                self.output += decoder.decode(chunk, final=not chunk)
                self.ended = not chunk
                self._changed.notify_all()
            if not chunk:
                return

    def prompt(self) -> tuple[str, str] | None:
        """(the prompt's label, what was printed before it since the last one); None when the
        process has ended its output instead."""
        with self._changed:
            found = self._changed.wait_for(
                lambda: self.ended or PROMPT.search(self.output, self.read_to), PATIENCE
            )
            assert found, f"no prompt and no end:\n{self.output[-3000:]}"
            match = PROMPT.search(self.output, self.read_to)
            if match is None:
                return None
            before = self.output[self.read_to : match.start()]
            self.read_to = match.end()
            return match.group(1), before

    def expect_prompt(self) -> tuple[str, str]:
        got = self.prompt()
        assert got is not None, f"the game ended early:\n{self.output[-3000:]}"
        return got

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def ask(self, line: str) -> tuple[str, str]:
        """Type ``line``; the next prompt and what was answered."""
        self.send(line)
        return self.expect_prompt()

    def finish(self) -> tuple[int, str]:
        """Close stdin (end of input) and wait for the exit: (status, stderr)."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=PATIENCE)
        assert self.proc.stderr is not None
        return code, self.proc.stderr.read().decode()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


Start = Callable[..., Session]


@pytest.fixture
def sessions(tmp_path: Path) -> Iterator[Start]:
    started: list[Session] = []

    def start(*args: str) -> Session:
        session = Session(tmp_path, *args)
        started.append(session)
        return session

    yield start
    for session in started:
        session.kill()


def position_of(session: Session, variant: str) -> str:
    _, printed = session.ask("position")
    lines = [line for line in printed.splitlines() if line.startswith(f"{variant} | ")]
    assert lines, printed
    return lines[-1]


def racing_play(position_text: str, variant: str) -> str:
    """The legal play that leaves the fewest pips (any legal play would do; this one ends the
    game soonest)."""
    pos, dice = parse_position(position_text)
    assert dice is not None
    plays = legal_plays(pos, dice, get_variant(variant))
    best = min(plays, key=lambda p: (p.after.pips(X), p.text))
    return best.text or "pass"


def play_to_the_end(session: Session, variant: str) -> list[str]:
    """Answer every prompt until the game is over; the prompts seen."""
    prompts: list[str] = []
    got = session.prompt()
    while got is not None:
        label, _ = got
        prompts.append(label)
        if label.startswith("Your move"):
            text = racing_play(position_of(session, variant), variant)
            label, _ = session.ask(text)
            assert label == f"Enter plays {text}, undo takes it back", label
            session.send("")  # Enter: played (and the game may be over)
            got = session.prompt()
        elif label == "roll or double":
            session.send("roll")
            got = session.prompt()
        elif label.startswith("take or pass"):
            session.send("take")
            got = session.prompt()
        else:
            raise AssertionError(f"unexpected prompt {label!r}")
    return prompts


@pytest.mark.slow
def test_a_whole_pin_game_to_the_end(sessions: Start) -> None:
    session = sessions("--variant", "pin", "--seed", "11")
    prompts = play_to_the_end(session, "pin")
    code, errors = session.finish()
    assert code == 0, errors
    assert "Traceback" not in errors
    out = session.output
    assert re.search(r"Game over: (Ann|Computer \(beginner\)) wins \d+ points?", out), out[-2000:]
    assert COMPUTER_PLAY.search(out)  # the computer's plays with its dice
    assert re.search(r"^Ann \d-\d: ", out, re.M)  # and the person's, as the record writes them
    assert len(prompts) > 10


@pytest.mark.slow
def test_a_whole_blocking_express_game_with_its_chains(sessions: Start) -> None:
    session = sessions("--variant", "blocking-express", "--seed", "5")
    prompts = play_to_the_end(session, "blocking-express")
    code, errors = session.finish()
    assert code == 0, errors
    out = session.output
    assert re.search(r"Game over: (Ann|Computer \(beginner\)) wins 1 point", out), out[-2000:]
    # Some of the person's decisions were steps of a chain ("Your move (three 5s)").
    chain_steps = [
        p for p in prompts if re.fullmatch(r"Your move \((one|two|three|four) \d+s?\)", p)
    ]
    assert chain_steps, prompts
    assert "Chain: " in out  # the board says what the chain has left


def test_bad_input_gets_the_engines_message_and_the_game_goes_on(sessions: Start) -> None:
    session = sessions("--variant", "pin", "--seed", "3")
    label, _ = session.expect_prompt()
    assert label.startswith("Your move")
    before = position_of(session, "pin")
    pos, dice = parse_position(before)
    assert dice is not None
    legal = legal_plays(pos, dice, get_variant("pin"))
    for bad in ("24/23(4)", "13-x", "bar/22"):
        with pytest.raises(EngineError) as refused:
            parse_play(pos, legal, bad)
        label, printed = session.ask(bad)
        assert refused.value.message in printed
        assert label.startswith("Your move")
    label, printed = session.ask("roll")  # no cube in this game: the dice are rolled already
    assert "Type your play." in printed
    label, printed = session.ask("frobnicate")
    assert "Unknown command 'frobnicate'" in printed
    assert position_of(session, "pin") == before  # nothing was played
    # Still the same game: a legal play is taken.
    play = racing_play(before, "pin")
    label, _ = session.ask(play)
    assert label == f"Enter plays {play}, undo takes it back"
    label, printed = session.ask("")
    assert re.search(rf"^Ann \d-\d: {re.escape(play)}$", printed, re.M)
    assert COMPUTER_PLAY.search(printed)
    code, errors = session.finish()
    assert code == 0 and "Traceback" not in errors


def test_undo_takes_back_a_shown_play(sessions: Start) -> None:
    session = sessions("--variant", "dutch", "--seed", "8")
    label, _ = session.expect_prompt()
    assert label.startswith("Your move")
    before = position_of(session, "dutch")
    play = racing_play(before, "dutch")
    label, printed = session.ask(play)
    assert label == f"Enter plays {play}, undo takes it back"
    assert f"Your play: {play}. Not played yet." in printed  # the board after it, shown first
    label, printed = session.ask("undo")
    assert "Taken back." in printed and label.startswith("Your move")
    assert position_of(session, "dutch") == before
    label, printed = session.ask("undo")
    assert "Nothing to undo" in printed
    label, printed = session.ask("")  # Enter with nothing shown plays nothing
    assert position_of(session, "dutch") == before
    code, _ = session.finish()
    assert code == 0


def test_hint_lists_legal_plays_with_equities_in_pips(sessions: Start) -> None:
    session = sessions("--variant", "pin", "--seed", "3")
    session.expect_prompt()
    position = position_of(session, "pin")
    pos, dice = parse_position(position)
    assert dice is not None
    legal = {p.text for p in legal_plays(pos, dice, get_variant("pin"))}
    label, printed = session.ask("hint")
    assert "Best plays (equity for you in pips" in printed
    hinted = re.findall(r"^\d\. (.+?)\*?: [+-]\d+\.\d, win \d", printed, re.M)
    assert hinted and set(hinted) <= legal, printed
    assert "`" not in printed and "**" not in printed  # Discord's markdown is not shown
    label, _ = session.ask(hinted[0])  # the best play is taken like any typed play
    assert label == f"Enter plays {hinted[0]}, undo takes it back"
    session.finish()


def test_resign_ends_the_game_and_an_offer_level_is_checked(sessions: Start) -> None:
    session = sessions("--variant", "blocking", "--seed", "2")
    session.expect_prompt()
    _, printed = session.ask("resign 2")
    # The engine's refusal, with the terminal's command in place of /resign.
    assert "The Blocking Game has one result: resign concedes the game." in printed
    session.send("resign")
    assert session.prompt() is None  # the game is over: no more prompts
    code, errors = session.finish()
    assert code == 0, errors
    assert "Ann resigns." in session.output
    assert "Game over: Computer (beginner) wins 1 point (resign)" in session.output


def test_the_end_of_input_leaves_cleanly(sessions: Start) -> None:
    session = sessions("--variant", "neverfinishing", "--seed", "4")
    session.expect_prompt()
    session.send("board")
    code, errors = session.finish()
    assert code == 0, errors
    assert "Traceback" not in errors
    assert session.output.rstrip().endswith("End of input: leaving the game.")


def test_the_cube_in_backgammon(sessions: Start) -> None:
    session = sessions("--variant", "classic", "--seed", "6")
    label, _ = session.expect_prompt()
    while label.startswith("Your move"):  # until the person may double (their second turn)
        play = racing_play(position_of(session, "classic"), "classic")
        session.send(play)
        label, _ = session.expect_prompt()
        label, _ = session.ask("")
    assert label == "roll or double"
    session.send("double")
    got = session.prompt()
    out = session.output
    assert "Ann doubles to 2." in out
    if "Computer (beginner) passes" in out:
        assert got is None and "Game over: Ann wins 1 point (pass)" in out
    else:
        assert "Computer (beginner) takes" in out and got is not None
        assert "cube 2, Computer (beginner)'s" in out  # the board's heading
    session.finish()


def test_make_play_shows_the_board_without_colours_and_writes_pictures(tmp_path: Path) -> None:
    images = tmp_path / "boards"
    done = subprocess.run(
        ["make", "-s", "play", "VARIANT=dutch", "LEVEL=beginner", "SEED=1", f"IMAGES={images}"],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=PATIENCE,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "\x1b" not in out  # not a terminal: no colours
    top = "+13-14-15-16-17-18------19-20-21-22-23-24-+"
    bottom = "+12-11-10--9--8--7-------6--5--4--3--2--1-+"
    assert top in out and bottom in out
    assert "reserve" in out and "bar 0" in out  # Dutch starts off the board and can hit
    assert out.rstrip().endswith("End of input: leaving the game.")
    pictures = sorted(images.glob("board-*.png"))
    assert pictures and Image.open(pictures[0]).format == "PNG"
