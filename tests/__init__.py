import pytest

# the shared set-up in tests/helpers/ asserts as the tests do: pytest rewrites its asserts
pytest.register_assert_rewrite("tests.helpers")
