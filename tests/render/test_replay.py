"""Animated replays: one frame per decision, readable, within the size limit."""

from __future__ import annotations

import io
import itertools
from dataclasses import replace

import pytest
from PIL import Image, ImageChops

from engine.history import replay
from render.board import palette, render_image
from render.game_scene import scene_for_game
from render.replay import render_replay, replay_states
from tests.engine.test_history import random_match


def frames_of(data: bytes) -> list[Image.Image]:
    im = Image.open(io.BytesIO(data))
    assert im.format == "GIF"
    out = []
    for i in range(im.n_frames):
        im.seek(i)
        out.append(im.convert("RGB"))
    return out


@pytest.mark.parametrize(("variant", "actions"), [("classic", 60), ("blocking-express", 80)])
def test_one_frame_per_decision_and_the_last_is_the_final_board(variant: str, actions: int) -> None:
    # Games still in progress (a classic match, an Express game with its chains).
    final = random_match(variant, 11, length=1 if variant != "classic" else 3, max_actions=actions)
    decisions = replay(final)
    data = render_replay(final, decisions=decisions)
    frames = frames_of(data)
    states = replay_states(final, decisions)
    # Each game's start, then every play and cube action.
    games = len({d.game_number for d in decisions})
    assert len(frames) == len(states) == games + sum(d.kind != "roll" for d in decisions)
    assert len(data) <= 8 * 1024 * 1024
    # The last frame is the final board as the bot draws it (in the replay's fixed palette).
    scene = scene_for_game(final, final.players, viewer=0)
    n = len(states)
    scene = replace(scene, status=f"game {final.game_number} · {n}/{n}")
    pal = palette("default")
    expected = render_image(scene).quantize(palette=pal, dither=Image.Dither.NONE).convert("RGB")
    assert frames[-1].size == expected.size
    assert ImageChops.difference(frames[-1], expected).getbbox() is None
    # Consecutive frames differ (something moved, or the cube turned).
    assert all(ImageChops.difference(a, b).getbbox() for a, b in itertools.pairwise(frames))


def test_frames_are_scaled_down_to_fit_the_limit() -> None:
    final = random_match("classic", 4, length=3, max_actions=25)
    full = render_replay(final)
    small = render_replay(final, max_bytes=len(full) - 1)
    assert len(small) < len(full)
    assert frames_of(small)[0].size[0] < frames_of(full)[0].size[0]
    tiny = random_match("classic", 4, length=3, max_actions=3)
    with pytest.raises(ValueError):
        render_replay(tiny, max_bytes=1000)
