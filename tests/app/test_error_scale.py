"""One error scale (``ai.error_scale``): a decision scored by /review's path and by the
benchmark's (``python -m ai benchmark score``) gives the same thousandths of a game.

Both paths start from the same position, the same play and the same equities: the review's
ranking is given the benchmark decision's rolled-out equities (the only stand-in: it replaces
the computer's judgement, which is not what is tested here). If either path scaled its losses
its own way (a fixed game value, no scaling, another stake), the numbers would differ.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from ai.benchmark import Decision
from ai.benchmark_score import HAND_0PLY, score_variant
from ai.error_scale import BLUNDER, decision_worth, mistake_class
from ai.evaluation import evaluator_for
from ai.report import review_player
from ai.types import RankedPlay
from app.reports import Reports, decisions_to_judge
from app.table import GameTable
from engine import Dice, Position, Variant, get_variant, legal_plays
from engine.game import MOVE, ROLL, GameState
from engine.text import format_position
from storage import Storage


class RolloutRanking:
    """Ranks as the benchmark's rollout did in ``target``, every play equal elsewhere."""

    def __init__(self, target: Position, equities: dict[str, float]) -> None:
        self.target = target
        self.equities = equities

    async def rank(self, rules: Variant, pos: Position, dice: Dice, **_: Any) -> list[RankedPlay]:
        plays = legal_plays(pos, dice, rules)
        values = self.equities if pos == self.target else {}
        ranked = [RankedPlay(p, values.get(p.text, 0.0), 0.5) for p in plays]
        return sorted(ranked, key=lambda r: -r.equity)

    async def review(self, *_: Any, **__: Any) -> list[None]:
        return [None]  # no luck measured: not on the error scale


def a_decision(variant_id: str, seed: int) -> tuple[GameState, list[str]]:
    """A game some plays in, at a turn with at least three plays (the plays' texts)."""
    rng = random.Random(seed)
    state = GameState.new(variant_id, ("ann", "ben"), rng)
    moves = 0
    while True:
        if state.phase == ROLL:
            state = state.roll(state.mover, rng)
            continue
        assert state.phase == MOVE
        plays = state.legal_plays()
        if moves >= 6 and len(plays) >= 3:
            return state, [p.text for p in plays]
        state = state.play(state.mover, rng.choice(plays).text, rng)
        moves += 1


@pytest.mark.parametrize("variant_id", ["classic", "pin", "blocking", "dutch", "neverfinishing"])
async def test_one_decision_scores_alike_in_a_review_and_the_benchmark(
    db: Storage, table: GameTable, variant_id: str
) -> None:
    rules = get_variant(variant_id)
    state, texts = a_decision(variant_id, 11)
    seat = state.mover
    pos = state.position_for(seat)
    dice = state.current_dice()
    assert dice is not None
    plays = legal_plays(pos, dice, rules)
    # The benchmark's hand-0ply player makes the hand evaluation's best play; the rollout
    # says another is better by ``loss``.
    eq, _ = evaluator_for(variant_id).evaluate(rules, [p.after for p in plays])
    chosen = plays[int(np.argmax(eq))].text
    better = next(t for t in texts if t != chosen)
    loss = 7.5 if rules.score_unit == "pip" else 0.13
    equities = {t: -3 * loss for t in texts} | {better: loss, chosen: 0.0}
    ranked = sorted(equities.items(), key=lambda kv: -kv[1])
    decision = Decision(
        variant_id,
        format_position(pos, dice),
        [dice.high, dice.low] if hasattr(dice, "high") else [],
        [(t, e, 0.01) for t, e in ranked],
        36,
        {"game": 0},
    )
    (score,) = score_variant(variant_id, [decision], [HAND_0PLY])

    played = state.play(seat, chosen, random.Random(1))
    reports = Reports(db, table, RolloutRanking(pos, equities))  # type: ignore[arg-type]
    verdicts = await reports._verdicts(played, decisions_to_judge(played))
    judged = verdicts[-1]
    assert (judged.played, judged.best, judged.lost) == (chosen, better, pytest.approx(loss))

    # One number by both paths, and it is the loss over what the decision is worth.
    assert judged.error == pytest.approx(score.losses[0])
    assert judged.error == pytest.approx(1000 * loss / decision_worth(rules, pos))
    # The player's other decisions lost nothing: the review's rate is that error over them.
    review = review_player(verdicts, seat)
    assert review.error_rate * review.decisions == pytest.approx(score.error_rate)
    assert review.rating * review.decisions == pytest.approx(score.rating)
    assert score.blunders == (1.0 if mistake_class(judged.error) in ("bad", "very bad") else 0.0)
    assert (judged.error >= BLUNDER) == (score.blunders == 1.0)
    await reports.close()


def test_a_decisions_worth_is_per_unit_of_cube_and_capped_in_a_match() -> None:
    from ai.types import MatchContext

    rules = get_variant("classic")
    pos = rules.initial_position()
    single = decision_worth(rules, pos)
    # bgsage's equities are per unit of cube (a doubled cube does not double them), so the
    # worth is too: the error of a play is the same whoever holds a cube of 2.
    doubled = MatchContext(length=7, cube=2, cube_owner=0)
    assert decision_worth(rules, pos, doubled) == decision_worth(rules, pos, MatchContext(7))
    assert decision_worth(rules, pos, MatchContext(cube=4, cube_owner=1)) == single
    # One point from the end, a win brings no more than the point still needed.
    assert decision_worth(rules, pos, MatchContext(length=5, score_mover=4)) == 1.0
    pin = get_variant("pin")
    assert decision_worth(pin, pin.initial_position()) > 1.0  # pips, not points


@pytest.mark.parametrize("variant_id", ["pin", "pin-mother", "dutch", "classic"])
def test_a_decisions_worth_is_the_same_for_either_side(variant_id: str) -> None:
    """Half the equity's range: what a win brings and a loss costs, averaged, so the player far
    behind and the one far ahead are judged on one scale (a Pin game's win worth 5 pips to
    the one behind once made each of his pips lost count as 1/5 of a game)."""
    rules = get_variant(variant_id)
    for seed in range(6):
        state, _ = a_decision(variant_id, seed)
        pos = state.position_for(state.mover)
        assert decision_worth(rules, pos) == pytest.approx(decision_worth(rules, pos.flip()))
        assert decision_worth(rules, pos) >= 1.0
    if rules.score_unit == "pip":
        # The opening is worth tens of pips (a win there brings about a fifth of 344 pips).
        assert 40 < decision_worth(rules, rules.initial_position()) < 120
