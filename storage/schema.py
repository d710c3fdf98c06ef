"""Numbered SQL migrations (``migrations/NNNN_name.sql``), applied in order at start-up.

The schema version is SQLite's ``PRAGMA user_version``: it lives in the database header and is
written inside the migration's transaction, so a migration and its version number commit (or
roll back) together.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from storage.errors import StorageError

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
_NAME = re.compile(r"^(\d{4})_[A-Za-z0-9_]+\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    statements: tuple[str, ...]


def latest_version(migrations: Sequence[Migration]) -> int:
    """The schema version once ``migrations`` are applied (0: none)."""
    return migrations[-1].version if migrations else 0


def pending(migrations: Sequence[Migration], version: int) -> tuple[Migration, ...]:
    """The migrations a database at ``version`` has yet to apply, in order."""
    return tuple(m for m in migrations if m.version > version)


def split_statements(script: str) -> tuple[str, ...]:
    """Split a script into complete statements (``executescript`` would commit on its own, and
    we need the statements inside our transaction)."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statement = buffer.strip()
            if _has_code(statement):
                statements.append(statement)
            buffer = ""
    if _has_code(buffer):
        raise StorageError(f"incomplete SQL statement at the end of a migration: {buffer!r}")
    return tuple(statements)


def _has_code(sql: str) -> bool:
    """False for whitespace, ``--`` comment lines and lone semicolons."""
    code = "".join(line for line in sql.splitlines() if not line.strip().startswith("--"))
    return code.replace(";", "").strip() != ""


def load_migrations(directory: Path = MIGRATIONS_DIR) -> tuple[Migration, ...]:
    """Read the migrations of ``directory``, in the order of their numbers.

    Numbers may skip (branches developed side by side reserve numbers of their own: a branch
    with 0012 before the 0010 and 0011 of others); a database records the highest number
    applied, and a start applies every migration above it, in order. Merged, the numbers are
    1..N again."""
    found: dict[int, Path] = {}
    for path in directory.iterdir():
        match = _NAME.match(path.name)
        if not match:
            continue
        version = int(match.group(1))
        if version in found:
            raise StorageError(f"two migrations numbered {version}: {found[version]}, {path}")
        found[version] = path
    versions = sorted(found)
    if versions and versions[0] < 1:
        raise StorageError(f"migrations are numbered from 1, found {versions}")
    return tuple(
        Migration(v, found[v].name, split_statements(found[v].read_text(encoding="utf-8")))
        for v in versions
    )
