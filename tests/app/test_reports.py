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


def test_reviews_give_thousandths_of_a_game_with_the_variants_unit() -> None:
    """Every variant's review gives the error rate in thousandths of a game (the benchmark's
    scale, ``ai.error_scale``), with the mean and total loss in the variant's unit: pips to
    one decimal in the Pin games (a thousandth of a pip read 8043.9 once), points to three."""
    from ai.report import PlayerReview, Verdict
    from app.reports import review_text
    from engine import get_variant

    assert get_variant("pin").score_unit == "pip"
    assert get_variant("pin-mother").score_unit == "pip"
    assert get_variant("classic").score_unit == "point"
    # 12.345 pips of a decision worth 80 pips: 154 thousandths, bad (not very bad: 160).
    mistake = Verdict(
        0, 1, "rita 64: 24/18 13/9", "24/18 13/9", "24/14", 12.345, None, None, 9, 80.0
    )
    review = PlayerReview(0, 3, 1, 24.13, 283.0, (mistake,), None)
    counts = {"very bad": 0, "bad": 1, "doubtful": 0}
    pips = review_text(review, "pip", counts)
    assert (
        "Error rate: 94.3 thousandths of a game per decision (8.0 pips a decision, 24.1 in total)"
        in pips
    )
    assert "8043" not in pips
    assert "Performance rating: 47.2" in pips  # half the error rate
    assert "(−12.3, bad)" in pips and "Mistakes: 0 very bad, 1 bad, 0 doubtful" in pips
    points = review_text(PlayerReview(0, 4, 0, 0.2, 200.0, (), None), "point")
    assert "Error rate: 50.0 thousandths of a game" in points and "0.200 in total" in points
    assert "Performance rating: 25.0" in points


def test_mistake_classes_and_the_rating_on_the_error_scale() -> None:
    from ai.error_scale import error_of, mistake_class, performance_rating
    from ai.report import Verdict, class_counts, worst_mistakes

    assert mistake_class(39.9) is None and mistake_class(40.0) == "doubtful"
    assert mistake_class(80.0) == "bad" and mistake_class(200.0) == "very bad"
    assert error_of(6.8, 85.0) == pytest.approx(80.0) and mistake_class(error_of(3.0, 85.0)) is None
    assert error_of(0.5, 1.25) == pytest.approx(400.0) and error_of(-0.1, 1.0) == 0.0
    assert performance_rating(10.0) == 5.0
    verdicts = [
        Verdict(s, 1, f"m{i}", "a", "b", lost, None, None, c, worth)
        for i, (s, lost, c, worth) in enumerate(
            [
                (0, 0.05, 5, 1.0),
                (0, 0.3, 5, 1.0),
                (1, 0.1, 5, 1.0),
                (0, 0.0, 5, 1.0),
                (0, 0.9, 1, 1.0),
                (1, 0.02, 3, 1.0),
                (1, 6.0, 4, 50.0),  # 120 thousandths: bad
            ]
        )
    ]
    assert class_counts(verdicts, 0) == {"doubtful": 1, "bad": 0, "very bad": 1}  # forced: none
    assert class_counts(verdicts, 1) == {"doubtful": 0, "bad": 2, "very bad": 0}
    assert [v.line for v in worst_mistakes(verdicts)] == ["m1", "m6", "m2"]
    assert [v.line for v in worst_mistakes(verdicts, 1)] == ["m6", "m2", "m5"]


def test_a_stored_review_keeps_each_players_worst_mistakes() -> None:
    from ai.report import Verdict
    from app.reports import review_body, stored_mistakes

    verdicts = [Verdict(i % 2, 1, f"m{i}", "a", "b", i / 10, 0.5, None, 4, 1.0) for i in range(10)]
    kept = stored_mistakes(review_body(verdicts))
    assert kept is not None
    assert [v.line for v in kept] == ["m8", "m6", "m4", "m9", "m7", "m5"]  # seat 0, then 1
    assert kept[0] == verdicts[8]
    assert stored_mistakes("not json") is None and stored_mistakes('{"x": 1}') is None
    # Stored before verdicts kept their worth: not readable on the new scale.
    old = '{"mistakes":[{"seat":0,"game":1,"line":"l","played":"a","best":"b","lost":0.1,'
    assert stored_mistakes(old + '"win":null,"luck":null,"choices":4}]}') is None


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
