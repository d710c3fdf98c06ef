"""Position values for the player about to act (``ai.value``, ``AIPool.evaluate``): the
evaluations behind the computer's answer to an offer to resign, on real positions."""

from __future__ import annotations

import pytest

from ai.pool import AIPool
from ai.types import MatchContext, PositionValue
from ai.value import position_value
from engine import Roll, get_variant, parse_position

#: X (on roll) has all fifteen in its home board; O is still outside its own: X wins for
#: sure, a gammon about half the time, never a backgammon.
X_WINS = "classic | 6:X3 5:X3 4:X3 3:X3 2:X3 18:O5 17:O5 16:O5 | bar 0/0 | res 0/0 | off 0/0 | -"
X_LOSES = (
    "classic | 23:O2 22:O2 21:O3 20:O4 19:O4 12:X5 11:X5 10:X5 | bar 0/0 | res 0/0 | off 0/0 | -"
)
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def value(line: str, match: MatchContext | None = None, **kw: object) -> PositionValue:
    pos, dice = parse_position(line)
    return position_value(get_variant(pos.variant), pos, dice=dice, match=match, **kw)  # type: ignore[arg-type]


def test_classic_values_a_won_and_a_lost_position() -> None:
    won = value(X_WINS, MatchContext())
    assert won.win is not None and won.win > 0.99
    assert won.gammon is not None and 0.2 < won.gammon < 0.8
    assert won.backgammon == pytest.approx(0.0, abs=0.01)
    # Cubeful equity in points: a sure win worth a gammon part of the time.
    assert 1.0 + won.gammon - 0.1 < won.equity < 1.0 + won.gammon + 0.1
    lost = value(X_LOSES, MatchContext())
    assert lost.win is not None and lost.win < 0.01
    assert lost.gammon_loss is not None and lost.gammon_loss > 0.5
    assert -2.0 <= lost.equity < -1.4


def test_classic_value_counts_the_cube_and_the_match() -> None:
    single = value(X_WINS, MatchContext()).equity
    # The cube multiplies the points, whoever owns it (the game is decided).
    for owner in (0, 1):
        doubled = value(X_WINS, MatchContext(cube=2, cube_owner=owner)).equity
        assert doubled == pytest.approx(2 * single, abs=0.05)
    # One point from the match: a gammon is worth no more than a single game.
    assert value(X_WINS, MatchContext(length=5, score_mover=4)).equity <= 1.0 + 1e-6


@pytest.mark.parametrize(
    "line",
    [
        X_WINS,
        X_LOSES,
        "pin | 18:X5 17:X5 16:X5 23:O3 22:O3 21:O3 20:O3 19:O3 | bar 0/0 | res 0/0 | off 0/0 | -",
        "dutch | 6:X3 5:X3 4:X3 3:X3 2:X3 18:O5 17:O5 16:O5 | bar 0/0 | res 0/0 | off 0/0 | "
        "unlocked X=yes O=yes | -",
        "blocking | 6:X3 5:X3 4:X3 3:X3 2:X3 18:O5 17:O5 16:O5 | bar 0/0 | res 0/0 | off 0/0 | -",
        "neverfinishing | 6:X3 5:X3 4:X3 3:X3 2:X3 18:O5 17:O5 16:O5 | bar 0/0 | res 0/0 | "
        "off 0/0 | -",
    ],
)
def test_the_value_on_roll_is_the_average_of_the_values_with_each_roll(line: str) -> None:
    """About to roll (the position seen by the opponent who has just played, negated) and
    about to play each of the 36 rolls (the best play) agree: the on-roll side is X's."""
    pos, _ = parse_position(line)
    rules = get_variant(pos.variant)
    on_roll = position_value(rules, pos, match=MatchContext())
    total = 0.0
    for a, b in ROLLS:
        with_roll = position_value(rules, pos, dice=Roll.of(a, b), match=MatchContext())
        total += (1 if a == b else 2) * with_roll.equity
    stake = rules.resignation_points(pos, 1)  # a single game: 1 point, O's pips in Pin
    assert abs(on_roll.equity) > 0.5 * stake  # clear positions: a wrong side shows
    assert on_roll.equity == pytest.approx(total / 36, abs=0.3 * stake)


def test_the_pin_games_value_in_pips_with_their_chances() -> None:
    """The Pin games score the loser's pips: the value is in pips, with the network's
    gammon and backgammon chances; the hand-evaluated variants give the winning chance."""
    pin = value(
        "pin | 18:X5 17:X5 16:X5 23:O3 22:O3 21:O3 20:O3 19:O3 | bar 0/0 | res 0/0 | off 0/0 | -",
        MatchContext(),
    )
    # X (255 pips, far from home) loses to O (60 pips, home): many pips, not a point or two.
    assert -3 * 255 < pin.equity < -50
    assert pin.gammon_loss is not None and pin.backgammon_loss is not None
    assert pin.backgammon_loss <= pin.gammon_loss
    express = value(
        "blocking-express | 6:X3 5:X3 4:X3 3:X3 2:X3 18:O5 17:O5 16:O5 | bar 0/0 | res 0/0 | "
        "off 0/0 | -",
        MatchContext(),
    )
    assert express.win is not None and express.win > 0.8 and express.gammon is None


def test_opponent_context_swaps_sides() -> None:
    match = MatchContext(length=7, score_mover=5, score_opponent=2, cube=2, cube_owner=0)
    seen = match.for_opponent()
    assert seen == MatchContext(length=7, score_mover=2, score_opponent=5, cube=2, cube_owner=1)
    assert seen.for_opponent() == match
    won = value(X_WINS, MatchContext())
    assert won.for_opponent().for_opponent() == won
    assert won.for_opponent().gammon_loss == won.gammon


async def test_the_pool_values_positions_in_a_worker() -> None:
    pos, _ = parse_position(X_WINS)
    rules = get_variant("classic")
    async with AIPool(workers=1, time_limit=2.0) as pool:
        got = await pool.evaluate(rules, pos, MatchContext())
        assert got == position_value(rules, pos, match=MatchContext())
        rolled = await pool.evaluate(rules, pos, MatchContext(), dice=Roll.of(6, 5))
        assert rolled.win is not None and rolled.win > 0.99
