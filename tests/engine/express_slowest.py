"""The slowest Blocking Express chain decisions found (issue 18), shared by the tests and
``bench.movegen``.

Found by listing every chain decision of a few thousand seeded random games cold (and a 1-1 or
2-2 chain forced on a sample of their positions). They all belong to one family: X may bear off
during the run but cannot win it (a checker of his is covered in his home board), several of his
checkers are still on their way home, and a long chain is pending (1-1 or 2-2: 16-20 numbers).
The run is then decided by when everyone is home and by what each checker can still bear off,
and the plain search visits 10^4-10^5 positions per play (0.4-3 s a decision before issue 18).
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
)
