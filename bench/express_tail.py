"""The Blocking Express tail: a search for the slowest chain decisions, and their timings.

Run from the project root: ``.venv/bin/python -m bench.express_tail [MODE] [options]``.

Modes:

* ``--search`` (default): list every chain decision of seeded games cold (engine memos
  emptied first) and print the slowest. The games are played by every pair of ``--players``
  (``random``, ``pip``, ``greedy`` and the ai levels); on a sample of the positions met a chain
  is also forced (every value 1-5 and copies 1-4); ``--constructed`` random positions of the
  slow family (X able to bear off during the run but not to win it: a checker of his covered
  in his home board, others still coming home, a long chain pending) are listed too, and
  ``--climb`` rounds of hill climbing mutate the slowest positions found (move a checker,
  own or free a point, change the decision) keeping whatever lists slower.
  ``--out FILE`` writes the slowest ``--top`` as position lines (``ms<TAB>plays<TAB>line``).
* ``--retime FILE``: time the position lines of FILE (a ``--search`` output, or bare position
  lines) cold, best of ``--repeat``; ``--baseline DIR`` also times them with the engine of
  another checkout (a ``git worktree`` of an older commit) in the same run, alternating, and
  prints the ratio per decision and for the slowest.
* ``--smoke``: a few decisions of each mode, seconds (CI).

Times are CPU time of the listing process (a shared machine's load would otherwise decide
which listings look slowest). Prints figures only; the target (issue 18) is 150 ms for every
chain decision.
"""

from __future__ import annotations

import argparse
import heapq
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from engine import ChainDice, Dice, Play, Position, format_position, legal_plays, parse_position
from engine.game import MOVE, ROLL, GameState
from engine.position import NUM_CHECKERS, O, X, make_position
from engine.variants import Variant, get_variant

VARIANT = "blocking-express"
SEED = 20261124
TARGET_MS = 150.0
PLAYERS = ("random", "pip", "greedy", "beginner", "casual", "intermediate")
MAX_DECISIONS = 1500

Chooser = Callable[[Variant, Position, Dice, random.Random, list[Play]], Play]


# --- timing ------------------------------------------------------------------------------------


def clear_caches() -> None:
    from engine import express

    express.clear_caches()


def cold_ms(pos: Position, dice: Dice) -> tuple[float, int]:
    """One listing with empty engine memos: (milliseconds of CPU time, plays). CPU time, not
    the wall clock: on a shared machine another process's burst would rank a fast listing
    among the slowest."""
    clear_caches()
    start = time.process_time()
    plays = legal_plays(pos, dice)
    return (time.process_time() - start) * 1000, len(plays)


class Slowest:
    """The ``top`` slowest decisions seen, each position once."""

    def __init__(self, top: int) -> None:
        self.top = top
        self.heap: list[tuple[float, str, int, str]] = []
        self.seen: set[str] = set()
        self.count = 0
        self.times: list[float] = []
        self.by_source: dict[str, Slowest] = {}

    def add(self, ms: float, plays: int, line: str, source: str) -> None:
        self.count += 1
        self.times.append(ms)
        kind = source.split()[0]
        if self.top > 5:  # the few slowest of each source too (games, forced, ...)
            self.by_source.setdefault(kind, Slowest(5)).add(ms, plays, line, source)
        if line in self.seen:
            return
        if len(self.heap) < self.top:
            heapq.heappush(self.heap, (ms, line, plays, source))
            self.seen.add(line)
        elif ms > self.heap[0][0]:
            _, old, _, _ = heapq.heapreplace(self.heap, (ms, line, plays, source))
            self.seen.discard(old)
            self.seen.add(line)

    def ranked(self) -> list[tuple[float, str, int, str]]:
        return sorted(self.heap, reverse=True)


# --- players -----------------------------------------------------------------------------------


def make_chooser(name: str) -> Chooser:
    if name == "random":
        return lambda rules, pos, dice, rng, plays: rng.choice(plays)
    if name == "pip":
        return lambda rules, pos, dice, rng, plays: max(
            plays, key=lambda p: p.after.pips(O) - p.after.pips(X)
        )
    from ai.arena import ONE_POINT
    from ai.players import BASELINE, rank_hand

    level = BASELINE if name == "greedy" else name

    def choose(
        rules: Variant, pos: Position, dice: Dice, rng: random.Random, plays: list[Play]
    ) -> Play:
        if len(plays) == 1:
            return plays[0]
        ranked = rank_hand(rules, pos, dice, level=level, rng=rng, match=ONE_POINT, plays=plays)
        return ranked[0].play

    return choose


