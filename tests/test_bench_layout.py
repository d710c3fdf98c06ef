"""The benchmark convention (bench/README.md): modules of the bench package with --smoke."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(p.stem for p in (ROOT / "bench").glob("*.py") if not p.stem.startswith("_"))


def test_there_are_benchmarks() -> None:
    assert {"e2e", "handlers", "movegen", "render", "storage"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_benchmark_runs_as_a_module_and_offers_smoke(name: str) -> None:
    # From the root, as `make bench` runs it: bench/storage.py must not shadow storage/.
    result = subprocess.run(
        [sys.executable, "-m", f"bench.{name}", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "--smoke" in result.stdout
