"""The rules' tables of the built-in games keep one convention.

Every entry of a game's ``CHECKS`` is ``check(state, seat, move)`` and every entry of its
``APPLIES`` is ``apply(state, seat, move, plan, rng)``: a plain function defined at the top
level of a module of the game's own package, no lambda, no wrapper made by another function,
no bound method, no defaults or ``*args`` hiding another calling convention.
"""

import importlib
import inspect

import pytest

from shared.games import get_game

GAMES = ("zarahemla", "stone_age", "title_of_liberty")
#: table name -> the parameter count of each entry
ARITY = {"CHECKS": 3, "APPLIES": 5}


def convention_problems(fn, package):
    """What keeps ``fn`` from being a table entry of the common shape (an empty list: none)."""
    name = getattr(fn, "__qualname__", repr(fn))
    if not inspect.isfunction(fn):
        return [f"{name} is not a plain function ({type(fn).__name__})"]
    problems = []
    if fn.__name__ == "<lambda>":
        problems.append(f"{name} is a lambda")
    if fn.__qualname__ != fn.__name__:
        problems.append(f"{name} is not defined at the top level of its module")
    module = fn.__module__ or ""
    if module != package and not module.startswith(package + "."):
        problems.append(f"{name} is defined in {module}, not in {package}")
    elif getattr(importlib.import_module(module), fn.__name__, None) is not fn:
        problems.append(f"{name} is not the function its module names {fn.__name__}")
    return problems


def signature_problems(fn, arity):
    params = list(inspect.signature(fn).parameters.values())
    plain = all(p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in params)
    if len(params) != arity or not plain:
        return [f"{fn.__qualname__}{inspect.signature(fn)} does not take {arity} plain "
                "parameters"]
    return []


def _entries():
    for name in GAMES:
        for table in ARITY:
            yield pytest.param(name, table, id=f"{name}-{table}")


@pytest.mark.parametrize("name,table", _entries())
def test_every_table_entry_is_a_module_level_rule_function_of_one_signature(name, table):
    game = get_game(name)
    package = game.package
    rules = importlib.import_module(package + ".rules")
    entries = getattr(rules, table)
    assert entries, f"{name} has an empty {table}"
    assert entries is (game.checks if table == "CHECKS" else game.applies)
    problems = []
    for kind, fn in entries.items():
        found = convention_problems(fn, package)
        found = found or signature_problems(fn, ARITY[table])
        problems += [f"{table}[{kind!r}]: {p}" for p in found]
    assert problems == []


def test_the_checks_and_applies_name_the_same_kinds_in_each_game():
    for name in GAMES:
        rules = importlib.import_module(get_game(name).package + ".rules")
        assert set(rules.CHECKS) == set(rules.APPLIES), name


def test_the_convention_check_refuses_a_lambda_a_wrapper_a_stranger_and_a_wrong_signature():
    """The checks above can fail: each way of breaking the convention is named."""
    from shared.zarahemla import build, turn

    def wrap(rule):
        def apply(st, seat, mv, plan, rng):
            st["events"].extend(rule(st, seat, *mv.args))
        return apply

    lam = " ".join(convention_problems(lambda st, seat, mv: None, "shared.zarahemla"))
    assert "<lambda> is a lambda" in lam and "not defined at the top level" in lam
    assert "is defined in tests.shared.test_rule_tables, not in shared.zarahemla" in lam
    wrapped = wrap(build.apply_city)
    assert "is not defined at the top level" in " ".join(
        convention_problems(wrapped, "tests"))
    assert convention_problems(get_game, "shared.zarahemla") == [
        "get_game is defined in shared.games, not in shared.zarahemla"]
    assert "is not a plain function" in convention_problems(len, "shared")[0]
    assert convention_problems(build.apply_city, "shared.zarahemla") == []
    assert convention_problems(turn.check_win, "shared.zarahemla") == []
    assert signature_problems(turn.check_win, 3) == [
        "check_win(st) does not take 3 plain parameters"]
    assert signature_problems(turn.resolve_roll, 5) != []   # a default hides a 4-arg call
    assert signature_problems(build.apply_city, 5) == []
