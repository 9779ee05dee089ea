"""Computing in steps: one progress bar over several computations, each computation on its
own keys on a cluster (:func:`compute_apart`), and the statistics a pad repeats settled
(computed and put into the graph as values) before a tiled store reads them
(:func:`settle_statistics`)."""

from __future__ import annotations

import contextlib
import sys
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TextIO

from daskpad._compat.graphs import (
    key_values,
    layer_dependencies,
    layer_keys,
    marked_layers,
    optimized_graph,
    renamed,
    with_values,
)
from daskpad._compat.schedulers import (
    distributed_client,
    distributed_scheduler,
    progress_callback,
)
from daskpad.core.registry import SETTLE_FIRST


class TileProgress:
    """One tqdm bar over all the tiles' computations, on stderr unless ``out`` says: a dask
    callback moves it within a tile as the tile's tasks finish (local threads), and each
    finished tile moves it to the next (a cluster: whole tiles). (dask's ``ProgressBar``
    and distributed's ``progress`` each draw one computation and restart at 0 for the
    next: a tiled store is many.)"""

    def __init__(
        self, ntiles: int, out: TextIO | None = None, every: float = 0.1, what: str = "tile"
    ):
        try:
            from tqdm import tqdm
        except ImportError:
            raise ImportError(
                "progress=True draws its bar with tqdm: pip install tqdm (or daskpad[cli])"
            ) from None
        self.ntiles = ntiles
        self.what = what
        self.done_tiles = 0
        self.bar = tqdm(
            total=ntiles,
            file=sys.stderr if out is None else out,
            mininterval=every,
            ascii=" #",
            bar_format="[{bar:40}] | {percentage:3.0f}% Completed | {desc} | {elapsed}",
            desc=self._where(),
        )

    def _where(self) -> str:
        return f"{self.what} {min(self.done_tiles + 1, self.ntiles)} of {self.ntiles}"

    def callback(self) -> Any:
        """A dask callback moving the bar as the current tile's tasks finish."""
        return progress_callback(self.draw)

    def tile_done(self) -> None:
        self.done_tiles += 1
        self.draw(0.0, force=True)

    def draw(self, within: float, force: bool = False) -> None:
        self.bar.n = min(self.done_tiles + within, self.ntiles)
        self.bar.set_description_str(self._where(), refresh=False)
        if force:
            self.bar.refresh()
        else:
            self.bar.update(0)  # redrawn at most every ``every`` seconds

    def finish(self) -> None:
        self.bar.close()


@contextlib.contextmanager
def step(bar: TileProgress | None) -> Iterator[None]:
    """One step of ``bar`` (``None``: no bar): drawn as the computation inside runs, then
    counted done."""
    if bar is None:
        yield
        return
    with bar.callback():
        yield
    bar.tile_done()


#: runs one computation: a list of dask collections in, their results out
Run = Callable[[Sequence[Any]], Sequence[Any]]


def compute_tiles(
    jobs: Iterable[list[Any]], ntiles: int, progress: bool, run: Run | None = None
) -> None:
    """Compute each job (a list of dask collections writing one tile) in its own
    computation: a tile's input is released before the next tile starts; with
    ``progress``, one bar over the ``ntiles`` tiles.

    It runs on the default scheduler, a distributed client's cluster when there is one.
    There each tile's tasks get keys of their own (:func:`fresh_keys`): neighbouring tiles
    read the same input blocks, and a graph that names keys the scheduler is still
    releasing from the previous tile can fail in distributed's scheduler (a KeyError for an
    input key, distributed 2026.8; dask/dask#9888). ``run`` runs each computation instead
    (:func:`compute_apart` by default).
    """
    run = run or compute_apart
    bar = TileProgress(ntiles) if progress else None
    for writes in jobs:
        with step(bar):
            run(writes)
    if bar is not None:
        bar.finish()


def compute_apart(collections: Sequence[Any]) -> Sequence[Any]:
    """``dask.compute(*collections)``; on a distributed cluster, under keys of their own
    (:func:`fresh_keys`), the results in the order of the collections' flattened keys."""
    import dask

    schedule = distributed_scheduler(collections)
    if schedule is not None:
        return list(schedule(*fresh_keys(collections)))
    return list(dask.base.compute(*collections))


