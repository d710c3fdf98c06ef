"""Blocking Express run lookahead (RULES §6.2, A37) beyond the hand-worked positions."""

from __future__ import annotations

import pytest

from engine import ChainDice, Position, express, legal_plays, parse_position
from engine.express import longest_run
from engine.movegen import _leaves
from engine.variants import get_variant

from .express_slowest import SLOWEST
from .playout import plain_run


def test_a_complete_run_is_as_long_as_a_winning_one() -> None:
    """positions.md E7: bearing off the 15th checker "counts as every pending number". A play
    after which X plays every pending number without winning is therefore just as long as one
    after which he wins, and both are legal (neither hands the chain over)."""
    pos, dice = parse_position(
        "blocking-express | 24:O15 14:X2 12:X1 | bar 0/0 | res 0/0 | off 12/0 | [5x4]"
    )
    assert dice is not None
    plays = {p.text: p for p in legal_plays(pos, dice)}
    assert set(plays) == {"14/4(2)", "14/4 12/2", "14/9(2) 12/2", "14/9 14/4 12/7"}
    rules = get_variant("blocking-express")
    for play in plays.values():
        assert longest_run(rules, play.after, 4) == 4  # all four 6s
    # Only 14/4(2) can go on to win (12/6, 6/off, 4/off, 4/off); after 14/4 12/2 the 6s are
    # 14/8, 8/2, 4/off, 2/off and one checker stays. Scoring a win above a complete run would
    # leave 14/4(2) alone.


@pytest.mark.parametrize("line", SLOWEST, ids=[f"slowest-{i}" for i in range(len(SLOWEST))])
def test_slowest_chain_decisions_match_the_plain_search(line: str) -> None:
    """The slowest decisions found (``express_slowest``) list exactly the plays the plain
    search picks: every result of every order of the dice, scored by copies used plus the
    longest run found without bounds, shortcuts or memo sharing with the engine."""
    pos, dice = parse_position(line)
    assert isinstance(dice, ChainDice)
    rules = get_variant("blocking-express")
    left = len(express.pending_after(dice))
    memo: dict[tuple[Position, int], int] = {}
    scores = {}
    for after, leaf in _leaves(rules, pos, dice.numbers, use_order=False).items():
        used = len(leaf.steps)
        if after.off[0] == 15:
            scores[after] = dice.copies + left
        elif used < dice.copies:
            scores[after] = used
        else:
            scores[after] = used + plain_run(rules, after, left, memo)
    best = max(scores.values())
    expected = {after for after, score in scores.items() if score == best}
    express.clear_caches()
    plays = legal_plays(pos, dice)
    assert {p.after for p in plays} == expected
    assert len(plays) == len(expected)
