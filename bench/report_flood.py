"""Does one member flooding /replay and /review slow the other games? Latency of moves with and
without the flood, in one process, through the app layer (no Discord).

Plays ``--games`` games of classic backgammon at once between pairs of players, each action
(roll, then move) through ``app.play.Play.act`` on a real SQLite file in a temporary folder,
with ``--pause`` seconds between a game's actions, and measures the time of each ``act`` of a
move. Three phases of ``--moves`` moves each:

* ``alone``: only the games;
* ``flood``: the same while one user fires ``--rate`` report requests per second, replays and
  reviews of finished games in turn, through ``app.reports.Reports`` with its per-user limit
  (most are refused at once, "try again in N s");
* ``no limit`` (unless ``--no-unlimited``): the same flood with the limit lifted, to show what
  the limit saves.

The reports do their real work: replays drawn in the reports' worker process, reviews judged
in an AI worker pool (both niced, as in the bot). The boards of the moves are not drawn (the
render pool would compete for the same cores and blur the comparison). It prints p50/p95 of
each phase in milliseconds and the ratios to ``alone``; it asserts nothing about time.

Usage: python -m bench.report_flood [--games 4] [--moves 300] [--rate 20] [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import statistics
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ai.pool import AIPool
from app.errors import Refusal
from app.limits import DEFAULT_REPORT_RATE, Rate, RateLimited
from app.play import Play
from app.reports import Reports
from app.services import AI_NICENESS
from app.table import GameTable, Outcome
from engine.game import MOVE, ROLL, GameState
from storage import Game, Storage, open_storage

GUILD = 1
LIBRARY = 10  # the channel whose finished games the flood asks about
FLOODER = 999
UNLIMITED = Rate(1_000_000, 1)


@dataclass
class Phase:
    name: str
    samples: list[float]
    refusals: Counter[str]


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


async def _new_game(db: Storage, channel: int, rng: random.Random) -> Game:
    x, o = 2 * channel, 2 * channel + 1
    state = GameState.new("classic", (f"p{x}", f"p{o}"), rng)
    return await db.create_game(GUILD, channel, "classic", x, o, state.to_json(), now=time.time())


def _greedy(state: GameState) -> str:
    """A racer's play (fewest own pips left): games end in about a hundred actions."""
    me = "X" if state.mover == 0 else "O"
    plays = state.legal_plays()
    best = min(plays, key=lambda p: (p.after.pips(me), p.text or ""))
    return best.text or "pass"


async def _nothing(before: Game, old: Any, outcome: Outcome) -> None:
    """Where the cog would post the board (see the module's docstring)."""


async def _step(play: Play, table: GameTable, game: Game) -> tuple[Game, float | None]:
    """One action of the game's mover; the time of ``act`` if it was a move."""
    state = table.state_of(game)
    user = GameTable.user_of(game, state.mover)
    rng = table.rng
    if state.phase == ROLL:
        outcome = await play.act(game, user, lambda s, seat: s.roll(seat, rng), "roll", _nothing)
        return outcome.game, None
    assert state.phase == MOVE, state.phase
    text = _greedy(state)
    start = time.perf_counter()
    outcome = await play.act(game, user, lambda s, seat: s.play(seat, text, rng), "play", _nothing)
    return outcome.game, time.perf_counter() - start


async def _play_on(
    db: Storage, play: Play, table: GameTable, channel: int, pause: float, out: list[float]
) -> None:
    """Play games in ``channel`` until cancelled, a new one whenever one ends."""
    game = await db.get_active_game(channel) or await _new_game(db, channel, table.rng)
    while True:
        game, took = await _step(play, table, game)
        if took is not None:
            out.append(took)
        if game.status != "active":
            game = await _new_game(db, channel, table.rng)
        await asyncio.sleep(pause)


async def _finished_game(db: Storage, play: Play, table: GameTable) -> Game:
    game = await _new_game(db, LIBRARY, table.rng)
    while game.status == "active":
        game, _ = await _step(play, table, game)
    return game


async def _ask(reports: Reports, number: int, review: bool, refusals: Counter[str]) -> None:
    try:
        if review:
            await reports.review(await reports.review_job(GUILD, number, FLOODER))
        else:
            await reports.replay(await reports.replay_job(GUILD, number, FLOODER))
        refusals["served"] += 1
    except RateLimited:
        refusals["limited"] += 1
    except Refusal as exc:
        refusals[type(exc).__name__] += 1


