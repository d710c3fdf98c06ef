"""Sample scenes: hand-made positions of every variant and tricky situation (gallery, palette,
tests), and a generator of random plausible scenes (bench, robustness tests).

Every position here is plausible: 15 checkers per side on board + bar + reserve + off.
"""

from __future__ import annotations

import random
from dataclasses import replace

from engine import get_variant
from engine.play import Step
from engine.position import Position, make_position
from render.scene import BoardScene, ChainInfo, LastPlay

VARIANT_NAMES = {
    "classic": "Backgammon",
    "pin": "Pin Game",
    "pin-mother": "Pin Game (mother checker)",
    "blocking": "Blocking Game",
    "blocking-express": "Blocking Express",
    "dutch": "Dutch Backgammon",
    "neverfinishing": "NeverFinishing Game",
}


def checker_total(pos: Position, side: str) -> int:
    """Checkers of ``side`` on board, bar, reserve and off (15 in a plausible position)."""
    i = 0 if side == "X" else 1
    return pos.on_board(side) + pos.bar[i] + pos.reserve[i] + pos.off[i]


def plausible(pos: Position) -> bool:
    return checker_total(pos, "X") == 15 and checker_total(pos, "O") == 15


def seen_by_other(scene: BoardScene) -> BoardScene:
    """The same scene from the other player's side (he becomes X)."""

    def swap(side: str | None) -> str | None:
        return {"X": "O", "O": "X"}.get(side or "", None)

    lp = scene.last_play
    chain = scene.chain
    return replace(
        scene,
        position=scene.position.flip(),
        x_name=scene.o_name,
        o_name=scene.x_name,
        x_colour="light" if scene.x_colour == "dark" else "dark",
        to_act=swap(scene.to_act),
        chain=None if chain is None else ChainInfo(chain.pending, swap(chain.controller) or "X"),
        cube_owner=swap(scene.cube_owner),
        match_score=(scene.match_score[1], scene.match_score[0]),
        last_play=None if lp is None else replace(lp, mover=swap(lp.mover) or "X"),
    )


def _scene(variant: str, pos: Position, **kw: object) -> BoardScene:
    assert plausible(pos), (variant, checker_total(pos, "X"), checker_total(pos, "O"))
    base: dict[str, object] = {
        "variant_name": VARIANT_NAMES[variant],
        "x_name": "Alice",
        "o_name": "Bob",
        "x_colour": "light",
        "to_act": "X",
        "dice": None,
    }
    base.update(kw)
    return BoardScene(position=pos, **base)  # type: ignore[arg-type]


def opening_scenes() -> list[tuple[str, BoardScene]]:
    out = []
    for variant, title in VARIANT_NAMES.items():
        rules = get_variant(variant)
        cube = {"cube_value": 1} if rules.has_cube else {}
        status = "Alice to play 5-3"
        scene = _scene(variant, rules.initial_position(), dice=(5, 3), status=status, **cube)
        out.append((f"start-{variant}", replace(scene, variant_name=title)))
    return out


def classic_hit() -> BoardScene:
    """Bob just hit Alice's blot; she has a checker on the bar; cube centred; match to 5."""
    pos = make_position(
        "classic",
        {24: "X", 13: "X" * 5, 8: "XXX", 6: "XXXX", 5: "X"}
        | {1: "OO", 12: "OOO", 14: "O", 17: "OOO", 18: "O", 19: "O" * 5},
        bar=(1, 0),
    )
    lp = LastPlay("O", (Step(13, 7, 6, "hit"), Step(13, 11, 2)), "13/7* 13/11", (6, 2))
    return _scene(
        "classic",
        pos,
        cube_value=1,
        match_length=5,
        match_score=(2, 1),
        last_play=lp,
        status="Alice to roll or double",
    )


