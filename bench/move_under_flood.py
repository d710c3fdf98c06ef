"""/move latency of other games while one member floods expensive commands, through the real
bot process and the fake Discord (``bench/report_flood.py`` measures the same at the app layer).

Starts the fake Discord and ``python bot.py``, opens ``--games`` games between people (Pin: no
cube, every decision a /move) and lets them play with a short think time. Four phases of
``--seconds`` each, A B B A: in the B phases one member sends ``--rate`` interactions a second,
in turn ``/review`` and ``/replay`` of finished games and ``/hint`` in a game where it is their
move (a deep look at the position); with ``--cheap``, only ``/review`` of a game that does not
exist (what the interactions cost without any report work). Prints p50/p95/max of /move, from
sending it to its board being out, per phase kind, the ratios flood/alone of p50 and p95 with
95 % bootstrap intervals (moves resampled), what the flood's interactions got back (served,
refused with "try again", answered late) and how fast, and per phase kind where the CPU went:
the bot's event loop (its main thread), its other threads, its worker processes, and this
driver (the fake Discord, the players and the flooder, which real Discord would not run on the
bot's machine), with the driver's own event-loop lag (how late a 20 ms sleep wakes up: what the
fake adds to every measured /move when it is busy). It asserts nothing.

The fake Discord runs in this process (the players read its state directly), so it cannot be
moved to another machine; instead, by default (``--no-pin`` not given), this driver and the
bot's threads are kept on different cores, so that the fake's work never runs on the core of
the bot's event loop (on loopback each request wakes the other side, which then preempts the
sender on its core); the bot's workers may run on any core.

``--profile DIR``: py-spy (``--py-spy``, default on the PATH; ``py-spy record --pid`` needs
ptrace permission) samples the bot and its workers, and this driver, during the second flood
phase and the last alone phase, writes the raw profiles into DIR and prints the functions on
the most samples.

Usage: python -m bench.move_under_flood [--games 4] [--seconds 30] [--rate 20] [--cheap]
       [--profile DIR] [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from bench.e2e import (
    Side,
    cpu_seconds,
    descendants,
    next_order,
    open_tables,
    quantile,
    send_move,
    started_side,
)
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


async def _tally(
    handle: InteractionHandle, command: str, tally: Counter[str], answers: list[float]
) -> None:
    try:
        reply = await reply_of(handle, timeout=120.0)
    except Exception:
        tally[f"{command} unanswered"] += 1
        return
    if handle.latency is not None:
        answers.append(handle.latency * 1000)
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
    answers: list[float],
) -> None:
    tasks: set[asyncio.Task[None]] = set()
    try:
        for i in range(10**9):
            command = ("hint", "review", "replay")[i % 3] if not cheap else "review"
            if cheap:  # a game that does not exist: refused before any report work
                handle = await fake.slash(flooder, hints, command, game=MISSING_GAME)
            elif command == "hint":
                handle = await fake.slash(flooder, hints, "hint")
            else:
                handle = await fake.slash(flooder, hints, command, game=games[i % len(games)])
            task = asyncio.create_task(_tally(handle, command, tally, answers))
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


#: Bootstrap resamples for the ratios' intervals.
RESAMPLES = 2000
#: The driver's loop-lag probe: how long it sleeps each time (s).
PROBE = 0.02
#: CPU figures per phase kind: the bot's event loop, its other threads, its worker processes,
#: this driver.
CPU_PARTS = ("bot loop", "bot threads", "workers", "driver")


def ratio_interval(
    alone: list[float], flood: list[float], stat: Callable[[list[float]], float], seed: int
) -> tuple[float, float, float]:
    """``stat(flood) / stat(alone)`` and its 95 % percentile-bootstrap interval (the moves of
    each phase kind resampled with replacement)."""
    rng = random.Random(seed)
    ratios = sorted(
        stat(rng.choices(flood, k=len(flood))) / stat(rng.choices(alone, k=len(alone)))
        for _ in range(RESAMPLES)
    )
    low, high = ratios[int(0.025 * RESAMPLES)], ratios[int(0.975 * RESAMPLES) - 1]
    return stat(flood) / stat(alone), low, high


async def _loop_lag(out: list[float]) -> None:
    """How late this process's event loop wakes a sleeper (ms), until cancelled."""
    while True:
        started = time.perf_counter()
        await asyncio.sleep(PROBE)
        out.append((time.perf_counter() - started - PROBE) * 1000)


