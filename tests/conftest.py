"""Fixtures shared by the test packages: the throwaway PostgreSQL cluster."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator

import pytest

from tests.postgres_server import Cluster, NoPostgres, start_cluster


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """One PostgreSQL cluster for the whole run (each test takes a fresh database in it).

    Without server binaries this is a skip on a developer's machine and a failure in CI
    (CI=true), which must run the PostgreSQL tests."""
    try:
        cluster = start_cluster()
    except NoPostgres as exc:
        if _in_ci():
            pytest.fail(f"CI=true but PostgreSQL cannot run: {exc}")
        pytest.skip(str(exc))
    except subprocess.CalledProcessError as exc:
        pytest.fail(f"could not start PostgreSQL ({exc.cmd[0]}): {exc.output}")
    try:
        yield cluster
    finally:
        cluster.stop()
