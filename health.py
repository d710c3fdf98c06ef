"""Liveness of a running bot for container health checks.

While its gateway connection is up the bot touches a status file (``HEALTH_FILE``) every
``bot.HEALTH_INTERVAL`` seconds and removes it when it stops. ``python health.py PATH [MAX_AGE]``
exits 0 when the file was touched within MAX_AGE seconds (default 60) and 1 otherwise, with a
one-line reason: what a Docker ``HEALTHCHECK`` runs.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

DEFAULT_MAX_AGE = 60.0


def touch(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{time.time():.0f}\n", encoding="ascii")


def clear(path: Path) -> None:
    path.unlink(missing_ok=True)


def check(path: Path, max_age: float = DEFAULT_MAX_AGE, now: float | None = None) -> str | None:
    """None when healthy, else why not."""
    try:
        age = (time.time() if now is None else now) - path.stat().st_mtime
    except OSError:
        return f"{path} is missing: the bot is not connected to Discord"
    if age > max_age:
        return f"{path} is {age:.0f} s old: the bot lost its Discord connection"
    return None


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print("usage: python health.py HEALTH_FILE [MAX_AGE_SECONDS]", file=sys.stderr)
        return 2
    problem = check(Path(argv[0]), float(argv[1]) if len(argv) == 2 else DEFAULT_MAX_AGE)
    if problem is not None:
        print(f"unhealthy: {problem}")
        return 1
    print("healthy")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
