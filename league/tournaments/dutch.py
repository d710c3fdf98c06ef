"""Swiss pairing by the FIDE (Dutch) System, FIDE Handbook C.04.3 (the text approved in 2016, in
force until 31 January 2026), without colours.

Followed: players ranked by score then pairing number (A.2, the pairing number being the seed:
rating, then sign-up order); brackets taken score by score from the top, with the players left
unpaired moved down into the next one (A.3); in a bracket S1 holds the moved-down players (MDPs)
to be paired, or the top half, and S2 the residents (B.2); candidates generated in the order of
the rules: transpositions of S2 (D.1), then exchanges between S1 and S2 (D.2), and for a
heterogeneous bracket the remainder paired the same way inside each MDP-pairing, then other
MDPs taken from the Limbo (B.7, D.3); the first "perfect" candidate is taken (B.4), else the
best by the quality criteria (B.8): most pairs (C.5), lowest pairing score difference (C.6),
the next bracket's pairs and score difference (C.7), fewest repeated downfloats and upfloats of
the last two rounds and their score differences (C.12-C.19). Absolute: nobody meets twice
(C.1); nobody gets a second pairing-allocated bye, nor one after a forfeit win (C.2).

Where it simplifies (a backgammon match has no colours and no draws):

- Colours do not exist, so C.3, C.8-C.11 and section E fall away; every pairing lists the higher
  ranked player first.
- The bye is chosen before the brackets: the lowest ranked player allowed one (C.2) whose
  absence leaves a field that can be paired. In the rules it falls out of the last bracket,
  which gives the same player unless C.12 (a repeated downfloat) would pick another.
- Completion (C.4) is checked at every bracket, not only at the penultimate one: a candidate is
  refused when the players moved down and all lower brackets could not be paired among
  themselves without a repeat. So a bracket never leaves an impossible rest, and the collapsed
  last bracket of A.9 is only the fallback below.
- C.7 (the next bracket's pairs and PSD) is estimated: the players moved down are matched with
  the next score group's residents, and the residents left are assumed to pair among
  themselves.
- The search is bounded (``BRACKET_BUDGET`` steps per bracket): past it, the best candidate seen
  is taken, as B.8 does over all of them; when none was seen, the bracket and everything below
  it are paired as one collapsed bracket by an exhaustive search in ranking order.
- When no pairing without a repeat exists at all (more rounds than the field allows), the most
  pairs without a repeat are kept (a maximum matching grown from the ranking order) and the
  players left over are paired down the ranking: the fewest repeats, not the rules' collapse.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from league.tournaments.matching import greedy_start, maximum_matching

#: Steps (transposition moves and candidate checks) a bracket may spend before the best
#: candidate seen is taken.
BRACKET_BUDGET = 20_000
#: Exchanges of more than this many combinations of one size are not generated.
EXCHANGE_LIMIT = 5_000
#: The first-fit search of a collapsed bracket gives up after this many steps (then a maximum
#: matching pairs it).
FIRST_FIT_BUDGET = 20_000

DOWN = "down"
UP = "up"


@dataclass(frozen=True)
class Player:
    """A player as the pairing sees them. ``rank`` is the A.2 order (0 = first)."""

    id: int
    score: int
    pairing_number: int
    opponents: frozenset[int]
    may_get_bye: bool = True
    had_bye: bool = False
    #: The float received in the previous round and in the round before it (None, DOWN, UP).
    last_float: str | None = None
    float_before: str | None = None


class _Budget:
    def __init__(self, steps: int) -> None:
        self.left = steps

    def spend(self, steps: int = 1) -> bool:
        self.left -= steps
        return self.left >= 0


class _OutOfBudget(Exception):
    pass


def ranking_order(players: Sequence[Player]) -> list[Player]:
    """A.2: score, then pairing number."""
    return sorted(players, key=lambda p: (-p.score, p.pairing_number))


def _compatible(a: Player, b: Player) -> bool:
    return b.id not in a.opponents


# --- D.1 and D.2: the orders in which candidates are generated ---------------------------------


def transpositions(
    s1: Sequence[Player],
    s2: Sequence[Player],
    allowed: Callable[[Player, Player], bool] = _compatible,
    budget: _Budget | None = None,
) -> Iterator[tuple[list[tuple[Player, Player]], list[Player]]]:
    """D.1: orders of S2 by the lexicographic value of its first len(S1) entries, skipping
    those that pair two players ``allowed`` refuses (C.1). Yields the pairs S1[i] - S2[i] and
    the rest of S2 in its order. An iterative depth-first search: it never builds an order that
    fails, so the first one yielded is the first valid one of the rules' sequence."""
    n1, n2 = len(s1), len(s2)
    if n1 > n2:
        return
    if n1 == 0:
        yield [], list(s2)
        return
    used = [False] * n2
    choice = [-1] * n1
    depth = 0
    while depth >= 0:
        j = choice[depth] + 1
        top = s1[depth]
        while j < n2 and (used[j] or not allowed(top, s2[j])):
            j += 1
        if budget is not None and not budget.spend(1 + (j - choice[depth]) // 16):
            raise _OutOfBudget
        if choice[depth] >= 0:
            used[choice[depth]] = False
        if j < n2:
            choice[depth] = j
            used[j] = True
            if depth == n1 - 1:
                # Building a candidate costs in proportion to its size.
                if budget is not None and not budget.spend(n1 // 8):
                    raise _OutOfBudget
                pairs = [(s1[i], s2[choice[i]]) for i in range(n1)]
                rest = [s2[k] for k in range(n2) if not used[k]]
                yield pairs, rest
            else:
                depth += 1
                choice[depth] = -1
        else:
            choice[depth] = -1
            depth -= 1


def exchanges(n1: int, n2: int) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """D.2: the exchanges between S1 = BSNs 1..n1 and S2 = BSNs n1+1..n1+n2, in the rules'
    order, as (BSNs moved from S1 to S2, BSNs moved from S2 to S1): fewest exchanged (a), the
    smallest difference between the sums moved (b), the highest different BSN moved out of S1
    (c), the lowest different BSN moved out of S2 (d). Sizes with more than EXCHANGE_LIMIT
    combinations are skipped."""
    s1 = range(1, n1 + 1)
    s2 = range(n1 + 1, n1 + n2 + 1)
    for size in range(1, min(n1, n2) + 1):
        outs = list(itertools.combinations(s1, size))
        ins = list(itertools.combinations(s2, size))
        if len(outs) * len(ins) > EXCHANGE_LIMIT:
            return
        found = [(o, i) for o in outs for i in ins]
        found.sort(
            key=lambda e: (
                sum(e[1]) - sum(e[0]),
                tuple(-b for b in sorted(e[0], reverse=True)),
                tuple(sorted(e[1])),
            )
        )
        yield from found


# --- Completion: can a set of players still be paired? ------------------------------------------


def can_pair_all(players: Sequence[Player]) -> bool:
    """Whether ``players`` (an even number) can all be paired without a repeat. A field in which
    nobody has met half of the others or more always can (Dirac: the graph of allowed pairings
    then has a Hamiltonian cycle); otherwise a maximum matching decides."""
    n = len(players)
    if n % 2:
        return False
    if n == 0:
        return True
    ids = {p.id for p in players}
    half = n // 2
    if all(sum(1 for o in p.opponents if o in ids) <= half - 1 for p in players):
        return True
    neighbours = _allowed(players)
    mate = maximum_matching(neighbours, greedy_start(neighbours))
    return all(m != -1 for m in mate)


def _allowed(players: Sequence[Player]) -> list[list[int]]:
    return [
        [
            j
            for j, q in enumerate(players)
            if i != j and q.id not in p.opponents and p.id not in q.opponents
        ]
        for i, p in enumerate(players)
    ]


def _first_fit(
    players: Sequence[Player], budget: int = FIRST_FIT_BUDGET
) -> list[tuple[Player, Player]] | None:
    """Pairs everyone without a repeat, each player in ranking order taking the first allowed
    partner below, backtracking as needed; None when impossible or past the budget."""
    n = len(players)
    allowed = [sum(1 << j for j in row) for row in _allowed(players)]
    failed: set[int] = set()
    steps = [0]

    def solve(free: int) -> list[tuple[int, int]] | None:
        if free == 0:
            return []
        if free in failed:
            return None
        steps[0] += 1
        if steps[0] > budget:
            raise _OutOfBudget
        i = (free & -free).bit_length() - 1
        options = allowed[i] & free
        while options:
            low = options & -options
            j = low.bit_length() - 1
            rest = solve(free & ~(1 << i) & ~low)
            if rest is not None:
                return [(i, j), *rest]
            options &= ~low
        failed.add(free)
        return None

    try:
        found = solve((1 << n) - 1)
    except (_OutOfBudget, RecursionError):
        return None
    return None if found is None else [(players[i], players[j]) for i, j in found]


def pair_in_order(players: Sequence[Player]) -> list[tuple[Player, Player]]:
    """Pairs everyone left as one bracket: down the ranking, each with the first player allowed
    (backtracking within a budget); else a maximum matching of allowed pairs grown from that
    order, the players it leaves over paired down the ranking with the fewest repeats it can
    (none while the field allows it)."""
    ordered = ranking_order(players)
    found = _first_fit(ordered)
    if found is not None:
        return found
    neighbours = _allowed(ordered)
    mate = maximum_matching(neighbours, greedy_start(neighbours))
    pairs = [(ordered[v], ordered[m]) for v, m in enumerate(mate) if m > v]
    left = [p for v, p in enumerate(ordered) if mate[v] == -1]
    pairs += [(left[i], left[i + 1]) for i in range(0, len(left) - 1, 2)]
    return pairs


class _Completion:
    """Whether the players moved down from a bracket, with every lower bracket, can still all be
    paired (C.4, checked at every bracket). The lower brackets' counts of opponents met among
    themselves are taken once, so most candidates are settled by Dirac's bound in a few steps."""

    def __init__(self, lower: Sequence[Player]) -> None:
        self.lower = list(lower)
        ids = {p.id for p in lower}
        self.most_met = max((sum(1 for o in p.opponents if o in ids) for p in lower), default=0)
        self.cache: dict[frozenset[int], bool] = {}

    def __call__(self, downfloaters: Sequence[Player], budget: _Budget) -> bool:
        if not downfloaters:
            key: frozenset[int] = frozenset()
        else:
            key = frozenset(p.id for p in downfloaters)
        known = self.cache.get(key)
        if known is not None:
            return known
        size = len(self.lower) + len(downfloaters)
        if size % 2:
            answer = False
        else:
            limit = size // 2 - 1
            # A lower player meets at most every downfloater on top of those met below.
            answer = self.most_met + len(downfloaters) <= limit and all(
                len(p.opponents) <= limit for p in downfloaters
            )
            if not answer:
                # The exact test costs about as much as building that many candidates.
                if not budget.spend(4 * size):
                    raise _OutOfBudget
                answer = can_pair_all([*downfloaters, *self.lower])
        self.cache[key] = answer
        return answer


# --- One bracket --------------------------------------------------------------------------------


@dataclass
class _Candidate:
    pairs: list[tuple[Player, Player]]
    downfloaters: list[Player]
    quality: tuple[object, ...] = field(default=())


def _quality(
    pairs: Sequence[tuple[Player, Player]], downfloaters: Sequence[Player], lowest: int
) -> tuple[tuple[object, ...], tuple[int, ...]]:
    """The quality criteria as keys (lower is better): (C.5, C.6) and C.12-C.19."""
    differences = [abs(a.score - b.score) for a, b in pairs]
    # A.8: a downfloater's difference is against one point less than the bracket's lowest.
    differences += [p.score - (lowest - 1) for p in downfloaters]
    psd = tuple(sorted(differences, reverse=True))
    floats: list[int] = [0] * 8
    for p in downfloaters:
        diff = p.score - (lowest - 1)
        if p.last_float == DOWN:
            floats[0] += 1
            floats[4] += diff
        if p.float_before == DOWN:
            floats[2] += 1
            floats[6] += diff
    for a, b in pairs:
        if a.score == b.score:
            continue
        low = b if b.score < a.score else a
        diff = abs(a.score - b.score)
        if low.last_float == UP:
            floats[1] += 1
            floats[5] += diff
        if low.float_before == UP:
            floats[3] += 1
            floats[7] += diff
    return (-len(pairs), psd), tuple(floats)


def _look_ahead(
    downfloaters: Sequence[Player], next_group: Sequence[Player]
) -> tuple[tuple[object, ...], bool]:
    """C.7, approximately: how the next bracket would pair with these players moved into it,
    as (-pairs, PSD), and whether every one of them (up to the residents' number) finds an
    opponent there. Its MDPs are matched with its residents by a maximum bipartite matching
    grown from the highest scores (Kuhn's augmenting paths); the residents left are assumed to
    pair among themselves (the completion check covers the rest)."""
    if not downfloaters or not next_group:
        return (), True
    movers = ranking_order(downfloaters)
    resident_of: dict[int, int] = {}  # resident index -> mover index

    def assign(i: int, tried: set[int]) -> bool:
        for j, resident in enumerate(next_group):
            if j in tried or resident.id in movers[i].opponents:
                continue
            tried.add(j)
            if j not in resident_of or assign(resident_of[j], tried):
                resident_of[j] = i
                return True
        return False

    # Once matched, a mover stays matched (augmenting paths only re-route), so higher
    # scores are served first.
    matched = {i for i in range(len(movers)) if assign(i, set())}
    level = next_group[0].score
    left = len(next_group) - len(matched)
    differences = [m.score - level for i, m in enumerate(movers) if i in matched]
    differences += [m.score - (level - 1) for i, m in enumerate(movers) if i not in matched]
    differences += [1] * (left % 2)
    pairs = len(matched) + left // 2
    ideal = len(matched) == min(len(movers), len(next_group))
    return (-pairs, tuple(sorted(differences, reverse=True))), ideal


def _homogeneous(
    players: Sequence[Player], pairs_wanted: int, budget: _Budget
) -> Iterator[tuple[list[tuple[Player, Player]], list[Player]]]:
    """B.6: the candidates of a homogeneous bracket (or remainder) with ``pairs_wanted`` pairs:
    S1 the top ``pairs_wanted`` players, transpositions of S2, then exchanges."""
    n = len(players)
    if pairs_wanted == 0:
        yield [], list(players)
        return
    n1, n2 = pairs_wanted, n - pairs_wanted
    bsn = {p.id: i for i, p in enumerate(players)}
    yield from transpositions(players[:n1], players[n1:], budget=budget)
    for out, into in exchanges(n1, n2):
        moved = set(out) | set(into)
        s1 = [players[b - 1] for b in range(1, n1 + 1) if b not in moved]
        s1 += [players[b - 1] for b in into]
        s2 = [players[b - 1] for b in range(n1 + 1, n + 1) if b not in moved]
        s2 += [players[b - 1] for b in out]
        s1.sort(key=lambda p: bsn[p.id])
        s2.sort(key=lambda p: bsn[p.id])
        yield from transpositions(s1, s2, budget=budget)


def _mdp_choices(mdps: Sequence[Player], m1: int) -> Iterator[list[Player]]:
    """B.7/D.3: the original S1 (the top m1 MDPs), then exchanges with the Limbo: highest scores
    first, then the lowest BSNs."""
    combos = list(itertools.islice(itertools.combinations(range(len(mdps)), m1), EXCHANGE_LIMIT))
    combos.sort(key=lambda c: tuple(sorted(-mdps[i].score for i in c)))
    for combo in combos:
        yield [mdps[i] for i in combo]


def _bracket_candidates(
    mdps: Sequence[Player], residents: Sequence[Player], budget: _Budget
) -> Iterator[tuple[int, list[tuple[Player, Player]], list[Player]]]:
    """Every candidate of the bracket, the ones with more pairs first (C.5), each group in the
    rules' order of generation (B.6, B.7). Yields (pairs, list of pairs, downfloaters)."""
    m0, r = len(mdps), len(residents)
    most = min(m0, r) + (r - min(m0, r)) // 2
    for total in range(most, -1, -1):
        for m1 in range(min(m0, r, total), -1, -1):
            remainder_pairs = total - m1
            if remainder_pairs > (r - m1) // 2:
                continue
            for s1 in _mdp_choices(mdps, m1):
                chosen = {p.id for p in s1}
                limbo = [p for p in mdps if p.id not in chosen]
                for mdp_pairs, remainder in transpositions(s1, residents, budget=budget):
                    for rem_pairs, floating in _homogeneous(remainder, remainder_pairs, budget):
                        yield total, mdp_pairs + rem_pairs, limbo + floating


def pair_bracket(
    mdps: Sequence[Player],
    residents: Sequence[Player],
    lower: Sequence[Player],
    budget: _Budget,
    next_group: Sequence[Player] = (),
) -> _Candidate | None:
    """The pairing of one bracket: the first perfect candidate, else the best seen (B.4, B.8).
    A candidate whose downfloaters could not be paired with the brackets below is refused
    (completion). None when no candidate was found within the budget."""
    scores = [p.score for p in residents] or [p.score for p in mdps]
    lowest = min(scores)
    best: _Candidate | None = None
    best_total = -1
    perfect_floats = (0,) * 8
    m1_full = min(len(mdps), len(residents))
    mdp_ids = {p.id for p in mdps}
    completes = _Completion(lower)
    seen: set[tuple[frozenset[int], frozenset[tuple[int, int]]]] = set()
    try:
        for total, pairs, downfloaters in _bracket_candidates(mdps, residents, budget):
            if best is not None and total < best_total:
                break  # every later candidate has fewer pairs (C.5)
            if not lower and downfloaters:
                continue  # the last bracket must pair everyone
            # Quality depends only on who floats down and who floats up (and by how much):
            # a later candidate alike in both is no better than the first (B.8).
            signature = (
                frozenset(p.id for p in downfloaters),
                frozenset((b.id, a.score - b.score) for a, b in pairs if a.score != b.score),
            )
            if signature in seen:
                continue
            seen.add(signature)
            if not budget.spend(8):
                raise _OutOfBudget
            if not completes(downfloaters, budget):
                continue
            pairs_psd, floats = _quality(pairs, downfloaters, lowest)
            look, look_ideal = _look_ahead(downfloaters, next_group)
            quality = (*pairs_psd, look, floats)
            candidate = _Candidate(pairs, downfloaters, quality)
            if best is None or quality < best.quality:
                best, best_total = candidate, total
            paired_mdps = sum(1 for a, _ in pairs if a.id in mdp_ids)
            if paired_mdps == m1_full and look_ideal and floats == perfect_floats:
                # C.5 and C.6 are as good as the earlier-generated, more-paired candidates
                # allow (the loop goes from the most pairs down), every player moved down can
                # be paired in the next bracket (C.7), and no float repeats.
                break
    except _OutOfBudget:
        pass
    return best


# --- The round ---------------------------------------------------------------------------------


def choose_bye(players: Sequence[Player]) -> Player | None:
    """The lowest ranked player allowed a bye (C.2) whose absence leaves a field that can be
    paired; failing that, the lowest ranked allowed one, then the lowest ranked without a bye
    (a forfeit win only), then the lowest ranked. None for an even field."""
    if len(players) % 2 == 0:
        return None
    ordered = ranking_order(players)
    for candidate in reversed(ordered):
        if not candidate.may_get_bye:
            continue
        rest = [p for p in ordered if p is not candidate]
        if can_pair_all(rest):
            return candidate
    for allowed in (
        [p for p in ordered if p.may_get_bye],
        [p for p in ordered if not p.had_bye],
        ordered,
    ):
        if allowed:
            return allowed[-1]
    return None


def pair(players: Sequence[Player]) -> tuple[list[tuple[Player, Player]], Player | None]:
    """Pairs a round: (pairs, higher ranked first, in board order; the bye or None)."""
    bye = choose_bye(players)
    field_ = ranking_order([p for p in players if p is not bye])
    pairs: list[tuple[Player, Player]] = []
    if not can_pair_all(field_):
        pairs = pair_in_order(field_)
    else:
        groups = [list(g) for _, g in itertools.groupby(field_, key=lambda p: p.score)]
        mdps: list[Player] = []
        for index, group in enumerate(groups):
            lower = [p for g in groups[index + 1 :] for p in g]
            following = groups[index + 1] if index + 1 < len(groups) else []
            chosen = pair_bracket(mdps, group, lower, _Budget(BRACKET_BUDGET), following)
            if chosen is None:
                pairs += pair_in_order([*mdps, *group, *lower])
                mdps = []
                break
            pairs += chosen.pairs
            mdps = ranking_order(chosen.downfloaters)
        if mdps:  # cannot happen: the last bracket pairs everyone; kept as a safety net
            pairs += pair_in_order(mdps)
    rank = {p.id: i for i, p in enumerate(field_)}
    ordered = [(a, b) if rank[a.id] < rank[b.id] else (b, a) for a, b in pairs]
    # Board order as the rules' earlier text (C.04.1, F.1) set it: the higher player's score,
    # the sum of both scores, the higher player's rank.
    ordered.sort(key=lambda ab: (-ab[0].score, -(ab[0].score + ab[1].score), rank[ab[0].id]))
    return ordered, bye
