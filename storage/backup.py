"""Backups of the SQLite database, safe while the bot runs: ``python -m storage backup PATH``
and ``python -m storage restore PATH`` (see :mod:`storage.__main__` and README "Backups").

A backup is SQLite's online backup API (``sqlite3.Connection.backup``) copying every page in one
read transaction, so it is one consistent snapshot even while the bot commits (WAL readers do
not block the writer, nor it them). The copy is written to a temporary file next to the target,
switched to a single self-contained file (rollback journal, no ``-wal``), checked with
``PRAGMA integrity_check``, fsync'ed and only then renamed into place: a crash leaves either
the old target or the complete new one, never half a file.

PostgreSQL is backed up with its own tools (``pg_dump``); :data:`PG_DUMP_HELP` says how.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from storage.postgres import is_postgres_url
from storage.schema import latest_version, load_migrations

#: Where the bot keeps its SQLite file when DATABASE_PATH is not set (app.config uses it too).
DEFAULT_DATABASE_PATH = "data/backgammon.sqlite3"
#: How long the copy waits for a lock held by the bot (a checkpoint, a migration) before failing.
BUSY_TIMEOUT_S = 10.0

PG_DUMP_HELP = """\
DATABASE_URL is set: the bot keeps its data in PostgreSQL, which this command does not copy.
Back it up with PostgreSQL's own tool (consistent while the bot runs):

    pg_dump --format=custom --file=backgammon.dump "$DATABASE_URL"

and restore it, with the bot stopped, into an empty database:

    pg_restore --no-owner --dbname="$DATABASE_URL" backgammon.dump
"""


class BackupError(Exception):
    """The backup or restore cannot be done; the message says why (nothing was replaced)."""


@dataclass(frozen=True, slots=True)
class Copied:
    """What a backup or restore wrote: the schema version and each table's row count."""

    path: Path
    schema_version: int
    tables: tuple[tuple[str, int], ...]

    def report(self, verb: str, source: Path) -> str:
        lines = [
            f"{verb} {source} to {self.path} (schema version {self.schema_version}, "
            "integrity check ok)"
        ]
        width = max((len(name) for name, _ in self.tables), default=0)
        lines += [f"  {name:<{width}}  {rows} rows" for name, rows in self.tables]
        return "\n".join(lines)


def configured_database(environ: Mapping[str, str]) -> str | Path:
    """The database the bot uses with these settings (the rules of app.config.load_config):
    DATABASE_URL if set, else the SQLite file DATABASE_PATH or its default."""
    url = environ.get("DATABASE_URL", "").strip()
    if url:
        if not is_postgres_url(url):
            raise BackupError("DATABASE_URL is set but is not a postgresql:// URL")
        return url
    return Path(environ.get("DATABASE_PATH", "").strip() or DEFAULT_DATABASE_PATH)


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_S)


def _check(conn: sqlite3.Connection, shown: Path) -> Copied:
    """Integrity and schema of a database the bot could open; its tables and row counts."""
    problems = [row[0] for row in conn.execute("PRAGMA integrity_check")]
    if problems != ["ok"]:
        raise BackupError(f"{shown} failed the integrity check: " + "; ".join(problems[:5]))
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    latest = latest_version(load_migrations())
    if version == 0:
        raise BackupError(f"{shown} is not a database of this bot (schema version 0)")
    if version > latest:
        raise BackupError(
            f"{shown} has schema version {version}, newer than this code knows ({latest}); "
            "use the bot's version that wrote it"
        )
    names = [
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name"
        )
    ]
    counts = tuple(
        (name, int(conn.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0])) for name in names
    )
    return Copied(shown, version, counts)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _temporary_next_to(target: Path) -> Iterator[Path]:
    """A new empty file in the target's folder (so that the rename stays on one file system);
    removed unless the caller renamed it away."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    temp = Path(name)
    try:
        yield temp
    finally:
        for leftover in (temp, Path(f"{temp}-journal")):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()


def _copy_into(source: sqlite3.Connection, temp: Path) -> Copied:
    """Copy ``source`` into the empty file ``temp`` as one snapshot, checked and fsync'ed."""
    dest = _connect(temp)
    try:
        # pages=-1: every page in one step, i.e. inside one read transaction of the source -
        # a consistent snapshot that concurrent commits neither block nor restart.
        source.backup(dest, pages=-1)
        # One self-contained file: no -wal beside it to lose when the file is copied on.
        dest.execute("PRAGMA journal_mode = DELETE")
        copied = _check(dest, temp)
    finally:
        dest.close()
    _fsync(temp)
    return copied


