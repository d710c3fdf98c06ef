"""The tests that compare the compiled engine with the pure one need an up-to-date build."""

from __future__ import annotations

import os

import pytest

from engine import native

#: Set by CI (.ci/run) once it has built the compiled engine: from then on a test that needs the
#: build fails instead of skipping, so a build gone missing or stale cannot pass unnoticed.
REQUIRE_SWITCH = "BG_REQUIRE_COMPILED"


def require_compiled_build() -> None:
    """Skips the calling test, saying why, when there is no usable compiled build (fails
    instead under ``BG_REQUIRE_COMPILED=1``)."""
    usable, why = native.check_build()
    if usable:
        return
    if os.environ.get(REQUIRE_SWITCH, "") not in ("", "0"):
        pytest.fail(f"{REQUIRE_SWITCH} is set but there is no usable compiled engine: {why}")
    pytest.skip(f"no compiled engine to compare with: {why}")