def fresh_keys(collections: Sequence[Any]) -> tuple[dict[Any, Any], list[Any]]:
    """The graph that computes ``collections`` (optimised as ``dask.compute`` does) with
    every key renamed to one no other computation uses, and its output keys. On a
    distributed cluster the new key names end with the client's :func:`run_tag`, which
    names them as this client's on the workers."""
    dsk, keys = optimized_graph(collections)
    client = distributed_client(collections)
    suffix = uuid.uuid4().hex + ("" if client is None else run_tag(client))
    graph, rename = renamed(dsk, suffix)
    return graph, [rename(key) for key in keys]


def run_tag(client: Any) -> str:
    """The end of the key names of every computation :func:`fresh_keys` hands to the
    distributed ``client``: a run that stops waits for the workers' tasks whose names end
    with it before it removes what they write into
    (:func:`daskpad.pipeline.cluster.stopping_first`)."""
    return f"-{client.id}"


def settle_statistics(
    arrays: Sequence[Any], budget: int, progress: bool = False, run: Run | None = None
) -> list[Any]:
    """``arrays`` with the statistics their pad blocks repeat (modes maximum, mean, median,
    minimum) computed now and put into their graphs as data.

    A statistic of the whole axis reads every block along it. Left in the graph, every
    tile at the array's edge would read the axis again; settled first, the statistics are
    read once per padded axis, and a tile reads only its own blocks. They are computed
    axis after axis (a later axis's statistic reads the earlier pads), a few face blocks
    per computation: those whose lines add up to about ``budget`` bytes of input (a median
    holds its whole lines). Arrays without statistics, or whose graphs are not layered
    (dask's array query planning), are returned as they are. ``progress``: one bar over
    the computations; ``run`` runs each (:func:`compute_apart` by default).
    """
    run = run or compute_apart
    out = list(arrays)
    pending: dict[int, set[str]] = {}
    for i, x in enumerate(out):
        names = marked_layers(x, SETTLE_FIRST)
        if names:
            pending[i] = names
    # keys per computation, for each statistic layer: a few face blocks of whole lines,
    # each reading about the array's bytes over the layer's keys
    per: dict[str, int] = {}
    computations = 0
    for i, names in pending.items():
        for name in names - set(per):
            nkeys = len(layer_keys(out[i], name))
            per[name] = max(1, budget * nkeys // max(out[i].nbytes, 1))
            computations += -(-nkeys // per[name])
    bar = TileProgress(computations, what="statistics") if progress and per else None
    settled: dict[str, Any] = {}  # statistic layer -> its values, as a layer
    while pending:
        for i, names in pending.items():
            layers = layer_dependencies(out[i])
            assert layers is not None
            for name in names:
                if name in settled or _reads_any(layers, name, names - {name}):
                    continue
                settled[name] = _settle_layer(out[i], name, per[name], bar, run)
        for i, names in list(pending.items()):
            out[i] = with_values(out[i], {n: settled[n] for n in names if n in settled})
            pending[i] = names - set(settled)
            if not pending[i]:
                del pending[i]
    if bar is not None:
        bar.finish()
    return out


def _reads_any(layers: Mapping[str, set[str]], name: str, others: set[str]) -> bool:
    """Whether layer ``name`` depends, at any depth, on one of ``others`` (``layers``: the
    layers each layer reads)."""
    seen, stack = set(), [name]
    while stack:
        for dep in layers[stack.pop()]:
            if dep in others:
                return True
            if dep not in seen:
                seen.add(dep)
                stack.append(dep)
    return False


def _settle_layer(
    x: Any, name: str, per: int, bar: TileProgress | None, run: Run
) -> dict[Any, Any]:
    """The values of the keys of layer ``name`` of ``x``'s graph, computed ``per`` keys at
    a time by ``run``."""
    keys = sorted(layer_keys(x, name), key=str)
    values: dict[Any, Any] = {}
    for start in range(0, len(keys), per):
        batch = keys[start : start + per]
        with step(bar):
            results = run(key_values(x, name, batch))
        values.update(zip(batch, results))
    return values
