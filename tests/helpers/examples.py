"""How many examples a property tries: Hypothesis's ``max_examples``, or the number of seeded
random games (or texts, or bit flips) a property plays through.

The default run (the one run after every change) tries a tenth of a property's full count,
never fewer than ``least`` (40 unless the test names another); ``PBEM_FULL_EXAMPLES=1``
restores the full count, and .ci/run runs the properties (marker ``properties``) that way.
Both runs are derandomized, so each is the same every time.
"""

import os

FULL = os.environ.get("PBEM_FULL_EXAMPLES") == "1"


def examples(full, least=40):
    """``max_examples`` for a property whose full run tries ``full`` examples: a tenth of it,
    never fewer than ``least`` (one many-case property may ask for fewer)."""
    return full if FULL else min(full, max(least, full // 10))
