"""``pbem verify``: exactly one of complete (exit 0), a verified prefix (exit 4) or refused
(exit 1, the reason and the entry), and never "unexpected error".  No server needed."""

import copy
import json
import random

import pytest
from click.testing import CliRunner

from client.cli import cli
from client.context import EXIT_PREFIX
from tests.helpers.archives import V, export_text, prefix, running_heads


def run(tmp_path, archive, *args, text=None):
    path = tmp_path / "archive.json"
    if text is not None:
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    else:
        path.write_text(export_text(archive), "utf-8")
    result = CliRunner().invoke(cli, ["--home", str(tmp_path / "home"), *args, "verify",
                                      str(path)], env={"NO_COLOR": "1"},
                                catch_exceptions=False)
    assert "unexpected error" not in result.stderr and "Traceback" not in result.stderr
    result.flat = " ".join(result.stdout.split())  # the sentences, whatever the wrapping
    return result


def test_a_finished_archive_is_complete_and_verified(tmp_path):
    result = run(tmp_path, V["archive"])
    assert result.exit_code == 0, result.stderr
    assert "complete and verified: 9 move(s) of pig game vectorarchive" in result.flat
    assert "the replay agrees; won by north" in result.flat
    assert V["public_keys"]["server"][:16] in result.flat
    # the verdict is wrapped to 80 columns, not one line of 250 characters
    assert all(len(line) <= 80 or " " not in line.strip()   # a long file name stays whole
               for line in result.stdout.splitlines())
    data = json.loads(run(tmp_path, V["archive"], "--json").stdout)
    assert data["ok"] and data["outcome"] == "complete" and data["entries"] == 9
    assert data["head"] == {"length": 9, "hash": V["final_head"]["hash"]}


def test_a_running_prefix_exits_4_with_its_length_and_head(tmp_path):
    cut = prefix(V["archive"], 4, running_heads())
    result = run(tmp_path, cut)
    assert result.exit_code == EXIT_PREFIX == 5
    assert "a verified prefix, not a whole game: the signatures and hash links of 4 " \
        "move(s) of pig game vectorarchive hold" in result.flat
    assert f"length 4, hash {cut['head']['hash'][:16]}" in result.flat
    assert "still running" in result.flat and result.stderr == ""
    data = json.loads(run(tmp_path, cut, "--json").stdout)
    assert data["ok"] and data["outcome"] == "prefix" and data["status"] == "playing"
    assert data["head"] == {"length": 4, "hash": cut["head"]["hash"]}


def test_an_old_format_archive_is_at_most_a_prefix(tmp_path):
    from shared.envelope import head_message, sign
    a = copy.deepcopy(V["archive"])
    n, last = a["head"]["length"], a["head"]["hash"]
    del a["start_signature"]
    a["format"] = "pbem-archive-v1"
    a["head"] = {"game": "vectorarchive", "length": n, "hash": last,
                 "signature": sign(bytes.fromhex(V["keys"]["server"]),
                                   head_message("vectorarchive", n, last))}
    result = run(tmp_path, a)
    assert result.exit_code == 5
    assert "old format pbem-archive-v1" in result.flat
    assert "cannot show that the game is complete" in result.flat
    assert "The seed matches its commitment and the moves replay" in result.flat


def test_refusals_name_the_reason_and_the_entry(tmp_path):
    a = copy.deepcopy(V["archive"])
    a["entries"][3]["hash_"] = a["entries"][3].pop("hash")
    result = run(tmp_path, a)
    assert result.exit_code == 1 and result.stdout == ""
    assert "entry 3 lacks hash and has unknown keys 'hash_'; archive refused" in result.stderr
    refused = json.loads(run(tmp_path, a, "--json").stdout)["error"]
    assert refused["code"] == "archive_refused"
    data = refused["details"]            # --json: the verdict, in the error's shape
    assert data == {"ok": False, "outcome": "refused", "file": data["file"],
                    "error": "entry 3 lacks hash and has unknown keys 'hash_'", "index": 3}
    a = copy.deepcopy(V["archive"])
    a["seed"] = None
    result = run(tmp_path, a)
    assert result.exit_code == 1 and "reveals no seed" in result.stderr


