"""1. Rules engines under random legal players, side by side with Catanatron; move checks.

Random play = the loop a bot or a replaying server runs: ask who owes a move, list that
seat's legal moves, pick one at random, apply it.  One process, one core.

Rates are actions per second of the process's own CPU time (``time.process_time``), for
our engines and Catanatron alike: on a shared machine, wall-clock rates mostly measure the
other processes (the slices are still interleaved, so a burst of load hits every engine).

Targets: Zarahemla at least 3x Catanatron's actions per second; Stone Age within
1.5x of Zarahemla (Zarahemla's rate / Stone Age's at most 1.5).
"""

import random
import secrets
import time

from .common import fmt_rate, fmt_us, guarded, median, percentile

SECTION = "1. engines"
GAMES = ("zarahemla", "stone_age", "title_of_liberty")
MAX_PLIES = 20000          # a random game that has not ended by then is abandoned
ZARAHEMLA_OVER_CATANATRON = 3.0
ZARAHEMLA_OVER_STONE_AGE = 1.5


def _seats(game):
    n = 4 if game.min_seats <= 4 <= game.max_seats else game.max_seats
    return game.seat_names(n, {})


class RandomPlay:
    """Random legal play of one game type, resumable in slices so runs can interleave."""

    def __init__(self, game, seed=1):
        self.game = game
        self.rnd = random.Random(seed)
        self.state = None
        self.ply = 0
        self.actions = 0
        self.games = 0
        self.finished = 0
        self.elapsed = 0.0
        self.samples = []          # (state copy, seat, move) for the move-check benchmark

    def _new(self):
        self.state = self.game.new_game(_seats(self.game), {}, secrets.token_bytes(32))
        self.ply = 0
        self.games += 1

    def run(self, seconds, sample_every=0, max_samples=0):
        import json
        game, rnd = self.game, self.rnd
        t0, cpu0 = time.perf_counter(), time.process_time()
        end = t0 + seconds
        actions = 0
        while True:
            if self.state is None:
                self._new()
            state = self.state
            for _ in range(256):
                owing = game.to_act(state)
                if not owing or self.ply >= MAX_PLIES:
                    self.finished += bool(not owing)
                    state = None
                    break
                seat = owing[0] if len(owing) == 1 else rnd.choice(owing)
                moves = game.legal_moves(state, seat)
                move = rnd.choice(moves)
                if sample_every and actions % sample_every == 0 \
                        and len(self.samples) < max_samples:
                    self.samples.append((json.loads(json.dumps(state)), seat, move))
                state = game.play(state, seat, move, b"bench|%d" % self.ply)
                self.ply += 1
                actions += 1
            self.state = state
            if time.perf_counter() >= end:
                break
        self.elapsed += time.process_time() - cpu0
        self.actions += actions

    @property
    def rate(self):
        return self.actions / self.elapsed if self.elapsed else 0.0


class CatanatronPlay:
    """Catanatron 4-player games between its RandomPlayer bots, whole games at a time."""

    def __init__(self):
        from catanatron import Color, Game, RandomPlayer
        self._make = lambda: Game([RandomPlayer(c) for c in
                                   (Color.RED, Color.BLUE, Color.WHITE, Color.ORANGE)])
        self.actions = 0
        self.games = 0
        self.elapsed = 0.0

    def run(self, seconds):
        t0, cpu0 = time.perf_counter(), time.process_time()
        end = t0 + seconds
        while True:
            game = self._make()
            game.play()
            self.actions += len(game.state.actions)
            self.games += 1
            if time.perf_counter() >= end:
                break
        self.elapsed += time.process_time() - cpu0

    @property
    def rate(self):
        return self.actions / self.elapsed if self.elapsed else 0.0


def _load_game(name):
    from shared.games import get_game
    return get_game(name)


def _smoke(game):
    """Play a few moves so a half-broken engine is reported, not crashed on."""
    RandomPlay(game, seed=7).run(0.05)


def _profile_random_play(run, game, seconds):
    try:
        from pyinstrument import Profiler
    except ImportError:
        return
    player = RandomPlay(game, seed=3)
    prof = Profiler(interval=0.0005)
    prof.start()
    player.run(seconds)
    prof.stop()
    run.note(SECTION, f"pyinstrument, {game.name} random play ({seconds:.0f} s), "
                      "top functions by own time:\n" + _flat(prof))


def _flat(prof, top=10):
    text = prof.output_text(flat=True, time="percent_of_total", unicode=False, color=False)
    lines = [ln.rstrip() for ln in text.splitlines() if "%" in ln][:top]
    return "\n".join(lines)


