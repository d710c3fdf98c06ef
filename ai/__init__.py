"""Computer players for every variant (uses ``engine/``; never Discord, Pillow or SQL)."""

import os

# The networks multiply tiny matrices: BLAS worker threads only fight over the machine's cores
# (measured: training 4x slower with OpenBLAS's default threads on a busy 2-core machine).
# Effective only before numpy is first imported, which is why it lives here.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
