"""Phases, decision kinds and result kinds are string enums: they are their stored strings, so
the state JSON and the database rows are what they were with plain strings."""

from __future__ import annotations

import json
import random

import pytest

from engine import GameError
from engine.game import DOUBLE, ROLL, GameState, Phase, ResultKind
from engine.history import DOUBLE as DOUBLE_KIND
from engine.history import ROLL_KIND, DecisionKind, replay


def test_members_are_their_strings() -> None:
    assert ROLL is Phase.ROLL and ROLL == "roll" and f"{ROLL}" == "roll" and str(ROLL) == "roll"
    assert ROLL_KIND is DecisionKind.ROLL and ROLL_KIND == "roll"
    # Both "double", but no longer the same constant: waiting for an answer, turning the cube.
    assert DOUBLE is Phase.DOUBLE and DOUBLE_KIND is DecisionKind.DOUBLE
    assert json.dumps([Phase.GAME_OVER, ResultKind.PASS]) == '["game_over", "pass"]'


def test_state_json_round_trips_with_enum_members() -> None:
    rng = random.Random(3)
    state = GameState.new("classic", ("A", "B"), rng).resign(0)
    text = state.to_json()
    assert '"phase":"game_over"' in text or '"phase":"match_over"' in text
    assert '"kind":"resign"' in text
    again = GameState.from_json(text)
    assert again == state and again.to_json() == text
    assert type(again.phase) is Phase
    assert again.result is not None and type(again.result.kind) is ResultKind
    assert all(type(d.kind) is DecisionKind for d in replay(again))


@pytest.mark.parametrize(("key", "value"), [("phase", "thinking"), ("result", "forfeit")])
def test_an_unknown_stored_member_is_a_format_error(key: str, value: str) -> None:
    rng = random.Random(3)
    state = GameState.new("classic", ("A", "B"), rng).resign(0)
    d = json.loads(state.to_json())
    if key == "result":
        d["result"]["kind"] = value
    else:
        d[key] = value
    with pytest.raises(GameError) as err:
        GameState.from_dict(d)
    assert err.value.code == "E_FORMAT"