def bench_random_play(run):
    quick = run.settings.quick
    slice_s = 0.5 if quick else 2.0
    rounds = 2 if quick else 4
    players = {}
    for name in GAMES:
        game = guarded(run, SECTION, f"{name} random play", _load_game, name)
        if game is None:
            continue
        try:
            _smoke(game)
        except Exception as exc:  # noqa: BLE001 - an engine being edited right now
            run.unavailable(SECTION, f"{name} random play", f"{exc.__class__.__name__}: {exc}")
            continue
        players[name] = RandomPlay(game)
    catan = guarded(run, SECTION, "Catanatron random play", CatanatronPlay)
    # Interleave slices so a burst of load from others hits every engine alike.
    broken = set()
    for _ in range(rounds):
        for name, player in players.items():
            if name in broken:
                continue
            try:
                player.run(slice_s)
            except Exception as exc:  # noqa: BLE001 - an engine being edited right now
                broken.add(name)
                run.unavailable(SECTION, f"{name} random play",
                                f"{exc.__class__.__name__}: {exc}")
        if catan is not None:
            catan.run(slice_s)
    if catan is not None:
        run.add(SECTION, "Catanatron random play (4 RandomPlayers)",
                f"{fmt_rate(catan.rate)} actions ({catan.games} games, "
                f"{catan.elapsed / max(catan.games, 1) * 1000:.0f} ms CPU/game)")
    for name, player in players.items():
        if name in broken:
            continue
        per_game = player.actions / max(player.finished, 1)
        run.add(SECTION, f"{name} random play",
                f"{fmt_rate(player.rate)} actions ({player.finished} games finished, "
                f"~{per_game:,.0f} actions/game)")
    zar = players.get("zarahemla") if "zarahemla" not in broken else None
    if zar is not None and catan is not None and catan.rate:
        ratio = zar.rate / catan.rate
        target = ZARAHEMLA_OVER_CATANATRON
        run.add(SECTION, "zarahemla / Catanatron actions per second", f"{ratio:.2f}x",
                f">= {target:g}x", ratio >= target)
        if ratio < target and run.settings.profile:
            _profile_random_play(run, zar.game, 2 if quick else 5)
    sa = players.get("stone_age") if "stone_age" not in broken else None
    if zar is not None and sa is not None and sa.rate:
        ratio = zar.rate / sa.rate
        target = ZARAHEMLA_OVER_STONE_AGE
        run.add(SECTION, "zarahemla / stone_age actions per second", f"{ratio:.2f}x",
                f"<= {target:g}x", ratio <= target)
        if ratio > target and run.settings.profile:
            _profile_random_play(run, sa.game, 2 if quick else 5)
    bench_check(run, {n: p for n, p in players.items() if n not in broken})


def bench_check(run, players):
    """Time ``Game.check`` (parse + legality, no listing of every legal move)."""
    for name, player in players.items():
        game = player.game
        sampler = RandomPlay(game, seed=11)   # untimed: copying states would skew the rates
        try:
            sampler.run(1.0 if run.settings.quick else 3.0, sample_every=37, max_samples=400)
        except Exception as exc:  # noqa: BLE001
            run.unavailable(SECTION, f"{name} check one move", f"{exc.__class__.__name__}: {exc}")
            continue
        samples = sampler.samples
        if not samples:
            run.unavailable(SECTION, f"{name} check one move", "no sampled states")
            continue
        per_call = []
        reps = 20
        try:
            for state, seat, move in samples:
                game.check(state, seat, move)   # warm
                t0 = time.perf_counter_ns()
                for _ in range(reps):
                    game.check(state, seat, move)
                per_call.append((time.perf_counter_ns() - t0) / reps / 1e9)
        except Exception as exc:  # noqa: BLE001
            run.unavailable(SECTION, f"{name} check one move", f"{exc.__class__.__name__}: {exc}",
                            "<= 20 us")
            continue
        med, p90, worst = median(per_call), percentile(per_call, 90), max(per_call)
        run.add(SECTION, f"{name} check one move (median of {len(samples)} states)",
                f"{fmt_us(med)} (p90 {fmt_us(p90)}, max {fmt_us(worst)})", "<= 20 us",
                med <= 20e-6)
        if med > 20e-6 and run.settings.profile:
            _profile_check(run, game, samples)


def _profile_check(run, game, samples):
    try:
        from pyinstrument import Profiler
    except ImportError:
        return
    prof = Profiler(interval=0.0002)
    prof.start()
    end = time.perf_counter() + 2
    while time.perf_counter() < end:
        for state, seat, move in samples:
            game.check(state, seat, move)
    prof.stop()
    run.note(SECTION, f"pyinstrument, {game.name} check() over sampled states, top functions "
                      "by own time:\n" + _flat(prof))


def main(run):
    bench_random_play(run)