def game_decisions(
    players: tuple[Chooser, Chooser], seed: int
) -> Iterator[tuple[Position, Dice, float, int]]:
    """Every decision of one game, chain decisions timed cold: (position, dice, ms, plays);
    ms is 0 for ordinary rolls (not timed)."""
    rng = random.Random(seed)
    state = GameState.new(VARIANT, ("A", "B"), rng)
    rules = state.rules
    for _ in range(MAX_DECISIONS):
        if state.phase == ROLL:
            state = state.roll(state.turn, rng)
            continue
        if state.phase != MOVE:
            return
        dice = state.current_dice()
        assert dice is not None
        pos = state.position_for(state.mover)
        ms = 0.0
        if isinstance(dice, ChainDice):
            ms, _ = cold_ms(pos, dice)
        plays = legal_plays(pos, dice)
        yield pos, dice, ms, len(plays)
        chosen = players[state.mover](rules, pos, dice, rng, plays)
        state = state._apply(chosen, rng, auto=False)


# --- the slow family, constructed and mutated --------------------------------------------------

MIXED = ("XXO", "XXOO", "XOOX", "XXOOX", "OOXX", "OOXOX", "OOXXOX", "XOXOOX", "OOXXOXOXOX")


def constructed(rng: random.Random) -> tuple[Position, ChainDice]:
    """A random position of the slow family: some X checkers covered in X's home board (mixed
    stacks, some with free X checkers on top), free X checkers home and on their way home
    (points 7-24), a few points O owns; every other checker borne off; a long chain pending.
    Three in ten have no covered checker or covered ones outside the home board instead."""
    rules = get_variant(VARIANT)
    while True:
        stacks: dict[int, str] = {}
        # Mostly the slow family (covered in the home board); sometimes nothing covered (X can
        # win) or covered outside (X never bears off), the neighbouring cases.
        kind = rng.random()
        covered_points = range(1, 7) if kind < 0.7 else range(7, 19)
        for point in rng.sample(covered_points, 0 if kind > 0.85 else rng.randint(1, 3)):
            stacks[point] = rng.choice(MIXED)
        for point in rng.sample(range(1, 25), rng.randint(0, 4)):
            if point not in stacks:
                stacks[point] = O * rng.choice((1, 1, 2, 3))
        outside = rng.randint(2, 9)
        for _ in range(outside):
            point = rng.randint(7, rng.choice((12, 18, 24)))
            if stacks.get(point, "").count(O) != 1:
                stacks[point] = stacks.get(point, "") + X
        for _ in range(rng.randint(0, 8)):
            point = rng.randint(1, 6)
            if stacks.get(point, "").count(O) != 1:
                stacks[point] = stacks.get(point, "") + X
        on_board = "".join(stacks.values())
        xs, os_ = on_board.count(X), on_board.count(O)
        if xs > NUM_CHECKERS or os_ > NUM_CHECKERS - 1:
            continue
        if not all(rules.valid_stack(s) for s in stacks.values()):
            continue
        pos = make_position(VARIANT, stacks, off=(NUM_CHECKERS - xs, NUM_CHECKERS - os_))
        return pos, random_chain(rng)


def random_chain(rng: random.Random) -> ChainDice:
    value = rng.choice((1, 1, 1, 2, 2, 3))
    copies = rng.choice((4, 4, 3, 2, 1))
    return ChainDice(value, copies, rolled=copies == 4 and rng.random() < 0.5)


def mutate(pos: Position, dice: ChainDice, rng: random.Random) -> tuple[Position, ChainDice]:
    """A neighbour: one checker moved, a point owned or freed, or another decision."""
    rules = get_variant(VARIANT)
    for _ in range(50):
        pts = list(pos.points)
        off = list(pos.off)
        new_dice = dice
        kind = rng.random()
        if kind < 0.15:
            new_dice = random_chain(rng)
        elif kind < 0.7:  # move a top checker of either colour to another point
            tops = [p for p in range(1, 25) if pts[p]]
            if not tops:
                continue
            src = rng.choice(tops)
            colour = pts[src][-1]
            dst = rng.randint(1, 24)
            pts[src] = pts[src][:-1]
            pts[dst] = pts[dst] + colour
        elif kind < 0.85:  # a borne-off checker comes back, or a lone top checker leaves
            colour = rng.choice((X, O))
            side = 0 if colour == X else 1
            if off[side] and rng.random() < 0.5:
                off[side] -= 1
                point = rng.randint(1, 24)
                pts[point] = pts[point] + colour
            else:
                tops = [p for p in range(1, 25) if pts[p][-1:] == colour]
                if not tops:
                    continue
                p = rng.choice(tops)
                pts[p] = pts[p][:-1]
                off[side] += 1
        else:  # bury an X checker under O (covered) in the home board
            point = rng.randint(1, 6)
            pts[point] = "X" + pts[point] + "OO"
            off[0] -= 1
            off[1] -= 2
            if off[0] < 0 or off[1] < 0:
                continue
        if off[0] >= NUM_CHECKERS or off[1] >= NUM_CHECKERS:
            continue
        if not all(rules.valid_stack(s) for s in pts[1:25]):
            continue
        candidate = Position(
            pos.variant, tuple(pts), pos.bar, pos.reserve, tuple(off), pos.unlocked
        )
        if sum(s.count(X) for s in pts) + off[0] + candidate.reserve[0] != NUM_CHECKERS:
            continue
        if sum(s.count(O) for s in pts) + off[1] + candidate.reserve[1] != NUM_CHECKERS:
            continue
        return candidate, new_dice
    return pos, dice


