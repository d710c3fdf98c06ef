"""Watching processes from the tests: whether one is still running, and waiting for some to
be gone (the worker processes that must die with the bot)."""

from __future__ import annotations

import time
from pathlib import Path


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its reaper counts as gone)."""
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_gone(pids: list[int], timeout: float = 15.0) -> list[int]:
    """Wait until none of ``pids`` runs (at most ``timeout`` s); those still running."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        left = [p for p in pids if alive(p)]
        if not left:
            return []
        time.sleep(0.1)
    return [p for p in pids if alive(p)]
