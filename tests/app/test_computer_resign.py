"""The computer's answer to an offer to resign (app.computer.resign_answer), on real positions
valued by the real evaluations, from the computer's side as the bot asks its worker pool."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from ai.types import MatchContext, PositionValue
from ai.value import position_value
from app.computer import COMPUTER_SEAT, resign_answer, valuation
from engine import Roll, parse_position
from engine.game import MOVE, RESIGN_NAMES, ROLL, GameState

COMPUTER = "Computer (expert)"
#: The person's frame (seat 0 = X). The computer has all fifteen in its home board, the
#: person none in theirs: the computer wins for sure and a gammon more often than not.
COMPUTER_WINS = "23:O2 22:O2 21:O3 20:O4 19:O4 12:X5 11:X5 10:X5"
#: The other way round: the person wins for sure.
COMPUTER_LOSES = "18:O5 17:O5 16:O5 6:X3 5:X3 4:X3 3:X3 2:X3"


def game_at(
    points: str,
    variant: str = "classic",
    *,
    turn: int = 0,
    dice: Roll | None = None,
    length: int = 1,
    score: tuple[int, int] = (0, 0),
    cube: int = 1,
    owner: int | None = None,
) -> GameState:
    board, _ = parse_position(f"{variant} | {points} | bar 0/0 | res 0/0 | off 0/0 | -")
    state = GameState.new(variant, ("rita", COMPUTER), random.Random(1), match_length=length)
    return replace(
        state,
        board=board,
        turn=turn,
        phase=ROLL if dice is None else MOVE,
        dice=dice,
        score=score,
        cube=cube,
        cube_owner=owner,
    )


def computer_value(state: GameState) -> PositionValue:
    """What the bot's worker computes (``AIPool.evaluate`` runs ``position_value``)."""
    ask = valuation(state)
    value = position_value(state.rules, ask.position, dice=ask.dice, match=ask.match)
    return value if ask.on_roll == COMPUTER_SEAT else value.for_opponent()


def answer(state: GameState, level: int) -> tuple[bool, str]:
    offered = state.offer_resign(0, level)
    assert offered.resign_offer == (0, level)
    return resign_answer(offered, computer_value(offered))


@pytest.mark.parametrize(
    "moment",
    [
        {"turn": 0},  # the person about to roll
        {"turn": 0, "dice": Roll.of(2, 1)},  # the person has rolled
        {"turn": 0, "dice": Roll.of(6, 6)},
        {"turn": 1},  # during the computer's turn
        {"turn": 1, "dice": Roll.of(5, 3)},
    ],
)
def test_a_single_game_is_rejected_while_the_computer_expects_a_gammon(
    moment: dict[str, object],
) -> None:
    state = game_at(COMPUTER_WINS, **moment)  # type: ignore[arg-type]
    value = computer_value(state)
    assert value.win is not None and value.win > 0.99
    assert 1.1 < value.equity < 2.0
    accepted, why = answer(state, 1)
    assert not accepted
    assert why.startswith(f"{COMPUTER} rejects a single game: it expects ")
    assert "gammon" in why and why.endswith("The game goes on.")
    accepted, why = answer(state, 2)
    assert accepted and why.startswith(f"{COMPUTER} accepts")
    assert answer(state, 3)[0]


def test_the_reason_names_the_expected_gammon() -> None:
    accepted, why = answer(game_at(COMPUTER_WINS), 1)
    assert not accepted
    assert "it expects a gammon here" in why and "wins 100%" in why


@pytest.mark.parametrize("turn", [0, 1])
@pytest.mark.parametrize("level", [1, 2, 3])
def test_a_lost_position_accepts_any_offer(turn: int, level: int) -> None:
    state = game_at(COMPUTER_LOSES, turn=turn)
    assert computer_value(state).equity < -1.0
    accepted, why = answer(state, level)
    assert accepted and why.startswith(f"{COMPUTER} accepts {RESIGN_NAMES[level]} (")
    assert ": it expects -" in why