def classic_cube_race() -> BoardScene:
    """A bear-off race: Bob owns the cube at 2 and just bore off two; Alice rolled 4-4."""
    pos = make_position(
        "classic",
        {6: "XXXX", 5: "XXX", 4: "XXX", 3: "XX", 2: "X"}
        | {19: "OOO", 20: "OOO", 21: "OO", 22: "OO", 23: "OOO"},
        off=(2, 2),
    )
    lp = LastPlay("O", (Step(3, 0, 3), Step(2, 0, 2)), "3/off 2/off", (3, 2))
    return _scene(
        "classic",
        pos,
        dice=(4, 4),
        cube_value=2,
        cube_owner="O",
        match_length=7,
        match_score=(3, 5),
        last_play=lp,
        status="Alice to play 4-4",
        x_colour="dark",
    )


def pins() -> BoardScene:
    """Pin game: Alice pins a blot on her 9-point; Bob just pinned her checker on her 16."""
    pos = make_position(
        "pin",
        {24: "X" * 8, 17: "X", 13: "XX", 9: "OX", 6: "XX", 16: "XO"}
        | {1: "O" * 9, 10: "OO", 20: "O", 22: "O"},
    )
    lp = LastPlay("O", (Step(14, 9, 5, "pin"), Step(5, 3, 2)), "14/9^ 5/3", (5, 2))
    return _scene("pin", pos, dice=(6, 5), last_play=lp, status="Alice to play 6-5")


def mother_pinned() -> BoardScene:
    """Pin game with mother: Alice pinned Bob's mother; Bob (to act) sees it from his side."""
    pos = make_position(
        "pin-mother",
        {24: "X" * 5, 18: "XX", 13: "XXX", 8: "XX", 4: "XX", 1: "OX"}
        | {5: "OOO", 12: "OOOO", 16: "OO", 19: "OOO", 22: "OO"},
    )
    lp = LastPlay("X", (Step(7, 1, 6, "pin"), Step(10, 8, 2)), "7/1^ 10/8", (6, 2))
    scene = _scene("pin-mother", pos, last_play=lp, to_act="O", dice=None)
    return replace(seen_by_other(scene), status="Bob to roll - his mother is pinned")


def blocking_mixed() -> BoardScene:
    """Blocking: LIFO mixed stacks and reserves; Bob just entered two checkers."""
    pos = make_position(
        "blocking",
        {24: "XX", 21: "XXOOX", 20: "X", 18: "OOOX", 13: "XXX", 9: "OOX", 3: "XXO"}
        | {5: "OO", 2: "OOO"},
        reserve=(2, 2),
    )
    lp = LastPlay("O", (Step(25, 22, 3), Step(25, 20, 5)), "bar/22 bar/20", (5, 3))
    return _scene("blocking", pos, dice=(6, 4), last_play=lp, status="Alice to play 6-4")


def express_chain() -> BoardScene:
    """Blocking Express: Bob rolled 3-3, got stuck after two; Alice plays the rest."""
    pos = make_position(
        "blocking-express",
        {24: "X", 22: "OOXX", 19: "XXX", 18: "O", 16: "XX", 11: "X", 9: "OOOX", 4: "XX"}
        | {7: "OO", 5: "OOOOO", 2: "OO"},
        reserve=(3, 0),
    )
    lp = LastPlay("O", (Step(13, 10, 3), Step(10, 7, 3)), "13/7", (3, 3))
    chain = ChainInfo(((3, 2), (4, 4), (5, 4), (6, 4)), "X")
    return _scene(
        "blocking-express",
        pos,
        chain=chain,
        last_play=lp,
        status="Bob was stuck: Alice plays 3x2, then the chain goes on",
    )


def dutch_bar_reserve() -> BoardScene:
    """Dutch: Bob entered from his reserve and hit; Alice has bar and reserve checkers."""
    pos = make_position(
        "dutch",
        {20: "XX", 11: "XX", 8: "X", 5: "XX", 3: "XX"}
        | {2: "OO", 4: "O", 7: "OO", 9: "O", 14: "OO", 22: "O"},
        bar=(1, 0),
        reserve=(5, 6),
        unlocked=(True, True),
    )
    lp = LastPlay("O", (Step(25, 21, 4), Step(8, 3, 5, "hit")), "bar/21 8/3*", (5, 4))
    return _scene(
        "dutch",
        pos,
        dice=(2, 1),
        last_play=lp,
        x_colour="dark",
        status="Alice must enter from the bar first",
    )


