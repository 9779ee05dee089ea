"""Graph facts of memory: running a padded array's tasks leaves nothing of daskpad in
reference cycles. A kernel whose closures form a cycle keeps the blocks it read (views of
whole input blocks) alive until Python's cycle collector runs, so their memory cannot be
reused by the next block: at pad 64 on 20000² float64 in chunks of 2000, each input block
the copying modes' pads read took 8.3 ms to generate on one thread against 5.4 ms in
dask.array.pad's graph."""

from __future__ import annotations

import gc
import os
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import dask.array as da
import numpy as np
import pytest
from helpers.graphfacts import MODE_KWARGS

import daskpad
from daskpad.core.registry import MODES
from daskpad.testing import pad_with_constant


def _ours(obj: Any) -> bool:
    """A function, an object or a running frame (a traceback's) of daskpad's own code."""
    if isinstance(obj, types.FunctionType):
        return (obj.__module__ or "").startswith("daskpad")
    if isinstance(obj, types.FrameType):
        return f"{os.sep}daskpad{os.sep}" in obj.f_code.co_filename
    return type(obj).__module__.startswith("daskpad")


@contextmanager
def cyclic_garbage() -> Iterator[list[Any]]:
    """The objects that became cyclic garbage inside the block (collected at its end)."""
    found: list[Any] = []
    # (a weakref callback run by a collection may free more cyclic garbage: collect until
    # none is left, or an earlier test's graph would count as this block's)
    for _ in range(10):
        if not gc.collect():
            break
    gc.disable()
    try:
        yield found
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        found += gc.garbage
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def _names(objs: list[Any]) -> list[str]:
    def name(o: Any) -> str:
        if isinstance(o, types.FrameType):
            return f"frame of {o.f_code.co_qualname}"
        return str(getattr(o, "__qualname__", type(o).__qualname__))

    return sorted({name(o) for o in objs if _ours(o)})


def source() -> da.Array:
    """3 x 3 blocks, the last ones partial: every pad reads edge blocks of two sizes."""
    return da.random.default_rng(0).random((70, 52), chunks=(24, 20))


CASES = [
    *((m, "even") for m in sorted(MODES)),
    ("reflect", "odd"),
    ("symmetric", "odd"),
    (pad_with_constant, "even"),
]


def _kwargs(mode, reflect_type) -> dict:
    kwargs = dict(MODE_KWARGS.get(str(mode), {}))
    if reflect_type == "odd":
        kwargs["reflect_type"] = "odd"
    return kwargs


@pytest.mark.parametrize(("mode", "reflect_type"), CASES, ids=lambda c: getattr(c, "__name__", c))
@pytest.mark.parametrize("width", [5, 200], ids=["narrow", "wider than the array"])
@pytest.mark.parametrize("chunks", [None, "regular"])
def test_running_a_pad_leaves_no_cycle_of_ours(mode, reflect_type, width, chunks):
    kwargs = _kwargs(mode, reflect_type)
    x = source()
    y = daskpad.pad(x, width, mode=mode, chunks=chunks, **kwargs)
    expected = np.pad(x.compute(), width, mode=mode, **kwargs)
    total = y.sum()
    # (an "empty" pad holds whatever memory held: its sum may overflow or meet a NaN)
    with np.errstate(all="ignore"), cyclic_garbage() as garbage:
        got = total.compute(scheduler="sync")
    assert _names(garbage) == []
    if mode != "empty":  # (whatever memory held)
        np.testing.assert_allclose(got, expected.sum())


@pytest.mark.parametrize(("mode", "reflect_type"), CASES, ids=lambda c: getattr(c, "__name__", c))
@pytest.mark.parametrize("width", [5, 200], ids=["narrow", "wider than the array"])
@pytest.mark.parametrize("chunks", [None, "regular"])
def test_a_padded_graph_is_no_cycle_of_ours(mode, reflect_type, width, chunks):
    # a padded array let go frees its graph (and the input it holds) at once, not when
    # Python's cyclic collector next runs: the tasks of pad blocks are made by closures over
    # names, never over the grid that holds the pad blocks
    kwargs = _kwargs(mode, reflect_type)
    with np.errstate(all="ignore"), cyclic_garbage() as garbage:
        y = daskpad.pad(source(), width, mode=mode, chunks=chunks, **kwargs)
        y.sum().compute(scheduler="sync")
        del y
    assert _names(garbage) == []


def test_per_axis_modes_and_map_overlap_leave_no_cycle_of_ours():
    x = source()
    y = daskpad.pad(x, ((3, 9), (20, 1)), mode={0: "wrap", 1: "reflect"}).sum()
    z = daskpad.map_overlap(lambda b: b * 2, x, depth=3, mode="symmetric").sum()
    with cyclic_garbage() as garbage:
        y.compute(scheduler="sync")
        z.compute(scheduler="sync")
    assert _names(garbage) == []


KERNEL_WITH_A_CYCLE = """
def kernel(block):
    def again(n):
        return n if n < 1 else again(n - 1)

    again(1)
    return block
"""


def test_the_check_finds_a_kernel_cycle():
    # the check itself: a recursive closure made by a kernel of "ours" is found
    namespace: dict[str, Any] = {"__name__": "daskpad.example"}
    exec(KERNEL_WITH_A_CYCLE, namespace)
    y = source().map_blocks(namespace["kernel"])
    with cyclic_garbage() as garbage:
        y.sum().compute(scheduler="sync")
    assert _names(garbage) == ["kernel.<locals>.again"]
