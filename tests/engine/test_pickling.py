"""Every engine value crosses process boundaries intact, in the pure and the compiled build.

The bot sends positions, dice, variants (with their rule options) and plays to its worker
processes and gets plays back, by pickle. A compiled (mypyc) class has no default pickling
unless it says how, so ``tests.engine.pickle_probe`` pickles one or more of every value type in
a child process of each build and unpickles in each (a pickle names ``engine.play.Play``, the
same in both), comparing a description of every field; and it sends them through real worker
processes and the computer players' pool. The compiled cases are skipped, saying why, when
no up-to-date compiled build exists (``make fast-engine``; a failure in CI, which builds it).
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from engine import native
from engine.builder import Turn
from tests.engine.compiled_build import require_compiled_build
from tests.engine.pickle_probe import describe, samples

ROOT = Path(__file__).resolve().parents[2]
BUILDS = ("pure", "compiled")


def _probe(build: str, *args: str) -> list[str]:
    """Runs the probe in a child process of ``build``; its output: the engine kind, then the
    descriptions."""
    if build == "compiled":
        require_compiled_build()
    env = {k: v for k, v in os.environ.items() if k != native.PURE_SWITCH}
    if build == "pure":
        env[native.PURE_SWITCH] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "tests.engine.pickle_probe", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out: list[str] = json.loads(done.stdout.splitlines()[-1])
    assert out[0] == build, f"the child ran the {out[0]} engine"
    return out[1:]


def test_every_value_round_trips_in_this_process() -> None:
    values = samples()
    for value in values:
        back = pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))
        assert type(back) is type(value)
        assert describe(back) == describe(value)
        # Value equality where the type has it (a variant, and so a Turn, compares by identity).
        if type(value).__eq__ is not object.__eq__ and not isinstance(value, Turn | BaseException):
            assert back == value, describe(value)
            if type(value).__hash__ is not None:
                assert hash(back) == hash(value), describe(value)


@pytest.mark.parametrize("loader", BUILDS)
@pytest.mark.parametrize("dumper", BUILDS)
def test_pickles_cross_between_builds(dumper: str, loader: str, tmp_path: Path) -> None:
    """A pickle made by either build reads back to the same values in either build."""
    reference = [describe(v) for v in samples()]
    assert len(reference) > 40
    dumped = _probe(dumper, "dump", str(tmp_path / "values.pickle"))
    assert dumped == reference  # the same samples, described alike in both builds
    assert _probe(loader, "load", str(tmp_path / "values.pickle")) == reference


@pytest.mark.slow
@pytest.mark.parametrize("build", BUILDS)
def test_values_cross_to_worker_processes(build: str) -> None:
    """Worker processes of each build (spawned: they import the engine themselves) take every
    value and give it back, and the computer players' pool returns plays and a review."""
    back = _probe(build, "workers")
    reference = [describe(v) for v in samples()]
    assert back[0] == repr(build)  # the worker ran the same build as its parent
    assert back[1 : 1 + len(reference)] == reference
    answers = back[1 + len(reference) :]
    assert len(answers) == 7
    for chosen in answers[0:6:2]:
        assert chosen.startswith("Play(")
    review = answers[6]
    assert "None" not in review and "8/5 6/5" in review, review
