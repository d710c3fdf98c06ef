"""The board as text (`make play`): every point numbered, each variant's piles, covered
checkers told apart, tall stacks cut with their count, colours only when asked for."""

from __future__ import annotations

import random
import re

import pytest

from engine import VARIANTS
from engine.game import GameState
from engine.position import make_position
from render.game_scene import scene_for_game
from render.scene import BoardScene, ChainInfo
from render.textboard import ROWS, cells_needed, stack_cells, text_board

TOP = " +13-14-15-16-17-18------19-20-21-22-23-24-+"
BOTTOM = " +12-11-10--9--8--7-------6--5--4--3--2--1-+"


def board_of(variant: str, match_length: int = 1) -> str:
    state = GameState.new(variant, ("Ann", "Computer"), random.Random(1), match_length)
    return text_board(scene_for_game(state, state.players, 0))


def column(board: str, point: int) -> str:
    """The cells of ``point``'s column, from its edge towards the middle, as one string."""
    lines = board.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith(TOP))
    bottom = next(i for i, line in enumerate(lines) if line.startswith(BOTTOM))
    border = lines[top] if point >= 13 else lines[bottom]
    number = f"{point:>2}-".replace(" ", "-")
    x = border.index(number, 2) + 1  # the cell's middle character, under the number's end
    rows = lines[top + 1 : bottom]
    middle = len(rows) // 2
    half = rows[:middle] if point >= 13 else list(reversed(rows[middle + 1 :]))
    return "".join(line[x - 1 : x + 2].strip() or "." for line in half)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_variant_shows_all_24_points_pips_and_its_piles(variant: str) -> None:
    board = board_of(variant)
    assert TOP in board and BOTTOM in board
    rules = VARIANTS[variant]
    pile_lines = [line for line in board.splitlines() if "pips " in line]
    assert len(pile_lines) == 2  # one for each side
    for line in pile_lines:
        assert "off 0" in line
        assert ("bar 0" in line) == rules.has_bar
        assert ("reserve " in line) == rules.has_reserve
    assert ("BAR" in board) == rules.has_bar
    assert ("cube 1, centred" in board) == rules.has_cube
    assert "\x1b" not in board


def test_dutch_and_blocking_start_off_the_board() -> None:
    for variant in ("dutch", "blocking"):
        board = board_of(variant)
        assert board.count("pips 375  off 0") == 2
        assert board.count("reserve 15") == 2
    assert "may not hit yet" in board_of("dutch")  # nobody hits before reaching home


def test_pin_start_from_the_players_side() -> None:
    board = board_of("pin")
    assert column(board, 24) == "XXXX13"  # thirteen on the 24-point, the count at the tip
    assert column(board, 17).startswith("X") and column(board, 15).startswith("X")
    assert column(board, 1) == "OOOO13"
    assert board.count("pips 344") == 2


def test_pinned_checkers_are_lower_case_with_a_legend() -> None:
    pos = make_position("pin", {24: "X" * 12, 20: "OX", 1: "O" * 13, 5: "XO", 3: "O"})
    scene = BoardScene(pos, "The Pin Game", "Ann", "Computer", "light", "X", (6, 5))
    board = text_board(scene)
    assert column(board, 20) == "oX..."  # bottom to top: the pinned O under the X
    assert column(board, 5) == "xO..."
    assert "x, o: covered by the other side" in board
    assert "Dice: 6-5" in board


def test_tall_mixed_stacks_keep_their_order_and_counts() -> None:
    assert stack_cells("XXXOO", ROWS) == [
        ("x", "X"),
        ("x", "X"),
        ("x", "X"),
        ("O", "O"),
        ("O", "O"),
    ]
    tall = "XXX" + "O" * 9
    assert cells_needed(tall) == 3
    assert [t for t, _ in stack_cells(tall, ROWS)] == ["3x", "O", "O", "O", "9"]
    # More runs than rows: the half grows rather than losing a run.
    zigzag = "XO" * 4
    assert cells_needed(zigzag) == 8
    assert [t for t, _ in stack_cells(zigzag, 8)] == ["x", "o"] * 3 + ["x", "O"]


def test_chain_cube_match_and_result_lines() -> None:
    pos = make_position("blocking-express", {}, reserve=(15, 15))
    chain = ChainInfo(((3, 2), (4, 4), (5, 4), (6, 4)), "X")
    scene = BoardScene(pos, "Blocking Express", "Ann", "Computer", "light", "X", (3, 3), chain)
    assert "Chain: two 3s (then four 4s, four 5s, four 6s)" in text_board(scene)
    board = board_of("classic", match_length=5)
    assert "match to 5: Ann 0, Computer 0" in board and "cube 1, centred" in board
    over = BoardScene(pos, "Blocking", "Ann", "Computer", "light", None, None, result="Ann wins")
    assert "Game over: Ann wins" in text_board(over)


def test_colours_only_when_asked() -> None:
    state = GameState.new("classic", ("Ann", "Computer"), random.Random(1))
    scene = scene_for_game(state, state.players, 0)
    coloured = text_board(scene, colour=True)
    assert "\x1b[" in coloured
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == text_board(scene)
