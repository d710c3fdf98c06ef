"""A game between two computer players, without Discord: boards and an animated replay.

    python demo.py --variant pin --out demo/pin      (what `make demo VARIANT=pin` runs)

Plays one game (or a match with --length) of the chosen variant, the computer taking both
seats (and, in backgammon, handling the cube), then writes into the output folder one board
picture per decision (``board-001.png``, ...), the animated replay (``replay.gif``) and the game
record (``record.txt``), exactly as the bot would draw and store them.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from ai.players import choose_play
from ai.types import LEVELS
from app.computer import match_context
from engine import VARIANTS
from engine.game import DOUBLE, GAME_OVER, MOVE, ROLL, GameState
from render import render_board
from render.game_scene import scene_for_game
from render.replay import render_replay

MAX_DECISIONS = 5000


def _cube(state: GameState, level: str, *, take: bool) -> bool:
    """The computer's cube decision (backgammon with bgsage); without it, never double and
    always take."""
    try:
        from ai.classic import cube_action, take_decision
    except ImportError:
        return take
    seat = state.mover
    pos, match = state.position_for(seat), match_context(state, seat)
    if take:
        return take_decision(pos, match, level=level)
    return cube_action(pos, match, level=level).double


def play(
    variant: str, level: str, seed: int, length: int, options: tuple[str, ...] = ()
) -> GameState:
    rng = random.Random(seed)
    names = (f"Computer A ({level})", f"Computer B ({level})")
    state = GameState.new(variant, names, rng, match_length=length, options=options)
    for _ in range(MAX_DECISIONS):
        if state.phase == GAME_OVER:
            state = state.next_game(rng)
        elif state.phase == ROLL:
            doubles = state.can_double(state.turn) and _cube(state, level, take=False)
            state = state.double(state.turn) if doubles else state.roll(state.turn, rng)
        elif state.phase == DOUBLE:
            taken = _cube(state, level, take=True)
            state = state.take(state.mover, rng) if taken else state.drop(state.mover)
        elif state.phase == MOVE:
            dice = state.current_dice()
            assert dice is not None
            seat = state.mover
            chosen = choose_play(
                state.rules,
                state.position_for(seat),
                dice,
                level=level,
                rng=rng,
                match=match_context(state, seat),
            )
            state = state.play(seat, chosen.text or "pass", rng)
        else:
            break
    return state


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", default="classic", choices=sorted(VARIANTS))
    parser.add_argument("--level", default="intermediate", choices=LEVELS)
    parser.add_argument("--length", type=int, default=1, help="match length (default 1 game)")
    parser.add_argument("--seed", type=int, default=None, help="dice seed (default: random)")
    parser.add_argument("--out", type=Path, default=None, help="folder (default demo/VARIANT)")
    args = parser.parse_args(argv)
    if args.length < 1:
        parser.error("--length must be at least 1")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    out: Path = args.out or Path("demo") / args.variant
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("board-*.png"):
        old.unlink()
    started = time.monotonic()
    print(f"playing {VARIANTS[args.variant].name}, level {args.level}, seed {seed} ...")
    final = play(args.variant, args.level, seed, args.length)
    from engine.history import ROLL_KIND, replay

    decisions = replay(final)
    boards = 0
    for decision in decisions:
        if decision.kind == ROLL_KIND:
            continue
        boards += 1
        scene = scene_for_game(decision.after, final.players, viewer=0)
        (out / f"board-{boards:03d}.png").write_bytes(render_board(scene))
    (out / "replay.gif").write_bytes(render_replay(final, decisions=decisions))
    (out / "record.txt").write_text("\n".join(final.record) + "\n", encoding="utf-8")
    result = final.record[-1] if final.record else ""
    print(f"{result}\nwrote {boards} boards, replay.gif and record.txt to {out}/ ")
    print(f"({time.monotonic() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
