"""Running at scale: commit latency SQLite vs PostgreSQL, and /move throughput of one bot process
vs two shard processes sharing one PostgreSQL database.

1. Commit latency: ``commit_action`` (one move: the new state plus its history rows, one
   transaction, durable when it returns) repeated on one game, on SQLite (WAL,
   ``synchronous=FULL``: the bot's setting) and on a local PostgreSQL server (fsync on, the
   default durable configuration) started for the run. Median, p95, and the ratio of the
   medians.
2. Concurrent commits: ``--concurrent`` games commit a move at the same instant, ``--rounds``
   times: the wall time of each round on SQLite with writes committed one by one (a group of
   one), on SQLite with group commit (the bot's setting), and on PostgreSQL (each write on its
   own pooled connection; the server flushes concurrent commits together itself).
3. /move throughput: the fake Discord serves two guilds, one on each of 2 shards, with G games
   in each. Every game sends its next /move as soon as the previous reply arrived (a closed
   loop: the bot is never idle) for S seconds. Once with ONE process running both shards, once
   with TWO processes, one shard each; both on the same PostgreSQL. Moves per second,
   p50/p95 latency, and the ratio two/one.

The machine is shared (the fake Discord, the driver, PostgreSQL and the bots compete for its
cores), so compare the ratios printed by one run; the load average is printed with them.

Usage: python -m bench.scale [--commits 300] [--concurrent 100] [--rounds 20] [--games 8]
                            [--seconds 30] [--smoke]
``--smoke``: a few commits and a few seconds of play, to check the machinery (CI), not figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.game import MOVE, GameState  # noqa: E402
from engine.position import X  # noqa: E402
from storage import Database, NewMove, Storage, database  # noqa: E402
from storage.database import GROUP_LIMIT  # noqa: E402
from storage.postgres import PostgresDatabase  # noqa: E402
from tests.e2e.harness import ShardProcess, Table  # noqa: E402
from tests.fake_discord import FakeDiscord  # noqa: E402
from tests.postgres_server import Cluster, start_cluster  # noqa: E402

VARIANT = "pin"  # no cube: every decision is a /move
SHARDS = 2


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def commit_latencies(db: Storage, commits: int, channel: int) -> list[float]:
    game = await db.create_game(1, channel, "classic", 1, 2, '{"n": 0}', now=0.0)
    version, out = game.version, []
    moves = [NewMove(1, "roll", "rolls 6-5"), NewMove(1, "play", "24/18 13/8")]
    for n in range(commits):
        start = time.perf_counter()
        game = await db.commit_action(game.id, version, f'{{"n": {n}}}', moves, now=float(n))
        out.append((time.perf_counter() - start) * 1000)
        version = game.version
    return out


async def bench_commits(cluster: Cluster, commits: int, tmp: Path) -> None:
    sqlite = await Database.open(tmp / "commit.sqlite3")
    postgres = await PostgresDatabase.open(await cluster.new_database("commit"))
    try:
        await commit_latencies(sqlite, 20, 1)  # warm-up
        await commit_latencies(postgres, 20, 1)
        lite = await commit_latencies(sqlite, commits, 2)
        pg = await commit_latencies(postgres, commits, 2)
    finally:
        await sqlite.close()
        await postgres.close()
    print(f"\ncommit latency, {commits} commits of one move (state + 2 history rows), durable")
    print(f"{'backend':<28} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for label, values in (("SQLite (WAL, sync FULL)", lite), ("PostgreSQL (fsync on)", pg)):
        print(
            f"{label:<28} {statistics.median(values):>8.2f} {quantile(values, 0.95):>8.2f} "
            f"{max(values):>8.2f}"
        )
    ratio = statistics.median(pg) / statistics.median(lite)
    print(f"PostgreSQL / SQLite median: {ratio:.2f}x")


async def concurrent_commits(db: Storage, games: int, rounds: int, channel: int) -> list[float]:
    """Wall time (ms) of ``games`` commits sent at the same instant, one per game."""
    created = [
        await db.create_game(1, channel + i, "classic", 2 * i + 1, 2 * i + 2, "0", now=0.0)
        for i in range(games)
    ]
    versions = {g.id: g.version for g in created}
    moves = [NewMove(1, "play", "24/18 13/8")]
    walls = []
    for n in range(rounds):
        start = time.perf_counter()
        done = await asyncio.gather(
            *(db.commit_action(g, v, f"{n}", moves, now=float(n)) for g, v in versions.items())
        )
        walls.append((time.perf_counter() - start) * 1000)
        versions = {g.id: g.version for g in done}
    return walls


async def bench_concurrent(cluster: Cluster, games: int, rounds: int, tmp: Path) -> None:
    """SQLite commits concurrent writes in groups (one fsync per group); with a group of one
    it commits them one by one as before. PostgreSQL commits each on its own connection."""
    print(f"\n{games} commits sent at the same instant (one per game), {rounds} rounds, durable")
    print(f"{'backend':<34} {'p50 ms':>8} {'p95 ms':>8}")
    results = {}
    for label in ("SQLite, one commit each", "SQLite, group commit", "PostgreSQL"):
        if label.startswith("SQLite"):
            database.GROUP_LIMIT = 1 if "each" in label else GROUP_LIMIT
            db: Storage = await Database.open(tmp / f"concurrent-{len(results)}.sqlite3")
        else:
            db = await PostgresDatabase.open(await cluster.new_database("concurrent"))
        try:
            await concurrent_commits(db, games, 2, 10_000)  # warm-up
            walls = await concurrent_commits(db, games, rounds, 20_000)
        finally:
            await db.close()
            database.GROUP_LIMIT = GROUP_LIMIT
        results[label] = statistics.median(walls)
        print(f"{label:<34} {statistics.median(walls):>8.1f} {quantile(walls, 0.95):>8.1f}")
    one, group, pg = results.values()
    print(f"group commit / one by one: {group / one:.2f}x; PostgreSQL / group: {pg / group:.2f}x")


def choose(state: GameState) -> str:
    plays = state.legal_plays()
    best = min(plays, key=lambda p: (p.after.pips(X), p.after.pips("O"), p.text))
    return best.text or "pass"


async def closed_loop(table: Table, deadline: float) -> list[float]:
    """Send the next /move as soon as the previous one was answered, until ``deadline``."""
    latencies: list[float] = []
    while time.monotonic() < deadline:
        game = await table.game()
        if game is None:
            await table.challenge(VARIANT)  # the game ended: start another in the channel
            continue
        state = GameState.from_json(game.state_json)
        if state.phase != MOVE:
            await table.step(use_buttons=False)
            continue
        user = table.users[game.player_x if state.mover == 0 else game.player_o]
        started = time.perf_counter()
        # Until the next board is out: the reply itself is a private acknowledgement.
        await table.act(user, "move", play=choose(state))
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


async def run_setup(
    cluster: Cluster, layout: tuple[tuple[int, ...], ...], games: int, seconds: float, tmp: Path
) -> tuple[float, list[float]]:
    """(moves per second, latencies) with one bot process per entry of ``layout``."""
    url = await cluster.new_database("moves")
    async with FakeDiscord() as fake:
        guilds = [fake.add_guild(f"g{i}", shard=(i, SHARDS)) for i in range(SHARDS)]
        processes = [
            ShardProcess(fake, url, shards, SHARDS, tmp, seed=3 + n)
            for n, shards in enumerate(layout)
        ]
        db = await PostgresDatabase.open(url)
        try:
            markers = [p.launch() for p in processes]
            for process, marker in zip(processes, markers, strict=True):
                await process.ready(marker, timeout=120)
            tables: list[Table] = []
            for guild in guilds:
                for i in range(games):
                    channel = fake.add_channel(f"c{i}", guild=guild)
                    a = fake.add_user(f"a{guild.id}-{i}", guilds=[guild])
                    b = fake.add_user(f"b{guild.id}-{i}", guilds=[guild])
                    tables.append(Table(fake, db, channel, a, b))
            for table in tables:
                await table.challenge(VARIANT)
            # A few seconds of warm-up, then the measured window.
            await asyncio.gather(*(closed_loop(t, time.monotonic() + 2) for t in tables))
            start = time.monotonic()
            per_game = await asyncio.gather(*(closed_loop(t, start + seconds) for t in tables))
            elapsed = time.monotonic() - start
        finally:
            for process in processes:
                process.stop()
            await db.close()
    latencies = [x for lat in per_game for x in lat]
    return len(latencies) / elapsed, latencies


async def bench_moves(cluster: Cluster, games: int, seconds: float, tmp: Path) -> None:
    print(
        f"\n/move throughput on PostgreSQL: {SHARDS} guilds (one per shard), {games} games "
        f"each, closed loop, {seconds:.0f} s"
    )
    print(f"{'setup':<34} {'moves/s':>8} {'p50 ms':>8} {'p95 ms':>8}")
    results = {}
    for label, layout in (
        ("1 process (shards 0,1)", ((0, 1),)),
        ("2 processes (shard 0 | shard 1)", ((0,), (1,))),
    ):
        rate, lat = await run_setup(cluster, layout, games, seconds, tmp)
        results[label] = rate
        print(
            f"{label:<34} {rate:>8.1f} {statistics.median(lat):>8.1f} {quantile(lat, 0.95):>8.1f}"
        )
    one, two = results.values()
    print(f"two processes / one process: {two / one:.2f}x  (load average {os.getloadavg()[0]:.1f})")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--games", type=int, default=8, help="games per guild (shard)")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--concurrent", type=int, default=100, help="commits sent at once")
    parser.add_argument("--rounds", type=int, default=20, help="rounds of concurrent commits")
    parser.add_argument("--smoke", action="store_true", help="tiny run: checks the machinery")
    args = parser.parse_args()
    if args.smoke:
        args.commits, args.games, args.seconds = 20, 1, 3.0
        args.concurrent, args.rounds = 5, 2
    cluster = start_cluster(fsync=True)
    try:
        print(
            f"PostgreSQL from {cluster.origin} binaries; {os.cpu_count()} CPUs, "
            f"load average {os.getloadavg()[0]:.1f} at start"
        )
        with tempfile.TemporaryDirectory() as tmp:
            await bench_commits(cluster, args.commits, Path(tmp))
            await bench_concurrent(cluster, args.concurrent, args.rounds, Path(tmp))
            await bench_moves(cluster, args.games, args.seconds, Path(tmp))
    finally:
        cluster.stop()


if __name__ == "__main__":
    asyncio.run(main())
