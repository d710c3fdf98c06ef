"""Storage benchmark: leaderboard / stats / history query times on a large guild.

Fills a fresh database (temporary file) with 100,000 finished games between 1,000 players of
ONE guild (the worst case for a leaderboard) across all variants, through
``Database.bulk_import_finished_games`` (rated with Glicko-2 exactly as ``finish_game`` does),
then prints the median and p95 of each hot query over RUNS calls. Target: under 20 ms each.
It also prints the cost of one ``commit_action`` with synchronous=FULL vs NORMAL.

Run: .venv/bin/python -m bench.storage [--games N] [--players N] [--runs N] [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

from storage import Database, ImportedGame, MatchResult, NewMove
from storage.models import ResultKind

GUILD = 1
VARIANTS = (
    "classic",
    "pin",
    "pin-mother",
    "blocking",
    "blocking-express",
    "dutch",
    "neverfinishing",
)
TARGET_MS = 20.0


def _games(count: int, players: int, rng: random.Random) -> Iterator[ImportedGame]:
    skill = [rng.gauss(0.0, 1.0) for _ in range(players)]
    start = 1_700_000_000.0
    for i in range(count):
        x, o = rng.sample(range(players), 2)
        variant = rng.choice(VARIANTS)
        at = start + i * 60.0
        roll = rng.random()
        kind: ResultKind
        if roll < 0.01:
            result = MatchResult(None, "tie", 0)
        else:
            p_x = 1.0 / (1.0 + math.exp(skill[o] - skill[x]))
            winner = x if rng.random() < p_x else o
            kind = rng.choice(("single", "single", "single", "gammon", "backgammon", "resign"))
            points = {"single": 1, "gammon": 2, "backgammon": 3, "resign": 1}[kind]
            result = MatchResult(winner + 1, kind, points)
        yield ImportedGame(
            guild_id=GUILD,
            channel_id=1000 + i % 50,
            variant=variant,
            player_x=x + 1,
            player_o=o + 1,
            result=result,
            created_at=at - 600.0,
            finished_at=at,
        )


async def _time(runs: int, call: Callable[[int], Awaitable[object]]) -> tuple[float, float]:
    samples = []
    for i in range(runs):
        t0 = time.perf_counter()
        await call(i)
        samples.append((time.perf_counter() - t0) * 1000.0)
    samples.sort()
    p95 = samples[min(len(samples) - 1, math.ceil(0.95 * len(samples)) - 1)]
    return statistics.median(samples), p95


def _line(name: str, figures: tuple[float, float]) -> bool:
    median, p95 = figures
    ok = p95 < TARGET_MS
    print(f"  {name:<44} median {median:7.3f} ms   p95 {p95:7.3f} ms   {'ok' if ok else 'SLOW'}")
    return ok


async def _commit_cost(directory: Path, synchronous: str, runs: int) -> tuple[float, float]:
    db = await Database.open(directory / f"commit-{synchronous}.db", synchronous=synchronous)
    try:
        game = await db.create_game(GUILD, 1, "classic", 1, 2, "{}", now=0.0)
        version = game.version
        state = '{"board": "' + "x" * 2000 + '"}'  # about the size of a real game state

        async def commit(i: int) -> None:
            nonlocal version
            moves = [NewMove(1, "roll", "3-1"), NewMove(1, "play", "8/5 6/5")]
            saved = await db.commit_action(game.id, version, state, moves, now=float(i))
            version = saved.version

        return await _time(runs, commit)
    finally:
        await db.close()


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--smoke", action="store_true", help="a tiny database, seconds (CI)")
    args = parser.parse_args()
    if args.smoke:
        args.games, args.players, args.runs = 300, 30, 5
    rng = random.Random(args.seed)

    with tempfile.TemporaryDirectory(prefix="bench-storage-") as tmp:
        directory = Path(tmp)
        db = await Database.open(directory / "bench.db")
        try:
            t0 = time.perf_counter()
            imported = await db.bulk_import_finished_games(_games(args.games, args.players, rng))
            fill = time.perf_counter() - t0
            size = sum(p.stat().st_size for p in directory.iterdir()) / 1e6
            print(
                f"filled {imported} games, {args.players} players, 1 guild, "
                f"{len(VARIANTS)} variants in {fill:.1f} s ({size:.0f} MB on disk)"
            )
            total = await db.leaderboard_count(GUILD)
            deep = max(0, total - 10)
            print(f"{args.runs} runs each (overall leaderboard has {total} rows):")
            users = [rng.randrange(1, args.players + 1) for _ in range(args.runs)]
            variants = [rng.choice(VARIANTS) for _ in range(args.runs)]
            results = [
                _line(
                    "leaderboard overall, first page",
                    await _time(args.runs, lambda i: db.leaderboard(GUILD, limit=10)),
                ),
                _line(
                    f"leaderboard overall, deep page (offset {deep})",
                    await _time(args.runs, lambda i: db.leaderboard(GUILD, limit=10, offset=deep)),
                ),
                _line(
                    "leaderboard per variant, first page",
                    await _time(args.runs, lambda i: db.leaderboard(GUILD, variants[i], limit=10)),
                ),
                _line(
                    "leaderboard per variant, deep page",
                    await _time(
                        args.runs,
                        lambda i: db.leaderboard(GUILD, variants[i], limit=10, offset=deep),
                    ),
                ),
                _line(
                    "leaderboard established only, first page",
                    await _time(
                        args.runs,
                        lambda i: db.leaderboard(GUILD, limit=10, include_provisional=False),
                    ),
                ),
                _line(
                    "leaderboard_count overall",
                    await _time(args.runs, lambda i: db.leaderboard_count(GUILD)),
                ),
                _line(
                    "player_stats (random player)",
                    await _time(args.runs, lambda i: db.player_stats(GUILD, users[i])),
                ),
                _line(
                    "rating_history overall, all points",
                    await _time(args.runs, lambda i: db.rating_history(GUILD, users[i])),
                ),
                _line(
                    "rating_history per variant, all points",
                    await _time(
                        args.runs, lambda i: db.rating_history(GUILD, users[i], variants[i])
                    ),
                ),
                _line(
                    "player_stats + rating_history overall",
                    await _time(
                        args.runs,
                        lambda i: asyncio.gather(
                            db.player_stats(GUILD, users[i]), db.rating_history(GUILD, users[i])
                        ),
                    ),
                ),
                _line(
                    "recent_games of a player (10)",
                    await _time(args.runs, lambda i: db.recent_games(GUILD, users[i], limit=10)),
                ),
            ]
        finally:
            await db.close()

        print("commit_action (state ~2 kB + 2 moves), one transaction each:")
        for mode in ("FULL", "NORMAL"):
            _line(f"synchronous={mode}", await _commit_cost(directory, mode, args.runs))

    verdict = "all read queries" if all(results) else "NOT all read queries"
    print(f"{verdict} under {TARGET_MS:.0f} ms at p95")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
