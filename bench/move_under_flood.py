"""/move latency of other games while one member floods expensive commands, through the real
bot process and the fake Discord (``bench/report_flood.py`` measures the same at the app layer).

Starts the fake Discord and ``python bot.py``, opens ``--games`` games between people (Pin: no
cube, every decision a /move) and lets them play with a short think time. Four phases of
``--seconds`` each, A B B A: in the B phases one member sends ``--rate`` interactions a second,
in turn ``/review`` and ``/replay`` of finished games and ``/hint`` in a game where it is their
move (a deep look at the position); with ``--cheap``, only ``/review`` of a game that does not
exist (what the interactions cost without any report work). Prints p50/p95/max of /move, from
sending it to its board being out, per phase kind, the ratio flood/alone, and what the flood's
interactions got back (served, refused with "try again", answered late); it asserts nothing.

Usage: python -m bench.move_under_flood [--games 4] [--seconds 30] [--rate 20] [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.e2e import Side, next_order, open_tables, quantile, send_move, started_side
from engine.game import MOVE, ROLL, GameState
from tests.e2e.harness import ROOT, TIMEOUT, Table, game_started_from, reply_of
from tests.fake_discord import FakeDiscord, InteractionHandle
from tests.fake_discord.models import FakeChannel, FakeUser

MISSING_GAME = 999_999_999
#: Discord's limit for the first answer to an interaction.
DEADLINE = 3.0
#: Words of each command's real answer (a replay's is its file).
SERVED = {"hint": ("equity", "Equity"), "review": ("Review", "review"), "replay": ()}


async def _finished_game(fake: FakeDiscord, side: Side, flooder: FakeUser, n: int) -> int:
    """A game the flooder resigned at once (blocking: a resignation needs no answer)."""
    channel = fake.add_channel(f"library-{n}")
    table = Table(fake, side.db, channel, flooder, fake.add_user(f"lib-{n}"))
    await table.challenge("blocking")
    game = await table.game()
    assert game is not None
    while True:
        state = GameState.from_json(game.state_json)
        mover = table.users[game.player_x if state.mover == 0 else game.player_o]
        if mover.id == flooder.id or state.phase != MOVE:
            await table.step()
        else:
            break
        game = await table.game()
        assert game is not None
    handle = await fake.slash(flooder, table.channel, "resign")
    await table.confirm(flooder, handle, "resign")
    await asyncio.sleep(1.0)
    assert await table.game() is None, "the resignation did not end the game"
    return game.id


async def _hint_game(fake: FakeDiscord, side: Side, flooder: FakeUser) -> FakeChannel:
    """The thread of a game against the computer where it is the flooder's move (hints are
    always allowed against the computer, and it does not think while the flooder does)."""
    home = fake.add_channel("hints")
    handle = await fake.slash(
        flooder, home, "challenge", opponent=fake.bot_user, variant="classic", level="beginner"
    )
    await handle.wait_initial(TIMEOUT)
    game = await game_started_from(side.db, home)
    assert game is not None, "no game against the computer"
    channel = fake.channel(game.channel_id)
    assert channel is not None
    for _ in range(200):
        game = await side.db.get_game(game.id)
        assert game is not None
        state = GameState.from_json(game.state_json)
        if state.mover == 0 and state.phase == MOVE:
            return channel
        if state.mover == 0 and state.phase == ROLL:
            await (await fake.slash(flooder, channel, "roll")).wait_initial(TIMEOUT)
        await asyncio.sleep(0.1)
    raise AssertionError("the flooder never got to move")


async def _tally(handle: InteractionHandle, command: str, tally: Counter[str]) -> None:
    try:
        reply = await reply_of(handle, timeout=120.0)
    except Exception:
        tally[f"{command} unanswered"] += 1
        return
    if handle.latency is None or handle.latency >= DEADLINE:
        tally[f"{command} late"] += 1
    if "try again" in reply.content:
        tally[f"{command} try again"] += 1
    elif reply.message is not None and reply.message.attachments:
        tally[f"{command} served (a file)"] += 1
    elif any(word in reply.content for word in SERVED[command]):
        tally[f"{command} served"] += 1
    else:
        tally[f"{command} other: {reply.content[:50]!r}"] += 1


async def _flood(
    fake: FakeDiscord,
    flooder: FakeUser,
    hints: FakeChannel,
    games: list[int],
    rate: float,
    tally: Counter[str],
    cheap: bool,
) -> None:
    tasks: set[asyncio.Task[None]] = set()
    try:
        for i in range(10**9):
            command = ("hint", "review", "replay")[i % 3] if not cheap else "review"
            if cheap:  # a game that does not exist: refused before any work or limit
                handle = await fake.slash(flooder, hints, command, game=MISSING_GAME)
            elif command == "hint":
                handle = await fake.slash(flooder, hints, "hint")
            else:
                handle = await fake.slash(flooder, hints, command, game=games[i % len(games)])
            task = asyncio.create_task(_tally(handle, command, tally))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            await asyncio.sleep(1 / rate)
    finally:
        if tasks:
            await asyncio.wait(tasks, timeout=120.0)


async def _moves(
    tables: list[Table], seconds: float, think: tuple[float, float], rng: random.Random
) -> list[float]:
    deadline = time.monotonic() + seconds

    async def play(table: Table) -> list[float]:
        out: list[float] = []
        while time.monotonic() < deadline:
            order = await next_order(table)
            if order is None:
                if await table.game() is None:
                    await table.challenge("pin")
                else:
                    await table.step()  # not a /move (a roll): not measured
                continue
            await asyncio.sleep(rng.uniform(*think))
            started = time.perf_counter()
            await send_move(table, *order)
            out.append((time.perf_counter() - started) * 1000)
        return out

    return [x for lat in await asyncio.gather(*(play(t) for t in tables)) for x in lat]


async def run(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="move-flood-") as tmp:
        async with started_side("bot", ROOT, Path(tmp)) as side:
            fake = side.fake
            flooder = fake.add_user("flooder")
            finished = [await _finished_game(fake, side, flooder, n) for n in range(2)]
            hints = await _hint_game(fake, side, flooder)
            tables = await open_tables(args.games, fake, side.db, "flood")
            results: dict[str, list[float]] = {"alone": [], "flood": []}
            tally: Counter[str] = Counter()
            for phase in ("alone", "flood", "flood", "alone"):
                flood = (
                    asyncio.create_task(
                        _flood(fake, flooder, hints, finished, args.rate, tally, args.cheap)
                    )
                    if phase == "flood"
                    else None
                )
                try:
                    results[phase] += await _moves(tables, args.seconds, tuple(args.think), rng)
                finally:
                    if flood is not None:
                        flood.cancel()
                        await asyncio.gather(flood, return_exceptions=True)
    load = os.getloadavg()[0]
    print(
        f"/move of {args.games} games (think {args.think[0]}-{args.think[1]} s), phases A B B A "
        f"of {args.seconds:g} s; flood: {args.rate:g}/s of "
        f"{'/review of a missing game' if args.cheap else '/hint, /review, /replay'} from one "
        f"member; load average {load:.2f}"
    )
    print(f"{'phase':<8} {'moves':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for name, lat in results.items():
        if not lat:
            print(f"{name:<8} no measurement")
            continue
        print(
            f"{name:<8} {len(lat):>6} {statistics.median(lat):>8.1f} "
            f"{quantile(lat, 0.95):>8.1f} {max(lat):>8.1f}"
        )
    if results["alone"] and results["flood"]:
        base, loaded = quantile(results["alone"], 0.95), quantile(results["flood"], 0.95)
        print(f"p95 flood/alone: {loaded / base:.2f}x")
    print("flood answers:")
    for key, count in sorted(tally.items()):
        print(f"  {key}: {count}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4, help="games between people")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each phase")
    parser.add_argument("--rate", type=float, default=20.0, help="flood interactions per second")
    parser.add_argument("--think", type=float, nargs=2, default=[0.3, 1.0], help="seconds")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--cheap",
        action="store_true",
        help="flood with /review of a game that does not exist (the cost of the interactions "
        "alone, no report work)",
    )
    parser.add_argument("--smoke", action="store_true", help="a quick pass (figures meaningless)")
    args = parser.parse_args()
    if args.smoke:
        args.games, args.seconds, args.rate = 1, 3.0, 5.0
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
