"""Board pictures (Pillow -> PNG bytes). No Discord here: the cogs attach the bytes."""

from render.board import render_board, warm_up
from render.scene import BoardScene, ChainInfo, LastPlay
from render.theme import THEMES

__all__ = ["THEMES", "BoardScene", "ChainInfo", "LastPlay", "render_board", "warm_up"]
