"""app.analysis without Discord: what /analyze accepts and refuses (each input kind, bad
input, fair play), the pages of a stored review, and a real rollout in the AI workers."""

from __future__ import annotations

import random

import pytest

from ai.pool import AIPool
from ai.report import Verdict
from app.analysis import (
    BOTH,
    AnalysisHidden,
    Analyst,
    BadAnalysisInput,
    NotReviewed,
    RolloutsFailed,
    analysis_text,
    mistake_page_text,
)
from app.limits import RateLimited
from app.records import NoSuchGame
from app.reports import GameInProgress, review_body
from app.table import GameTable
from engine import format_position, get_variant
from engine.game import GameState
from interop.gnubg import position_id
from storage import Game, MatchResult, Storage

from .conftest import ALICE, BOB, CHANNEL, GUILD, START, FakeClock

PIN_TEXT = "pin | 24:X13 17:X1 15:X1 10:O1 8:O1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 52"


@pytest.fixture
def analyst(db: Storage, table: GameTable, clock: FakeClock) -> Analyst:
    return Analyst(db, table, AIPool(), clock=clock)  # never started: the checks do not ask it


async def played_game(db: Storage, moves: int, *, hints: bool = False) -> Game:
    """A game of alice and bob with ``moves`` plays made, still active."""
    rng = random.Random(5)
    state = GameState.new("classic", ("alice", "bob"), rng)
    for _ in range(moves):
        while state.phase != "move":
            state = state.roll(state.mover, rng)
        state = state.play(state.mover, state.legal_plays()[0].text, rng)
    return await db.create_game(
        GUILD, CHANNEL, "classic", ALICE, BOB, state.to_json(), now=START, hints=hints
    )


async def test_each_input_kind_is_read_and_bad_input_says_what_would_do(
    analyst: Analyst,
) -> None:
    job = await analyst.analyze_job(GUILD, CHANNEL, ALICE, position=PIN_TEXT)
    assert job.rules.id == "pin" and format_position(job.position, job.dice) == PIN_TEXT
    start = get_variant("classic").initial_position()
    job = await analyst.analyze_job(GUILD, CHANNEL, ALICE, gnubg="4HPwATDgc/ABMA", dice="31")
    assert job.position == start and (job.dice.high, job.dice.low) == (3, 1)  # type: ignore[union-attr]
    with pytest.raises(BadAnalysisInput, match="Give one of"):
        await analyst.analyze_job(GUILD, CHANNEL, ALICE)
    with pytest.raises(BadAnalysisInput, match="Give one of"):
        await analyst.analyze_job(GUILD, CHANNEL, ALICE, position=PIN_TEXT, gnubg="x")
    with pytest.raises(BadAnalysisInput, match=r"cannot be read: .*docs/rules.md §12"):
        await analyst.analyze_job(GUILD, CHANNEL, ALICE, position="pin | nonsense")
    with pytest.raises(BadAnalysisInput, match="has no dice"):
        await analyst.analyze_job(GUILD, CHANNEL, ALICE, position=PIN_TEXT[:-2] + "-")
    with pytest.raises(BadAnalysisInput, match=r"not a gnubg position ID.*14 characters"):
        await analyst.analyze_job(GUILD, CHANNEL, BOB, gnubg="hello", dice="31")
    with pytest.raises(BadAnalysisInput, match="Give the `dice`"):
        await analyst.analyze_job(GUILD, CHANNEL, BOB, gnubg="4HPwATDgc/ABMA")
    with pytest.raises(BadAnalysisInput, match="`77` is not a roll"):
        await analyst.analyze_job(GUILD, CHANNEL, BOB, gnubg="4HPwATDgc/ABMA", dice="77")
    # Two accepted requests of alice so far; the limit is three a minute.
    await analyst.analyze_job(GUILD, CHANNEL, ALICE, position=PIN_TEXT)
    with pytest.raises(RateLimited, match="analyses and deep hints too often"):
        await analyst.analyze_job(GUILD, CHANNEL, ALICE, position=PIN_TEXT)


async def test_a_game_move_and_fair_play(db: Storage, table: GameTable, analyst: Analyst) -> None:
    game = await played_game(db, 4)
    # Still played, without hints: nobody analyses it, not even a spectator.
    with pytest.raises(GameInProgress):
        await analyst.analyze_job(GUILD, CHANNEL + 5, 4242, game=game.id, move=1)
    with pytest.raises(NoSuchGame):
        await analyst.analyze_job(GUILD + 1, CHANNEL, 4242, game=game.id, move=1)
    # Its current position as a text or gnubg ID, by one of its players in its channel.
    state = table.state_of(game)
    here = state.position_for(state.mover)
    with pytest.raises(AnalysisHidden):
        await analyst.analyze_job(GUILD, CHANNEL, ALICE, gnubg=position_id(here), dice="21")
    # A spectator may (they see the board anyway and play no part).
    job = await analyst.analyze_job(GUILD, CHANNEL, 4242, gnubg=position_id(here), dice="21")
    assert job.position == here
    # Over, it is anybody's to analyse, move by move.
    over = await db.finish_game(
        game.id, game.version, state.to_json(), MatchResult(ALICE, "resign", 1), now=START + 60
    )
    assert over.game.status != "active"
    job = await analyst.analyze_job(GUILD, CHANNEL + 5, 4242, game=game.id, move=4)
    assert job.source.startswith(f"game #{game.id}, move 4 (")


