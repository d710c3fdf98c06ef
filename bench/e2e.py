"""End-to-end latency of /move: the real bot process driven through the fake Discord.

Starts the fake Discord (REST + gateway on 127.0.0.1), runs ``python bot.py`` against it as a
separate process, opens N games in N channels and lets every game play on its own: each
player "thinks" for a random time (default 2-6 s, a fast human) and then sends /move. Prints
p50/p95 from sending the interaction to the next board being out in the channel, for each
``--games`` count. ``--burst``: all games send a move at the same instant (rounds, moves per
second). ``--baseline-rev REV`` also runs the bot of an older commit in the same run (A B B A)
and prints ratios. ``--memory-games N``: the bot and its helper processes' memory with N
active games.

``--computer N`` measures what games against the computer cost the others: /move latency of
``--games`` human games in four phases of ``--seconds`` each, A B B A, where N games against
the computer (their person played by this script with the same think time) run during the B
phases only; it prints the p95 ratio B / A, how long the computer took to answer meanwhile,
and the load average, at ``--level`` (default the strongest) in ``--computer-variant``.

``--answers N`` times the computer's answer alone, one game at a time: N computer turns in
each of ``--answer-variants``, from the person's command to the board that hands the turn
back (and to the person's own board), with the load average.

Usage: python -m bench.e2e [--games 1 100] [--seconds 40] [--think 2 6] [--burst] [--smoke]
       python -m bench.e2e --computer 20 --games 10 [--level expert] [--computer-variant classic]
       python -m bench.e2e --answers 100 [--answer-variants classic pin ...] [--think 0.2 0.5]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ai.types import STRONGEST
from bench._checkout import unpack_revision
from engine.game import DOUBLE, MOVE, ROLL, GameState
from engine.position import X
from storage import Database
from tests.e2e.harness import ROOT, BotProcess, Table
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import FakeChannel, FakeMessage, FakeUser

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


def cpu_ticks(pid: int, thread: int | None = None) -> float:
    """User + system CPU seconds of a process, or of one of its threads (0 once gone)."""
    path = f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat"
    try:
        fields = Path(path).read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(side: Side) -> tuple[float, float, float, float]:
    """CPU seconds so far of the bot process, of its helper processes, of this driver (the
    fake Discord included: it competes for the same cores), and of the bot's main thread (its
    event loop; the rest of the bot's CPU is its other threads, SQLite's above all)."""
    assert side.process.proc is not None
    pid = side.process.proc.pid
    helpers = sum(cpu_ticks(p) for p in descendants(pid) if p != pid)
    me = os.times()
    return cpu_ticks(pid), helpers, me.user + me.system, cpu_ticks(pid, pid)


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
    # The newest board, searched from the end (the channel holds the whole game).
    live = next((m for m in reversed(fake.messages_in(channel)) if _is_board(fake, m)), None)
    board, edits = (live.id, live.edit_count) if live is not None else (None, 0)

    def shown(msg: FakeMessage) -> bool:
        if msg.id > after:
            return _is_board(fake, msg)
        return msg.id == board and msg.edit_count > edits

    handle = await fake.slash(user, channel, "move", play=play)
    try:
        # Nothing older than the live board can match: the fake need not re-scan the game.
        since = after if board is None else board - 1
        await fake.wait_for_channel_message(channel, shown, TIMEOUT, after=since)
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


def _board_after(
    fake: FakeDiscord, channel: FakeChannel, since: float, test: str, first: str
) -> FakeMessage | None:
    """The first board the bot posted in ``channel`` after ``since`` (perf_counter) whose text
    starts with ``first`` and contains ``test`` (its text now: a board may have been edited
    since)."""
    for message in fake.messages_in(channel):
        if (
            message.created_at > since
            and message.content.startswith(first)
            and message.author.id == fake.bot_user.id
            and message.webhook_id is None
            and message.attachments
            and test in message.content
        ):
            return message
    return None


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
    own_boards: list[float] | None = None,
    turns: int | None = None,
    seat: tuple[FakeChannel, FakeUser] | None = None,
) -> None:
    """One person against the computer until ``deadline`` (or ``turns`` answers); appends the
    computer's answer times to ``replies``: ms from sending the person's command to the board
    that hands the turn back (the computer's play shown, the person asked to act, or the game
    over). ``own_boards``: ms from the command to the person's own board. ``seat``: the
    channel and person to play in and as (to go on with a game), else new ones."""
    if seat is None:
        seat = (
            fake.add_channel(f"vs-computer-{variant}-{index}"),
            fake.add_user(f"h{variant}{index}"),
        )
    channel, human = seat
    back = f"<@{human.id}>"
    while time.monotonic() < deadline and (turns is None or len(replies) < turns):
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
        if state.phase == ROLL:
            continue  # the person keeps the turn
        if state.phase == MOVE:
            # An Express chain may leave the person to play on: then no answer comes. (The
            # chain's dice are drawn already; the roll below only covers the other cases.)
            played = state.play(state.mover, choose(state), random.Random(0))
            if played.mover == 0 and not played.is_over:
                continue
        # A move or a take hands the turn to the computer (unless it ends the game): wait for
        # the computer's board that hands it back.
        sent = handle.created_at
        end = time.monotonic() + 60
        mine = over_since = None
        while time.monotonic() < end:
            if own_boards is not None and mine is None:
                mine = _board_after(fake, channel, sent, "thinking", human.username)
                if mine is not None:
                    own_boards.append((mine.created_at - sent) * 1000)
            answer = _board_after(fake, channel, sent, back, "") or _board_after(
                fake, channel, sent, "Game over", ""
            )
            if answer is not None:
                # A board of the person's own that hands the turn back: the computer's play
                # was forced (played with the person's move), nothing was thought: not timed.
                if answer.content.startswith("Computer ("):
                    replies.append((answer.created_at - sent) * 1000)
                break
            now = await db.get_game(game.id)
            if now is not None and now.status != "active":
                # Over: by the person's move (no answer comes) or by the computer's (its
                # board may still be on its way).
                over_since = over_since or time.monotonic()
                if time.monotonic() - over_since > 5:
                    break
            await asyncio.sleep(0.02)


async def measure_answers(
    fake: FakeDiscord, db: Database, args: argparse.Namespace, rng: random.Random
) -> None:
    """The computer's answer time, one game at a time, ``--answers`` turns per variant."""
    think = (args.think[0], args.think[1])
    print(
        f"the computer's answer at level {args.level}, one game at a time: ms from the "
        "person's command to the board handing the turn back (and to the person's own board)"
    )
    print(f"before: {load_average()}")
    print(f"{'variant':>28} {'turns':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    everything: list[float] = []
    for variant in args.answer_variants:
        replies: list[float] = []
        own: list[float] = []
        deadline = time.monotonic() + args.seconds
        index = 0
        while len(replies) < args.answers and time.monotonic() < deadline:
            await computer_game(
                fake,
                db,
                index,
                variant,
                args.level,
                deadline,
                think,
                rng,
                replies,
                own,
                turns=args.answers,
            )
            index += 1
        report(f"{variant} (own board)", own)
        report(f"{variant}", replies)
        everything.extend(replies)
    report("all variants", everything)
    print(f"after: {load_average()}")


async def measure_computer_load(
    fake: FakeDiscord,
    db: Database,
    args: argparse.Namespace,
    rng: random.Random,
    side: Side | None = None,
) -> None:
    """Human games' /move latency without and with games against the computer in progress,
    in four phases A B B A on the same human games (so that a drift of the machine's load
    weighs on both sides alike)."""
    think = (args.think[0], args.think[1])
    games = args.games[0]
    print(
        f"/move of {games} human games ({VARIANT}), without (A) and with (B) {args.computer} "
        f"games against the computer ({args.computer_variant}, level {args.level}) in "
        f"progress, phases A B B A of {args.seconds:.0f} s"
    )
    print(f"before: {load_average()}")
    print(f"{'setting':>28} {'moves':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    tables = await open_tables(games, fake, db, "h")
    seats = [
        (fake.add_channel(f"vs-computer-{i}"), fake.add_user(f"vs{i}"))
        for i in range(args.computer)
    ]
    alone: list[float] = []
    loaded: list[float] = []
    replies: list[float] = []
    for phase, with_computer in enumerate((False, True, True, False), start=1):
        deadline = time.monotonic() + args.seconds
        humans = [play_with_think_time(t, deadline, think, rng) for t in tables]
        computers = [
            computer_game(
                fake,
                db,
                i,
                args.computer_variant,
                args.level,
                deadline,
                think,
                rng,
                replies,
                seat=seats[i],
            )
            for i in range(args.computer if with_computer else 0)
        ]
        cpu_before = cpu_seconds(side) if side is not None else None
        results = await asyncio.gather(*humans, *computers)
        latencies = [x for lat in results[:games] if lat for x in lat]
        (loaded if with_computer else alone).extend(latencies)
        cpu = ""
        if side is not None and cpu_before is not None:
            used = [b - a for a, b in zip(cpu_before, cpu_seconds(side), strict=True)]
            cpu = f"   CPU s: bot {used[0]:.1f}, its workers {used[1]:.1f}"
        report(f"phase {phase} ({'B' if with_computer else 'A'})", latencies, cpu)
    report("A: humans alone", alone)
    report(f"B: with {args.computer} vs computer", loaded)
    if alone and loaded:
        p95 = quantile(loaded, 0.95) / quantile(alone, 0.95)
        p50 = statistics.median(loaded) / statistics.median(alone)
        print(f"p95 ratio B / A: {p95:.2f} (target <= 1.5); p50 ratio {p50:.2f}")
    if replies:
        report(f"computer answer, {args.computer} games", replies)
    else:
        print("the computer answered no move within the time")
    print(f"after: {load_average()}")


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
        cpu: dict[str, list[float]] = {s.label: [0.0, 0.0, 0.0, 0.0] for s in sides}
        for r in range(args.rounds):
            for side in sides if r % 2 == 0 else sides[::-1]:
                before = cpu_seconds(side)
                lat, wall = await burst_round(side.tables[games])
                after = cpu_seconds(side)
                latencies[side.label].extend(lat)
                walls[side.label] += wall
                for i in range(4):
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
        print("CPU time per move during the bursts (ms of CPU, not of wall time):")
        print(
            f"{'':>28} {'bot':>8} {'helpers':>8} {'total':>8} {'driver':>8}"
            f" {'bot loop':>8} {'bot rest':>8}"
        )
        per_move = {}
        for side in sides:
            moves = max(1, len(latencies[side.label]))
            bot, helpers, driver, loop = (1000 * x / moves for x in cpu[side.label])
            per_move[side.label] = bot + helpers
            print(
                f"{side.label:>28} {bot:>8.2f} {helpers:>8.2f} {bot + helpers:>8.2f} {driver:>8.2f}"
                f" {loop:>8.2f} {bot - loop:>8.2f}"
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
    parser.add_argument(
        "--answers", type=int, default=0, help="time N computer turns per variant, one at a time"
    )
    parser.add_argument(
        "--answer-variants", nargs="+", default=["classic", "pin", "dutch", "blocking"]
    )
    args = parser.parse_args()
    modes = ["answers"] if args.answers else ["computer"] if args.computer else ["humans"]
    if args.smoke:  # every mode, tiny
        args.games, args.seconds, args.think, args.burst = [2], 2.0, [0.05, 0.2], True
        args.rounds, args.memory_games, args.baseline_rev = 1, 4, None
        args.answers, args.answer_variants = 2, ["pin"]
        args.computer, args.computer_variant = 1, "pin"
        modes = ["humans", "answers", "computer"]
    rng = random.Random(5)
    with tempfile.TemporaryDirectory() as tmp:
        async with contextlib.AsyncExitStack() as stack:
            sides = [await stack.enter_async_context(started_side("new", ROOT, Path(tmp) / "new"))]
            if "answers" in modes:
                await measure_answers(sides[0].fake, sides[0].db, args, rng)
            if "computer" in modes:
                await measure_computer_load(sides[0].fake, sides[0].db, args, rng, sides[0])
            if "humans" not in modes:
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