def traps() -> BoardScene:
    """NeverFinishing: Bob just trapped Alice on her 16; Alice traps Bob on her 8."""
    pos = make_position(
        "neverfinishing",
        {24: "X" * 10, 16: "XO", 8: "OXX", 6: "XX"} | {1: "O" * 11, 12: "O", 14: "O"},
    )
    lp = LastPlay("O", (Step(13, 9, 4, "trap"), Step(13, 11, 2)), "13/9^ 13/11", (4, 2))
    return _scene("neverfinishing", pos, dice=(5, 5), last_play=lp, status="Alice to play 5-5")


def tall_stacks() -> BoardScene:
    """Blocking Express: tall mixed stacks that must be compressed, top checkers visible."""
    pos = make_position(
        "blocking-express",
        {19: "O" * 7 + "X" * 6, 13: "X" * 8 + "O", 6: "OOOOX"} | {2: "O"},
        reserve=(0, 2),
    )
    lp = LastPlay("O", (Step(14, 12, 2), Step(24, 23, 1)), "14/12 24/23", (2, 1))
    return _scene("blocking-express", pos, dice=(2, 1), last_play=lp, status="Alice to play 2-1")


def very_tall_stack() -> BoardScene:
    """Blocking: a 17-checker mixed stack (more than can be drawn) and a 15-high one."""
    pos = make_position(
        "blocking",
        {20: "X" * 10 + "O" * 6 + "X", 7: "XXXX", 1: "O" * 9},
    )
    return _scene("blocking", pos, dice=(6, 2), status="Alice to play 6-2")


def bear_off() -> BoardScene:
    """Pin game bear-off, a pinned checker in the way."""
    pos = make_position(
        "pin",
        {6: "XXX", 5: "XX", 4: "XO", 3: "XXX", 2: "X", 1: "X"}
        | {21: "OOO", 22: "OOOO", 24: "OO", 19: "OX"},
        off=(3, 4),
    )
    lp = LastPlay("O", (Step(6, 0, 6), Step(2, 0, 2)), "6/off 2/off", (6, 2))
    return _scene("pin", pos, dice=(6, 3), last_play=lp, status="Alice to play 6-3")


def game_over() -> BoardScene:
    """Classic: Alice bore off her last checker; gammon; match score updated."""
    pos = make_position(
        "classic", {5: "OO", 12: "OOO", 17: "OOOO", 19: "OOO", 20: "OOO"}, off=(15, 0)
    )
    lp = LastPlay("X", (Step(2, 0, 2), Step(1, 0, 1)), "2/off 1/off", (2, 1))
    return _scene(
        "classic",
        pos,
        to_act=None,
        cube_value=2,
        cube_owner="X",
        match_length=5,
        match_score=(4, 1),
        last_play=lp,
        result="Alice wins 4 points (gammon)",
        status="Game over: Alice leads 4-1",
    )


def tricky_scenes() -> list[tuple[str, BoardScene]]:
    return [
        ("classic-hit-bar-cube", classic_hit()),
        ("classic-cube-owned-bearoff-double", classic_cube_race()),
        ("pin-pins", pins()),
        ("pin-mother-pinned-other-side", mother_pinned()),
        ("blocking-mixed-reserve", blocking_mixed()),
        ("express-chain", express_chain()),
        ("dutch-bar-reserve-hit", dutch_bar_reserve()),
        ("neverfinishing-traps", traps()),
        ("tall-mixed-stacks", tall_stacks()),
        ("very-tall-stack", very_tall_stack()),
        ("pin-bear-off", bear_off()),
        ("game-over", game_over()),
    ]


def gallery() -> list[tuple[str, BoardScene, str]]:
    """``(label, scene, theme)`` for every picture of the gallery."""
    out = [(label, sc, "default") for label, sc in opening_scenes() + tricky_scenes()]
    for label, sc in tricky_scenes():
        out.append((f"hc-{label}", sc, "high-contrast"))
    return out


