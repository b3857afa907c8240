import sys

# the shared set-up in tests/helpers/ asserts as the tests do: pytest rewrites its asserts.
# Only under pytest: a server that loads the Pig fixture as an extra game
# (PBEM_EXTRA_GAMES=tests.fixtures.pig:GAME, as the benchmarks' servers do) must not import
# pytest in every worker (~8 MB of resident memory each, bench/ANALYSIS.md)
if "pytest" in sys.modules:
    import pytest

    pytest.register_assert_rewrite("tests.helpers")