def test_server_key_option(tmp_path):
    ok = run(tmp_path, V["archive"], text=None)
    assert ok.exit_code == 0
    path = tmp_path / "archive.json"
    for key, code in ((V["public_keys"]["server"], 0), (V["public_keys"]["server"].upper(), 0),
                      (V["public_keys"]["north"], 1), ("nonsense", 1)):
        result = CliRunner().invoke(cli, ["verify", "--server-key", key, str(path)],
                                    env={"NO_COLOR": "1"})
        assert result.exit_code == code, (key, result.stderr)
        if code:
            assert "not by the expected key" in result.stderr


@pytest.mark.parametrize("text", ["", "not json", "[]", "null", "{}", "{" * 50000,
                                  '{"format": "pbem-archive-v2"}', '{"format": 2.5}',
                                  '{"a": 1, "a": 2}', b"\xff\xfe", "\x00"])
def test_malformed_files_are_refused_in_one_sentence(tmp_path, text):
    result = run(tmp_path, None, text=text)
    assert result.exit_code == 1 and result.stderr.startswith("pbem: ")
    assert result.stderr.count("\n") == 1


def test_random_damage_never_gives_an_unexpected_error(tmp_path):
    """One-bit flips, cuts and key renames of the exported file, through the whole command."""
    data = bytearray(export_text(V["archive"]).encode("utf-8"))
    rnd = random.Random(7)
    for _ in range(60):
        i, bit = rnd.randrange(len(data)), 1 << rnd.randrange(8)
        data[i] ^= bit
        assert run(tmp_path, None, text=bytes(data)).exit_code == 1, (i, bit)
        data[i] ^= bit
    for cut in sorted(rnd.sample(range(len(data) - 2), 20)):
        assert run(tmp_path, None, text=bytes(data[:cut])).exit_code == 1, cut


def test_a_missing_file_is_one_sentence(tmp_path):
    result = CliRunner().invoke(cli, ["verify", str(tmp_path / "nope.json")])
    assert result.exit_code == 1 and "cannot read" in result.stderr


def test_a_forged_archive_cannot_drive_the_terminal(tmp_path):
    """Names and moves from the file are printed with control characters escaped."""
    from tests.helpers.archives import FORGER, ArchiveBuilder
    b = ArchiveBuilder("pig", "g\x1b[2J\r", {"north": FORGER, "east": FORGER}, FORGER,
                       bytes(32), {"target": 3})
    b.move("north", "peek")
    result = run(tmp_path, b.archive())
    assert result.exit_code == 5 and "\x1b" not in result.flat and "\r" not in result.flat
    assert "game g\\x1b[2J\\r" in result.flat
    b = ArchiveBuilder("pig", "g2", {"\x1b]0;owned\x07": FORGER, "east": FORGER}, FORGER,
                       bytes(32), {"target": 3})
    result = run(tmp_path, b.archive())
    assert result.exit_code == 1 and "the header's seats are \\x1b]0;owned\\x07, east" \
        in result.stderr
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr


def test_the_talk_line_says_none_rather_than_counting_zero_things():
    """It said "standing orders: 0 signed order(s), and every one of the 0 move(s) played
    for them follows from its order"."""
    from client.commands.archive import _talk_summary
    said = _talk_summary({"messages": [{}, {}], "orders": 0, "order_entries": 0})
    assert said == ["Table talk: 2 signed message(s) verified. Standing orders: none."]
    said = _talk_summary({"messages": [], "orders": 2, "order_entries": 0})
    assert said == ["Table talk: none. Standing orders: 2 signed order(s); no move was "
                    "played for them."]
    said = _talk_summary({"messages": [{}], "orders": 1, "order_entries": 3})[0]
    assert "every one of the 3 move(s) played for them follows from its order" in said
    assert _talk_summary({"messages": [], "orders": 0}) == []
