"""Games against the computer and games with hints: stored, unrated, counted per level."""

from __future__ import annotations

from storage import Database, MatchResult

from .conftest import CHANNEL, GUILD

BOT = 999


async def finish(db: Database, game_id: int, winner: int | None, kind: str = "single") -> None:
    game = await db.get_game(game_id)
    assert game is not None
    await db.finish_game(
        game_id,
        game.version,
        "{}",
        MatchResult(winner, kind, 0 if winner is None else 1),  # type: ignore[arg-type]
        now=2000.0,
    )


async def test_computer_games_are_stored_unrated_and_counted_per_level(db: Database) -> None:
    results = [("expert", BOT), ("expert", 1), ("expert", BOT), ("casual", 1), ("casual", None)]
    for i, (level, winner) in enumerate(results):
        game = await db.create_game(
            GUILD, CHANNEL + i, "classic", 1, BOT, "{}", now=1000.0, ai_level=level, rated=False
        )
        assert game.ai_level == level and not game.rated and game.against_computer
        assert (await db.get_game(game.id)) == game
        await finish(db, game.id, winner, "tie" if winner is None else "single")
    # Nothing reached the ratings: the leaderboard and /stats rows are untouched.
    assert await db.player_stats(GUILD, 1) == []
    assert await db.leaderboard_count(GUILD, None) == 0
    record = {r.level: r for r in await db.computer_record(GUILD, 1)}
    assert set(record) == {"casual", "expert"}
    assert (record["expert"].games, record["expert"].wins, record["expert"].losses) == (3, 1, 2)
    assert (record["casual"].wins, record["casual"].losses, record["casual"].draws) == (1, 0, 1)
    assert await db.computer_record(GUILD, 2) == []
    # A game between people is still rated.
    human = await db.create_game(GUILD, 5000, "pin", 1, 2, "{}", now=1000.0)
    assert human.rated and not human.hints and human.ai_level is None
    await finish(db, human.id, 2)
    assert len(await db.player_stats(GUILD, 1)) == 2


async def test_hints_are_kept_on_challenges_and_games(db: Database) -> None:
    challenge = await db.create_challenge(GUILD, CHANNEL, 1, 2, "dutch", now=10.0, hints=True)
    assert challenge.hints and (await db.get_challenge(challenge.id)) == challenge
    plain = await db.create_challenge(GUILD, CHANNEL + 1, 1, 2, "dutch", now=10.0)
    assert not plain.hints
    game = await db.create_game(
        GUILD,
        CHANNEL,
        "dutch",
        1,
        2,
        "{}",
        now=11.0,
        challenge_id=challenge.id,
        hints=True,
        rated=False,
    )
    assert game.hints and not game.rated
    await finish(db, game.id, 1)
    assert await db.player_stats(GUILD, 1) == []