async def test_moves_of_a_game_with_hints_for_its_players(db: Storage, analyst: Analyst) -> None:
    game = await played_game(db, 3, hints=True)
    job = await analyst.analyze_job(GUILD, CHANNEL, ALICE, game=game.id, move=2)
    first = await analyst.analyze_job(GUILD, CHANNEL, BOB, game=game.id, move=1)
    # Turns alternate: the second move is the other player's, from its own position.
    assert job.source.startswith(f"game #{game.id}, move 2 (")
    movers = {first.source.rsplit(" (", 1)[1], job.source.rsplit(" (", 1)[1]}
    assert movers == {"alice to play)", "bob to play)"}
    assert first.position != job.position
    with pytest.raises(BadAnalysisInput, match="has 3 moves: give `move` from 1 to 3"):
        await analyst.analyze_job(GUILD, CHANNEL, BOB, game=game.id, move=4)
    with pytest.raises(BadAnalysisInput, match="only its players"):
        await analyst.analyze_job(GUILD, CHANNEL, 4242, game=game.id, move=1)


async def test_the_pages_of_a_stored_review(db: Storage, analyst: Analyst) -> None:
    game = await played_game(db, 1)
    with pytest.raises(NotReviewed, match=f"/review game:{game.id}"):
        await analyst.mistake_page(GUILD, game.id, BOTH, 0)
    verdicts = [
        Verdict(
            i % 2,
            1,
            f"{'alice' if i % 2 == 0 else 'bob'} 31: m{i}",
            f"p{i}",
            f"b{i}",
            i / 10,
            0.5,
            None,
            4,
            1.0,
        )
        for i in range(8)
    ]
    await db.save_review(game.id, review_body(verdicts), now=START)
    page = await analyst.mistake_page(GUILD, game.id, BOTH, 0)
    assert [v.played for v in page.mistakes] == ["p7", "p6", "p5"]
    text = mistake_page_text(page)
    assert "Mistake 1 of 3" in text and "Played `p7`: −0.700 points" in text
    assert "700 thousandths of a game" in text
    assert "(very bad)" in text and "Better: `b7`" in text
    bob = await analyst.mistake_page(GUILD, game.id, 1, 2)
    assert bob.mistakes[bob.index].played == "p3" and "Mistake 3 of 3" in mistake_page_text(bob)
    assert "−0.300 points" in mistake_page_text(bob) and "(doubtful)" not in mistake_page_text(bob)
    far = await analyst.mistake_page(GUILD, game.id, 0, 9)  # clamped to the last page
    assert far.index == 2
    assert Analyst.reader_of(game, ALICE) == 0 and Analyst.reader_of(game, 4242) == BOTH


async def test_an_analysis_ranks_the_plays_by_rollouts_in_a_worker(
    db: Storage, table: GameTable
) -> None:
    async with AIPool() as pool:
        analyst = Analyst(db, table, pool)
        job = await analyst.analyze_job(GUILD, CHANNEL, ALICE, position=PIN_TEXT)
        done = await analyst.analyze(job)
    assert done.rollout is not None
    plays = done.rollout.plays
    assert len(plays) >= 2 and done.rollout.trials >= 2
    assert [p.equity for p in plays] == sorted((p.equity for p in plays), reverse=True)
    text = analysis_text(done)
    assert "Equity for the player to move, in pips" in text and "1. `" in text and "±" in text
    assert f"{done.rollout.trials} trials per play" in text


async def test_deep_hints_count_against_the_analysis_limit_before_any_work(
    db: Storage, table: GameTable, analyst: Analyst
) -> None:
    from app.reports import HintJob

    game = await played_game(db, 2, hints=True)
    state = table.state_of(game)
    while state.phase != "move" or len(state.legal_plays()) < 2:
        state = (
            state.roll(state.mover, random.Random(1))
            if state.phase != "move"
            else state.play(state.mover, state.legal_plays()[0].text, random.Random(1))
        )
    job = HintJob(game, state, state.mover)
    assert analyst.deep_hint_applies(job, ALICE)
    await analyst.analyze_job(GUILD, CHANNEL, ALICE, position=PIN_TEXT)
    assert analyst.deep_hint_applies(job, ALICE)
    with pytest.raises(RateLimited):
        analyst.deep_hint_applies(job, ALICE)
    # Backgammon's turn starts with the cube decision: no plays to roll out, nothing counted
    # (even for a user over the limit).
    cube = state.play(state.mover, state.legal_plays()[0].text, random.Random(1))
    assert cube.phase == "roll" and cube.current_dice() is None
    assert not analyst.deep_hint_applies(HintJob(game, cube, cube.mover), ALICE)


async def test_a_deep_hint_the_pool_gives_up_on_is_refused_saying_so(
    db: Storage, table: GameTable, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker over its budget and grace (an overloaded machine, here no budget, 50 ms of
    grace and rollouts played to the end, which take seconds on any machine) gives a refusal
    saying so, not an unexpected error."""
    import ai.pool
    import app.analysis
    from app.reports import HintJob

    pool = AIPool(grace=0.05)
    await pool.start()
    try:
        analyst = Analyst(db, table, pool, clock=clock)
        monkeypatch.setattr(app.analysis, "DEEP_HINT_SECONDS", 0.0)
        monkeypatch.setattr(ai.pool, "ROLLOUT_SLACK", 0.0)
        # Whole games, not 5 turns: truncated, the two rounds a rollout always rolls can end
        # within the 50 ms on the compiled engine (seen in CI).
        monkeypatch.setattr(app.analysis, "ROLLOUT_TURNS", 0)
        rng = random.Random(2)
        state = GameState.new("pin", ("alice", "bob"), rng)
        while state.phase != "move" or len(state.legal_plays()) < 2:
            state = (
                state.roll(state.mover, rng)
                if state.phase != "move"
                else state.play(state.mover, state.legal_plays()[0].text, rng)
            )
        job = HintJob(await played_game(db, 1, hints=True), state, state.mover)
        with pytest.raises(RolloutsFailed, match="did not finish in time"):
            await analyst.deep_hint(job)
    finally:
        await pool.close()
