"""How loud a game is in Discord: public messages, board images, pings and REST calls that count
against the bot's global rate limit, per game and per human action, through the fake Discord.

Every variant is played to the end twice, between two people and against the computer; the
people act promptly (as in a live game) and play greedily. ``--baseline REV`` plays the same
games with the bot of an older commit (checked out in a temporary worktree, run in a process of
its own) in the same run, so the two columns compare like with like.

    python -m bench.surface                      # this tree
    python -m bench.surface --baseline de1b65a   # and the commit before the quiet surface
    python -m bench.surface --smoke              # one variant, people only

What counts against the global rate limit: every REST call to the API except interaction
callbacks and the interaction webhook (``/interactions/...``, ``/webhooks/<app>/<token>``),
which Discord does not count; start-up calls (gateway, commands sync) are not counted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = (
    "blocking",
    "blocking-express",
    "classic",
    "dutch",
    "neverfinishing",
    "pin",
    "pin-mother",
)


def _run_tree(tree: Path, variants: list[str], kinds: list[bool]) -> list[dict[str, Any]]:
    """The same games with the bot of ``tree``, in a process of its own."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); "
        "sys.path.insert(1, sys.argv[2]); "
        "from surface_driver import _measure; "
        "print(json.dumps(_measure(json.loads(sys.argv[3]), json.loads(sys.argv[4]))))"
    )
    env = {**os.environ, "PYTHONPATH": ""}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            str(tree),
            str(Path(__file__).parent / "_surface"),
            json.dumps(variants),
            json.dumps(kinds),
        ],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def _table(title: str, rows: list[dict[str, Any]]) -> None:
    print(f"\n{title}")
    print(
        f"{'variant':18} {'vs':8} {'turns':>5} {'acts':>5} {'public':>6} {'images':>6} "
        f"{'pings':>5} {'REST':>5} {'REST/act':>8}"
    )
    for r in rows:
        acts = max(1, r["human_actions"])
        print(
            f"{r['variant']:18} {'computer' if r['computer'] else 'people':8} "
            f"{r['human_turns']:5d} {r['human_actions']:5d} {r['public_messages']:6d} "
            f"{r['images']:6d} {r['pings']:5d} {r['rest_counted']:5d} "
            f"{r['rest_counted'] / acts:8.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="a git revision to measure in the same run")
    parser.add_argument("--smoke", action="store_true", help="one short game")
    args = parser.parse_args()
    variants = ["blocking"] if args.smoke else list(VARIANTS)
    kinds = [False] if args.smoke else [False, True]
    print(f"load average: {os.getloadavg()}")
    rows = _run_tree(ROOT, variants, kinds)
    _table("this tree", rows)
    if args.baseline:
        with tempfile.TemporaryDirectory() as tmp:
            tree = Path(tmp) / "baseline"
            subprocess.run(
                ["git", "worktree", "add", "--detach", str(tree), args.baseline],
                cwd=ROOT,
                check=True,
                capture_output=True,
            )
            try:
                (tree / ".venv").symlink_to(ROOT / ".venv")
                _table(f"baseline {args.baseline}", _run_tree(tree, variants, kinds))
            finally:
                subprocess.run(
                    ["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False
                )
    print(
        "\nTargets: public messages per game <= human turns + 3; pings between people acting "
        "promptly <= 2; REST calls <= 1 per human action and <= turns + 5 per game."
    )


if __name__ == "__main__":
    main()
