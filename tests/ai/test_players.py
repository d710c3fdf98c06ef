"""The computer players: every answer legal, every level, every variant; reference players."""

from __future__ import annotations

import random
import time

import pytest

from ai.arena import pip_player, play_game, random_player
from ai.players import choose_play, pip_greedy_play, random_play, rank_plays
from ai.types import LEVELS, MatchContext
from engine import VARIANTS, Dice, Position, get_variant, legal_plays
from engine.game import MOVE, ROLL, GameState

ALL = sorted(VARIANTS)


def sample_decisions(variant: str, seed: int, count: int) -> list[tuple[Position, Dice]]:
    """Decisions from seeded random self-play (bar, bear-off, chains all occur)."""
    rng = random.Random(seed)
    out: list[tuple[Position, Dice]] = []
    game = 0
    while len(out) < count:
        state = GameState.new(variant, ("a", "b"), random.Random(seed * 100 + game))
        game += 1
        for _ in range(600):
            if state.phase == ROLL:
                state = state.roll(state.turn, rng)
            if state.phase != MOVE:
                break
            dice = state.current_dice()
            assert dice is not None
            pos = state.position_for(state.mover)
            plays = state.legal_plays()
            if len(plays) > 1 and rng.random() < 0.15:
                out.append((pos, dice))
            state = state._apply(rng.choice(plays), rng, auto=False)
    return out[:count]


@pytest.mark.parametrize("variant", ALL)
def test_every_level_answers_a_legal_play(variant: str) -> None:
    rules = get_variant(variant)
    for i, (pos, dice) in enumerate(sample_decisions(variant, 7, 6)):
        legal = legal_plays(pos, dice, rules)
        for level in LEVELS:
            rng = random.Random(i)
            deadline = time.monotonic() + 0.3
            ranked = rank_plays(rules, pos, dice, level=level, rng=rng, deadline=deadline)
            # All legal plays, each once, nothing else.
            assert sorted(r.play.after for r in ranked) == sorted(p.after for p in legal)
            assert all(r.win is None or 0.0 <= r.win <= 1.0 for r in ranked)
            chosen = choose_play(rules, pos, dice, level=level, rng=rng, deadline=deadline)
            assert chosen in legal


@pytest.mark.parametrize("variant", ALL)
def test_reference_players_are_legal(variant: str) -> None:
    rules = get_variant(variant)
    rng = random.Random(3)
    for pos, dice in sample_decisions(variant, 11, 5):
        legal = legal_plays(pos, dice, rules)
        assert random_play(rules, pos, dice, rng) in legal
        best = pip_greedy_play(rules, pos, dice)
        assert best in legal
        score = best.after.pips("O") - best.after.pips("X")
        assert score == max(p.after.pips("O") - p.after.pips("X") for p in legal)


def test_unknown_level_is_refused() -> None:
    rules = get_variant("pin")
    pos, dice = sample_decisions("pin", 1, 1)[0]
    with pytest.raises(ValueError, match="unknown level"):
        rank_plays(rules, pos, dice, level="grandmaster")


def test_match_context_is_accepted() -> None:
    rules = get_variant("pin")
    pos, dice = sample_decisions("pin", 2, 1)[0]
    match = MatchContext(length=5, score_mover=3, score_opponent=1)
    ranked = rank_plays(rules, pos, dice, level="strong", match=match)
    # In a match nothing is worth more than the points still needed.
    assert all(-4.0 <= r.equity <= 2.0 for r in ranked)


def test_options_are_respected() -> None:
    rules = get_variant("dutch", ["mustEnterAll"])
    state = GameState.new("dutch", ("a", "b"), random.Random(5), options=["mustEnterAll"])
    pos = state.position_for(state.mover)
    dice = state.current_dice()
    assert dice is not None
    play = choose_play(rules, pos, dice, level="expert")
    assert play in legal_plays(pos, dice, rules)
    assert all(step.src == 25 for step in play.steps)


@pytest.mark.parametrize("variant", ["pin", "blocking", "neverfinishing"])
def test_greedy_beats_random_and_pip_greedy_direction(variant: str) -> None:
    """Direction only, on a small sample (the figures live in bench/ai.py)."""
    from ai.arena import level_player

    strong = level_player("strong")
    wins = 0
    games = 8
    for g in range(games):
        opponent = random_player if g % 4 < 2 else pip_player
        seats = (strong, opponent) if g % 2 == 0 else (opponent, strong)
        result = play_game(variant, seats, seed=1000 + g)
        wins += result.winner == g % 2
    assert wins > games // 2


#: A blocking position where a play the expert does not search has a first-look value above the
#: best play's searched value: raw values of different depths would rank it first.
MIXED_DEPTHS = (
    "blocking | 24:X2+O1 23:X3+O1 22:X2 21:X3 20:X1 19:X2 17:X1 12:X1 10:O1 8:O1 6:O2 4:O4 "
    "3:O1 2:O3 1:O1 | bar 0/0 | res 0/0 | off 0/0 | 52"
)


def test_unsearched_plays_are_moved_onto_the_searched_scale() -> None:
    from engine.text import parse_position

    pos, dice = parse_position(MIXED_DEPTHS)
    assert dice is not None
    blocking = get_variant("blocking")
    ranked = rank_plays(blocking, pos, dice, deadline=time.monotonic() + 60)
    best = ranked[0]
    skipped = [r for r in ranked if not r.searched]
    assert best.searched and 2 <= sum(r.searched for r in ranked) < len(ranked)
    assert best.play == choose_play(blocking, pos, dice, deadline=time.monotonic() + 60)
    # The trap: a skipped play's first look is worth more than the best's searched value.
    assert any(r.first_look is not None and r.first_look > best.equity for r in skipped)
    # Moved by the searched plays' mean correction, every value is on one scale, best first.
    looks = [(r.equity, r.first_look) for r in ranked if r.searched]
    corrections = [e - f for e, f in looks if f is not None]
    mean = sum(corrections) / len(corrections)
    for r in skipped:
        assert r.first_look is not None
        assert r.equity == pytest.approx(min(best.equity, r.first_look + mean))
    trap = next(r for r in skipped if r.first_look is not None and r.first_look > best.equity)
    assert trap.equity < best.equity
    equities = [r.equity for r in ranked]
    assert equities == sorted(equities, reverse=True)
    # Without a search every value is a first look, unmoved.
    plain = rank_plays(blocking, pos, dice, level="strong")
    assert not any(r.searched or r.first_look is not None for r in plain)
    assert [r.equity for r in plain] == sorted((r.equity for r in plain), reverse=True)
