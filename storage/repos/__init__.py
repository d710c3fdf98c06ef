"""The repositories of :class:`storage.base.Storage`, one per aggregate, each with its SQL and
its input checks, all written once for both backends against :class:`storage.core.StorageCore`:

* :mod:`~storage.repos.settings`: guild settings and player preferences;
* :mod:`~storage.repos.challenges`: challenges;
* :mod:`~storage.repos.games` and :mod:`~storage.repos.game_upkeep`: games, their moves, board
  messages and owed boards, abort requests, reminders and claims;
* :mod:`~storage.repos.ratings`: ratings, statistics, rating history, leaderboards, the record
  against the computer, bulk imports;
* :mod:`~storage.repos.analysis`: stored reviews, puzzle answers and streaks, daily puzzles.
"""