async def _flood(reports: Reports, games: list[int], rate: float, refusals: Counter[str]) -> None:
    """``rate`` requests per second until cancelled, each answered on its own (as Discord's
    interactions are), replays and reviews in turn."""
    tasks: set[asyncio.Task[None]] = set()
    try:
        for i in range(10**9):
            task = asyncio.create_task(_ask(reports, games[i % len(games)], i % 2 == 1, refusals))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            await asyncio.sleep(1 / rate)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _phase(
    name: str,
    db: Storage,
    play: Play,
    table: GameTable,
    args: argparse.Namespace,
    reports: Reports | None,
    library: list[int],
) -> Phase:
    samples: list[float] = []
    refusals: Counter[str] = Counter()
    players = [
        asyncio.create_task(_play_on(db, play, table, 100 + g, args.pause, samples))
        for g in range(args.games)
    ]
    flood = (
        asyncio.create_task(_flood(reports, library, args.rate, refusals))
        if reports is not None
        else None
    )
    try:
        while len(samples) < args.moves:
            await asyncio.sleep(0.05)
    finally:
        for task in [*players, *([flood] if flood else [])]:
            task.cancel()
        await asyncio.gather(*players, *([flood] if flood else []), return_exceptions=True)
    return Phase(name, samples[: args.moves], refusals)


async def run(args: argparse.Namespace) -> list[Phase]:
    with tempfile.TemporaryDirectory(prefix="report-flood-") as folder:
        db = await open_storage(Path(folder) / "bench.sqlite3")
        table = GameTable(db, random.Random(args.seed))
        play = Play(db, table)
        ai_pool = AIPool(workers=1, niceness=AI_NICENESS)
        await ai_pool.start()
        phases: list[Phase] = []
        try:
            library = [(await _finished_game(db, play, table)).id for _ in range(2)]
            phases.append(await _phase("alone", db, play, table, args, None, library))
            floods = [("flood", DEFAULT_REPORT_RATE)]
            if not args.no_unlimited:
                floods.append(("no limit", UNLIMITED))
            for name, rate in floods:
                reports = Reports(db, table, ai_pool, report_rate=rate)
                try:
                    phases.append(await _phase(name, db, play, table, args, reports, library))
                finally:
                    await reports.close()
        finally:
            await ai_pool.close()
            await db.close()
    return phases


def _report(phases: list[Phase], args: argparse.Namespace) -> None:
    load = os.getloadavg()[0]
    print(
        f"moves of {args.games} games, {args.moves} per phase, {args.pause * 1000:.0f} ms "
        f"between a game's actions; flood: {args.rate:g} requests/s from one user "
        f"(limit {DEFAULT_REPORT_RATE} per user); load average {load:.2f}"
    )
    base = phases[0].samples
    b50, b95 = statistics.median(base), _percentile(base, 0.95)
    print(f"{'phase':<10} {'p50 ms':>8} {'p95 ms':>8} {'p50 x':>6} {'p95 x':>6}  requests")
    for phase in phases:
        p50, p95 = statistics.median(phase.samples), _percentile(phase.samples, 0.95)
        asked = ", ".join(f"{k} {v}" for k, v in sorted(phase.refusals.items())) or "-"
        print(
            f"{phase.name:<10} {p50 * 1000:8.2f} {p95 * 1000:8.2f} {p50 / b50:6.2f} "
            f"{p95 / b95:6.2f}  {asked}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4, help="games played at once")
    parser.add_argument("--moves", type=int, default=300, help="moves measured per phase")
    parser.add_argument("--rate", type=float, default=20.0, help="flood requests per second")
    parser.add_argument("--pause", type=float, default=0.05, help="seconds between actions")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-unlimited", action="store_true", help="skip the no-limit phase")
    parser.add_argument("--smoke", action="store_true", help="a quick pass (figures meaningless)")
    args = parser.parse_args()
    if args.smoke:
        args.games, args.moves, args.pause = 2, 10, 0.0
    _report(asyncio.run(run(args)), args)


if __name__ == "__main__":
    main()