def palette_scenes() -> list[BoardScene]:
    """Scenes that hold every element the renderer draws, for building the PNG palette."""
    return [
        classic_hit(),
        classic_cube_race(),
        pins(),
        blocking_mixed(),
        express_chain(),
        dutch_bar_reserve(),
        traps(),
        seen_by_other(game_over()),
    ]


# --------------------------------------------------------------------------- random scenes


def _random_position(rng: random.Random, variant: str) -> Position:
    """A random position of ``variant`` that obeys the variant's stacking shapes."""
    rules = get_variant(variant)
    stacks: dict[int, str] = {}
    counts = {"X": 15, "O": 15}
    bar = [0, 0]
    reserve = [0, 0]
    off = [0, 0]
    for i, side in enumerate(("X", "O")):
        if rules.has_reserve and rng.random() < 0.5:
            reserve[i] = rng.randint(0, 15)
        if rules.has_bar and rng.random() < 0.3:
            bar[i] = rng.randint(1, 3)
        if rng.random() < 0.3:
            off[i] = rng.randint(0, 8)
        extra = reserve[i] + bar[i] + off[i]
        if extra > 15:
            reserve[i] = max(0, 15 - bar[i] - off[i])
        counts[side] = 15 - reserve[i] - bar[i] - off[i]
    order = list(range(1, 25))
    rng.shuffle(order)
    mixing = rules.stacks_mix
    for side in ("X", "O"):
        left = counts[side]
        while left > 0:
            p = rng.choice(order)
            n = min(left, rng.choice((1, 1, 2, 2, 3, 4, 5, 7)))
            cur = stacks.get(p, "")
            if cur and side in cur and not mixing:
                stacks[p] = cur + side * n
            elif cur and not mixing:
                continue
            else:
                stacks[p] = cur + side * n
            left -= n
    return make_position(variant, stacks, tuple(bar), tuple(reserve), tuple(off))  # type: ignore[arg-type]


def _random_last_play(rng: random.Random, pos: Position) -> LastPlay | None:
    """A last play by O: steps from O's checkers' points to others (not checked for legality)."""
    o_points = [25 - p for p in range(1, 25) if pos.points[p].endswith("O")]
    if not o_points or rng.random() < 0.2:
        return None
    steps = []
    for _ in range(rng.choice((2, 2, 2, 4))):
        src = rng.choice([*o_points, 25])
        die = rng.randint(1, 6)
        dst = max(0, src - die)
        effect = rng.choice(("", "", "", "hit", "pin"))
        steps.append(Step(src, dst, die, effect))
    text = " ".join(f"{s.src}/{s.dst or 'off'}" for s in steps)
    return LastPlay("O", tuple(steps), text, (steps[0].die, steps[1].die))


def random_scene(rng: random.Random, variant: str | None = None) -> BoardScene:
    variant = variant or rng.choice(list(VARIANT_NAMES))
    pos = _random_position(rng, variant)
    dice = (rng.randint(1, 6), rng.randint(1, 6)) if rng.random() < 0.8 else None
    chain = None
    rules = get_variant(variant)
    if rules.chains_doubles and rng.random() < 0.3:
        v = rng.randint(1, 6)
        pending = ((v, rng.randint(1, 4)), *((w, 4) for w in range(v + 1, 7)))
        chain = ChainInfo(pending, "X")
    cube: dict[str, object] = {}
    if rules.has_cube:
        cube = {"cube_value": rng.choice((1, 2, 4, 8)), "cube_owner": rng.choice((None, "X", "O"))}
    over = rng.random() < 0.05
    return _scene(
        variant,
        pos,
        dice=dice,
        chain=chain,
        x_colour=rng.choice(("light", "dark")),
        match_length=rng.choice((1, 1, 3, 5, 7)),
        match_score=(rng.randint(0, 4), rng.randint(0, 4)),
        last_play=_random_last_play(rng, pos),
        to_act=None if over else "X",
        result="Bob wins 2 points (gammon)" if over else None,
        status=rng.choice((None, "Alice to play", "Alice to roll or double")),
        **cube,
    )
