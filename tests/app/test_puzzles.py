"""app.puzzles without Discord: which benchmark decisions make puzzles, answers right and
wrong (and bad notation), the streak, and the daily puzzle's claim. The benchmark is the
fixture in tests/fixtures/benchmarks (real rollouts, tests/fixtures/make_benchmarks.py)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ai.error_scale import decision_worth
from app.limits import RateLimited
from app.puzzles import (
    BadAnswer,
    Candidate,
    NoPuzzles,
    Puzzles,
    UnknownPuzzle,
    is_clear,
    load_puzzles,
    puzzle_picture,
    puzzle_text,
    verdict_text,
)
from engine import legal_plays, parse_play, parse_position
from storage import Shards, Storage

from .conftest import ALICE, BOB, GUILD, START, FakeClock

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "benchmarks"


@pytest.fixture
def puzzles(db: Storage, clock: FakeClock) -> Puzzles:
    return Puzzles(db, directory=FIXTURES, clock=clock, wall=clock, rng=random.Random(1))


def test_only_clear_decisions_make_puzzles() -> None:
    found = load_puzzles(FIXTURES)
    # dutch's decisions are all close calls (within three standard errors): no puzzles.
    assert set(found) == {"classic", "pin"}
    assert len(found["pin"]) == 2 and len(found["classic"]) == 1
    for variant, puzzles in found.items():
        for p in puzzles:
            assert p.key.startswith(f"{variant}:") and len(p.key) == len(variant) + 13
            pos, _ = parse_position(p.text)
            assert is_clear(p.candidates, decision_worth(p.rules, pos))
    # The rule itself: more than the doubtful threshold and three standard errors.
    assert not is_clear([Candidate("a", 0.10, 0.01), Candidate("b", 0.07, 0.01)], 1.0)
    assert not is_clear([Candidate("a", 0.30, 0.05), Candidate("b", 0.10, 0.05)], 1.0)
    assert is_clear([Candidate("a", 0.30, 0.02), Candidate("b", 0.10, 0.02)], 1.0)
    assert not is_clear([Candidate("a", 30.0, 1.0), Candidate("b", 27.0, 0.5)], 85.0)
    # 3 pips are clear where a decision is worth 50 pips (60 thousandths), not where 85 (35).
    assert is_clear([Candidate("a", 30.0, 0.5), Candidate("b", 27.0, 0.5)], 50.0)
    assert not is_clear([Candidate("a", 30.0, 0.5), Candidate("b", 27.0, 0.5)], 85.0)
    assert not is_clear([Candidate("a", 0.3, 0.0)], 1.0)


async def test_answers_right_and_wrong_make_the_record_and_streak(puzzles: Puzzles) -> None:
    with pytest.raises(
        NoPuzzles,
        match=r"no puzzles for Dutch Backgammon\. Puzzles exist for: Backgammon, The Pin Game",
    ):
        puzzles.pick(ALICE, "dutch")
    first, second = load_puzzles(FIXTURES)["pin"]
    right = await puzzles.answer(ALICE, GUILD, first.key, first.candidates[0].play)
    assert right.solved and right.answer.counted and right.answer.record.streak == 1
    text = verdict_text(right)
    assert text.startswith(f"✅ **Right**: `{first.candidates[0].play}`")
    assert f"rolled out {first.trials} times" in text and "more than three standard errors" in text
    assert "Puzzles solved: 1 of 1 · streak 1" in text

    # The second candidate: how much it gives away, in pips.
    wrong = await puzzles.answer(ALICE, GUILD, second.key, second.candidates[1].play)
    assert not wrong.solved and wrong.answer.record.streak == 0
    gap = second.candidates[0].equity - second.candidates[1].equity
    assert f"gives away {gap:.1f} pips; the best is `{second.candidates[0].play}`" in (
        verdict_text(wrong)
    )
    # Answering again counts for nothing.
    again = await puzzles.answer(ALICE, GUILD, second.key, second.candidates[0].play)
    assert again.solved and not again.answer.counted
    assert "only your first answer counts" in verdict_text(again)
    assert (await puzzles.record(ALICE)).answered == 2

    # A legal play the rollouts left out, and notation that is not a legal play.
    pos, dice = second.decision()
    rolled = {parse_play(pos, legal_plays(pos, dice), c.play).after for c in second.candidates}
    other = next(p for p in legal_plays(pos, dice) if p.after not in rolled)
    outside = await puzzles.answer(BOB, GUILD, second.key, other.text)
    assert not outside.solved and outside.played_equity is None
    assert "not among the plays the rollouts found best" in verdict_text(outside)
    with pytest.raises(BadAnswer, match=r"not a legal play with .*as for `/move`"):
        await puzzles.answer(BOB, GUILD, first.key, "24/1")
    with pytest.raises(UnknownPuzzle):
        await puzzles.answer(BOB, GUILD, "pin:000000000000", "24/18")


async def test_picking_is_limited_per_user_and_draws_a_board(puzzles: Puzzles) -> None:
    for _ in range(6):
        chosen = puzzles.pick(BOB)
        assert chosen.variant in ("pin", "classic")
    with pytest.raises(RateLimited, match="puzzles too often"):
        puzzles.pick(BOB)
    assert "you are to play" in puzzle_text(chosen) and chosen.text in puzzle_text(chosen)
    png = puzzle_picture(chosen.text)
    assert png.startswith(b"\x89PNG")


async def test_the_daily_puzzle_is_claimed_once_a_day(
    db: Storage, puzzles: Puzzles, clock: FakeClock
) -> None:
    assert await puzzles.daily_due(None) == []
    await puzzles.set_daily(GUILD, 555)
    (due,) = await puzzles.daily_due(None)
    assert due.channel_id == 555 and due.day == "2023-11-14"  # START is 2023-11-14 22:13 UTC
    assert due.puzzle == puzzles.daily_choice(GUILD, due.day)
    # Claimed but not posted (a crash before the post): due again, the same puzzle.
    (again,) = await puzzles.daily_due(Shards(1, (0,)))
    assert again.puzzle == due.puzzle
    assert await puzzles.daily_posted(due, 777)
    assert await puzzles.daily_due(None) == []
    clock.advance(86400)  # the next UTC day
    (tomorrow,) = await puzzles.daily_due(None)
    assert tomorrow.day == "2023-11-15"
    await puzzles.set_daily(GUILD, None)
    assert await puzzles.daily_channel(GUILD) is None


def test_start_is_the_day_the_daily_test_says() -> None:
    from app.puzzles import utc_day

    assert utc_day(START) == "2023-11-14"


def test_the_move_builder_of_a_puzzle_reaches_its_best_play(puzzles: Puzzles) -> None:
    from app.puzzles import StaleBuilder
    from engine.builder import encode_steps

    (puzzle,) = load_puzzles(FIXTURES)["classic"]
    pos, dice = puzzle.decision()
    best = parse_play(pos, legal_plays(pos, dice), puzzle.candidates[0].play)
    built = puzzles.build(puzzle.key, "", "open")
    assert built.steps == "" and "Your answer: **nothing yet**" in built.text()
    for step in best.steps:
        built = puzzles.build(puzzle.key, built.steps, "step", encode_steps((step,)))
    assert built.made.play is not None and built.made.play.after == best.after
    assert "Confirm" in built.text() and built.preview().startswith("classic | ")
    assert puzzles.build(puzzle.key, built.steps, "undo").made.chosen == built.made.chosen[:-1]
    assert puzzles.build(puzzle.key, built.steps, "reset").made.chosen == ()
    with pytest.raises(StaleBuilder):
        puzzles.build(puzzle.key, "", "step", "zz")
    with pytest.raises(UnknownPuzzle):
        puzzles.build("classic:000000000000", "", "open")
