"""Several results stores read in place as one: each run is read from the store that holds it.

Sharded runs and runs on many machines leave one store each; reading them where they lie
(`rulebench serve`, `rulebench report` with several `--store`) spares a merge. Run ids are
unique in practice (a second and 24 random bits); an id found in two stores is the same run
when its record and results are the same (a copied file), and is refused otherwise, naming
both files, since no reader could tell which one a link or a report means.
"""

import hashlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

from rulebench.core.errors import StoreError
from rulebench.core.items import ItemResult
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord
from rulebench.engine.summary import Tally

STORE_SUFFIX = ".sqlite"
"""A folder given as a store stands for the files directly in it with this ending."""
MAX_RUNS = 1_000_000
"""More runs than any store holds: the start's check of shared ids reads them all."""


def expand_store_paths(given: Sequence[Path]) -> tuple[Path, ...]:
    """The store files `given` names: a file as it is, a folder as its `*.sqlite` files.

    The same file named twice (or through a folder and by name) counts once, in its first place.

    Raises:
        StoreError: a folder without a store file in it.
    """
    found: list[Path] = []
    for path in given:
        if path.is_dir():
            inside = sorted(p for p in path.glob(f"*{STORE_SUFFIX}") if p.is_file())
            if not inside:
                raise StoreError(f"no results store (*{STORE_SUFFIX}) in the folder {path}")
            found += inside
        else:
            found.append(path)
    unique: dict[Path, Path] = {}
    for path in found:
        unique.setdefault(path.resolve(), path)
    return tuple(unique.values())


