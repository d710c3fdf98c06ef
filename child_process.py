"""What every worker process of the bot shares (the computer players' pool in ``ai/``, the
board-drawing pool in ``render/``, the replay executor): it dies with its parent, and it starts
without re-running the parent's main script. Standard library only, so any layer may use it."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """Make sure this worker never outlives the bot."""
    with contextlib.suppress(Exception):  # Linux only; the watch below covers the rest
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the death signal was armed
        os._exit(0)

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


@contextlib.contextmanager
def bare_main() -> Iterator[None]:
    """Start a ``spawn`` child without re-running the parent's main script in it.

    ``spawn`` re-imports the script the parent was started as (for ``python bot.py``: discord,
    aiohttp, every cog, ~30 MB per worker) unless it was run with ``-m``; a worker needs none
    of it, so the script's path is hidden while the child is prepared."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or path is None or getattr(main, "__spec__", None) is not None:
        yield
        return
    del main.__file__
    try:
        yield
    finally:
        main.__file__ = path


__all__ = ["bare_main", "die_with_parent"]
