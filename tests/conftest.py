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


#: Test modules outside tests/e2e that take seconds each (self-play, worker processes, whole
#: computer games, subprocesses): marked slow with the end-to-end tests, so that
#: ``pytest -m "not slow"`` (``make test-fast``) is the quick unit suite.
SLOW_MODULES = frozenset(
    {
        "tests/ai/test_bench_ai.py",
        "tests/ai/test_classic.py",
        "tests/ai/test_cli.py",
        "tests/ai/test_learned.py",
        "tests/ai/test_players.py",
        "tests/ai/test_pool.py",
        "tests/ai/test_search.py",
        "tests/render/test_pool.py",
        "tests/storage/test_postgres.py",
        "tests/test_demo.py",
        "tests/test_packaging.py",
        "tests/workers/test_pool.py",
        "tests/engine/test_properties.py",
        "tests/render/test_replay.py",
        "tests/test_bench_layout.py",
    }
)
#: Single slow tests (module::function, all their parameters) in otherwise quick modules.
SLOW_TESTS = frozenset(
    {
        "tests/engine/test_express.py::test_slowest_chain_decisions_match_the_plain_search",
        "tests/engine/test_history.py::test_offers_to_resign_and_dead_positions_replay",
        "tests/engine/test_history.py::test_a_name_that_starts_with_the_other_name",
        "tests/engine/test_capabilities.py::test_result_kinds_match_the_flags",
        "tests/engine/test_capabilities.py::test_stacks_mix_only_where_the_flag_says",
        "tests/engine/test_history.py::test_records_with_equal_names_replay_to_the_right_seats",
    }
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    for item in items:
        path = item.path.relative_to(root).as_posix()
        name = getattr(item, "originalname", item.name)
        slow = (
            path.startswith("tests/e2e/")
            or path in SLOW_MODULES
            or f"{path}::{name}" in SLOW_TESTS
            # The same storage tests run on SQLite in the quick suite.
            or "[postgresql" in item.name
        )
        if slow:
            item.add_marker(pytest.mark.slow)
