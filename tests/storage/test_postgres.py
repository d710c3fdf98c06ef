"""PostgreSQL specifics: migrations in step with SQLite's and applied once by processes starting
together, and read-modify-writes that stay right under READ COMMITTED with several
connections writing at once."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import asyncpg
import pytest

from storage import MatchResult, SchemaTooNewError, StorageError
from storage.postgres import PG_MIGRATIONS_DIR, PostgresDatabase
from storage.schema import MIGRATIONS_DIR, latest_version, load_migrations
from tests.postgres_server import Cluster
from tests.storage.conftest import GUILD, new_game


@pytest.fixture
async def url(pg_cluster: Cluster) -> str:
    return await pg_cluster.new_database()


def test_migrations_are_numbered_in_step_for_both_backends() -> None:
    sqlite = [m.name for m in load_migrations(MIGRATIONS_DIR)]
    postgres = [m.name for m in load_migrations(PG_MIGRATIONS_DIR)]
    assert sqlite == postgres
    assert len(sqlite) >= 2


async def test_processes_starting_together_migrate_once(url: str) -> None:
    # Eight "processes" open the empty database at the same moment; without the advisory
    # lock several would run CREATE TABLE games and all but one would fail.
    opened = await asyncio.gather(*(PostgresDatabase.open(url) for _ in range(8)))
    try:
        migrations = load_migrations(PG_MIGRATIONS_DIR)
        latest = latest_version(migrations)
        assert {db.schema_version for db in opened} == {latest}
        conn = await asyncpg.connect(url)
        try:
            rows = await conn.fetch("SELECT version FROM schema_migrations ORDER BY version")
        finally:
            await conn.close()
        assert [r["version"] for r in rows] == [m.version for m in migrations]
        game = await new_game(opened[0])
        assert await opened[7].get_game(game.id) == game
    finally:
        for db in opened:
            await db.close()


def _copy(tmp_path: Path, extra: dict[str, str]) -> Path:
    directory = tmp_path / "pg-migrations"
    shutil.copytree(PG_MIGRATIONS_DIR, directory)
    for name, sql in extra.items():
        (directory / name).write_text(sql, encoding="utf-8")
    return directory


async def test_newer_schema_is_refused_and_failed_migration_rolled_back(
    url: str, tmp_path: Path
) -> None:
    latest = latest_version(load_migrations(PG_MIGRATIONS_DIR))
    broken = _copy(
        tmp_path,
        {f"{latest + 1:04d}_broken.sql": "CREATE TABLE half (x INT);\nSELECT * FROM nowhere;\n"},
    )
    with pytest.raises(StorageError, match="rolled back"):
        await PostgresDatabase.open(url, migrations_dir=broken)
    db = await PostgresDatabase.open(url)  # the good migrations stayed applied
    assert db.schema_version == latest
    await db.close()

    (broken / f"{latest + 1:04d}_broken.sql").write_text("CREATE TABLE half (x INT);\n")
    db = await PostgresDatabase.open(url, migrations_dir=broken)
    assert db.schema_version == latest + 1
    await db.close()
    with pytest.raises(SchemaTooNewError):
        await PostgresDatabase.open(url)


async def _finish_many(db: PostgresDatabase, games: list[int], star: int) -> None:
    for game_id in games:
        await db.finish_game(game_id, 0, "{}", MatchResult(star, "single", 1), now=2000.0)


async def test_concurrent_finishes_over_several_connections_lose_no_update(url: str) -> None:
    """One player finishes many games at once against different opponents, through several
    processes' pools: every game must count in the ratings (a read-then-write without the
    guild lock loses most of them)."""
    connections, per_connection, star = 6, 12, 1
    dbs = [await PostgresDatabase.open(url, max_size=2) for _ in range(connections)]
    try:
        batches: list[list[int]] = []
        for c in range(connections):
            batch = []
            for i in range(per_connection):
                channel = 1000 + c * per_connection + i
                game = await new_game(dbs[c], channel=channel, x=star, o=channel)
                batch.append(game.id)
            batches.append(batch)
        await asyncio.gather(
            *(_finish_many(db, batch, star) for db, batch in zip(dbs, batches, strict=True))
        )
        total = connections * per_connection
        for variant in ("classic", None):
            stats = await dbs[0].get_player_stats(GUILD, star, variant)
            assert stats is not None
            assert (stats.games, stats.wins, stats.points_won) == (total, total, total)
            assert stats.current_streak == stats.best_streak == total
        history = await dbs[0].rating_history(GUILD, star, "classic")
        assert len(history) == total
        # Each game was rated from the rating the previous one left: RD only shrinks and the
        # rating only climbs along the history (all wins), so no step started from stale data.
        ratings = [point.rating for point in history]
        assert ratings == sorted(ratings) and len(set(ratings)) == total
        assert history[-1].rating == (await dbs[0].get_player_stats(GUILD, star)).rating  # type: ignore[union-attr]
    finally:
        for db in dbs:
            await db.close()


async def test_concurrent_settings_changes_keep_both(url: str) -> None:
    one, two = await PostgresDatabase.open(url), await PostgresDatabase.open(url)
    try:
        for round_ in range(10):
            await asyncio.gather(
                one.set_guild_settings(GUILD, reminder_after_seconds=100 + round_),
                two.set_guild_settings(GUILD, claim_after_seconds=200 + round_),
            )
            settings = await one.get_guild_settings(GUILD)
            assert (settings.reminder_after_seconds, settings.claim_after_seconds) == (
                100 + round_,
                200 + round_,
            )
    finally:
        await one.close()
        await two.close()


async def test_each_expired_challenge_goes_to_one_sweeper(url: str) -> None:
    dbs = [await PostgresDatabase.open(url) for _ in range(4)]
    try:
        for channel in range(1, 41):
            await dbs[0].create_challenge(GUILD, channel, 7, None, "classic", now=0, expires_at=5)
        swept = await asyncio.gather(*(db.expire_challenges(10.0) for db in dbs))
        ids = [c.id for batch in swept for c in batch]
        assert len(ids) == len(set(ids)) == 40
    finally:
        for db in dbs:
            await db.close()


async def test_ids_and_text_limits(url: str) -> None:
    db = await PostgresDatabase.open(url)
    try:
        big = 2**63 - 1  # the largest snowflake both backends store (BIGINT)
        game = await db.create_game(big, big, "classic", big, big - 1, "{}", now=1.0)
        assert (await db.get_game(game.id)) == game
        with pytest.raises(StorageError):
            await db.create_game(1, 2, "classic", 1, 2, "nul \x00 inside", now=1.0)
    finally:
        await db.close()


async def test_unreachable_server_is_a_storage_error(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="cannot connect") as caught:
        await PostgresDatabase.open(f"postgresql://nobody:s3cret@/x?host={tmp_path}&port=1")
    assert "s3cret" not in str(caught.value)
