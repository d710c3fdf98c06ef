"""End-to-end latency of /move: the real bot process driven through the fake Discord.

Starts the fake Discord (REST + gateway on 127.0.0.1), runs ``python bot.py`` against it as a
separate process, opens N games in N channels and lets every game play on its own: each
player "thinks" for a random time (default 2-6 s, a fast human) and then sends /move, so with
100 games about 25 moves a second reach the bot. Prints p50/p95 from sending the interaction
to the next board being out in the channel (the bot acknowledges first, then posts), for 1
and for 100 concurrent games, and the bot process's peak memory (VmHWM). The move is chosen
before the think time ends, so the driver's own work is outside the measured window.

``--burst`` also measures the worst case where all N games send a move at the same instant.

``--computer N`` measures what games against the computer cost the others: /move p95 of
``--games`` human games alone, then again while N games against the computer run (their
person played by this script with the same think time), and prints the ratio; it also prints
how long the computer took to answer (the person's reply to the computer's board, p50/p95),
at ``--level`` (default the strongest) in ``--computer-variant`` (default classic).

Usage: python -m bench.e2e [--games 1 100] [--seconds 40] [--think 2 6] [--burst] [--smoke]
       python -m bench.e2e --computer 20 --games 10 [--level expert] [--computer-variant classic]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

from ai.types import STRONGEST
from engine.game import DOUBLE, MOVE, ROLL, GameState
from engine.position import X
from storage import Database
from tests.e2e.harness import BotProcess, Table
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import FakeUser

VARIANT = "pin"  # no cube, so every decision is a /move


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def choose(state: GameState) -> str:
    plays = state.legal_plays()
    best = min(plays, key=lambda p: (p.after.pips(X), p.after.pips("O"), p.text))
    return best.text or "pass"


async def open_tables(games: int, fake: FakeDiscord, db: Database, tag: str) -> list[Table]:
    tables: list[Table] = []
    for i in range(games):
        channel = fake.add_channel(f"bench-{tag}-{i}")
        alice, bob = fake.add_user(f"a{tag}-{i}"), fake.add_user(f"b{tag}-{i}")
        tables.append(Table(fake, db, channel, alice, bob))
    for table in tables:
        await table.challenge(VARIANT)
    return tables


async def next_order(table: Table) -> tuple[FakeUser, str] | None:
    game = await table.game()
    if game is None:
        return None
    state = GameState.from_json(game.state_json)
    if state.phase != MOVE:
        return None
    user = table.users[game.player_x if state.mover == 0 else game.player_o]
    return user, choose(state)


async def play_with_think_time(
    table: Table, deadline: float, think: tuple[float, float], rng: random.Random
) -> list[float]:
    latencies: list[float] = []
    while time.monotonic() < deadline:
        order = await next_order(table)
        if order is None:
            await table.challenge(VARIANT)  # the game ended: start another in the channel
            continue
        await asyncio.sleep(rng.uniform(*think))
        started = time.perf_counter()
        await table.act(order[0], "move", play=order[1])  # until the next board is out
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


async def burst(tables: list[Table], rounds: int) -> list[float]:
    latencies: list[float] = []
    for _ in range(rounds):
        orders = [(t, await next_order(t)) for t in tables]
        ready = [(t, o) for t, o in orders if o is not None]
        started = time.perf_counter()

        async def one(table: Table, user: FakeUser, play: str, started: float = started) -> float:
            await table.act(user, "move", play=play)
            return (time.perf_counter() - started) * 1000

        latencies.extend(await asyncio.gather(*(one(t, o[0], o[1]) for t, o in ready)))
    return latencies


def report(label: str, lat: list[float]) -> None:
    if not lat:
        print(f"{label:>6}: no measurement")
        return
    width = 28 if len(label) > 6 else 6
    print(
        f"{label:>{width}} {len(lat):>6} {statistics.median(lat):>8.1f} "
        f"{quantile(lat, 0.95):>8.1f} {max(lat):>8.1f}"
    )


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def computer_game(
    fake: FakeDiscord,
    db: Database,
    index: int,
    variant: str,
    level: str,
    deadline: float,
    think: tuple[float, float],
    rng: random.Random,
    replies: list[float],
) -> None:
    """One person against the computer until ``deadline``; appends the computer's answer
    times (ms from the person's reply to the computer's board)."""
    channel = fake.add_channel(f"vs-computer-{index}")
    human = fake.add_user(f"h{index}")
    while time.monotonic() < deadline:
        game = await db.get_active_game(channel.id)
        if game is None:
            handle = await fake.slash(
                human, channel, "challenge", opponent=fake.bot_user, variant=variant, level=level
            )
            await handle.wait_initial(60)
            continue
        state = GameState.from_json(game.state_json)
        if state.mover == 1:
            await asyncio.sleep(0.05)
            continue
        await asyncio.sleep(rng.uniform(*think))
        if state.phase == ROLL:
            handle = await fake.slash(human, channel, "roll")
        elif state.phase == DOUBLE:
            handle = await fake.slash(human, channel, "take")
        else:
            handle = await fake.slash(human, channel, "move", play=choose(state))
        await handle.wait_initial(60)
        after = await db.get_game(game.id)
        if after is None or after.status != "active" or after.version == game.version:
            continue
        if GameState.from_json(after.state_json).mover != 1 or handle.responded_at is None:
            continue
        seen = len(fake.messages_in(channel))
        while time.monotonic() < deadline + 30:
            new = [
                m
                for m in fake.messages_in(channel)[seen:]
                if m.author.id == fake.bot_user.id and m.webhook_id is None and m.attachments
            ]
            if new:
                replies.append((new[0].created_at - handle.responded_at) * 1000)
                break
            await asyncio.sleep(0.02)


async def measure_computer_load(
    fake: FakeDiscord, db: Database, args: argparse.Namespace, rng: random.Random
) -> None:
    think = (args.think[0], args.think[1])
    games = args.games[0]
    print(
        f"/move p95 of {games} human games ({VARIANT}), alone and with {args.computer} games "
        f"against the computer ({args.computer_variant}, level {args.level}) in progress"
    )
    print(f"{'setting':>28} {'moves':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    tables = await open_tables(games, fake, db, "alone")
    deadline = time.monotonic() + args.seconds
    alone = [
        x
        for lat in await asyncio.gather(
            *(play_with_think_time(t, deadline, think, rng) for t in tables)
        )
        for x in lat
    ]
    report("humans alone", alone)
    # The computer's answer time in one game on its own (nothing else to do).
    solo: list[float] = []
    deadline = time.monotonic() + args.seconds
    await computer_game(
        fake, db, 1000, args.computer_variant, args.level, deadline, think, rng, solo
    )
    report("computer answer, 1 game", solo)
    tables = await open_tables(games, fake, db, "loaded")
    replies: list[float] = []
    deadline = time.monotonic() + args.seconds
    computers = [
        computer_game(fake, db, i, args.computer_variant, args.level, deadline, think, rng, replies)
        for i in range(args.computer)
    ]
    results = await asyncio.gather(
        *(play_with_think_time(t, deadline, think, rng) for t in tables), *computers
    )
    loaded = [x for lat in results[:games] if lat for x in lat]
    report(f"with {args.computer} vs computer", loaded)
    ratio = quantile(loaded, 0.95) / quantile(alone, 0.95)
    print(f"p95 ratio (with / without computer games): {ratio:.2f} (target <= 1.5)")
    if replies:
        report(f"computer answer, {args.computer} games", replies)
    else:
        print("the computer answered no move within the time")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, nargs="+", default=[1, 100])
    parser.add_argument("--seconds", type=float, default=40.0, help="measuring time per setting")
    parser.add_argument("--think", type=float, nargs=2, default=[2.0, 6.0])
    parser.add_argument("--burst", action="store_true", help="also all games at one instant")
    parser.add_argument("--smoke", action="store_true", help="2 games for 2 s + a burst (CI)")
    parser.add_argument("--computer", type=int, default=0, help="games against the computer")
    parser.add_argument("--level", default=STRONGEST)
    parser.add_argument("--computer-variant", default="classic")
    args = parser.parse_args()
    if args.smoke:
        args.games, args.seconds, args.think, args.burst = [2], 2.0, [0.05, 0.2], True
    rng = random.Random(5)
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeDiscord() as fake:
            process = BotProcess(fake, Path(tmp) / "bench.sqlite3", seed=3)
            await process.start()
            db = await Database.open(Path(tmp) / "bench.sqlite3")
            try:
                if args.computer:
                    await measure_computer_load(fake, db, args, rng)
                    return
                think = (args.think[0], args.think[1])
                print(
                    f"/move latency until the next board is out, variant {VARIANT}, "
                    f"think time {think[0]}-{think[1]} s"
                )
                print(f"{'games':>6} {'moves':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
                for games in args.games:
                    tables = await open_tables(games, fake, db, f"g{games}")
                    deadline = time.monotonic() + args.seconds
                    per_game = await asyncio.gather(
                        *(play_with_think_time(t, deadline, think, rng) for t in tables)
                    )
                    report(f"{games}", [x for lat in per_game for x in lat])
                    if args.burst:
                        report(f"{games} burst", await burst(tables, 5))
                assert process.proc is not None
                print(f"bot peak memory (VmHWM): {peak_rss_mb(process.proc.pid):.1f} MB")
            finally:
                process.stop()
                await db.close()


if __name__ == "__main__":
    asyncio.run(main())
