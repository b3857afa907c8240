"""Shell completion of ``pbem`` as the shell asks for it."""

from click.testing import CliRunner

from client.cli import cli


def complete(words, home, env=None):
    """What `pbem WORDS<Tab>` offers in bash (click's protocol: one "type,value" per line)."""
    words = list(words)
    full = dict(env or {}, _PBEM_COMPLETE="bash_complete", COMP_WORDS=" ".join(["pbem"] + words),
                COMP_CWORD=str(len(words)), PBEM_HOME=str(home))
    out = CliRunner().invoke(cli, [], env=full, prog_name="pbem", catch_exceptions=False)
    return [line.split(",", 1)[1] for line in out.stdout.splitlines() if line]
