"""Backups of the bot's database from the command line, with the bot's own settings (the
environment, then a ``.env`` file in the current folder, as bot.py reads them)::

    python -m storage backup PATH            # consistent copy, safe while the bot runs
    python -m storage restore PATH [--force] # with the bot stopped

Exit status: 0 done and verified, 1 failed (nothing was replaced), 2 bad usage or a
PostgreSQL database (use pg_dump; the message gives the commands).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from dotenv import dotenv_values

from storage.backup import PG_DUMP_HELP, BackupError, backup, configured_database, restore


def _settings(environ: Mapping[str, str]) -> dict[str, str]:
    # The real environment wins over .env, as in bot.py.
    found = {k: v for k, v in dotenv_values(Path.cwd() / ".env").items() if v is not None}
    return {**found, **environ}


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m storage",
        description="Back up or restore the bot's SQLite database (DATABASE_PATH).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("backup", help="copy the database to PATH (safe while the bot runs)")
    make.add_argument("path", type=Path, help="the backup file to write")
    make.add_argument("--force", action="store_true", help="replace PATH if it exists")
    back = commands.add_parser(
        "restore", help="replace the database with the backup at PATH (stop the bot first)"
    )
    back.add_argument("path", type=Path, help="the backup file to restore")
    back.add_argument("--force", action="store_true", help="replace the database if it exists")
    args = parser.parse_args(argv)
    settings = _settings(os.environ if environ is None else environ)
    try:
        database = configured_database(settings)
        if not isinstance(database, Path):
            print(PG_DUMP_HELP, file=sys.stderr, end="")
            return 2
        if args.command == "backup":
            print(backup(database, args.path, force=args.force).report("backed up", database))
        else:
            print(restore(args.path, database, force=args.force).report("restored", args.path))
    except BackupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