def pin_cores(side: Side, cores: list[int]) -> str:
    """Keep this driver and the bot's threads on different cores: on a loopback socket each
    request wakes the other process, which would otherwise run on the sender's core and
    preempt it (the profile shows the bot "writing" while the fake runs). The bot's worker
    processes may use every core (workers the bot starts later inherit its core: set again
    at each phase). ``cores``: all this process may use. Returns what was done."""
    if len(cores) < 2 or not hasattr(os, "sched_setaffinity"):
        return "not pinned (one core, or no CPU affinity here)"
    assert side.process.proc is not None
    pid = side.process.proc.pid
    mine, bots = {cores[-1]}, set(cores[:-1])
    os.sched_setaffinity(0, mine)
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            os.sched_setaffinity(int(task.name), bots)
    for worker in descendants(pid):
        if worker != pid:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(worker, set(cores))
    return f"driver on core {cores[-1]}, the bot's threads on {sorted(bots)}, its workers on any"


def _cpu_split(side: Side) -> tuple[float, float, float, float]:
    bot, helpers, driver, loop = cpu_seconds(side)
    return loop, bot - loop, helpers, driver


def _profile(
    py_spy: str, pid: int, seconds: float, out: Path, *, children: bool = True
) -> subprocess.Popen[bytes]:
    """py-spy sampling ``pid`` (and its child processes), one root frame per thread."""
    return subprocess.Popen(
        [
            py_spy,
            "record",
            "--pid",
            str(pid),
            *(["--subprocesses"] if children else []),
            "--threads",
            "--nonblocking",
            "--format",
            "raw",
            "--duration",
            str(max(1, int(seconds) - 1)),
            "--output",
            str(out),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


#: The process frames at the start of a py-spy ``--subprocesses`` stack, and the rest.
_PROCESSES = re.compile(r'^((?:process \d+:"[^"]*";)*)(.*)$')


def profile_summary(raw: Path, who: str = "bot", top: int = 12) -> list[str]:
    """A py-spy raw profile (``--subprocesses --threads``) in lines: the samples of each
    process and thread (py-spy leaves idle threads out: samples are CPU), then for the bot's
    main thread (its event loop) the functions on most
    of its samples (each counted once per stack; the frames on nearly all of them, the loop's
    scaffolding, left out) and those most often on top (where the time itself goes)."""
    where: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    leaf: Counter[str] = Counter()
    total = main = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        # Process frames come first, quoted (a worker's command line holds a ';').
        head = _PROCESSES.match(stack)
        if not count.isdigit() or head is None:
            continue
        n = int(count)
        frames = head.group(2).split(";")
        total += n
        if head.group(1).count("process ") > 1:
            where["workers (all threads)"] += n
            continue
        if frames[-1].startswith("EpollSelector.select"):
            where[f"{who} MainThread waiting for events"] += n  # idle, though py-spy caught it
            continue
        where[f"{who} {frames[0].split(': ', 1)[-1]}"] += n
        if frames[0].endswith("MainThread"):
            main += n
            leaf[frames[-1]] += n
            for frame in set(frames[1:]):
                inclusive[frame] += n
    if not total:
        return ["no samples"]
    lines = [f"{n / total:6.1%}  {name} ({n} samples)" for name, n in where.most_common()]
    if main:
        lines.append(f"{who} main thread ({main} samples), functions on most of its samples:")
        kept = [(f, n) for f, n in inclusive.most_common() if n < 0.9 * main][:top]
        lines += [f"{n / main:6.1%}  {f[:110]}" for f, n in kept]
        lines.append(f"{who} main thread, functions most often on top:")
        lines += [f"{n / main:6.1%}  {f[:110]}" for f, n in leaf.most_common(top)]
    return lines


async def run(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    results: dict[str, list[float]] = {"alone": [], "flood": []}
    lag: dict[str, list[float]] = {"alone": [], "flood": []}
    cpu: dict[str, list[float]] = {"alone": [0.0] * 4, "flood": [0.0] * 4}
    answers: list[float] = []
    tally: Counter[str] = Counter()
    profiles: dict[str, Path] = {}
    hops = [0, 0]  # requests, moves
    with tempfile.TemporaryDirectory(prefix="move-flood-") as tmp:
        async with started_side("bot", ROOT, Path(tmp)) as side:
            assert side.process.proc is not None
            fake = side.fake
            flooder = fake.add_user("flooder")
            finished = [await _finished_game(fake, side, flooder, n) for n in range(2)]
            hints = await _hint_game(fake, side, flooder)
            tables = await open_tables(args.games, fake, side.db, "flood")
            before = f"load average {os.getloadavg()[0]:.2f}"
            pinned = "not pinned"
            cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
            for n, phase in enumerate(("alone", "flood", "flood", "alone")):
                flood = (
                    asyncio.create_task(
                        _flood(
                            fake, flooder, hints, finished, args.rate, tally, args.cheap, answers
                        )
                    )
                    if phase == "flood"
                    else None
                )
                probe = asyncio.create_task(_loop_lag(lag[phase]))
                spies = []
                if args.profile is not None and n in (2, 3):  # the second flood, the last alone
                    for who, pid in (("bot", side.process.proc.pid), ("driver", os.getpid())):
                        path = profiles[f"{who} {phase}"] = args.profile / f"{who}-{phase}.txt"
                        spies.append(
                            _profile(args.py_spy, pid, args.seconds, path, children=who == "bot")
                        )
                if args.pin:
                    pinned = pin_cores(side, cores)
                used = _cpu_split(side)
                try:
                    started = time.perf_counter()
                    measured = await _moves(tables, args.seconds, tuple(args.think), rng)
                    results[phase] += measured
                    if phase == "alone":  # the bot's requests to the fake, rolls included
                        hops[0] += sum(r.started_at >= started for r in fake.requests)
                        hops[1] += len(measured)
                finally:
                    for task in (flood, probe):
                        if task is not None:
                            task.cancel()
                            await asyncio.gather(task, return_exceptions=True)
                for i, (a, b) in enumerate(zip(used, _cpu_split(side), strict=True)):
                    cpu[phase][i] += b - a
                for spy in spies:
                    await asyncio.to_thread(spy.wait)
    flood_what = "/review of a missing game" if args.cheap else "/hint, /review, /replay"
    print(
        f"/move of {args.games} games (think {args.think[0]}-{args.think[1]} s), phases A B B A "
        f"of {args.seconds:g} s; flood: {args.rate:g}/s of {flood_what} from one member; "
        f"{before} at the start, {os.getloadavg()[0]:.2f} at the end, {os.cpu_count()} cores; "
        f"{pinned}"
    )
    print(
        f"{'phase':<8} {'moves':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}   CPU s per "
        f"phase kind: {', '.join(CPU_PARTS)}; driver loop lag p50/p95 ms"
    )
    for name, lat in results.items():
        if not lat:
            print(f"{name:<8} no measurement")
            continue
        split = " ".join(f"{x:5.1f}" for x in cpu[name])
        late = lag[name] or [0.0]
        print(
            f"{name:<8} {len(lat):>6} {statistics.median(lat):>8.1f} "
            f"{quantile(lat, 0.95):>8.1f} {max(lat):>8.1f}   {split}; "
            f"{statistics.median(late):.1f}/{quantile(late, 0.95):.1f}"
        )
    alone, loaded = results["alone"], results["flood"]
    if alone and loaded:
        for label, stat in (("p50", statistics.median), ("p95", _p95)):
            point, low, high = ratio_interval(alone, loaded, stat, args.seed)
            verdict = "contains 1" if low <= 1.0 <= high else "excludes 1"
            print(
                f"{label} flood/alone: {point:.2f}x, 95 % interval {low:.2f}-{high:.2f} "
                f"({verdict}; {RESAMPLES} bootstrap resamples of the moves)"
            )
    if alone and loaded and hops[1] and lag["alone"] and lag["flood"]:
        per_move = hops[0] / hops[1]
        later = statistics.median(lag["flood"]) - statistics.median(lag["alone"])
        print(
            f"the driver answers {per_move:.1f} requests of the bot per /move (alone phases, rolls "
            f"included); at {later:+.1f} ms more loop lag each, about {per_move * later:+.1f} ms "
            f"of the p50 difference ({statistics.median(loaded) - statistics.median(alone):+.1f}"
            " ms) is this driver's, not the bot's (an estimate)"
        )
    print("flood answers:")
    for key, count in sorted(tally.items()):
        print(f"  {key}: {count}")
    if answers:
        print(
            f"  first answer ms: p50 {statistics.median(answers):.1f}, "
            f"p95 {quantile(answers, 0.95):.1f}, max {max(answers):.1f}"
        )
    for label, path in profiles.items():
        if not path.exists():
            print(f"profile of the {label}: py-spy wrote nothing")
            continue
        print(f"profile of the {label} ({path}): share of the samples")
        for line in profile_summary(path, label.split()[0]):
            print(f"  {line}")


def _p95(values: list[float]) -> float:
    return quantile(values, 0.95)


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
    parser.add_argument(
        "--profile", type=Path, help="write py-spy profiles of the bot here (see the docstring)"
    )
    parser.add_argument(
        "--pin",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="this driver (the fake Discord, the players, the flooder) and the bot's threads on "
        "different cores (default; see pin_cores)",
    )
    parser.add_argument("--py-spy", default="py-spy", help="the py-spy program for --profile")
    parser.add_argument("--smoke", action="store_true", help="a quick pass (figures meaningless)")
    args = parser.parse_args()
    if args.smoke:
        args.games, args.seconds, args.rate = 1, 3.0, 5.0
    if args.profile is not None:
        args.profile.mkdir(parents=True, exist_ok=True)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