class StoreSet:
    """Read-only stores read as one; the runs they share must be the same runs."""

    def __init__(self, stores: Sequence[Store], *, owned: bool = True) -> None:
        """`owned`: closing the set closes the stores (False: the caller closes them)."""
        if not stores:
            raise StoreError("no results store given")
        self.stores = tuple(stores)
        self._owned = owned

    @classmethod
    def open(cls, paths: Sequence[Path]) -> "StoreSet":
        """The stores at `paths` (see `expand_store_paths`), each opened read-only.

        A missing, damaged or foreign file, or one a newer rulebench wrote, is the store's
        own one-line StoreError naming the file; nothing is written to any of them.
        """
        opened: list[Store] = []
        try:
            for path in expand_store_paths(paths):
                opened.append(Store(path, readonly=True))
        except BaseException:
            for store in opened:
                store.close()
            raise
        return cls(opened)

    @classmethod
    def of(cls, source: "Store | StoreSet") -> "StoreSet":
        """`source` as a set: a lone store is wrapped, and stays the caller's to close."""
        return source if isinstance(source, StoreSet) else cls([source], owned=False)

    @property
    def paths(self) -> tuple[Path, ...]:
        """The stores' files, in the order given."""
        return tuple(store.path for store in self.stores)

    @property
    def is_several(self) -> bool:
        """Whether more than one store is read (pages then name each run's store)."""
        return len(self.stores) > 1

    def close(self) -> None:
        """Close the stores this set opened."""
        if self._owned:
            for store in self.stores:
                store.close()

    def __enter__(self) -> "StoreSet":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Runs

    def locate(self, run_id: str) -> tuple[Store, RunRecord]:
        """The store holding a run (by id or unique prefix) and the run.

        Raises:
            StoreError: no store holds it, a prefix names different runs, or one id names
                different runs in two stores (each message names the files).
        """
        if len(self.stores) == 1:
            store = self.stores[0]
            return store, store.get_run(run_id)
        found: list[tuple[Store, RunRecord]] = []
        for store in self.stores:
            try:
                found.append((store, store.get_run(run_id)))
            except StoreError as exc:
                if "matches several runs" in str(exc):
                    raise
        if not found:
            listed = ", ".join(str(path) for path in self.paths)
            raise StoreError(f"no run '{run_id}' in {listed} (see `rulebench runs list`)")
        exact = [(store, run) for store, run in found if run.id == run_id]
        if not exact and len({run.id for _, run in found}) > 1:
            named = ", ".join(f"{run.id} in {store.path}" for store, run in found)
            raise StoreError(f"'{run_id}' matches several runs ({named}): give more of the id")
        holders = exact or found
        check_same_run(holders)
        return holders[0]

    def get_run(self, run_id: str) -> RunRecord:
        """A run by id or unique prefix, from whichever store holds it."""
        return self.locate(run_id)[1]

    def store_of(self, run_id: str) -> Store:
        """The store a run is read from (the first that holds it)."""
        return self.locate(run_id)[0]

    def list_runs(self, limit: int = 50) -> list[tuple[Store, RunRecord]]:
        """The most recent runs of every store first, each with its store (a run once)."""
        listed = [(store, run) for store in self.stores for run in store.list_runs(limit)]
        listed.sort(key=lambda pair: pair[1].started_at, reverse=True)  # stable: store order
        seen: set[str] = set()
        unique = []
        for store, run in listed:
            if run.id not in seen:
                seen.add(run.id)
                unique.append((store, run))
        return unique[:limit]

    def check_shared_runs(self) -> None:
        """Refuse an id held by two stores with different content (at a server's start).

        Raises:
            StoreError: naming the run and both stores.
        """
        holders: dict[str, list[Store]] = {}
        for store in self.stores:
            for run in store.list_runs(MAX_RUNS):
                holders.setdefault(run.id, []).append(store)
        for run_id, stores in holders.items():
            if len(stores) > 1:
                check_same_run([(store, store.get_run(run_id)) for store in stores])

    def runs_held_before(self) -> list[tuple[str, ...]]:
        """For each store, in order, the ids of its runs an earlier store holds too.

        Such a run is one run (`check_shared_runs`), read from the first store: a search over
        every store leaves it out of the later ones, so its hits are listed once.
        """
        seen: set[str] = set()
        held = []
        for store in self.stores:
            ids = {run.id for run in store.list_runs(MAX_RUNS)}
            held.append(tuple(sorted(ids & seen)))
            seen |= ids
        return held

    # Reads of one run, from its store

    def effective_status(self, run: RunRecord) -> str:
        """The run's status as its store reads it (`Store.effective_status`)."""
        return self.store_of(run.id).effective_status(run)

    def count_results(self, run_id: str) -> dict[str, int]:
        """Results of a run by status (`Store.count_results`)."""
        return self.store_of(run_id).count_results(run_id)

    def tally_results(self, run_id: str, group_by: str | None = None) -> list[Tally]:
        """Sums over a run's results (`Store.tally_results`)."""
        return self.store_of(run_id).tally_results(run_id, group_by)

    def iter_results(self, run_id: str) -> Iterator[ItemResult]:
        """A run's results in finishing order (`Store.iter_results`)."""
        return self.store_of(run_id).iter_results(run_id)


def check_same_run(holders: Sequence[tuple[Store, RunRecord]]) -> None:
    """Refuse one run id whose record or results differ between the stores holding it.

    Raises:
        StoreError: naming the run and the first two stores that differ.
    """
    first_store, first_run = holders[0]
    first = run_fingerprint(first_store, first_run)
    for store, run in holders[1:]:
        if run_fingerprint(store, run) != first:
            raise StoreError(
                f"run {run.id} is in both {first_store.path} and {store.path} with different "
                "content: read one of them (or merge them with `rulebench runs merge`, which "
                "names the conflict)"
            )


def run_fingerprint(store: Store, run: RunRecord) -> str:
    """A digest of a run's record and of every stored result, in item order.

    Timings and the process id aside: the same run copied to two files reads the same.
    """
    digest = hashlib.sha256()
    record = run.model_dump(mode="json", exclude={"pid"})
    digest.update(json.dumps(record, sort_keys=True).encode())
    results = sorted(store.iter_results(run.id), key=lambda result: result.item_id)
    for result in results:
        shown = result.model_dump(mode="json", exclude={"latency_s"})
        digest.update(json.dumps(shown, sort_keys=True, default=str).encode())
    return digest.hexdigest()
