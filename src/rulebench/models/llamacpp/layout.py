"""How the llamacpp engine spreads its work: lanes, sequences per lane, threads per lane.

A lane is a llama.cpp context with a thread of its own (llamacpp_batch_lane). Two shapes use
the same cores differently:

- one lane decoding every sequence with all the threads: each step is one llama.cpp call,
  whose threads meet at a barrier after every operation;
- a lane per core, one thread each, each decoding its share of the sequences: no barriers,
  but each lane's steps hold fewer sequences, and a lane with nothing to do leaves its core idle.

Which is faster depends on how many prompts are in flight (bench/bench_local.py
--batched-bench, docs/performance.md): with fewer prompts than would give each lane
SEQUENCES_PER_LANE the lanes starve, so one lane takes them all; with more, the lanes
(as many as cores allow, the cores shared out among them) decode side by side. The run says
how many it keeps in flight (`LlamaCppModel.expect_in_flight`); without that (the library
called directly), and wherever `-M lanes=`, `n_seq_max=` or `n_threads=` are given, the old
rule holds: up to 2 lanes of one thread each, sequences from the KV budget.
"""

from dataclasses import dataclass

KV_BUDGET_BYTES = 384 << 20
"""KV cache the sizing may take for all sequences when the prompts in flight are not known: 4
sequences of 4,096 tokens for the embedded model (22.5 KiB a token), one for a 7B model
without grouped-query attention."""
KV_BUDGET_IN_FLIGHT_BYTES = 1536 << 20
"""The same when a run says how many prompts it keeps in flight, so that each has a sequence:
17 of 4,096 tokens for the embedded model, 3 for an 8B model with grouped-query attention
(128 KiB a token). Fewer sequences than prompts leave prompts waiting (docs/performance.md,
"The layout by the work")."""
MAX_AUTO_SEQUENCES = 8
"""Sequences the sizing stops at when the prompts in flight are not known: a step of 8
sequences already costs several times a step of one, for less than twice the tokens/s."""
MAX_SEQUENCES = 32
"""Sequences the sizing stops at when they are known."""
SEQUENCES_PER_LANE = 4
"""A lane per core once each would decode this many sequences; below that one lane on every
core is faster, and the two tie near it (bench_local --batched-bench, docs/performance.md)."""


@dataclass(frozen=True)
class Layout:
    """Lanes side by side, the sequences each decodes together, and the threads each uses."""

    lanes: int
    sequences: int
    threads: int
    threads_batch: int
    why: str

    def describe(self) -> str:
        """The choice in one line, for the log and the run's notes."""
        return (
            f"llamacpp: {self.lanes} lane(s) x {self.sequences} sequence(s), "
            f"{self.threads} thread(s) each ({self.why})"
        )


@dataclass(frozen=True)
class LayoutRequest:
    """What the layout is chosen from: the settings given, the model's KV size, the machine."""

    n_ctx: int
    kv_bytes_per_token: int
    cpus: int
    in_flight: int | None = None
    lanes: int | None = None
    n_seq_max: int | None = None
    n_threads: int | None = None
    n_threads_batch: int | None = None


def _kv_sequences(request: LayoutRequest, cap: int, budget: int = KV_BUDGET_BYTES) -> int:
    fits = budget // max(1, request.n_ctx * request.kv_bytes_per_token)
    return max(1, min(cap, fits))


def choose_layout(request: LayoutRequest) -> Layout:
    """The layout for this work: the settings' where given, else chosen from it."""
    given = request.lanes is not None or request.n_seq_max is not None
    if request.in_flight is None or given or request.n_threads is not None:
        return _fixed_layout(request)
    cpus = max(1, request.cpus)
    wanted = min(MAX_SEQUENCES, max(1, request.in_flight))
    total = _kv_sequences(request, wanted, KV_BUDGET_IN_FLIGHT_BYTES)
    batch_threads = request.n_threads_batch
    if cpus > 1 and total >= SEQUENCES_PER_LANE * 2:
        lanes = min(cpus, total // SEQUENCES_PER_LANE)
        threads = cpus // lanes
        why = f"{request.in_flight} prompts in flight on {cpus} cores fill {lanes} lanes"
        return Layout(lanes, -(-total // lanes), threads, batch_threads or threads, why)
    why = f"{request.in_flight} prompt(s) in flight on {cpus} core(s): one lane uses them all"
    return Layout(1, total, cpus, batch_threads or cpus, why)


def _fixed_layout(request: LayoutRequest) -> Layout:
    """Up to 2 lanes of one thread each (or as given), sequences from the KV budget."""
    lanes = request.lanes or max(1, min(2, request.cpus))
    threads, batch_threads = request.n_threads or 1, request.n_threads_batch or 1
    if request.n_seq_max is not None:
        return Layout(lanes, request.n_seq_max, threads, batch_threads, "as given")
    total = _kv_sequences(request, MAX_AUTO_SEQUENCES)
    if request.lanes is None:
        lanes = min(lanes, total)
    why = "as given" if request.lanes is not None else "prompts in flight not known"
    return Layout(lanes, max(1, total // lanes), threads, batch_threads, why)
