"""A naive pure-Python legal-play lister for classic backgammon: the baseline of ``bench.cli``.

Reads position texts (RULES §12) with dice on standard input, like ``python -m engine legal``,
and prints the same thing: a JSON array of the canonical texts (RULES §7.6) of the distinct
legal plays, sorted. Written the plain way on purpose: the board is a list of signed counts,
every order of the dice is tried, each step copies the board, results are deduplicated by
resulting position after the search, maximality and the higher-die rule are applied to the
collected plays. Classic only, well-formed input only (it is a yardstick, not a parser).

Run: ``python -m bench._naive_legal < positions.txt``
"""

from __future__ import annotations

import json
import sys

Board = tuple[int, ...]  # [0] X's bar, [1..24] points (X > 0, O < 0), [25] O's bar, [26] X off
Step = tuple[int, int, bool]  # (source, destination, hit); 25 = bar, 0 = off


def parse(line: str) -> tuple[Board, tuple[int, ...]]:
    fields = [f.strip() for f in line.split("|")]
    board = [0] * 27
    if fields[1] != "-":
        for item in fields[1].split():
            point, stack = item.split(":")
            sign = 1 if stack[0] == "X" else -1
            board[int(point)] = sign * int(stack[1:])
    bar_x, bar_o = fields[2].split()[1].split("/")
    board[0], board[25] = int(bar_x), int(bar_o)
    board[26] = int(fields[4].split()[1].split("/")[0])
    high, low = int(fields[-1][0]), int(fields[-1][1])
    dice = (high,) * 4 if high == low else (max(high, low), min(high, low))
    return tuple(board), dice


def steps(board: Board, die: int) -> list[tuple[Step, Board]]:
    out = []
    if board[0] > 0:
        sources = [25]
    else:
        sources = [p for p in range(24, 0, -1) if board[p] > 0]
    home = board[0] == 0 and all(board[p] <= 0 for p in range(7, 25))
    highest = max((p for p in range(1, 25) if board[p] > 0), default=0)
    for src in sources:
        dst = src - die
        new = list(board)
        if src == 25:
            new[0] -= 1
        else:
            new[src] -= 1
        if dst >= 1:
            if board[dst] < -1:
                continue
            hit = board[dst] == -1
            if hit:
                new[dst] = 0
                new[25] += 1
            new[dst] += 1
            out.append(((src, dst, hit), tuple(new)))
        elif home and (dst == 0 or src == highest):
            new[26] += 1
            out.append(((src, 0, False), tuple(new)))
    return out


def plays(board: Board, dice: tuple[int, ...]) -> dict[Board, list[Step]]:
    """Every result of every order of the dice, with one realising sequence (longest kept)."""
    results: dict[Board, list[Step]] = {}

    def walk(node: Board, left: tuple[int, ...], path: list[Step]) -> None:
        moved = False
        for i, die in enumerate(left):
            if die in left[:i]:
                continue  # the same value again: the same branches
            for step, after in steps(node, die):
                moved = True
                walk(after, left[:i] + left[i + 1 :], [*path, step])
        if not moved:
            known = results.get(node)
            if known is None or len(path) > len(known):
                results[node] = path

    walk(board, dice, [])
    most = max(len(path) for path in results.values())
    legal = {b: p for b, p in results.items() if len(p) == most}
    if most == 1 and len(dice) == 2:
        # The higher-die rule: only one die can be played, so play the higher one if possible.
        with_high = {after: legal[after] for _, after in steps(board, dice[0]) if after in legal}
        if with_high:
            legal = with_high
    return legal


def name(point: int) -> str:
    return "bar" if point == 25 else "off" if point == 0 else str(point)


def canonical(path: list[Step]) -> str:
    """RULES §7.6, step by step."""
    order = sorted(path, key=lambda s: (-s[0], -s[1]))
    hits = {s[1] for s in path if s[2]}
    used = [False] * len(order)
    chains: list[list[int]] = []
    for i, (src, dst, _) in enumerate(order):
        if used[i]:
            continue
        used[i] = True
        chain = [src, dst]
        for j in range(i + 1, len(order)):
            if chain[-1] in (0, 25):
                break
            if not used[j] and order[j][0] == chain[-1]:
                used[j] = True
                if chain[-1] in hits:
                    chain.append(order[j][1])
                else:
                    chain[-1] = order[j][1]
        chains.append(chain)
    counts: dict[tuple[int, ...], int] = {}
    for chain in chains:
        counts[tuple(chain)] = counts.get(tuple(chain), 0) + 1
    tokens = sorted(counts, key=lambda c: (-c[0], -c[-1], [-x for x in c[1:-1]]))
    marked: set[int] = set()
    words = []
    for token in tokens:
        parts = [name(token[0])]
        for point in token[1:]:
            part = name(point)
            if point in hits and point not in marked:
                marked.add(point)
                part += "*"
            parts.append(part)
        n = counts[token]
        words.append("/".join(parts) + (f"({n})" if n > 1 else ""))
    return " ".join(words)


def main() -> int:
    for raw in sys.stdin:
        line = raw.strip()
        if not line:
            continue
        board, dice = parse(line)
        texts = sorted(canonical(path) for path in plays(board, dice).values())
        sys.stdout.write(json.dumps(texts) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
