"""The variants' capability flags, which the rest of the bot asks instead of comparing variant
ids, agree with what random games of each variant actually produce."""

from __future__ import annotations

import pytest

from engine import VARIANTS
from engine.game import MOVE, ROLL
from engine.position import O, X
from tests.engine.playout import final_state, random_decisions

GAMES = 12


def _mixed(stack: str) -> bool:
    return X in stack and O in stack


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_stacks_mix_only_where_the_flag_says(variant: str) -> None:
    rules = VARIANTS[variant]
    seen = False
    for seed in range(GAMES):
        for state, _plays, _chosen in random_decisions(variant, seed):
            if any(_mixed(stack) for stack in state.board.points[1:25]):
                seen = True
                break
        if seen:
            break
    assert seen == rules.stacks_mix


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_result_kinds_match_the_flags(variant: str) -> None:
    """Gammons and mother wins happen in random games exactly where the flags say they can
    (a random player loses gammons often; a mother is pinned in a fair share of pin-mother)."""
    rules = VARIANTS[variant]
    kinds = set()
    for seed in range(40):
        state = final_state(variant, seed)
        assert state.phase not in (ROLL, MOVE) and state.result is not None
        kinds.add(state.result.kind)
    assert ("gammon" in kinds) == rules.scores_gammons, kinds
    assert ("mother" in kinds) == rules.has_mother, kinds


def test_only_backgammon_has_gnubg_ids_and_a_cube() -> None:
    assert {v for v, r in VARIANTS.items() if r.has_gnubg_ids} == {"classic"}
    assert {v for v, r in VARIANTS.items() if r.has_cube} == {"classic"}
    assert {v: r.pin_word for v, r in VARIANTS.items() if r.pin_word != "pins"} == {
        "neverfinishing": "traps"
    }


def test_entry_piles_follow_bar_and_reserve() -> None:
    """The pile the board picture shows entries leaving (render.board)."""
    assert {v: r.entry_pile for v, r in VARIANTS.items()} == {
        "classic": "bar",
        "pin": "bar",
        "pin-mother": "bar",
        "blocking": "reserve",
        "blocking-express": "reserve",
        "dutch": None,
        "neverfinishing": "bar",
    }
