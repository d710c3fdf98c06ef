"""kill -9 at chosen instants, counted over many tries: every owed board, result card,
reminder, turn notice and expired challenge shown exactly once after a restart, and no old
board (or closed challenge) left with live buttons.

Each try runs the real bot (``python bot.py``) against the fake Discord, plays a game against
the computer (a few of the person's turns, then a resignation that ends it), and the bot kills
itself with SIGKILL the Nth time (N random, 1 to 3) it reaches one kill point of
``app/faults.py``: right after a commit, while the computer thinks, right after a board was
posted or edited but before that was written down, around the result card, right after a
reminder; the same in the bot's DM and where only interactions reach the channel (a user
install); around a turn notice and a challenge's expiry (``tests/e2e/crash_attacks.py`` names
every attack). A new process is then started on the same database and the try counts the messages
(see ``tests/e2e/crash_points.py`` for what counts as a failure). At a tournament's kill points
(``tournament_*``) a try runs a 4-player knockout to its end instead, killed the Nth time (1 to
3) and restarted, and counts its rounds, announcements and match messages
(``tests/e2e/tournament_crash.py``). It prints, per attack,
the tries, how many of them the kill happened in (a game may end before the Nth time), the
failures, the tries whose only fault is out of the bot's reach (``reach``: an older board's
buttons where only interactions reach the channel, documented), and the first failure's
description; it asserts nothing.

``--rev REV`` runs the bot of an older commit instead (it must have the kill points), to
measure the failures before a fix.

Usage: python -m bench.kill_points [--tries 5] [--points a,b] [--seed 1] [--rev REV] [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from bench._checkout import unpack_revision
from tests.e2e.crash_attacks import one_try, points
from tests.e2e.crash_points import Try
from tests.e2e.harness import ROOT


async def run(args: argparse.Namespace, root: Path) -> dict[str, list[Try]]:
    rng = random.Random(args.seed)
    chosen = args.points.split(",") if args.points else points()
    results: dict[str, list[Try]] = defaultdict(list)
    for round_ in range(args.tries):
        for point in chosen:  # round-robin: a cut-short run still covers every point
            started = time.monotonic()
            try:
                outcome = await one_try(point, rng, root)
            except Exception as exc:  # the harness failed (a start timed out under load)
                outcome = Try(point, 0, error=f"{type(exc).__name__}: {str(exc)[:120]}")
            results[point].append(outcome)
            state = "FAIL " + "; ".join(outcome.problems) if outcome.failed else "ok"
            if outcome.limits:
                state += f" (out of reach: {'; '.join(outcome.limits)[:120]})"
            if outcome.error:
                state = f"ERROR (not counted) {outcome.error}"
            print(
                f"  try {round_ + 1} {point} (kill at #{outcome.nth}, "
                f"{'killed' if outcome.killed else 'not reached'}) "
                f"{time.monotonic() - started:.0f} s: {state}",
                flush=True,
            )
    return results


def report(results: dict[str, list[Try]]) -> None:
    """Per attack: tries, kills, failures, and the tries whose only fault is out of the bot's
    reach (``Try.limits``, documented; not failures)."""
    header = f"{'attack':<26} {'tries':>5} {'killed':>6} {'failed':>6} {'reach':>5}"
    print(f"{header}  first failure")
    total = [0, 0, 0, 0]
    errors = sum(t.error is not None for ts in results.values() for t in ts)
    for point, all_tries in results.items():
        tries = [t for t in all_tries if t.error is None]
        killed = sum(t.killed for t in tries)
        failed = [t for t in tries if t.failed]
        limited = sum(bool(t.limits) for t in tries)
        first = "; ".join(failed[0].problems)[:90] if failed else "-"
        row = f"{point:<26} {len(tries):>5} {killed:>6} {len(failed):>6} {limited:>5}"
        print(f"{row}  {first}")
        counts = (len(tries), killed, len(failed), limited)
        total = [sum(pair) for pair in zip(total, counts, strict=True)]
    print(f"{'all':<26} {total[0]:>5} {total[1]:>6} {total[2]:>6} {total[3]:>5}")
    if errors:
        print(f"({errors} tries lost to harness errors, not counted)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=5, help="tries per kill point")
    parser.add_argument("--points", help="comma-separated attacks (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rev", help="run the bot of this commit (before a fix)")
    parser.add_argument("--smoke", action="store_true", help="one try of two attacks")
    args = parser.parse_args()
    if args.smoke:
        args.tries, args.points = 1, "board_posted,expiry:challenge_closed"
    with tempfile.TemporaryDirectory(prefix="kill-points-src-") as tmp:
        root = unpack_revision(args.rev, Path(tmp)) if args.rev else ROOT
        report(asyncio.run(run(args, root)))


if __name__ == "__main__":
    main()