def test_the_cube_raises_what_an_offer_is_worth() -> None:
    """Classic: the offer is worth the cube times the level, and so is the expectation."""
    state = game_at(COMPUTER_WINS, cube=2, owner=COMPUTER_SEAT)
    value = computer_value(state)
    assert 2.2 < value.equity < 4.0
    assert not answer(state, 1)[0]  # 2 points against more than 2
    assert answer(state, 2)[0]  # 4 points


def test_points_beyond_the_match_are_worth_nothing() -> None:
    """One point from winning a match, a single game wins it: the computer takes it even
    where it expects a gammon."""
    state = game_at(COMPUTER_WINS, length=5, score=(0, 4))
    assert answer(state, 1)[0]
    # Far from the end of the match the gammon counts again.
    assert not answer(game_at(COMPUTER_WINS, length=7), 1)[0]


def test_the_pin_games_compare_in_pips() -> None:
    """The person's pips (x1, x2, x3) against what the computer expects, in pips."""
    lost = game_at("18:O5 17:O5 16:O5 6:X3 5:X3 4:X3 3:X3 2:X3", "pin")
    accepted, why = answer(lost, 1)
    assert accepted
    won = game_at("23:O3 22:O3 21:O3 20:O3 19:O3 18:X5 17:X5 16:X5", "pin")
    value = computer_value(won)
    assert 50 < value.equity < 3 * 255  # pips, not points
    # The person's 255 pips three times over is more than the computer can hope for.
    accepted, why = answer(won, 3)
    assert accepted and why.startswith(f"{COMPUTER} accepts a backgammon (765 points)")


def test_without_an_evaluation_it_accepts() -> None:
    """The pool failed: the offer is accepted, as a practice partner would."""
    offered = game_at(COMPUTER_WINS).offer_resign(0, 1)
    assert resign_answer(offered, None) == (True, f"{COMPUTER} accepts.")
    broken = PositionValue(equity=float("nan"))
    assert resign_answer(offered, broken)[0]


def test_an_offer_that_wins_the_match_is_taken_whatever_the_equity() -> None:
    """Two points from winning a 5-point match, a gammon wins it: the computer takes it even
    though its match equity by playing on (gammons near the end weigh more than twice a
    single game) is more than 2 points, and says what the offer is worth at this score."""
    state = game_at(COMPUTER_WINS, length=5, score=(0, 3))
    assert computer_value(state).equity > 2.0
    accepted, why = answer(state, 2)
    assert accepted, why
    assert why.startswith(f"{COMPUTER} accepts a gammon (2 points, worth ")
    assert "at this match score" in why
    # A single game does not win the match yet, and here a gammon is likely: refused.
    accepted, why = answer(state, 1)
    assert not accepted
    assert "it expects a gammon here" in why


def test_match_offers_are_valued_on_the_match_equity_table() -> None:
    """At 0-0 in a 5-point match a gammon is worth less than two singles (1.91 at bgsage's
    table) and a backgammon more than three; in a single game points are points."""
    from ai.classic import points_as_match_equity

    five = MatchContext(length=5)
    assert points_as_match_equity(five, 1) == pytest.approx(1.0)
    assert 1.8 < (points_as_match_equity(five, 2) or 0.0) < 2.0
    assert (points_as_match_equity(five, 3) or 0.0) > 3.0
    assert points_as_match_equity(MatchContext(), 2) is None
    # Winning the cube's value is always worth the cube; past the end of the match, no more.
    cubed = MatchContext(length=7, score_mover=2, score_opponent=3, cube=2)
    assert points_as_match_equity(cubed, 2) == pytest.approx(2.0)
    ahead = MatchContext(length=5, score_mover=4)
    assert points_as_match_equity(ahead, 1) == points_as_match_equity(ahead, 3) == 1.0


def test_pin_match_offers_count_only_the_points_still_needed() -> None:
    """Outside backgammon a match has no equity table: the points beyond what the computer
    still needs are cut off, and the answer says what the offer is worth there."""
    won = game_at("23:O3 22:O3 21:O3 20:O3 19:O3 18:X5 17:X5 16:X5", "pin", length=101)
    accepted, why = answer(won, 1)
    assert accepted, why
    assert why.startswith(f"{COMPUTER} accepts a single game (255 points, worth 101 at this")
