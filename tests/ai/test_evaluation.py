"""Sanity of the hand evaluation: features match the engine, known positions rank as they must."""

from __future__ import annotations

import pytest

from ai import hand_weights
from ai.evaluation import PinEvaluator, evaluate, evaluator_for
from ai.features import (
    Encoded,
    deep_cover_features,
    deep_pin_features,
    describe,
    feature_matrix,
    feature_names,
)
from ai.types import MatchContext
from engine import VARIANTS, Position, get_variant, make_position
from tests.ai.test_players import sample_decisions

ALL = sorted(VARIANTS)


@pytest.mark.parametrize("variant", ALL)
def test_pip_and_off_features_match_the_engine(variant: str) -> None:
    rules = get_variant(variant)
    positions = [pos for pos, _ in sample_decisions(variant, 21, 25)]
    rows, _ = feature_matrix(rules, positions)
    names = feature_names()
    for pos, row in zip(positions, rows, strict=True):
        got = dict(zip(names, row, strict=True))
        assert got["x_pips"] * 100 == pytest.approx(pos.pips("X"))
        assert got["o_pips"] * 100 == pytest.approx(pos.pips("O"))
        assert got["x_off"] * 15 == pytest.approx(pos.off[0])
        assert got["o_off"] * 15 == pytest.approx(pos.off[1])
        assert 0.0 <= got["x_hit_any"] <= 1.0


@pytest.mark.parametrize("variant", ALL)
def test_values_are_probabilities_and_batch_independent(variant: str) -> None:
    rules = get_variant(variant)
    positions = [pos for pos, _ in sample_decisions(variant, 5, 12)]
    eq, win = evaluate(rules, positions)
    assert ((win >= 0) & (win <= 1)).all()
    # Evaluating one at a time gives the same numbers as the batch.
    for i, pos in enumerate(positions):
        e1, w1 = evaluate(rules, [pos])
        assert e1[0] == pytest.approx(eq[i]) and w1[0] == pytest.approx(win[i])


def _race(variant: str, x: dict[int, str], o: dict[int, str]) -> Position:
    return make_position(variant, {**x, **o})


@pytest.mark.parametrize("variant", ["classic", "dutch", "neverfinishing", "pin"])
def test_race_leader_is_favourite(variant: str) -> None:
    rules = get_variant(variant)
    # O's point q is X's 25 - q: O on X's 19/20 is 83 pips from home, on X's 24/23 only 22.
    ahead = _race(variant, {1: "X" * 8, 2: "X" * 7}, {19: "O" * 8, 20: "O" * 7})
    behind = _race(variant, {6: "X" * 8, 5: "X" * 7}, {24: "O" * 8, 23: "O" * 7})
    assert not describe(rules, ahead)["contact"]
    _, win = evaluate(rules, [ahead, behind])
    assert win[0] > 0.8
    assert win[1] < 0.2


def test_a_won_position_is_exact() -> None:
    rules = get_variant("classic")
    backgammon = make_position("classic", {3: "O", 19: "O" * 14}, off=(15, 0))
    gammon = make_position("classic", {19: "O" * 15}, off=(15, 0))
    eq, win = evaluate(rules, [backgammon, gammon])
    assert list(win) == [1.0, 1.0]
    assert list(eq) == [3.0, 2.0]
    # In a 1-point match a win is worth one point, however big.
    eq1, _ = evaluate(rules, [backgammon], MatchContext(length=1))
    assert eq1[0] == 1.0


@pytest.mark.parametrize("variant", ["pin", "pin-mother"])
def test_pinning_beats_being_pinned(variant: str) -> None:
    rules = get_variant(variant)
    pinned = make_position(variant, {24: "X" * 13, 17: "XO", 15: "X", 1: "O" * 13, 8: "O"})
    pinning = make_position(variant, {24: "X" * 13, 17: "X", 8: "OX", 1: "O" * 13, 10: "O"})
    _, win = evaluate(rules, [pinned, pinning])
    assert win[1] > win[0]


def test_blocking_covered_checkers_hurt() -> None:
    rules = get_variant("blocking")
    free = make_position("blocking", {12: "XX", 13: "OO", 6: "X" * 13, 3: "O" * 13})
    covered = make_position("blocking", {12: "XXOO", 6: "X" * 13, 3: "O" * 13})
    assert describe(rules, free)["contact"] and describe(rules, covered)["x_covered"] > 0
    _, win = evaluate(rules, [free, covered])
    assert win[0] > win[1]


def test_pin_scoring_is_in_points() -> None:
    """Pin games: expected points grow with the loser's pips (money play)."""
    rules = get_variant("pin")
    pos = make_position("pin", {1: "X" * 15, 10: "O" * 15})
    eq, win = evaluate(rules, [pos])
    assert win[0] > 0.9
    assert eq[0] > 100  # O has 225 pips to go; X is all but off
    assert evaluator_for("pin").stake_scale(rules, pos, MatchContext(length=3)) == 3.0


def test_symmetric_start_is_balanced() -> None:
    """The opening position, O to roll: no side a clear favourite (being on roll is an edge)."""
    for variant in ALL:
        rules = get_variant(variant)
        _, win = evaluate(rules, [rules.initial_position()])
        assert 0.2 < win[0] < 0.8, variant