def _replace(temp: Path, target: Path) -> None:
    os.replace(temp, target)
    _fsync(target.parent)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def backup(database: Path, target: Path, *, force: bool = False) -> Copied:
    """Copy the bot's SQLite file ``database`` to ``target`` (see the module's docstring)."""
    if not database.is_file():
        raise BackupError(f"no SQLite database at {database}")
    if target.is_dir():
        raise BackupError(f"{target} is a directory; name the backup file")
    if target.exists() and not force:
        raise BackupError(f"{target} exists; choose another name or pass --force to replace it")
    if _same_file(database, target):
        raise BackupError(f"{target} is the database itself")
    # Read-write so that the WAL is readable however the bot left it; only read here.
    source = _connect(database)
    try:
        with _temporary_next_to(target) as temp:
            copied = _copy_into(source, temp)
            _replace(temp, target)
    except sqlite3.Error as exc:
        raise BackupError(f"backup of {database} failed: {exc}") from exc
    finally:
        source.close()
    return Copied(target, copied.schema_version, copied.tables)


def restore(backup_file: Path, database: Path, *, force: bool = False) -> Copied:
    """Make the SQLite file ``database`` a copy of ``backup_file``, which must pass the
    integrity check and have a schema this code knows. Refuses if ``database`` exists unless
    ``force``, and always while a process (the bot) has it open."""
    if not backup_file.is_file():
        raise BackupError(f"no backup file at {backup_file}")
    if database.is_dir():
        raise BackupError(f"the database path {database} is a directory")
    if database.exists() and not force:
        raise BackupError(
            f"the database {database} exists; stop the bot and pass --force to replace it"
        )
    if _same_file(backup_file, database):
        raise BackupError(f"{backup_file} is the database itself")
    try:
        source = _connect(backup_file)
        try:
            _check(source, backup_file)
            with _temporary_next_to(database) as temp:
                copied = _copy_into(source, temp)
                _swap_in(temp, database)
        finally:
            source.close()
    except sqlite3.Error as exc:
        raise BackupError(f"restore from {backup_file} failed: {exc}") from exc
    return Copied(database, copied.schema_version, copied.tables)


def _swap_in(temp: Path, database: Path) -> None:
    """Rename ``temp`` over ``database`` while no one else has it open."""
    wal = Path(f"{database}-wal")
    if not database.exists():
        # A WAL without its database belongs to nothing; SQLite would replay it into ours.
        for stale in (wal, Path(f"{database}-shm")):
            with contextlib.suppress(FileNotFoundError):
                stale.unlink()
        _replace(temp, database)
        return
    old = sqlite3.connect(database, isolation_level=None, timeout=0)
    try:
        try:
            # Leaving WAL mode needs the only connection: it fails while the bot runs, and
            # on success it checkpoints and deletes the old -wal, which would otherwise be
            # replayed into the restored file.
            old.execute("PRAGMA journal_mode = DELETE")
            # Held across the rename, so no one opens the old file in between.
            old.execute("BEGIN EXCLUSIVE")
        except sqlite3.OperationalError as exc:
            raise BackupError(
                f"the database {database} is in use ({exc}); stop the bot first"
            ) from exc
        _replace(temp, database)
    finally:
        old.close()
