"""Self-play training speed: games per minute of ``ai.train``'s TD(λ) self-play, per variant,
for this checkout and an older commit in the same run.

    .venv/bin/python -m bench.train [--variants pin,blocking] [--games 20] [--rounds 2]
                                    [--eval-games 10] [--baseline-rev REV | --no-baseline]
                                    [--fresh] [--smoke]

Each run is a separate process in its checkout (this one, or the tree of ``--baseline-rev``
unpacked with ``git archive``; both use this virtual environment): it loads the same start
network (the variant's committed checkpoint in ``ai/checkpoints/``, or with ``--fresh`` or
without one a new network of the default size), plays ``--games`` training games with the same
seeded dice through that checkout's own ``self_play_game``, ``NetPlayer`` and ``Learner``
(weights updated after every decision, as in ``python -m ai.train``; no progress evaluation,
no checkpoint writes), and reports its CPU and wall time for the games alone; then it times
``--eval-games`` games of the progress sample (the trained network against the greedy
baseline, as ``--eval-every`` plays them). Runs alternate
per variant (baseline, new, new, baseline, ...), so load on the shared machine hits both alike;
the figures are medians over the rounds, the ratio is new / baseline games per minute (CPU
time; wall time in brackets), and the load average is printed.

Same learning, faster: both checkouts start from the same weights and dice, so the printed
"same games" (games whose result and dice consumed agree, in order, until the first that
differs) and the largest difference between the two final weight sets show whether the new
code learns what the old one did (float rounding aside, which can eventually flip a close
choice and send a game elsewhere).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
#: The last commit before the training speed-up (issue 13): the default baseline.
BASELINE_REV = "b6f1bfc"
VARIANTS = ("pin", "pin-mother", "blocking", "blocking-express", "dutch", "neverfinishing")
SEED = 20261124
#: python -m ai.train's defaults: a progress sample of this many games every so many games.
EVAL_GAMES, EVAL_EVERY = 100, 500

#: Runs inside a checkout (its directory first on the import path): only names that exist in
#: every version of ai/train.py measured here.
DRIVER = r"""
# The ai package first, as `python -m ai.train` imports it: it sets numpy's thread limits.
from ai.train import Learner, NetPlayer, load_checkpoint, self_play_game
from ai.train import EVAL_SEED, benchmark_player, greedy_baseline, play_match
from ai.encoding import Encoder
from engine import get_variant
import hashlib, json, random, sys, time
from pathlib import Path
import numpy as np

variant, source, games, seed, out, eval_games = sys.argv[1:7]
ck = load_checkpoint(Path(source), variant)
cfg = ck.config
encoder = Encoder(variant, int(cfg["encoding_version"]))
player = NetPlayer(ck.net, encoder, str(cfg.get("objective", "points")))
learner = Learner(ck.net, float(cfg["alpha"]), float(cfg["lambda"]))
rng = random.Random(int(seed))
digests = []
cpu, wall = time.process_time(), time.perf_counter()
for _ in range(int(games)):
    result = self_play_game(player, learner, rng)
    state = repr((result.winner, result.points, result.kind, rng.getstate()))
    digests.append(hashlib.sha256(state.encode()).hexdigest()[:16])
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
np.savez(out, **ck.net.arrays())
# The progress sample (python -m ai.train --eval-every): the trained network against the
# greedy baseline.
eval_cpu = time.process_time()
rules = get_variant(variant)
score = play_match(rules, benchmark_player(ck.net), greedy_baseline, int(eval_games), EVAL_SEED)
eval_cpu = time.process_time() - eval_cpu
result = {"cpu": cpu, "wall": wall, "digests": digests, "eval_cpu": eval_cpu, "score": score}
print(json.dumps(result))
"""


def unpack_revision(rev: str, into: Path) -> Path | None:
    """The tree of commit ``rev`` unpacked into ``into``; None when git or the commit is not
    available (a shallow clone, no git)."""
    try:
        data = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", rev],
            check=True,
            capture_output=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def start_network(variant: str, fresh: bool, into: Path) -> tuple[Path, str]:
    """A checkpoint both checkouts load: the committed one, or a new network."""
    from ai.encoding import ENCODING_VERSION, Encoder
    from ai.network import Network
    from ai.train import (
        ALPHA,
        COMMITTED_DIR,
        HIDDEN,
        LAMBDA,
        Checkpoint,
        load_checkpoint,
        save_checkpoint,
    )

    committed = COMMITTED_DIR / f"{variant}.npz"
    if committed.exists() and not fresh:
        ck = load_checkpoint(committed, variant)
        what = f"checkpoint at {ck.games} games"
    else:
        config = {
            "seed": 1,
            "hidden": HIDDEN,
            "alpha": ALPHA,
            "lambda": LAMBDA,
            "objective": "points",
            "encoding_version": ENCODING_VERSION,
        }
        width = Encoder(variant, ENCODING_VERSION).width
        net = Network.create(variant, width, HIDDEN, 1, ENCODING_VERSION)
        ck = Checkpoint(net, 0, None, [], config)
        what = "new network"
    ck.rng_state = (3, tuple(range(625)), None)  # unused by the runs: they seed their own dice
    return save_checkpoint(ck, into), what


def run(
    root: Path, variant: str, source: Path, games: int, out: Path, eval_games: int
) -> dict[str, Any]:
    """One measured run in the checkout ``root``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    args = [variant, str(source), str(games), str(SEED), str(out), str(eval_games)]
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"run in {root} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def load_average() -> str:
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def _per_minute(
    runs: list[tuple[float, float, float]], games: int, eval_games: int
) -> tuple[float, float, float, float]:
    """Medians over the runs: training games per minute (CPU, wall), progress-sample games per
    minute (CPU) and training games per minute (CPU) with the default progress sample."""
    train_cpu = 60.0 * games / statistics.median(r[0] for r in runs)
    train_wall = 60.0 * games / statistics.median(r[1] for r in runs)
    sample = 60.0 * eval_games / statistics.median(r[2] for r in runs)
    with_sample = EVAL_EVERY / (EVAL_EVERY / train_cpu + EVAL_GAMES / sample)
    return train_cpu, train_wall, sample, with_sample


