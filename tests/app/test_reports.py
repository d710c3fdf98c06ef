"""app.reports without Discord: who may have a hint and when, which games can be replayed and
reviewed (the checks before the work; the work itself is covered end to end)."""

from __future__ import annotations

import pytest

from ai.pool import AIPool
from app.reports import (
    GameInProgress,
    HintsOff,
    NoGameHere,
    NoSuchGame,
    NotAPlayer,
    NothingToReplay,
    NothingToReview,
    NotYourTurn,
    Reports,
)
from app.table import GameTable
from storage import ImportedGame, MatchResult, Storage

from .conftest import ALICE, BOB, CHANNEL, GUILD, START, new_game


@pytest.fixture
def reports(db: Storage, table: GameTable) -> Reports:
    return Reports(db, table, AIPool())  # never started: the checks do not ask it


async def test_hints_only_for_the_player_to_act_when_allowed(
    db: Storage, table: GameTable, reports: Reports
) -> None:
    with pytest.raises(NoGameHere):
        await reports.hint_job(CHANNEL, ALICE)
    await new_game(db)
    with pytest.raises(HintsOff, match=r"Hints are off in this game\."):
        await reports.hint_job(CHANNEL, ALICE)
    game = await new_game(db, channel=CHANNEL + 1, hints=True)
    with pytest.raises(NotAPlayer):
        await reports.hint_job(CHANNEL + 1, 4242)
    state = table.state_of(game)
    mover = GameTable.user_of(game, state.mover)
    other = ALICE if mover == BOB else BOB
    with pytest.raises(NotYourTurn):
        await reports.hint_job(CHANNEL + 1, other)
    job = await reports.hint_job(CHANNEL + 1, mover)
    assert job.game.id == game.id and job.seat == state.mover


async def test_replays_and_reviews_need_a_record_of_a_game_here(
    db: Storage, reports: Reports
) -> None:
    active = await new_game(db)
    with pytest.raises(GameInProgress, match=f"Game #{active.id} is still being played"):
        await reports.review_job(GUILD, active.id, ALICE)
    with pytest.raises(NoSuchGame):
        await reports.review_job(GUILD + 1, active.id, ALICE)
    with pytest.raises(NoSuchGame, match=r"There is no game #99 on this server\."):
        await reports.replay_job(GUILD, 99, ALICE)
    # An imported game has no move record.
    result = MatchResult(ALICE, "single", 1)
    await db.bulk_import_finished_games(
        [ImportedGame(GUILD, 1, "classic", ALICE, BOB, result, START, START + 9)]
    )
    imported = (await db.recent_games(GUILD, limit=1))[0]
    with pytest.raises(NothingToReplay, match=f"Game #{imported.id} has no move record"):
        await reports.replay_job(GUILD, imported.id, ALICE)
    with pytest.raises(NothingToReview):
        await reports.review_job(GUILD, imported.id, ALICE)
    job = await reports.replay_job(GUILD, active.id, ALICE)  # in progress, but it has plays to show
    assert job.game.id == active.id and job.state.record


def test_pin_game_reviews_and_hints_speak_in_pips() -> None:
    """The Pin games score pips: a review gives the error rate in pips per decision (not in
    thousandths, which read 8043.9 once) with one decimal; backgammon keeps thousandths of a
    point. The performance rating and the mistake classes scale by the game's typical value."""
    from ai.report import PlayerReview, Verdict
    from app.reports import review_text
    from engine import get_variant

    assert get_variant("pin").score_unit == "pip"
    assert get_variant("pin-mother").score_unit == "pip"
    assert get_variant("classic").score_unit == "point"
    pin_value = get_variant("pin").typical_game_value
    assert pin_value == 85.0
    mistake = Verdict(0, 1, "rita 64: 24/18 13/9", "24/18 13/9", "24/14", 12.345, None, None, 9)
    review = PlayerReview(0, 3, 1, 24.13, (mistake,), None)
    counts = {"very bad": 0, "bad": 1, "doubtful": 0}
    pips = review_text(review, "pip", pin_value, counts)
    assert "Error rate: 8.0 pips per decision (24.1 pips in total)" in pips
    assert "thousandths" not in pips and "8043" not in pips
    # 24.13 / 3 pips a decision = 0.0946 game values of 85 pips: PR 47.3; 12.3 pips is bad.
    assert "Performance rating: 47.3" in pips
    assert "(−12.3, bad)" in pips and "Mistakes: 0 very bad, 1 bad, 0 doubtful" in pips
    points = review_text(PlayerReview(0, 4, 0, 0.2, (), None), "point")
    assert "Error rate: 50.0 (thousandths" in points and "0.200 points in total" in points
    assert "Performance rating: 25.0" in points  # 500 x 0.05


