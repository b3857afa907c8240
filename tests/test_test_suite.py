"""The test suite's own promises: the README's test command stays quick and
the long runs it leaves out are still run by CI and named in the README."""

import configparser
import os
import shlex

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read(name):
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        return f.read()


def test_the_default_run_leaves_out_the_slow_marker():
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, "setup.cfg"))
    addopts = shlex.split(cfg["tool:pytest"]["addopts"])
    assert addopts[addopts.index("-m") + 1] == "not slow"
    assert "slow:" in cfg["tool:pytest"]["markers"]


def test_ci_runs_the_readme_command_and_the_slow_runs():
    ci = _read(".ci/run")
    readme = _read("README.md")
    assert "pip install '.[test]' && pytest" in readme
    import re
    assert "pip install --quiet '.[test]'" in ci and re.search(r"^pytest$", ci, re.M)
    assert re.search(r"^ruff check \.$", ci, re.M)  # the linter runs in CI
    assert "pytest -m slow" in ci and "pytest -m slow" in readme
    assert "PBEM_TEST_DATABASE_URL=postgresql://" in ci



def test_every_test_docs_reliability_names_exists():
    """docs/RELIABILITY.md proves each guarantee by naming tests (`FILE::TEST`, or `::TEST`
    for another test of the file named last): each must be a test of that file, so that a
    renamed or moved test cannot leave a guarantee pointing at nothing."""
    import glob
    import re
    doc = _read("docs/RELIABILITY.md")
    named, current = [], None
    for ref in re.findall(r"`([^`\s]*::[^`\s]+)`", doc):
        path, name = ref.split("::", 1)
        if path:
            found = [p for p in glob.glob(os.path.join(ROOT, "tests", "**", "*.py"),
                                          recursive=True)
                     if p.endswith(os.sep + path.replace("/", os.sep))]
            assert len(found) == 1, f"{ref}: no single test file {path}"
            current = found[0]
        assert current is not None, f"{ref}: no file named before it"
        name = name.split("[", 1)[0]
        with open(current, encoding="utf-8") as f:
            source = f.read()
        assert re.search(rf"^def {re.escape(name)}\(", source, re.M), \
            f"docs/RELIABILITY.md names {ref}, which is not a test of {current}"
        named.append(name)
    assert len(named) > 30
