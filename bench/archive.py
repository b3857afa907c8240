"""6. Archive verification: ``pbem verify`` of a 2,000-move archive, against a bare replay.

The archive is built offline exactly as the server would write it (header, signed envelopes,
hash chain, server-signed head, revealed seed): a finished Pig game of exactly 2,000 moves
(1,998 ``hold``s with an empty pot, then a ``roll`` and the winning ``hold``, target 1).  When
the Zarahemla engine loads, a finished random Zarahemla game is verified too: there the replay
itself costs something.
"""

import json
import random
import secrets
import subprocess
import sys
import time

from .common import ROOT, child_env, fmt_ms, fmt_us, median

SECTION = "6. archive"
MOVES = 2000


class ArchiveBuilder:
    def __init__(self, game, n_seats, options):
        from shared.envelope import public_key_hex, seed_commitment
        self.game = game
        self.seed = secrets.token_bytes(32)
        self.server_key = secrets.token_bytes(32)
        self.game_id = "bench" + secrets.token_hex(3)
        seats = game.seat_names(n_seats, options)
        self.keys = {s: secrets.token_bytes(32) for s in seats}
        self.header = {"game": self.game_id, "type": game.name,
                       "rules_version": str(game.rules_version), "options": options,
                       "seats": [{"seat": s, "player": f"p{i}", "public_key":
                                  public_key_hex(self.keys[s])} for i, s in enumerate(seats)],
                       "seed_commitment": seed_commitment(self.seed),
                       "server_key": public_key_hex(self.server_key),
                       "created": "2026-01-01T00:00:00+00:00"}

    def start(self):
        from shared.envelope import genesis_hash
        self.state = self.game.new_game([s["seat"] for s in self.header["seats"]],
                                        self.header["options"], self.seed)
        self.entries = []
        self.prev = genesis_hash(self.header)
        self.genesis = self.prev

    def move(self, seat, text):
        """Sign, chain and apply one move; returns the new state (raises if illegal)."""
        from shared.envelope import entry_hash, make_envelope, move_entropy, sign_envelope
        seq = len(self.entries)
        env = make_envelope(self.game_id, seq, self.prev, seat, text, secrets.token_hex(8),
                            1_800_000_000 + seq)
        raw, sig = sign_envelope(self.keys[seat], env)
        state = self.game.play(json.loads(json.dumps(self.state)) if self._copy else self.state,
                               seat, text, move_entropy(self.game_id, seq, self.prev))
        self.state = state
        digest = entry_hash(raw.encode("utf-8"), sig)
        self.entries.append({"seq": seq, "envelope": raw, "signature": sig, "hash": digest})
        self.prev = digest
        return state

    _copy = False

    def archive(self):
        """The finished game's archive: start signature, final head, seed and result."""
        from shared.archive import FORMAT
        from shared.envelope import final_head_message, sign, start_message
        n = len(self.entries)
        result = json.loads(json.dumps(self.game.result(self.state)))
        head = {"game": self.game_id, "length": n, "hash": self.prev, "status": "over",
                "signature": sign(self.server_key, final_head_message(
                    self.game_id, n, self.prev, result, self.seed.hex()))}
        return {"format": FORMAT, "header": self.header, "genesis": self.genesis,
                "start_signature": sign(self.server_key, start_message(self.game_id,
                                                                       self.genesis)),
                "entries": self.entries, "head": head, "seed": self.seed.hex(),
                "result": result}


def pig_archive():
    from shared.games import get_game
    game = get_game("pig")
    for _ in range(50):
        b = ArchiveBuilder(game, 2, {"target": 1})
        b.start()
        seats = [s["seat"] for s in b.header["seats"]]
        for i in range(MOVES - 2):
            b.move(seats[i % 2], "hold")
        first = seats[(MOVES - 2) % 2]
        b.move(first, "roll")
        if game.to_act(b.state) == [first]:       # not a 1: the pot holds 2..6
            b.move(first, "hold")
            if game.result(b.state):
                return b.archive()
    raise RuntimeError("could not finish a Pig game in exactly 2,000 moves")


