"""How many examples a Hypothesis property tries.

The default run (the one run after every change) tries a tenth of a property's full count,
never fewer than 40; ``PBEM_FULL_EXAMPLES=1`` restores the full count, and .ci/run runs the
properties (marker ``properties``) that way. Both runs are derandomized, so each is the same
every time.
"""

import os

FULL = os.environ.get("PBEM_FULL_EXAMPLES") == "1"


def examples(full, least=40):
    """``max_examples`` for a property whose full run tries ``full`` examples: a tenth of it,
    never fewer than ``least`` (one many-case property may ask for fewer)."""
    return full if FULL else min(full, max(least, full // 10))
