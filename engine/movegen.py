"""Legal plays (RULES §2.3-§2.6, §6.2): the one place where maximality rules live.

The search walks every order of the dice over single-die steps (the variant's ``steps``),
remembering (position, dice left) nodes already expanded, so each distinct intermediate
position is expanded once. Leaves are deduplicated by resulting position; then the maximal-dice
rule, the Express run rule and the higher-die rule select the legal ones.

The compiled build adds a second implementation of this search for classic's rolls, in C
(engine/_classic_kernel.c, ``Variant.native_kernel``); this one stays the reference.
"""

from __future__ import annotations

import importlib
from typing import Any

from engine.dice import ChainDice, Dice, Roll
from engine.express import best_leaves
from engine.play import HIT, NONE, Leaf, Play, Step
from engine.position import BAR, EMPTY, NUM_CHECKERS, O, Position, X
from engine.variants import Variant, get_variant


def _load_kernel() -> Any:
    """The compiled build's C search for classic (engine/_classic_kernel.c), or None: it is
    importable only when ``engine.native`` chose the build, which compiled it."""
    try:
        kernel = importlib.import_module("engine._classic_kernel")
    except ImportError:
        return None
    stacks = range(NUM_CHECKERS + 1)
    kernel.setup(
        Step, Position, tuple(X * n for n in stacks), tuple(O * n for n in stacks), EMPTY, HIT, NONE
    )
    return kernel


_KERNEL: Any = _load_kernel()


def _leaves(
    variant: Variant, pos: Position, numbers: tuple[int, ...], use_order: bool = True
) -> dict[Position, Leaf]:
    """Every end position of a maximal-by-branch sequence of steps, with one realising path.

    ``use_order=False`` disables the doubles ordering shortcut (tests compare both). With the
    shortcut a branch may also end early, giving a shorter leaf; such a leaf is never maximal
    (its steps plus the skipped one, reordered, make a longer play), so selection drops it.
    """
    leaves: dict[Position, Leaf] = {}
    seen: set[tuple[Position, tuple[int, ...]]] = set()
    high = max(numbers)
    # Doubles: where steps commute, sources in non-increasing order reach every result.
    ordered = use_order and len(set(numbers)) == 1 and variant.steps_commute(pos)
    # ...except a hit on a blot that an earlier, lower step re-exposed (NeverFinishing): such
    # hits are also tried out of order.
    reexposing = ordered and variant.reexposes_blots
    single = len(numbers) == 1
    full = len(numbers)
    new_leaf = tuple.__new__  # skips the named tuple's Python-level constructor

    def record(node: Position, path: tuple[Step, ...]) -> None:
        uses_high = len(path) == 1 and path[0].die == high
        leaf = leaves.get(node)
        if leaf is None or len(path) > len(leaf.steps):
            leaves[node] = Leaf(path, uses_high)
        elif len(path) == len(leaf.steps) and uses_high:
            leaves[node] = Leaf(leaf.steps, True)

    def walk(
        node: Position,
        left: tuple[int, ...],
        path: tuple[Step, ...],
        max_src: int,
        exposed: tuple[int, ...],
    ) -> None:
        moved = False
        if node.off[0] < NUM_CHECKERS and left:
            for die in (left[0],) if left[0] == left[-1] else (left[0], left[1]):
                rest = left[1:] if die == left[0] else left[:1] + left[2:]
                candidates = variant.steps(node, die, max_src)
                pts = node.points
                for point in exposed:
                    src = point + die
                    if max_src < src < BAR and pts[point] == O and pts[src][-1:] == X:
                        candidates += variant.steps(node, die, src, src)
                for step, after in candidates:
                    moved = True
                    if not rest:  # the last die: a leaf, deduplicated by position
                        leaf = new_leaf(Leaf, ((*path, step), single and die == high))
                        known = leaves.setdefault(after, leaf)
                        # Reached again (often: the other order of the dice) changes nothing
                        # unless the known path is shorter or a single die may be the high one.
                        if known is not leaf and (single or len(known.steps) < full):
                            record(after, leaf.steps)
                        continue
                    expanded = len(seen)
                    seen.add((after, rest))
                    if len(seen) == expanded:  # already expanded (one hash, not two)
                        continue
                    src = step.src
                    now_exposed = exposed
                    if reexposing and src < BAR and after.points[src] == O:
                        now_exposed = (*exposed, src)
                    # After an out-of-order hit, sources up to the hitter's are open again.
                    walk(after, rest, (*path, step), src if ordered else BAR, now_exposed)
        if not moved:
            record(node, path)

    walk(pos, numbers, (), BAR, ())
    # ``walk`` refers to itself through its closure, a cycle that would hold ``seen`` and
    # ``leaves`` (every node and leaf of the search) until the cyclic collector ran, and that
    # then traversed them all: a quarter to two fifths of the time. Rebinding both names leaves
    # the cycle a few small objects; the nodes are freed at once (``del walk`` would do it,
    # but mypyc cannot compile it).
    found = leaves
    leaves = {}
    seen = set()
    return found


def _select(leaves: dict[Position, Leaf], dice: Dice) -> list[tuple[Position, Leaf]]:
    """Maximality (§2.5.1 by dice used) and the higher-die rule (§2.5.2); a chain decision
    (§6.2) is ranked by ``express.best_leaves`` instead."""
    best = max(len(leaf.steps) for leaf in leaves.values())
    chosen = [(p, leaf) for p, leaf in leaves.items() if len(leaf.steps) == best]
    if isinstance(dice, Roll) and not dice.is_double and best == 1:
        with_high = [(p, leaf) for p, leaf in chosen if leaf.high]
        if with_high:
            chosen = with_high
    return chosen


def legal_plays(pos: Position, dice: Dice, variant: Variant | None = None) -> list[Play]:
    """All distinct legal plays of ``dice`` in ``pos`` (X to play), each exactly once.

    ``variant``: the rules with a game's options (default: the plain rules of ``pos.variant``).
    In generation order (deterministic); sort by ``text`` where an order is shown. With no
    legal step the list holds the empty play only.
    """
    if variant is None:
        variant = get_variant(pos.variant)
    if _KERNEL is not None and variant.native_kernel == "classic" and isinstance(dice, Roll):
        # The same search in C (the same plays, order and steps; None: a board it leaves to us).
        found = _KERNEL.classic_leaves(pos, dice.numbers, not dice.is_double)
        if found is not None:
            return [Play(steps, pos, after) for steps, after in found]
    leaves = _leaves(variant, pos, dice.numbers)
    if isinstance(dice, ChainDice):
        chosen = best_leaves(variant, pos, dice, leaves.items())
    else:
        chosen = _select(leaves, dice)
    return [Play(leaf.steps, pos, after) for after, leaf in chosen]
