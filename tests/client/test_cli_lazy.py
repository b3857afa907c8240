"""`pbem --help` lists every command without importing the command modules."""

import subprocess
import sys

import click

from client import cli as cli_module


def test_command_table_matches_the_commands_own_help():
    import importlib
    real = {}
    for name in sorted({module for module, _ in cli_module.COMMANDS.values()}):
        module = importlib.import_module(f"client.{name}")
        for command in vars(module).values():
            if isinstance(command, click.Command):
                real[command.name] = (module.__name__.split(".", 1)[1],
                                      command.get_short_help_str(limit=120))
    assert real == cli_module.COMMANDS


def test_help_imports_no_command_module():
    code = ("import sys\nfrom client.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('client.commands')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "verify" in out and out.strip().endswith("[]")
