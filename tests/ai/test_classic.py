"""Classic on bgsage: the board mapping, legality of every answer, levels, deadline and cube."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import pytest

from ai.classic import (
    CLASSIC_LEVELS,
    bgsage_results,
    cube_action,
    from_board,
    may_double,
    rank_classic,
    take_decision,
    to_board,
)
from ai.types import LEVELS, MatchContext
from engine import Position, Roll, get_variant, legal_plays, parse_position

CLASSIC = get_variant("classic")


def random_positions(count: int, seed: int) -> Iterator[tuple[Position, Roll]]:
    """Positions with dice from random classic games (both players' turns, to the end)."""
    rng = random.Random(seed)
    made = 0
    while True:
        pos = CLASSIC.initial_position()
        while True:
            dice = Roll.of(rng.randint(1, 6), rng.randint(1, 6))
            yield pos, dice
            made += 1
            if made >= count:
                return
            pos = rng.choice(legal_plays(pos, dice, CLASSIC)).after
            if CLASSIC.result(pos) is not None:
                break
            pos = pos.flip()


def test_board_round_trip_and_layout() -> None:
    start = CLASSIC.initial_position()
    board = to_board(start)
    # bgsage's own starting board: the mover's checkers positive, bars at 25 (mover) and 0.
    from bgsage import STARTING_BOARD

    assert board == STARTING_BOARD
    pos, _ = parse_position("classic | 24:O2 20:X1 6:X3 1:X1 | bar 2/1 | res 0/0 | off 8/12 | -")
    board = to_board(pos)
    assert board[25] == 2 and board[0] == 1 and board[24] == -2 and board[20] == 1
    assert from_board(board) == pos
    for pos, _dice in random_positions(400, seed=3):
        assert from_board(to_board(pos)) == pos
    with pytest.raises(ValueError):
        from_board([0] * 25)
    with pytest.raises(ValueError):
        from_board([0, *([1] * 16), *([0] * 9)])


def test_every_answer_is_legal_on_1000_random_positions() -> None:
    """bgsage's boards map back to engine plays by resulting position; none is invented."""
    checked = bar = bear_off = doubles = dropped = 0
    for pos, dice in random_positions(1200, seed=12):
        plays = legal_plays(pos, dice, CLASSIC)
        legal = {p.after for p in plays}
        raw = bgsage_results(pos, dice)
        # bgsage occasionally offers a play the rules forbid (e.g. a one-die bear-off of the
        # last checker when both dice can be played): the adapter never lets it through.
        dropped += len(set(raw) - legal)
        ranked = rank_classic(pos, dice, level="beginner", rng=random.Random(checked))
        assert [r.play.after for r in ranked if r.play.after not in legal] == []
        assert {r.play.after for r in ranked} == legal
        assert len(ranked) == len(legal)
        assert all(0.0 <= (r.win or 0.0) <= 1.0 for r in ranked)
        checked += 1
        bar += pos.bar[0] > 0
        bear_off += pos.off[0] > 0 or all("X" not in pos.points[p] for p in range(7, 25))
        doubles += dice.is_double
    assert checked >= 1000
    # The sample really contains the hard cases.
    assert bar >= 50 and bear_off >= 50 and doubles >= 100
    assert dropped < checked // 100


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_answers_legally_within_its_deadline(level: str) -> None:
    rng = random.Random(7)
    for pos, dice in random_positions(15, seed=LEVELS.index(level)):
        legal = {p.after for p in legal_plays(pos, dice, CLASSIC)}
        start = time.monotonic()
        ranked = rank_classic(pos, dice, level=level, deadline=start + 1.0, rng=rng)
        assert ranked and {r.play.after for r in ranked} == legal


def test_an_expired_deadline_still_answers_with_the_network_ranking() -> None:
    pos = CLASSIC.initial_position()
    ranked = rank_classic(pos, Roll(4, 2), level="expert", deadline=time.monotonic() - 1)
    assert ranked[0].play.text == "8/4 6/4"


def test_plays_not_searched_deeper_are_moved_onto_the_deeper_scale() -> None:
    pos = CLASSIC.initial_position()
    ranked = rank_classic(pos, Roll(6, 4), level="expert", deadline=time.monotonic() + 60)
    best = ranked[0]
    assert best.searched and 2 <= sum(r.searched for r in ranked) < len(ranked)
    assert all(r.first_look is not None for r in ranked)
    looks = [(r.equity, r.first_look) for r in ranked if r.searched]
    corrections = [e - f for e, f in looks if f is not None]
    mean = sum(corrections) / len(corrections)
    for r in ranked:
        if not r.searched:
            assert r.first_look is not None
            assert r.equity == pytest.approx(min(best.equity, r.first_look + mean))
    equities = [r.equity for r in ranked]
    assert equities == sorted(equities, reverse=True)
    # No time for the deeper stages: every value is a first look.
    quick = rank_classic(pos, Roll(6, 4), level="expert", deadline=time.monotonic() - 1)
    assert not any(r.searched or r.first_look is not None for r in quick)


def test_expert_finds_the_standard_opening_plays() -> None:
    pos = CLASSIC.initial_position()
    best = {
        (3, 1): "8/5 6/5",
        (4, 2): "8/4 6/4",
        (6, 1): "13/7 8/7",
        (5, 3): "8/3 6/3",
    }
    for (a, b), text in best.items():
        assert rank_classic(pos, Roll(a, b), level="expert")[0].play.text == text


def test_noise_orders_the_levels_on_a_clear_decision() -> None:
    """The opening 6-1 has one clearly best play: the expert always finds it, a beginner not."""
    pos = CLASSIC.initial_position()
    rng = random.Random(1)
    hits = {
        level: sum(
            rank_classic(pos, Roll(6, 1), level=level, rng=rng)[0].play.text == "13/7 8/7"
            for _ in range(60)
        )
        for level in ("beginner", "intermediate", "expert")
    }
    assert hits["expert"] == 60
    assert hits["beginner"] < hits["intermediate"] <= 60
    assert [CLASSIC_LEVELS[lv].noise for lv in LEVELS] == sorted(
        (CLASSIC_LEVELS[lv].noise for lv in LEVELS), reverse=True
    )


def test_ranking_is_best_first_with_equities_for_the_mover() -> None:
    pos, dice = parse_position(
        "classic | 24:O2 23:O2 22:O3 21:O3 20:O3 19:O2 6:X3 5:X3 4:X3 3:X2 2:X2 1:X2 "
        "| bar 0/0 | res 0/0 | off 0/0 | 66"
    )
    assert isinstance(dice, Roll)
    ranked = rank_classic(pos, dice, level="strong")
    equities = [r.equity for r in ranked]
    assert equities == sorted(equities, reverse=True)
    # Bearing off four checkers against a full racing opponent: X is a big favourite.
    assert ranked[0].play.after.off[0] == 4
    assert ranked[0].win is not None and ranked[0].win > 0.7


# --- cube --------------------------------------------------------------------------------------

PASS = (
    "classic | 19:O3 18:O3 17:O3 16:O2 15:O2 14:O2 9:X3 8:X3 7:X3 6:X2 5:X2 4:X2 "
    "| bar 0/0 | res 0/0 | off 0/0 | -"
)
EVEN_RACE = (
    "classic | 24:O2 23:O2 22:O3 21:O3 20:O3 19:O2 6:X3 5:X3 4:X3 3:X2 2:X2 1:X2 "
    "| bar 0/0 | res 0/0 | off 0/0 | -"
)
TAKE = (
    "classic | 19:O3 18:O3 17:O3 16:O3 15:O3 10:X3 9:X3 8:X3 7:X3 6:X3 "
    "| bar 0/0 | res 0/0 | off 0/0 | -"
)


def _pos(text: str) -> Position:
    return parse_position(text)[0]


def test_cube_clear_pass() -> None:
    action = cube_action(_pos(PASS))
    assert action.double and not action.take and action.action == "double, pass"
    assert action.win > 0.8
    # The opponent's own view agrees: pass.
    assert take_decision(_pos(PASS).flip()) is False


def test_cube_clear_take() -> None:
    action = cube_action(_pos(TAKE))
    assert action.take
    assert take_decision(_pos(TAKE).flip()) is True
    # Nobody doubles in the opening position.
    start = cube_action(CLASSIC.initial_position())
    assert not start.double and start.take and start.action == "no double"


def test_cube_even_race_is_no_double() -> None:
    action = cube_action(_pos(EVEN_RACE))
    assert not action.double and action.take


def test_crawford_and_cube_ownership_forbid_doubling() -> None:
    crawford = MatchContext(length=5, score_mover=0, score_opponent=4, crawford=True)
    action = cube_action(_pos(PASS), crawford)
    assert not action.may_double and not action.double
    owned = MatchContext(cube=2, cube_owner=1)
    assert not cube_action(_pos(PASS), owned).double
    # A cube that already covers the mover's remaining points is dead.
    dead = MatchContext(length=5, score_mover=3, score_opponent=0, cube=2, cube_owner=0)
    assert not may_double(dead) and not cube_action(_pos(PASS), dead).double
    # Post-Crawford, the trailer doubles at once: the leader's gammons cost nothing more.
    post = MatchContext(length=5, score_mover=0, score_opponent=4, crawford=False)
    assert may_double(post) and cube_action(CLASSIC.initial_position(), post).double
    assert may_double(MatchContext(cube=2, cube_owner=0))


def test_a_board_bgsage_offers_against_the_rules_is_never_played() -> None:
    """Last checker on the 2 with 5-1 and an O blot on the 1: both dice can be played
    (2/1*/off), so the one-die bear-off 2/off is illegal (RULES §2.5); bgsage lists both."""
    pos, dice = parse_position(
        "classic | 24:O6 23:O1 22:O3 21:O1 18:O1 13:O1 9:O1 2:X1 1:O1 "
        "| bar 0/0 | res 0/0 | off 14/0 | 51"
    )
    assert isinstance(dice, Roll)
    legal = legal_plays(pos, dice, CLASSIC)
    assert [p.text for p in legal] == ["2/1*/off"]
    assert len(set(bgsage_results(pos, dice)) - {p.after for p in legal}) == 1
    for level in LEVELS:
        ranked = rank_classic(pos, dice, level=level, rng=random.Random(0))
        assert [r.play.text for r in ranked] == ["2/1*/off"]
