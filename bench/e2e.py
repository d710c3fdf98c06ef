from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import random
import statistics
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ai.types import STRONGEST
from engine.game import DOUBLE, MOVE, ROLL, GameState
from engine.position import X
from storage import Database
from tests.e2e.harness import ROOT, BotProcess, Table
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import FakeMessage, FakeUser

VARIANT = "pin"  # no cube, so every decision is a /move
TIMEOUT = 120.0


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (the render and computer-player workers, ...)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if fields[0] != "Z":
                parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(parents.get(p, []))
    return found


def cpu_ticks(pid: int) -> float:
    """User + system CPU seconds of a process (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(side: Side) -> tuple[float, float, float]:
    """CPU seconds so far of the bot process, of its helper processes, and of this driver
    (the fake Discord included)."""
    assert side.process.proc is not None
    pid = side.process.proc.pid
    helpers = sum(cpu_ticks(p) for p in descendants(pid) if p != pid)
    me = os.times()
    return cpu_ticks(pid), helpers, me.user + me.system


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def choose(state: GameState) -> str:
    plays = state.legal_plays()
    best = min(plays, key=lambda p: (p.after.pips(X), p.after.pips("O"), p.text))
    return best.text or "pass"


@dataclass
class Side:
    """One bot under test: its own fake Discord, process and database file."""

    label: str
    fake: FakeDiscord
    process: BotProcess
    db: Database
    tables: dict[int, list[Table]] = field(default_factory=dict)


async def open_tables(games: int, fake: FakeDiscord, db: Database, tag: str) -> list[Table]:
    tables: list[Table] = []
    for i in range(games):
        channel = fake.add_channel(f"bench-{tag}-{i}")
        alice, bob = fake.add_user(f"a{tag}-{i}"), fake.add_user(f"b{tag}-{i}")
        tables.append(Table(fake, db, channel, alice, bob))
    for start in range(0, games, 25):  # a few at a time: the set-up is not measured
        await asyncio.gather(*(t.challenge(VARIANT) for t in tables[start : start + 25]))
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


def _is_board(fake: FakeDiscord, msg: FakeMessage) -> bool:
    return (
        msg.author.id == fake.bot_user.id
        and not msg.ephemeral
        and any(a.is_png for a in msg.attachments)
    )


async def send_move(table: Table, user: FakeUser, play: str) -> None:
    """/move, returning once the next board is out: a new board message in the channel, or
    the live board redrawn (a turn that comes back to the same player). Event-driven: the
    fake Discord wakes this when a message of the channel is created or edited."""
    fake, channel = table.fake, table.channel
    after = fake.mark()
    live = [m for m in fake.messages_in(channel) if _is_board(fake, m)]
    board, edits = (live[-1].id, live[-1].edit_count) if live else (None, 0)

    def shown(msg: FakeMessage) -> bool:
        if msg.id > after:
            return _is_board(fake, msg)
        return msg.id == board and msg.edit_count > edits

    handle = await fake.slash(user, channel, "move", play=play)
    try:
        await fake.wait_for_channel_message(channel, shown, TIMEOUT)
    except TimeoutError:
        raise AssertionError(f"no board after /move {play}: {handle.content!r}") from None


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
        await send_move(table, *order)
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


async def human_paced(
    tables: list[Table], seconds: float, think: tuple[float, float], rng: random.Random
) -> list[float]:
    deadline = time.monotonic() + seconds
    per_game = await asyncio.gather(
        *(play_with_think_time(t, deadline, think, rng) for t in tables)
    )
    return [x for lat in per_game for x in lat]


async def burst_round(tables: list[Table]) -> tuple[list[float], float]:
    """All games send a move at the same instant: latencies (ms) and the round's wall time
    (s, until the last board is out)."""
    orders = [(t, await next_order(t)) for t in tables]
    ready = [(t, o) for t, o in orders if o is not None]
    for t, o in orders:
        if o is None:
            await t.challenge(VARIANT)  # the game ended: a new one for the next round
    started = time.perf_counter()

    async def one(table: Table, user: FakeUser, play: str) -> float:
        await send_move(table, user, play)
        return (time.perf_counter() - started) * 1000

    latencies = list(await asyncio.gather(*(one(t, o[0], o[1]) for t, o in ready)))
    return latencies, time.perf_counter() - started


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(label: str, lat: list[float], extra: str = "") -> None:
    if not lat:
        print(f"{label:>28}: no measurement")
        return
    print(
        f"{label:>28} {len(lat):>6} {statistics.median(lat):>8.1f} "
        f"{quantile(lat, 0.95):>8.1f} {max(lat):>8.1f}{extra}"
    )


def ratio(new: float, old: float) -> str:
    return f"{new / old:.2f}x" if old > 0 else "n/a"


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


async def measure_memory(side: Side, games: int) -> tuple[float, float, int]:
    """Open ``games`` games on ``side`` (one move played in each), then the sum of VmHWM and
    of PSS over the bot and all its helper processes (MB), and how many processes."""
    tables = await open_tables(games, side.fake, side.db, "mem")
    for start in range(0, games, 100):
        chunk = tables[start : start + 100]
        orders = [(t, await next_order(t)) for t in chunk]
        await asyncio.gather(*(send_move(t, *o) for t, o in orders if o is not None))
    assert side.process.proc is not None
    pids = descendants(side.process.proc.pid)
    hwm = sum(peak_rss_mb(p) for p in pids)
    pss = sum(pss_mb(p) for p in pids)
    return hwm, pss, len(pids)


def unpack_revision(rev: str, into: Path) -> Path:
    """The tree of commit ``rev`` of this repository, unpacked into ``into``."""
    data = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


@contextlib.asynccontextmanager
async def started_side(label: str, root: Path, workdir: Path) -> Iterator[Side]:  # type: ignore[misc]
    async with FakeDiscord() as fake:
        workdir.mkdir(parents=True, exist_ok=True)
        db_path = workdir / "bench.sqlite3"
        process = BotProcess(fake, db_path, seed=3, root=root)
        await process.start()
        db = await Database.open(db_path)
        try:
            yield Side(label, fake, process, db)
        finally:
            process.stop()
            await db.close()


async def compare(sides: list[Side], args: argparse.Namespace, rng: random.Random) -> None:
    think = (args.think[0], args.think[1])
    names = " and ".join(s.label for s in sides)
    print(f"bots: {names}; {load_average()}")
    print(
        f"/move latency until the next board is out, variant {VARIANT}, "
        f"think time {think[0]}-{think[1]} s"
    )
    print(f"{'setting':>28} {'moves':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    paced: dict[tuple[str, int], list[float]] = {}
    for games in args.games:
        for side in sides:
            side.tables[games] = await open_tables(games, side.fake, side.db, f"g{games}")
        # Two halves, the order mirrored (A B B A), so that a drift of the machine's load
        # weighs on both bots alike.
        order = sides + sides[::-1]
        for side in order:
            lat = await human_paced(
                side.tables[games], args.seconds / len(order) * len(sides), think, rng
            )
            paced.setdefault((side.label, games), []).extend(lat)
        for side in sides:
            report(f"{games} games, {side.label}", paced[(side.label, games)])
        if len(sides) == 2:
            new, old = (paced[(s.label, games)] for s in sides)
            print(
                f"{'ratio new/baseline':>28} {'':>6} "
                f"{ratio(statistics.median(new), statistics.median(old)):>8} "
                f"{ratio(quantile(new, 0.95), quantile(old, 0.95)):>8}   ({load_average()})"
            )
    if args.burst:
        games = max(args.games)
        latencies: dict[str, list[float]] = {s.label: [] for s in sides}
        walls: dict[str, float] = {s.label: 0.0 for s in sides}
        cpu: dict[str, list[float]] = {s.label: [0.0, 0.0, 0.0] for s in sides}
        for r in range(args.rounds):
            for side in sides if r % 2 == 0 else sides[::-1]:
                before = cpu_seconds(side)
                lat, wall = await burst_round(side.tables[games])
                after = cpu_seconds(side)
                latencies[side.label].extend(lat)
                walls[side.label] += wall
                for i in range(3):
                    cpu[side.label][i] += after[i] - before[i]
        print(f"burst: {games} games send a move at the same instant, {args.rounds} rounds")
        print(
            f"{'setting':>28} {'moves':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'moves/s':>8}"
        )
        rates = {}
        for side in sides:
            lat = latencies[side.label]
            rates[side.label] = len(lat) / walls[side.label] if walls[side.label] else 0.0
            report(f"burst, {side.label}", lat, f" {rates[side.label]:>8.1f}")
        print("CPU time per move during the bursts (ms; independent of the machine's load):")
        print(f"{'':>28} {'bot':>8} {'helpers':>8} {'total':>8} {'driver':>8}")
        per_move = {}
        for side in sides:
            moves = max(1, len(latencies[side.label]))
            bot, helpers, driver = (1000 * x / moves for x in cpu[side.label])
            per_move[side.label] = bot + helpers
            print(
                f"{side.label:>28} {bot:>8.2f} {helpers:>8.2f} {bot + helpers:>8.2f} {driver:>8.2f}"
            )
        if len(sides) == 2:
            new_label, old_label = sides[0].label, sides[1].label
            new, old = latencies[new_label], latencies[old_label]
            print(
                f"{'burst ratio new/baseline':>28} {'':>6} "
                f"{ratio(statistics.median(new), statistics.median(old)):>8} "
                f"{ratio(quantile(new, 0.95), quantile(old, 0.95)):>8} {'':>8} "
                f"{ratio(rates[new_label], rates[old_label]):>8}   (targets: p95 <= 0.50x, "
                f"moves/s >= 2.00x; {load_average()})"
            )
            print(
                f"{'CPU per move new/baseline':>28} "
                f"{ratio(per_move[new_label], per_move[old_label]):>8} (bot + helpers)"
            )
    if args.memory_games:
        print(f"memory at {args.memory_games} active games (bot + its helper processes)")
        for side in sides:
            hwm, pss, count = await measure_memory(side, args.memory_games)
            print(
                f"{side.label:>28}: sum of VmHWM {hwm:.1f} MB, sum of PSS {pss:.1f} MB "
                f"({count} processes; target <= 300 MB)"
            )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, nargs="+", default=[1, 100])
    parser.add_argument("--seconds", type=float, default=40.0, help="measuring time per setting")
    parser.add_argument("--think", type=float, nargs=2, default=[2.0, 6.0])
    parser.add_argument("--burst", action="store_true", help="also all games at one instant")
    parser.add_argument("--rounds", type=int, default=6, help="burst rounds per bot")
    parser.add_argument("--baseline-rev", help="also measure the bot of this commit")
    parser.add_argument("--memory-games", type=int, default=1000, help="0: no memory figure")
    parser.add_argument("--smoke", action="store_true", help="tiny and fast (CI)")
    parser.add_argument("--computer", type=int, default=0, help="games against the computer")
    parser.add_argument("--level", default=STRONGEST)
    parser.add_argument("--computer-variant", default="classic")
    args = parser.parse_args()
    if args.smoke:
        args.games, args.seconds, args.think, args.burst = [2], 2.0, [0.05, 0.2], True
        args.rounds, args.memory_games, args.baseline_rev = 1, 4, None
    rng = random.Random(5)
    with tempfile.TemporaryDirectory() as tmp:
        async with contextlib.AsyncExitStack() as stack:
            sides = [await stack.enter_async_context(started_side("new", ROOT, Path(tmp) / "new"))]
            if args.computer:
                await measure_computer_load(sides[0].fake, sides[0].db, args, rng)
                return
            if args.baseline_rev:
                root = unpack_revision(args.baseline_rev, Path(tmp) / "baseline-src")
                label = f"baseline {args.baseline_rev}"
                sides.append(
                    await stack.enter_async_context(
                        started_side(label, root, Path(tmp) / "baseline")
                    )
                )
            await compare(sides, args, rng)


if __name__ == "__main__":
    asyncio.run(main())
