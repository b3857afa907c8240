import sys

# the shared set-up in tests/helpers/ asserts as the tests do: pytest rewrites its asserts.
# Only under pytest: a server that loads the Pig fixture as an extra game
# (PBEM_EXTRA_GAMES=tests.fixtures.pig:GAME, as the benchmarks' servers do) must not import
# pytest in every worker (~8 MB of resident memory each, bench/ANALYSIS.md)
if "pytest" in sys.modules:
    import pytest

    pytest.register_assert_rewrite("tests.helpers")


    # Python caches compiled modules (and pytest its assert-rewritten test modules) unless
    # told not to. A machine that sets PYTHONDONTWRITEBYTECODE makes every test process (each
    # pytest-xdist worker, every pbem-server and pbem a test starts) compile the whole tree
    # again: half a minute of a busy machine's CPU per worker. The suite caches them
    # (__pycache__ is ignored by git), and the processes it starts inherit that.
    import os

    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
