"""Animated replays of a whole game or match: one board per decision, as a GIF.

GIF rather than APNG: every chat client animates a GIF, and the boards are already drawn in
one fixed 256-colour palette (render.board.palette), which is exactly what a GIF holds, so
nothing is lost; Pillow stores each frame as the rectangle that changed, which keeps a
150-play game near 2 MB. The board is always seen from the first player's side, so the
picture does not flip between frames.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import replace

from PIL import Image

from engine.game import GameState
from engine.history import ROLL_KIND, Decision, replay
from render.board import palette, render_image
from render.game_scene import scene_for_game
from render.theme import get_theme

#: Discord's attachment limit for bots without a boosted server.
MAX_BYTES = 8 * 1024 * 1024
FRAME_MS = 1000
FIRST_MS = 1500
LAST_MS = 5000
#: Scales tried in turn until the file fits ``max_bytes``.
SCALES = (1.0, 0.75, 0.55, 0.4)


def replay_states(final: GameState, decisions: Sequence[Decision] | None = None) -> list[GameState]:
    """The states to show: each game's start, then the state after every play and cube action
    (rolls are shown with the play they lead to). The last one is ``final`` itself."""
    if decisions is None:
        decisions = replay(final)
    states: list[GameState] = []
    game = 0
    for decision in decisions:
        if decision.game_number != game:
            game = decision.game_number
            states.append(decision.before)
        if decision.kind != ROLL_KIND:
            states.append(decision.after)
    if not states or states[-1] is not final:
        if states and states[-1].board == final.board and states[-1].score == final.score:
            states[-1] = final  # the stored state shows the dice already rolled, if any
        else:
            states.append(final)
    return states


def _frames(states: Sequence[GameState], theme: str) -> list[Image.Image]:
    total = len(states)
    frames = []
    for i, state in enumerate(states, start=1):
        scene = scene_for_game(state, state.players, viewer=0)
        where = f"game {state.game_number} · {i}/{total}"
        scene = replace(scene, status=f"{scene.status} · {where}" if scene.status else where)
        frames.append(render_image(scene, theme))
    return frames


def _encode(frames: Sequence[Image.Image], scale: float, theme: str) -> bytes:
    pal = palette(theme)
    if scale != 1.0:
        w, h = frames[0].size
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        frames = [f.resize(size, Image.Resampling.LANCZOS) for f in frames]
    indexed = [f.quantize(palette=pal, dither=Image.Dither.NONE) for f in frames]
    durations = [FRAME_MS] * len(indexed)
    durations[0] = FIRST_MS
    durations[-1] = LAST_MS
    out = io.BytesIO()
    indexed[0].save(
        out,
        "GIF",
        save_all=True,
        append_images=indexed[1:],
        duration=durations,
        loop=0,
        disposal=1,  # keep the previous frame: each frame only carries what changed
    )
    return out.getvalue()


def render_replay(
    final: GameState,
    *,
    theme: str = "default",
    max_bytes: int = MAX_BYTES,
    decisions: Sequence[Decision] | None = None,
) -> bytes:
    """The whole game (or match) of ``final`` as an animated GIF of at most ``max_bytes``.

    Frames are scaled down when the full size would not fit. Raises
    :class:`engine.history.HistoryError` if the record cannot be replayed, ``ValueError`` if
    even the smallest scale does not fit.
    """
    name = get_theme(theme).name
    frames = _frames(replay_states(final, decisions), name)
    size = 0
    for scale in SCALES:
        data = _encode(frames, scale, name)
        if len(data) <= max_bytes:
            return data
        size = len(data)
    raise ValueError(f"the replay needs {size} bytes even at the smallest scale")


def render_replay_json(
    state_json: str, max_bytes: int = MAX_BYTES, theme: str = "default"
) -> bytes:
    """:func:`render_replay` of a stored state (for a worker process: strings in, bytes out)."""
    return render_replay(GameState.from_json(state_json), theme=theme, max_bytes=max_bytes)


__all__ = ["MAX_BYTES", "render_replay", "render_replay_json", "replay_states"]
