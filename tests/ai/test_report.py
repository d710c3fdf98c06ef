"""Review figures from per-play verdicts."""

from __future__ import annotations

import pytest

from ai.report import Verdict, game_breaks, mistake_points, review_player, win_series


def verdict(
    seat: int,
    lost: float,
    *,
    choices: int = 5,
    win: float | None = 0.5,
    luck: float | None = None,
    game: int = 1,
    n: int = 0,
    worth: float = 1.0,
) -> Verdict:
    return Verdict(
        seat, game, f"line {n}", f"played {n}", f"best {n}", lost, win, luck, choices, worth
    )


def test_review_counts_choices_sums_losses_and_keeps_the_three_biggest_mistakes() -> None:
    verdicts = [
        verdict(0, 0.10, n=1),
        verdict(0, 0.0, n=2),
        verdict(0, 0.30, n=3),
        verdict(0, 0.0, choices=1, n=4),  # forced: not a decision
        verdict(0, 0.05, n=5),
        verdict(0, 0.20, n=6),
        verdict(1, 0.40, n=7),
    ]
    review = review_player(verdicts, 0)
    assert (review.decisions, review.forced) == (5, 1)
    assert review.total_lost == pytest.approx(0.65)
    assert review.average_lost == pytest.approx(0.13)
    assert review.error_rate == pytest.approx(130.0)
    assert review.rating == pytest.approx(65.0)  # half the error rate
    assert [v.line for v in review.mistakes] == ["line 3", "line 6", "line 1"]
    assert review.luck is None
    other = review_player(verdicts, 1)
    assert other.decisions == 1 and other.mistakes[0].lost == 0.4
    empty = review_player([], 0)
    assert empty.decisions == 0 and empty.average_lost == 0.0 and not empty.mistakes


def test_errors_are_losses_over_what_each_decision_was_worth() -> None:
    # Pips: 6 pips of a decision worth 60 is 100 thousandths, 6 of one worth 20 is 300; the
    # second is the bigger mistake although the losses are equal.
    verdicts = [verdict(0, 6.0, worth=60.0, n=1), verdict(0, 6.0, worth=20.0, n=2)]
    assert [v.error for v in verdicts] == pytest.approx([100.0, 300.0])
    review = review_player(verdicts, 0)
    assert review.average_lost == pytest.approx(6.0)
    assert review.error_rate == pytest.approx(200.0) and review.rating == pytest.approx(100.0)
    assert [v.line for v in review.mistakes] == ["line 2", "line 1"]


def test_luck_is_summed_where_measured() -> None:
    review = review_player([verdict(1, 0, luck=0.2), verdict(1, 0, luck=-0.05)], 1)
    assert review.luck == pytest.approx(0.15)


def test_win_series_is_the_first_players_chances_with_game_breaks() -> None:
    verdicts = [
        verdict(0, 0, win=0.6, game=1),
        verdict(1, 0, win=0.7, game=1),  # the second player's 70% is the first's 30%
        verdict(0, 0, win=None, game=1),  # no chance known: skipped
        verdict(1, 0, win=0.2, game=2),
    ]
    assert win_series(verdicts) == pytest.approx([0.6, 0.3, 0.8])
    assert win_series(verdicts, 1) == pytest.approx([0.4, 0.7, 0.2])
    assert game_breaks(verdicts) == [2]


def test_mistake_points_are_the_listed_mistakes_at_their_series_index() -> None:
    same = verdict(0, 0.1, n=1)
    verdicts = [
        same,
        verdict(1, 0.5, win=None, n=2),  # not in the series: not placed, and shifts nothing
        verdict(1, 0.3, n=3),
        verdict(0, 0.0, n=4),  # the best play: no mistake
        verdict(0, 0.1, n=1),  # judged exactly like the first, yet another play
        verdict(0, 0.2, choices=1, n=5),  # forced: never a mistake
    ]
    reviews = [review_player(verdicts, 0), review_player(verdicts, 1)]
    points = mistake_points(verdicts, reviews)
    assert [(i, v.seat) for i, v in points] == [(0, 0), (1, 1), (3, 0)]
    assert points[0][1] is same
    assert mistake_points(verdicts, []) == []
