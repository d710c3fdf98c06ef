"""The engine's command line against a naive generator: ``python -m engine legal`` over classic
mid-game positions, whole process (start-up, parsing, generation, formatting, output).

The baseline is ``bench._naive_legal``: plain pure Python (every die order, results deduplicated
by position, the same canonical texts). Both read the same file of position texts; the runs
alternate (engine, naive, engine, ...) so that load on the machine hits both alike, and each is
timed by its CPU time (user + system, from the operating system) and its wall time. The outputs
must be identical (checked). ``--baseline DIR`` also times ``python -m engine legal`` from
another checkout (e.g. a ``git worktree`` of an older commit) in the same alternation. When the
compiled engine is in use (``make fast-engine``), the pure-Python engine (``BG_PURE_ENGINE=1``)
is timed as well, in the same alternation.

Usage: .venv/bin/python -m bench.cli [--positions 2000] [--rounds 7] [--baseline DIR] [--smoke]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from engine import format_position, native
from engine.game import MOVE, ROLL, GameState

ROOT = Path(__file__).resolve().parents[1]
SEED = 18


def mid_game_positions(count: int, seed: int) -> list[str]:
    """Classic positions with their dice from seeded random games: a decision is kept with a
    fixed chance after the opening, until either side has borne off a checker."""
    rng = random.Random(seed)
    out: list[str] = []
    game = 0
    while len(out) < count:
        game += 1
        state = GameState.new("classic", ("A", "B"), random.Random(seed * 1000 + game))
        for ply in range(400):
            if state.phase == ROLL:
                state = state.roll(state.mover, rng)
                continue
            if state.phase != MOVE:
                break
            pos = state.position_for(state.mover)
            if pos.off[0] or pos.off[1]:
                break
            if ply >= 8 and rng.random() < 0.15:
                out.append(format_position(pos, state.current_dice()))
            state = state._apply(rng.choice(state.legal_plays()), rng, auto=False)
    return out[:count]


def run_once(
    command: list[str], cwd: Path, stdin: Path, env: dict[str, str] | None = None
) -> tuple[float, float, bytes]:
    """(CPU seconds, wall seconds, output) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with stdin.open("rb") as source:
        done = subprocess.run(
            command, cwd=cwd, stdin=source, env=env, capture_output=True, check=True
        )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7, help="runs of each, alternating")
    parser.add_argument("--baseline", type=Path, help="another checkout to time as well")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--smoke", action="store_true", help="50 positions, 1 round (CI)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.positions, args.rounds = 50, 1
    contenders: dict[str, tuple[list[str], Path]] = {
        "engine": ([sys.executable, "-m", "engine", "legal"], ROOT),
        "naive": ([sys.executable, "-m", "bench._naive_legal"], ROOT),
    }
    if native.kind == "compiled":
        contenders["engine, pure"] = ([sys.executable, "-m", "engine", "legal"], ROOT)
    if args.baseline is not None:
        contenders["baseline engine"] = ([sys.executable, "-m", "engine", "legal"], args.baseline)
    pure_env = {**os.environ, native.PURE_SWITCH: "1"}
    with tempfile.TemporaryDirectory() as tmp:
        stdin = Path(tmp) / "positions.txt"
        lines = mid_game_positions(args.positions, args.seed)
        stdin.write_text("\n".join(lines) + "\n")
        cpu: dict[str, list[float]] = {name: [] for name in contenders}
        wall: dict[str, list[float]] = {name: [] for name in contenders}
        outputs: dict[str, bytes] = {}
        for _ in range(args.rounds):
            for name, (command, cwd) in contenders.items():
                env = pure_env if name == "engine, pure" else None
                c, w, out = run_once(command, cwd, stdin, env)
                cpu[name].append(c)
                wall[name].append(w)
                outputs[name] = out
    same = {name: out == outputs["naive"] for name, out in outputs.items()}
    print(
        f"python -m engine legal over {len(lines)} classic mid-game positions, whole process; "
        f"{args.rounds} alternating runs each (median), load average {_load()}"
    )
    print(f"engine: {native.describe()}")
    print(f"{'':>16} {'cpu s':>8} {'wall s':>8} {'cpu / naive':>12} {'same output':>12}")
    naive_cpu = statistics.median(cpu["naive"])
    for name in contenders:
        median_cpu = statistics.median(cpu[name])
        print(
            f"{name:>16} {median_cpu:>8.3f} {statistics.median(wall[name]):>8.3f} "
            f"{median_cpu / naive_cpu:>12.2f} {'yes' if same[name] else 'NO':>12}"
        )
    if "engine, pure" in contenders:
        ratio = statistics.median(cpu["engine"]) / statistics.median(cpu["engine, pure"])
        print(f"engine / engine, pure (cpu): {ratio:.2f}")
    if "baseline engine" in contenders:
        ratio = statistics.median(cpu["engine"]) / statistics.median(cpu["baseline engine"])
        print(f"engine / baseline engine (cpu): {ratio:.2f}")
    return 0 if all(same.values()) else 1


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
