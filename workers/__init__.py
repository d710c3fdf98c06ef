"""The bot's worker processes, in one place: :class:`WorkerPool` runs typed job functions in
processes that die with the bot, with a bounded queue, per-job deadlines and replacement of
dead or hung workers (``workers.pool``); ``workers.process`` holds what any child process of
the bot needs. Standard library only: ``ai/``, ``render/`` and the cogs all build on it."""

from workers.pool import (
    JobFailed,
    JobTimeout,
    PoolBusy,
    PoolClosed,
    WorkerDied,
    WorkerError,
    WorkerPool,
)
from workers.process import bare_main, die_with_parent

__all__ = [
    "JobFailed",
    "JobTimeout",
    "PoolBusy",
    "PoolClosed",
    "WorkerDied",
    "WorkerError",
    "WorkerPool",
    "bare_main",
    "die_with_parent",
]
