"""The slowest Blocking Express chain decisions found (issue 18), shared by the tests and
``bench.movegen``.

Found by ``bench.express_tail``: every chain decision of seeded games between random,
pip-greedy, greedy and ai-level players listed cold, chains forced on positions met, random
positions of the slow family and hill climbing from the slowest (moving a checker, owning or
freeing a point, changing the decision, keeping whatever lists slower). They all belong to one
family: X may bear off during the run but cannot win it (a checker of his is covered in his
home board, or he needs more numbers than are pending), several of his checkers are still on
their way home, and a long chain is pending (1-1 or 2-2, or a [1xk] decision: 16-20 numbers).
The best runs park checkers where the last 5s and 6s can bear off; the plain search visits
10^4-10^5 positions per play for the slowest. Before issue 18 the first six took 0.4-3 s; the
hill-climbed ones took 1.8-3.9 s with the first rewrite of issue 18 (and 0.4-0.6 s with its
first witness, which did not yet trade places between bearing-off checkers nor run where X
could win).
"""

from __future__ import annotations

SLOWEST = (
    # the example: 313 plays, 1.3 s before
    "blocking-express | 13:X1 12:X1 11:X1 10:X1 9:X1 7:X1 6:O2+X1 5:O2+X2+O1+X1+O1+X1+O1+X1 "
    "4:O2+X1 3:O2 2:O2+X1 1:O2+X1 | bar 0/0 | res 0/0 | off 0/0 | [1x4]",
    # 2 plays, 2.9 s before
    "blocking-express | 18:X1 15:O1 11:X1 10:X2 9:X1 6:O3+X1 5:O2+X2+O1+X1 4:O2+X1 3:O2+X3 "
    "2:O2+X2 1:O2 | bar 0/0 | res 0/0 | off 0/0 | 11",
    # 202 plays, 1.1 s before
    "blocking-express | 18:X2 11:X1 10:X1 9:X1 8:O1 6:O3+X1 5:O2+X2+O1+X1 4:O2+X1 3:O2+X3 "
    "2:O2+X2 1:O2 | bar 0/0 | res 0/0 | off 0/0 | 11",
    # 45 plays, 0.9 s before: points 1-4 blocked, every play reaches the whole run
    "blocking-express | 22:X2 21:O1 16:O1 14:X1 13:X2 12:O2 11:X1 10:O2 8:X3 6:O3 5:O2+X2 4:O1 "
    "3:O1 2:X2+O1 1:X2+O1 | bar 0/0 | res 0/0 | off 0/0 | 11",
    # 34 plays, 0.5 s before
    "blocking-express | 24:O2 23:O4 22:O3 19:O1 17:X1 16:X1 15:O1 13:X1 10:O1 7:X1 "
    "5:O2+X2+O1+X2 3:X1 2:X2 1:X4 | bar 0/0 | res 0/0 | off 0/0 | 11",
    # 4 plays, 0.5 s before
    "blocking-express | 24:O2 19:O1 18:X1 17:O1 15:X1 12:X1 10:O1 5:X2+O3+X1+O1+X2 4:O6+X3 "
    "3:X3 2:X1 | bar 0/0 | res 0/0 | off 0/0 | 11",
    # hill-climbed: 301 plays, 3.9 s with the first rewrite
    "blocking-express | 22:X1 14:X1 13:X1 12:X1 8:X1 6:X2+O2 5:X1+O2+X1 4:X2 3:X1 2:O2+X1 "
    "1:X2+O2 | bar 0/0 | res 0/0 | off 0/7 | 11",
    # hill-climbed: 144 plays, 3.5 s with the first rewrite
    "blocking-express | 22:X1 12:X1 9:X1 8:X1 5:X1+O2+X1 4:X3 3:X1 2:X1+O2+X1+O2 1:X3+O4 "
    "| bar 0/0 | res 0/0 | off 0/5 | 11",
    # hill-climbed: 257 plays, 3.0 s with the first rewrite
    "blocking-express | 18:X1 12:X1 9:X1 8:X2 7:X1 6:X1 5:X1+O2+X1 4:X3 2:O2+X1 1:X2+O2 "
    "| bar 0/0 | res 0/0 | off 0/9 | [1x4]",
    # constructed: 122 plays, 1.9 s with the first rewrite
    "blocking-express | 20:O2 17:X2 11:X2 10:O2+X1 5:O2+X2+O1+X1 4:X3 3:X1 | bar 0/0 | res 0/0 "
    "| off 3/8 | 11",
    # hill-climbed: 262 plays, 0.6 s with the first witness (checkers on 5 wait for the 6s
    # while lower ones would bear off the 5s: they must trade places)
    "blocking-express | 21:O1 20:X1 15:X1 10:X1 8:X1 7:X1 6:O2 5:X2 4:X2+O2 3:X3 2:O2+X2 "
    "| bar 0/0 | res 0/0 | off 1/8 | [1x4]",
    # hill-climbed: 423 plays (every play settled by its witness)
    "blocking-express | 20:X1 15:X1 10:X1 9:X1 7:X1 6:O2+X1 5:X1 4:X2+O2+X1 3:X1 2:O2+X2 1:X1 "
    "| bar 0/0 | res 0/0 | off 1/9 | 11",
    # hill-climbed, nothing covered (X could win): 315 plays, 0.5 s when the witness was not
    # tried where X can win; every play completes the run without winning
    "blocking-express | 23:X1 20:O1 18:X1 15:X1 11:X1 10:X1 9:X1 8:X1 7:X2 5:O1 4:X2 2:O1 1:O1 "
    "| bar 0/0 | res 0/0 | off 4/11 | [1x4]",
    # hill-climbed, nothing covered: 375 plays, 0.4 s then
    "blocking-express | 23:X1 18:X1 15:X1 11:X1 10:X1 9:X1 8:X2 7:X1 4:X3 2:O1 1:O1 | bar 0/0 "
    "| res 0/0 | off 3/13 | 11",
    # hill-climbed, points 1, 2 and 5 blocked: 61 plays, 1.2 s with the witness alone (the
    # bound is the run but no split of it plays in order: a plain search finds the run)
    "blocking-express | 24:O1 18:X2 13:X1 11:X1 7:X2 6:O2+X2 5:O1 4:X2+O2+X1 3:X3+O2+X1 2:O1 "
    "1:O1 | bar 0/0 | res 0/0 | off 0/5 | 11",
    # the same family: 47 plays, 1.1 s with the witness alone
    "blocking-express | 24:O1 18:X1 15:X1 11:X2 10:X1 7:X1 6:O2+X3 5:O1 4:X2+O2 3:X2 2:O1 1:O1 "
    "| bar 0/0 | res 0/0 | off 2/7 | 11",
)
