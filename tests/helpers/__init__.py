"""Set-up shared by several test modules (no test module imports another test module:
tests/test_test_suite.py checks it). Assertions in these modules are rewritten by pytest as
in the tests themselves (tests/conftest.py registers the package)."""