def test_deep_pin_features() -> None:
    """Pin games: a checker pinned in the opponent's home board, or a blot there in reach."""
    rules = get_variant("pin")
    positions = [
        # X's last checker on 24, O's free checkers 2 and 5 pips away; O's blot on X's 3.
        make_position("pin", {24: "X", 22: "O", 19: "O", 3: "O", 6: "X" * 14, 1: "O" * 12}),
        # The same X checker pinned; O's checker pinned on X's 2 (O's 23).
        make_position("pin", {24: "XO", 19: "O", 2: "OX", 6: "X" * 13, 1: "O" * 13}),
        # Nothing deep: X's back checker has escaped past every O checker... and O's too.
        make_position("pin", {12: "X" * 15, 13: "O" * 15}),
    ]
    fx, fo = deep_pin_features(Encoded(rules, positions))
    # P(some roll moves a checker exactly 2 or 5 pips), blocks ignored: 1 - (1-p2)(1-p5).
    reach = {2: 12 / 36, 5: 15 / 36}
    expected = 1 - (1 - reach[2]) * (1 - reach[5])
    assert fx[0].tolist() == pytest.approx([0.0, expected])
    # O's blot on X's 3 (O's 22) with X's 14 checkers on 6 three pips behind it (O's frame).
    assert fo[0][0] == 0.0 and fo[0][1] == pytest.approx(14 / 36)
    assert fx[1].tolist() == [1.0, 0.0]
    assert fo[1].tolist() == [1.0, 0.0]
    assert fx[2].tolist() == fo[2].tolist() == [0.0, 0.0]


def test_deep_cover_features() -> None:
    """Blocking: a stack on the ace point the opponent can cover once he has entered all."""
    rules = get_variant("blocking")
    stacks = {24: "XX", 4: "X" * 13, 22: "O", 1: "OO"}
    positions = [
        # X's pair on 24 with O's free checkers 2 and 5 pips behind; O's pair on his own ace
        # point (X's 1) with X's 13 checkers three pips behind it in O's frame.
        make_position("blocking", {**stacks, 19: "O" * 12}),
        # The same, but O still has a checker to enter: he cannot move forward yet.
        make_position("blocking", {**stacks, 19: "O" * 11}, reserve=(0, 1)),
        # A lone X checker owns 24; two covered ones cannot be covered again.
        make_position("blocking", {24: "X", 23: "XXO", 4: "X" * 12, 19: "O" * 14}),
        make_position("blocking", {24: "XXO", 4: "X" * 13, 19: "O" * 14}),
    ]
    fx, fo = deep_cover_features(Encoded(rules, positions))
    reach = {2: 12 / 36, 3: 14 / 36, 5: 15 / 36}
    assert fx[0].tolist() == pytest.approx([2 * (1 - (1 - reach[2]) * (1 - reach[5])) / 15])
    assert fo[0].tolist() == pytest.approx([2 * reach[3] / 15])
    assert fx[1].tolist() == [0.0]
    assert fo[1].tolist() == pytest.approx([2 * reach[3] / 15])
    assert fx[2].tolist() == fx[3].tolist() == [0.0]


def test_blocking_stack_left_on_the_ace_point_costs() -> None:
    """The greedy Blocking player lost a game in ten to a random one, mostly with a stack left
    on 24 and covered there early: the same pip count with the stack moved on is worth more."""
    rules = get_variant("blocking")
    rest = {22: "O", 19: "O" * 6, 8: "O" * 8}
    on_ace = make_position("blocking", {**rest, 24: "XXXX", 13: "X" * 10, 10: "X"})
    moved_on = make_position("blocking", {**rest, 24: "X", 23: "XXX", 13: "X" * 11})
    equity, _ = evaluate(rules, [on_ace, moved_on])
    assert equity[1] > equity[0]


def test_pin_leaving_the_last_back_checker_exposed_costs() -> None:
    """The greedy pin player lost to a random one by leaving its last checker on 24 alone,
    where the opponent's checkers coming home pin it for good: the deep-pin term lowers the
    value of such positions, and of the pinned one most, and leaves a race alone."""
    rules = get_variant("pin")
    stacks = {19: "O" * 3, 20: "O" * 3, 21: "OO", 6: "X" * 5, 5: "X" * 4, 4: "X" * 4, 1: "O" * 7}
    exposed = make_position("pin", {**stacks, 24: "X", 8: "X"})
    safe = make_position("pin", {**stacks, 24: "XX"})
    pinned = make_position("pin", {**stacks, 24: "XO", 8: "X", 1: "O" * 6})
    race = make_position("pin", {1: "X" * 15, 24: "O" * 15})
    without = PinEvaluator({"pin": {**hand_weights.WEIGHTS["pin"], "deep_pin": [0.0] * 4}})
    _, win = evaluator_for("pin").evaluate(rules, [exposed, safe, pinned, race])
    _, before = without.evaluate(rules, [exposed, safe, pinned, race])
    assert win[0] < before[0]
    assert win[1] == pytest.approx(before[1])
    assert before[2] - win[2] > before[0] - win[0]
    assert win[3] == pytest.approx(before[3])