# --- modes -------------------------------------------------------------------------------------


def search(args: argparse.Namespace) -> None:
    slowest = Slowest(args.top)
    names = args.players.split(",")
    choosers = {name: make_chooser(name) for name in names}
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i:]]
    rng = random.Random(args.seed)
    started = time.perf_counter()
    games = decisions = 0
    met: list[Position] = []
    by_player: dict[str, list[float]] = {}
    for g in range(args.games):
        a, b = pairs[g % len(pairs)]
        label = f"{a}-{b}"
        for pos, dice, ms, plays in game_decisions((choosers[a], choosers[b]), args.seed + g):
            if isinstance(dice, ChainDice):
                decisions += 1
                slowest.add(ms, plays, format_position(pos, dice), f"game {label}")
                by_player.setdefault(label, []).append(ms)
            elif rng.random() < 0.05:
                met.append(pos)
        games += 1
        if args.progress and games % args.progress == 0:
            report(slowest, games, decisions, started, partial=True)
    forced = 0
    for pos in rng.sample(met, min(args.forced, len(met))):
        for value in range(1, 6):
            for copies in (4, 3, 2, 1):
                dice = ChainDice(value, copies)
                ms, plays = cold_ms(pos, dice)
                forced += 1
                slowest.add(ms, plays, format_position(pos, dice), "forced chain")
    built = 0
    for _ in range(args.constructed):
        pos, dice = constructed(rng)
        ms, plays = cold_ms(pos, dice)
        built += 1
        slowest.add(ms, plays, format_position(pos, dice), "constructed")
    climbed = 0
    for _ in range(args.climb):
        # Start from one of the slowest found, then keep mutations that list slower.
        ranked = slowest.ranked()[: max(3, args.top // 4)]
        ms, line, _, _ = rng.choice(ranked)
        pos, dice = parse_position(line)
        assert isinstance(dice, ChainDice)
        for _ in range(args.climb_steps):
            cand, cand_dice = mutate(pos, dice, rng)
            cand_ms, plays = cold_ms(cand, cand_dice)
            climbed += 1
            slowest.add(cand_ms, plays, format_position(cand, cand_dice), "climb")
            if cand_ms > ms:
                pos, dice, ms = cand, cand_dice, cand_ms
    print(f"games {games} ({', '.join(f'{a}-{b}' for a, b in pairs)} in turn)")
    print(
        f"chain decisions: {decisions} in games, {forced} forced chains, {built} constructed, "
        f"{climbed} hill-climbing steps"
    )
    for label, times in sorted(by_player.items()):
        times.sort()
        print(
            f"  {label:<24} {len(times):>6} decisions  median {statistics.median(times):7.2f} ms"
            f"  worst {times[-1]:8.1f} ms"
        )
    report(slowest, games, decisions, started, partial=False)
    if args.out:
        with open(args.out, "w") as fh:
            for ms, line, plays, source in slowest.ranked():
                fh.write(f"{ms:.1f}\t{plays}\t{source}\t{line}\n")


def report(slowest: Slowest, games: int, decisions: int, started: float, partial: bool) -> None:
    times = sorted(slowest.times)
    over = sum(1 for t in times if t > TARGET_MS)
    head = "so far" if partial else "all"
    print(
        f"[{head}: {games} games, {len(times)} decisions listed cold, "
        f"{time.perf_counter() - started:.0f}s] median {statistics.median(times):.2f} ms, "
        f"p99 {times[int(0.99 * (len(times) - 1))]:.1f} ms, worst {times[-1]:.1f} ms, "
        f"{over} over {TARGET_MS:g} ms",
        flush=True,
    )
    if not partial:
        for ms, line, plays, source in slowest.ranked()[:25]:
            print(f"  {ms:8.1f} ms {plays:>4} plays  {source:<14} {line}")
        for kind, tops in sorted(slowest.by_source.items()):
            print(f"slowest from {kind}:")
            for ms, line, plays, source in tops.ranked():
                print(f"  {ms:8.1f} ms {plays:>4} plays  {source:<14} {line}")


def read_lines(path: str) -> list[str]:
    lines = []
    for raw in Path(path).read_text().splitlines():
        raw = raw.strip()
        if raw and not raw.startswith("#"):
            lines.append(raw.split("\t")[-1])
    return lines


#: Times position lines read from stdin cold with whatever engine is importable (run with the
#: baseline checkout as the working directory); prints one JSON list of milliseconds.
_TIMER = """
import json, sys, time
from engine import legal_plays, parse_position
from engine import express
lines = json.loads(sys.stdin.read())
clear = getattr(express, "clear_caches", None) or express._memo.clear
out = []
for line in lines:
    pos, dice = parse_position(line)
    clear()
    start = time.process_time()
    n = len(legal_plays(pos, dice))
    out.append(((time.process_time() - start) * 1000, n))
print(json.dumps(out))
"""


def time_in(directory: Path, lines: Sequence[str]) -> list[tuple[float, int]]:
    done = subprocess.run(
        [sys.executable, "-c", _TIMER],
        cwd=directory,
        input=json.dumps(list(lines)),
        capture_output=True,
        text=True,
        check=True,
    )
    return [(ms, n) for ms, n in json.loads(done.stdout)]


def retime(args: argparse.Namespace) -> None:
    lines = read_lines(args.retime)
    here = Path(__file__).resolve().parent.parent
    sides: dict[str, Path] = {"this": here}
    if args.baseline:
        sides["baseline"] = Path(args.baseline).resolve()
    best: dict[str, list[float]] = {name: [float("inf")] * len(lines) for name in sides}
    plays: dict[str, list[int]] = {}
    for _ in range(args.repeat):
        for name, directory in sides.items():  # alternating, in separate processes
            for i, (ms, n) in enumerate(time_in(directory, lines)):
                best[name][i] = min(best[name][i], ms)
                plays.setdefault(name, [0] * len(lines))[i] = n
    if "baseline" in sides and plays["baseline"] != plays["this"]:
        print("WARNING: the two engines list different numbers of plays")
    print(f"{len(lines)} chain decisions, cold, best of {args.repeat} (CPU ms)")
    header = f"{'this':>9}" + (f" {'baseline':>9} {'ratio':>6}" if args.baseline else "")
    print(f"{header} {'plays':>5}  position")
    order = sorted(range(len(lines)), key=lambda i: -best["this"][i])
    for i in order:
        row = f"{best['this'][i]:9.3f}"
        if args.baseline:
            row += f" {best['baseline'][i]:9.3f} {best['this'][i] / best['baseline'][i]:6.2f}"
        print(f"{row} {plays['this'][i]:>5}  {lines[i]}")
    for name in sides:
        values = sorted(best[name])
        print(
            f"{name:>8}: median {statistics.median(values):.3f} ms, worst {values[-1]:.1f} ms, "
            f"{sum(v > TARGET_MS for v in values)} over {TARGET_MS:g} ms"
        )
    if args.baseline:
        ratios = [best["this"][i] / best["baseline"][i] for i in range(len(lines))]
        print(
            f"ratio this/baseline: median {statistics.median(ratios):.2f}, "
            f"worst-case {max(best['this']) / max(best['baseline']):.2f}"
        )


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--search", action="store_true", help="search for slow decisions")
    parser.add_argument("--retime", metavar="FILE", help="time the position lines of FILE")
    parser.add_argument("--baseline", metavar="DIR", help="another checkout to time as well")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", default=",".join(PLAYERS))
    parser.add_argument("--forced", type=int, default=100, help="positions with forced chains")
    parser.add_argument("--constructed", type=int, default=2000)
    parser.add_argument("--climb", type=int, default=20, help="hill-climbing starts")
    parser.add_argument("--climb-steps", type=int, default=40)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--out", metavar="FILE")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--progress", type=int, default=0, help="report every N games")
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args(argv)
    if args.smoke:
        args.games, args.forced, args.constructed, args.climb, args.climb_steps = 2, 1, 3, 1, 2
        args.players, args.repeat = "random,pip", 1
    return args


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    if args.retime:
        retime(args)
    else:
        search(args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