def zarahemla_archive(max_moves=6000):
    from shared.games import get_game
    game = get_game("zarahemla")
    rnd = random.Random(5)
    for _ in range(5):
        b = ArchiveBuilder(game, 4, {})
        b.start()
        while len(b.entries) < max_moves:
            owing = game.to_act(b.state)
            if not owing:
                return b.archive()
            seat = rnd.choice(owing)
            b.move(seat, rnd.choice(game.legal_moves(b.state, seat)))
    raise RuntimeError(f"no random Zarahemla game ended within {max_moves} moves")


def _measure(run, label, archive, workdir, reps):
    from shared.archive import check_chain, replay, verify_archive
    from shared.envelope import parse_canonical
    from shared.games import get_game
    n = len(archive["entries"])
    path = workdir / f"{label}.json"
    path.write_text(json.dumps(archive))
    game = get_game(archive["header"]["type"])
    seed = bytes.fromhex(archive["seed"])
    envelopes = [parse_canonical(e["envelope"]) for e in archive["entries"]]
    t_verify, t_replay, t_chain = [], [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        verify_archive(archive)
        t_verify.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        replay(game, archive["header"], seed, envelopes)
        t_replay.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        check_chain(archive)
        t_chain.append(time.perf_counter() - t0)
    v, r, c = median(t_verify), median(t_replay), median(t_chain)
    cli = []
    env = child_env({"NO_COLOR": "1"})
    for i in range(reps + 1):
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c",
                               "import sys; from client.cli import main; sys.exit(main())",
                               "verify", str(path)], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=300)
        if proc.returncode != 0:
            raise RuntimeError(f"pbem verify exited {proc.returncode}: {proc.stderr[-200:]}")
        if i:
            cli.append(time.perf_counter() - t0)
    w = median(cli)
    run.add(SECTION, f"pbem verify, {label} archive of {n:,} moves (whole command)",
            f"{fmt_ms(w)} = {fmt_us(w / n)} per move")
    run.add(SECTION, f"verify_archive in-process, {label}",
            f"{fmt_ms(v)} = {fmt_us(v / n)} per move (signatures + links alone: "
            f"{fmt_us(c / n)} per move)")
    run.add(SECTION, f"replay without signature checks, {label}",
            f"{fmt_ms(r)} = {fmt_us(r / n)} per move")
    run.add(SECTION, f"verify / replay ratio, {label}",
            f"{v / r:.1f}x in-process; {w / r:.1f}x for the whole pbem verify")
    if run.settings.profile and label == "pig":
        _profile(run, archive)


def _profile(run, archive):
    """cProfile of verify_archive: own time per function (deterministic, unlike sampling)."""
    import cProfile
    import pstats

    from shared.archive import verify_archive
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(3):
        verify_archive(archive)
    prof.disable()
    stats = pstats.Stats(prof)
    total = stats.total_tt
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:9]
    lines = [f"  {tt / total:6.1%}  {name} ({'/'.join(path.split('/')[-2:])}:{line})"
             for (path, line, name), (cc, nc, tt, ct, callers) in rows]
    cum = {name: ct / total for (path, line, name), (cc, nc, tt, ct, callers)
           in stats.stats.items() if name in ("verify", "parse_canonical", "replay",
                                              "validate_envelope", "entry_hash")
           and path.endswith(("shared/envelope.py", "shared/archive.py"))}
    run.note(SECTION, "cProfile, verify_archive of the Pig archive; cumulative share: "
             + ", ".join(f"{k} {v:.0%}" for k, v in sorted(cum.items(), key=lambda kv: -kv[1]))
             + "\ntop functions by own time:\n" + "\n".join(lines))


def main(run):
    from .common import guarded
    reps = 3 if run.settings.quick else 7
    archive = guarded(run, SECTION, "2,000-move Pig archive", pig_archive)
    if archive is not None:
        guarded(run, SECTION, "pig archive verification", _measure, run, "pig", archive,
                run.settings.workdir, reps)
    zar = guarded(run, SECTION, "random Zarahemla archive", zarahemla_archive)
    if zar is not None:
        guarded(run, SECTION, "zarahemla archive verification", _measure, run, "zarahemla",
                zar, run.settings.workdir, reps)
