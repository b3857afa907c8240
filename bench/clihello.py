"""A bare click command: the baseline for ``pbem --help`` start-up.

Run as ``python -m bench.clihello``."""

import click


@click.command()
@click.option("--name", default="world", help="Who to greet.")
def main(name):
    """Say hello."""
    click.echo(f"hello {name}")


if __name__ == "__main__":
    main()
