"""python -m storage.migrate: a SQLite database copied into an empty PostgreSQL one, verified."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from storage import Database, ImportedGame, MatchResult, NewMove, NewPairing, Storage
from storage.migrate import MigrationFailed, migrate
from storage.postgres import PostgresDatabase
from tests.postgres_server import Cluster
from tests.storage.conftest import GUILD, new_game

ROOT = Path(__file__).resolve().parents[2]


async def _fill(db: Storage) -> dict[str, int]:
    """Some of everything: active, finished and aborted games with moves, open and accepted
    challenges, ratings in two variants, history, settings, bulk-imported games."""
    await db.set_guild_settings(
        GUILD, reminder_after_seconds=120, challenge_expiry_seconds=90, board_theme="high-contrast"
    )
    await db.set_player_preferences(1, now=50.0, board_theme="high-contrast", own_side=True)
    await db.set_player_preferences(2, now=51.0, own_side=True)
    imported = [
        ImportedGame(
            GUILD,
            900,
            "pin",
            10 + i % 3,
            20 + i % 2,
            MatchResult(10 + i % 3, "single", 1),
            float(i),
            float(i) + 1,
        )
        for i in range(30)
    ]
    await db.bulk_import_finished_games(imported)
    ids: dict[str, int] = {}
    active = await new_game(db, channel=1, x=1, o=2, now=100.0)
    await db.commit_action(active.id, 0, '{"n": 1}', [NewMove(1, "play", "24/18")], now=101.0)
    ids["active"] = active.id
    done = await new_game(db, channel=2, x=1, o=3, now=100.0)
    await db.finish_game(
        done.id, 0, "{}", MatchResult(3, "gammon", 2), now=200.0, moves=[NewMove(3, "play", "x")]
    )
    ids["finished"] = done.id
    gone = await new_game(db, channel=3, x=4, o=5, variant="dutch", now=100.0)
    await db.abort_game(gone.id, now=150.0)
    ids["aborted"] = gone.id
    challenge = await db.create_challenge(GUILD, 4, 6, 7, "blocking", now=100.0, options=["x1"])
    ids["challenge"] = challenge.id
    accepted = await db.create_challenge(GUILD, 5, 8, None, "classic", now=100.0)
    started = await db.create_game(
        GUILD, 5, "classic", 8, 9, "{}", now=101.0, challenge_id=accepted.id
    )
    ids["accepted"], ids["started"] = accepted.id, started.id
    event = await db.create_tournament(
        GUILD, 6, 1, name="Cup", format="knockout", variant="classic", now=100.0
    )
    for user in (1, 2, 3):
        await db.join_tournament(event.id, user, now=101.0)
    paired = await db.pair_round(
        event.id, 0, [NewPairing(1, 1, None), NewPairing(2, 2, 3)], now=102.0, rounds=2
    )
    assert paired is not None
    ids["tournament"] = event.id
    return ids


async def _snapshot(db: Storage, ids: dict[str, int]) -> object:
    games = [await db.get_game(game_id) for game_id in range(1, ids["started"] + 1)]
    moves = [await db.game_moves(game_id) for game_id in range(1, ids["started"] + 1)]
    players = (1, 2, 3, 10, 11, 12, 20, 21)
    return (
        games,
        moves,
        await db.get_challenge(ids["challenge"]),
        await db.get_challenge(ids["accepted"]),
        await db.get_guild_settings(GUILD),
        [await db.get_player_preferences(p) for p in (1, 2, 3)],
        await db.leaderboard(GUILD, limit=100),
        await db.leaderboard(GUILD, "pin", limit=100),
        [await db.player_stats(GUILD, p) for p in players],
        [await db.rating_history(GUILD, p, "pin") for p in players],
        await db.recent_games(GUILD, limit=100),
        await db.get_tournament(ids["tournament"]),
        await db.tournament_entrants(ids["tournament"]),
        await db.tournament_pairings(ids["tournament"]),
    )


async def test_migrate_copies_everything_and_verifies(tmp_path: Path, pg_cluster: Cluster) -> None:
    path = tmp_path / "bot.sqlite3"
    source = await Database.open(path)
    ids = await _fill(source)
    before = await _snapshot(source, ids)
    await source.close()

    url = await pg_cluster.new_database()
    copied = await migrate(f"sqlite:{path}", url, out=open("/dev/null", "w"))  # noqa: SIM115
    assert copied["games"] == ids["started"]
    assert copied["ratings"] > 0 and copied["rating_history"] > 0 and copied["moves"] == 2
    assert copied["player_preferences"] == 2

    target = await PostgresDatabase.open(url)
    try:
        assert await _snapshot(target, ids) == before
        # New rows continue after the copied ids, and the copied game plays on.
        fresh = await new_game(target, channel=77, now=300.0)
        assert fresh.id == ids["started"] + 1
        moved = await target.commit_action(ids["active"], 1, "{}", [NewMove(2, "play", "y")], now=1)
        assert [m.seq for m in await target.game_moves(moved.id)] == [1, 2]
        second = await target.create_challenge(GUILD, 78, 1, None, "classic", now=300.0)
        assert second.id > ids["accepted"]
        # The copied event pairs on, with fresh ids.
        assert copied["tournament_pairings"] == 2
        again = await target.pair_round(ids["tournament"], 1, [NewPairing(1, 1, 3)], now=400.0)
        assert again is not None and again[0].id == 3
    finally:
        await target.close()

    # A second run refuses: the target is not empty any more (and nothing changes).
    with pytest.raises(MigrationFailed, match="not empty"):
        await migrate(f"sqlite:{path}", url, out=open("/dev/null", "w"))  # noqa: SIM115


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "storage.migrate", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


async def test_migrate_command_line(tmp_path: Path, pg_cluster: Cluster) -> None:
    path = tmp_path / "bot.sqlite3"
    source = await Database.open(path)
    await _fill(source)
    await source.close()
    url = await pg_cluster.new_database()

    done = _cli("--from", f"sqlite:{path}", "--to", url)
    assert done.returncode == 0, done.stderr
    assert "copied games: 34 rows" in done.stdout
    assert "verified" in done.stdout

    again = _cli("--from", f"sqlite:{path}", "--to", url)
    assert again.returncode == 1
    assert again.stderr.strip().startswith("error:") and "not empty" in again.stderr

    missing = _cli("--from", f"sqlite:{tmp_path / 'nope.db'}", "--to", url)
    assert missing.returncode == 2 and "no SQLite database" in missing.stderr
    assert not (tmp_path / "nope.db").exists()
    wrong = _cli("--from", str(path), "--to", url)
    assert wrong.returncode == 2 and "sqlite:PATH" in wrong.stderr
    not_pg = _cli("--from", f"sqlite:{path}", "--to", "mysql://u:pw@h/db")
    assert not_pg.returncode == 2 and "postgresql://" in not_pg.stderr
