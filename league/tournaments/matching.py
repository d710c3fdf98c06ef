"""Maximum matching in a general graph (Edmonds' blossom algorithm), for the pairing system's
"can everyone still be paired without a repeat?" and its fallbacks.

Players are vertices, allowed pairings edges. O(V^3): a few milliseconds for the small,
crowded fields where it is needed (large fields are settled by Dirac's bound before).
"""

from __future__ import annotations

from collections.abc import Sequence


def maximum_matching(neighbours: Sequence[Sequence[int]], start: Sequence[int] = ()) -> list[int]:
    """A maximum matching: ``mate[v]`` is v's partner or -1. ``neighbours[v]`` lists the
    vertices v may be paired with (symmetric). ``start`` is an initial matching to grow (e.g.
    a greedy one in ranking order, so that most of its pairs are kept)."""
    n = len(neighbours)
    mate = list(start) if start else [-1] * n
    for root in range(n):
        if mate[root] != -1:
            continue
        end, parent = _augmenting_path(neighbours, mate, root)
        while end != -1:
            # Flip the path's edges: each vertex takes its parent, the parent's old partner
            # continues the walk back to the root.
            previous = parent[end]
            following = mate[previous]
            mate[end], mate[previous] = previous, end
            end = following
    return mate


def _augmenting_path(
    neighbours: Sequence[Sequence[int]], mate: list[int], root: int
) -> tuple[int, list[int]]:
    n = len(neighbours)
    parent = [-1] * n
    base = list(range(n))
    used = [False] * n
    used[root] = True
    queue = [root]
    head = 0

    def common_base(a: int, b: int) -> int:
        seen = [False] * n
        while True:
            a = base[a]
            seen[a] = True
            if mate[a] == -1:
                break
            a = parent[mate[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[mate[b]]

    def mark(v: int, b: int, child: int, blossom: list[bool]) -> None:
        while base[v] != b:
            blossom[base[v]] = blossom[base[mate[v]]] = True
            parent[v] = child
            child = mate[v]
            v = parent[mate[v]]

    while head < len(queue):
        v = queue[head]
        head += 1
        for to in neighbours[v]:
            if base[v] == base[to] or mate[v] == to:
                continue
            if to == root or (mate[to] != -1 and parent[mate[to]] != -1):
                # An odd cycle: contract the blossom onto its base.
                b = common_base(v, to)
                blossom = [False] * n
                mark(v, b, to, blossom)
                mark(to, b, v, blossom)
                for i in range(n):
                    if blossom[base[i]]:
                        base[i] = b
                        if not used[i]:
                            used[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if mate[to] == -1:
                    return to, parent
                used[mate[to]] = True
                queue.append(mate[to])
    return -1, parent


def greedy_start(neighbours: Sequence[Sequence[int]]) -> list[int]:
    """Each vertex in order takes the first free neighbour after it: a start that keeps the
    ranking order wherever the blossom search need not change it."""
    n = len(neighbours)
    mate = [-1] * n
    for v in range(n):
        if mate[v] != -1:
            continue
        for to in sorted(neighbours[v]):
            if to > v and mate[to] == -1:
                mate[v], mate[to] = to, v
                break
    return mate
