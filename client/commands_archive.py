"""Commands about the record: log, export and the offline verify."""

import json

import click

from .completion import complete_game
from .context import (GAME_ID, PbemError, color_wanted, load_game, pass_ctx, terminal_width,
                      wrap_lines)

# --- log, export, verify ----------------------------------------------------------------------

def _check_log(game_id, entries, head):
    """The log's own links and hashes agree with each other and with the signed head."""
    from shared.envelope import entry_hash
    from .heads import HistoryError
    prev = None
    for e in entries:
        if entry_hash(e["envelope"].encode("utf-8"), e["signature"]) != e["hash"] or \
                (prev is not None and e["prev"] != prev):
            raise HistoryError(f"the log of game {game_id} is inconsistent at move {e['seq']}: "
                               "its hash chain is broken")
        prev = e["hash"]
    if head is not None and entries and (head["length"] != entries[-1]["seq"] + 1
                                         or head["hash"] != prev):
        raise HistoryError(f"the log of game {game_id} does not end at the server's signed head")


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@pass_ctx
def log(c, game_id):
    """The moves of GAME so far, with what they caused as you may see it.

    \b
    Example:
      pbem log k7m2q9xa3b
      pbem --json log k7m2q9xa3b | jq -r '.[].move'
    """
    resp = c.api.log(game_id)
    c.heads.check(game_id, resp.get("head"))
    entries = resp["entries"]
    _check_log(game_id, entries, resp.get("head"))
    lines = []
    for e in entries:
        events = "; ".join(e.get("events") or [])
        forced = " (forced)" if e.get("forced") else ""
        lines.append(f"{e['seq']:>4}  {e['seat']:<10} {e['move']}{forced}"
                     + (f"  -- {events}" if events else ""))
    if not entries and not c.json:
        c.note(f"no moves yet in game {game_id}")
    c.emit(entries, wrap_lines(lines, terminal_width(), hang=" " * 17))


@click.command()
@click.argument("game_id", metavar="GAME", type=GAME_ID, shell_complete=complete_game)
@click.option("-o", "--output", required=True, metavar="FILE", type=click.Path(dir_okay=False),
              help="Where to write the archive ('-' for stdout).")
@pass_ctx
def export(c, game_id, output):
    """Write the archive of GAME (every signed move; the seed once it is over) to FILE.

    \b
    Example:
      pbem export k7m2q9xa3b -o game.json && pbem verify game.json
    """
    from .home import atomic_write
    archive = c.api.archive(game_id)
    c.heads.check(game_id, archive.get("head"))
    text = json.dumps(archive, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if output == "-":
        click.echo(text, nl=False)
    else:
        try:
            atomic_write(output, text, mode=0o644)
        except OSError as exc:
            raise PbemError(f"cannot write {output}: {exc.strerror or exc}") from None
        state = "finished" if archive.get("seed") else "running"
        summary = {"game": game_id, "file": output, "entries": len(archive["entries"]),
                   "finished": bool(archive.get("seed"))}
        if c.json:
            c.emit(summary)
        else:
            c.note(f"wrote {len(archive['entries'])} move(s) of {state} game {game_id} "
                   f"to {output}")


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--no-color", is_flag=True, help="Plain text even on a terminal.")
@pass_ctx
def verify(c, file, no_color):
    """Check an archive offline: seed, signatures, hash links and a full replay.

    Needs no server.  Prints the final board, or exits 1 naming the first
    fault.  For a game still running (no seed revealed yet) it checks the
    signatures and links and says the full replay waits for the end.

    \b
    Example:
      pbem verify game.json
    """
    from shared.archive import ArchiveError, verify_archive
    try:
        with click.open_file(file, encoding="utf-8") as fh:
            archive = json.load(fh)
    except OSError as exc:
        raise PbemError(f"cannot read {file}: {exc.strerror or exc}") from None
    except ValueError:
        raise PbemError(f"{file} is not an archive: it is not JSON") from None
    header = archive.get("header") if isinstance(archive, dict) else None
    if isinstance(header, dict) and header.get("type"):
        try:
            load_game(header["type"])  # registers PBEM_EXTRA_GAMES
        except Exception:  # noqa: BLE001 - verify_archive names an unknown type itself
            pass
    try:
        report = verify_archive(archive)
    except ArchiveError as exc:
        if c.json:
            c.emit({"ok": False, "file": file, "error": exc.message, "index": exc.index})
        raise PbemError(f"{file}: {exc.message}") from None
    game = report["game"]
    data = {"ok": True, "file": file, "game": header["game"], "type": header["type"],
            "entries": report["entries"], "replayed": report["replayed"],
            "result": report["result"]}
    if not report["replayed"]:
        c.emit(data, f"{file}: signatures and hash links of {report['entries']} move(s) hold; "
                     f"game {header['game']} is still running, so the full replay waits for the "
                     "end (the seed is revealed then).")
        return
    color = color_wanted(no_color)
    winners = ", ".join((report["result"] or {}).get("winners") or []) or "nobody"
    c.emit(data, [game.render(report["view"], color=color),
                  f"{file}: verified {report['entries']} move(s) of {header['type']} game "
                  f"{header['game']}: the seed matches its commitment, every signature and "
                  f"hash link holds, and the replay agrees; won by {winners}."])