def same_prefix(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated")
    parser.add_argument("--games", type=int, default=20, help="training games per run")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each checkout per variant")
    parser.add_argument("--baseline-rev", default=BASELINE_REV, help="the older commit")
    parser.add_argument("--no-baseline", action="store_true", help="time this checkout only")
    parser.add_argument("--fresh", action="store_true", help="start from new networks")
    parser.add_argument(
        "--eval-games", type=int, default=10, help="progress-sample games timed per run"
    )
    parser.add_argument("--smoke", action="store_true", help="blocking, 2 games, 1 round (CI)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.variants, args.games, args.rounds, args.eval_games = "blocking", 2, 1, 2
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown or min(args.games, args.rounds, args.eval_games) < 1:
        parser.error(f"unknown variants {unknown}" if unknown else "--games etc. must be > 0")
    with tempfile.TemporaryDirectory(prefix="bench-train-") as tmp_name:
        tmp = Path(tmp_name)
        checkouts = {"new": ROOT}
        if not args.no_baseline:
            base = unpack_revision(args.baseline_rev, tmp / "baseline")
            if base is None:
                print(f"baseline {args.baseline_rev} not available (no git history): skipped")
            else:
                checkouts = {"baseline": base, "new": ROOT}
        names = list(checkouts)
        order = names + names[::-1]
        print(
            f"self-play training, {args.games} games per run, {args.rounds} round(s) "
            f"({' '.join(order)} ...); baseline {args.baseline_rev}; {load_average()}"
        )
        header = f"{'variant':<17} {'start':<26}" + "".join(
            f" {n + ' g/min cpu (wall)':>28}" for n in names
        )
        if len(names) == 2:
            header += f" {'ratio cpu (wall)':>17} {'same games':>11} {'max |dw|':>9}"
        print(header)
        print(
            f"(second line: the progress sample, {args.eval_games} games against the greedy "
            "baseline, in games per minute of CPU time, and training games per minute with "
            f"it as python -m ai.train runs it by default: {EVAL_GAMES} of them every "
            f"{EVAL_EVERY} games)"
        )
        for variant in variants:
            source, what = start_network(variant, args.fresh, tmp / "start")
            times: dict[str, list[tuple[float, float, float]]] = {n: [] for n in names}
            finals: dict[str, tuple[list[str], Path, Any]] = {}
            for r in range(args.rounds):
                for name in order if r % 2 == 0 else order[::-1]:
                    if len(times[name]) > r:
                        continue
                    out = tmp / f"{name}-{variant}-{r}.npz"
                    got = run(checkouts[name], variant, source, args.games, out, args.eval_games)
                    times[name].append((got["cpu"], got["wall"], got["eval_cpu"]))
                    finals[name] = (got["digests"], out, got["score"])
            speed = {n: _per_minute(times[n], args.games, args.eval_games) for n in names}
            line = f"{variant:<17} {what:<26}" + "".join(
                f" {f'{speed[n][0]:.1f} ({speed[n][1]:.1f})':>28}" for n in names
            )
            sample = f"{'':<17} {'progress sample':<26}" + "".join(
                f" {f'{speed[n][2]:.1f}; with it {speed[n][3]:.1f}':>28}" for n in names
            )
            if len(names) == 2:
                old, new = speed["baseline"], speed["new"]
                same = same_prefix(finals["baseline"][0], finals["new"][0])
                with np.load(finals["baseline"][1]) as a, np.load(finals["new"][1]) as b:
                    dw = max(float(np.max(np.abs(a[k] - b[k]))) for k in a.files)
                ratio = f"{new[0] / old[0]:.2f} ({new[1] / old[1]:.2f})"
                line += f" {ratio:>17} {f'{same}/{args.games}':>11} {dw:>9.1e}"
                agree = "same result" if finals["baseline"][2] == finals["new"][2] else "differs"
                sample += f" {f'{new[2] / old[2]:.2f}; {new[3] / old[3]:.2f}':>17} {agree:>11}"
            print(line)
            print(sample, flush=True)
        print(f"done; {load_average()}; {time.strftime('%H:%M:%S')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
