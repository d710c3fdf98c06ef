"""The bot's own key-value facts (bot_state): stored, replaced, read back, checked."""

from __future__ import annotations

import pytest

from storage import InvalidInputError, Storage


async def test_values_are_stored_and_replaced(db: Storage) -> None:
    assert await db.get_bot_state("commands:1:global") is None
    await db.set_bot_state("commands:1:global", "abc", now=10.0)
    await db.set_bot_state("commands:1:2", "", now=10.0)
    assert await db.get_bot_state("commands:1:global") == "abc"
    await db.set_bot_state("commands:1:global", "def", now=11.0)
    assert await db.get_bot_state("commands:1:global") == "def"
    assert await db.get_bot_state("commands:1:2") == ""
    with pytest.raises(InvalidInputError):
        await db.set_bot_state("", "x", now=1.0)
    with pytest.raises(InvalidInputError):
        await db.set_bot_state("k", "nul\x00", now=1.0)