def test_mistake_classes_and_the_rating_scale_by_the_game_value() -> None:
    from ai.report import Verdict, class_counts, mistake_class, performance_rating, worst_mistakes

    assert mistake_class(0.039) is None and mistake_class(0.04) == "doubtful"
    assert mistake_class(0.08) == "bad" and mistake_class(0.2) == "very bad"
    assert mistake_class(6.8, 85.0) == "bad" and mistake_class(3.0, 85.0) is None
    assert performance_rating(0.01) == 5.0 and performance_rating(0.85, 85.0) == 5.0
    verdicts = [
        Verdict(s, 1, f"m{i}", "a", "b", lost, None, None, c)
        for i, (s, lost, c) in enumerate(
            [(0, 0.05, 5), (0, 0.3, 5), (1, 0.1, 5), (0, 0.0, 5), (0, 0.9, 1), (1, 0.02, 3)]
        )
    ]
    assert class_counts(verdicts, 0) == {"doubtful": 1, "bad": 0, "very bad": 1}  # forced: none
    assert class_counts(verdicts, 1) == {"doubtful": 0, "bad": 1, "very bad": 0}
    assert [v.line for v in worst_mistakes(verdicts)] == ["m1", "m2", "m0"]
    assert [v.line for v in worst_mistakes(verdicts, 1)] == ["m2", "m5"]


def test_a_stored_review_keeps_each_players_worst_mistakes() -> None:
    from ai.report import Verdict
    from app.reports import review_body, stored_mistakes

    verdicts = [Verdict(i % 2, 1, f"m{i}", "a", "b", i / 10, 0.5, None, 4) for i in range(10)]
    kept = stored_mistakes(review_body(verdicts))
    assert [v.line for v in kept] == ["m8", "m6", "m4", "m9", "m7", "m5"]  # seat 0, then 1
    assert kept[0] == verdicts[8]
    assert stored_mistakes("not json") == [] and stored_mistakes('{"x": 1}') == []


def test_the_review_charts_alt_text_gives_its_key_facts() -> None:
    from app.reports import ALT_LIMIT, win_chart_alt
    from render.chart import Mark

    series = [0.5, 0.4, 0.2, 0.7, 0.9]
    marks = [Mark(2, 0, "−0.142 pt"), Mark(3, 1, "−0.050 pt")]
    alt = win_chart_alt(7, ("alice", "bob"), series, marks, "point")
    assert "alice's winning chance in game #7" in alt and "5 moves" in alt
    assert "starts at 50%, ends at 90%" in alt and "lowest 20% at move 3" in alt
    assert "alice's biggest mistakes (points lost): move 3 (−0.142 pt)" in alt
    assert "bob's biggest mistakes (points lost): move 4 (−0.050 pt)" in alt
    clean = win_chart_alt(7, ("alice", "bob"), series, [], "pip")
    assert "No mistakes marked." in clean and "mistakes (" not in clean
    assert "no moves" in win_chart_alt(7, ("alice", "bob"), [], [], "point")
    many = [Mark(i % 5, i % 2, "−1.0 pips" * 20) for i in range(40)]
    assert len(win_chart_alt(7, ("a" * 90, "b"), series, many, "pip")) <= ALT_LIMIT
