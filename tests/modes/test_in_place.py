"""A function that writes into the blocks of a padded array, as ``map_blocks(f)`` with an
``f`` that changes its block in place: never a wrong value.

Pad blocks are read-only (numpy), and so are the blocks joined from pieces in chunks of
the user's (``chunks=``), so such a function fails loudly in every mode instead of
changing a block another pad is still to read, or a view the input shares; after
``.map_blocks(np.copy)``, dask's way to hand a function blocks it owns, numpy.pad's
result holds in every mode. A user function's passes (``mode=callable``) make every block
new, interior too, so there the function's writes are numpy.pad's result plus its own."""

from __future__ import annotations

import itertools

import dask
import dask.array as da
import numpy as np
import pytest
from helpers.graphfacts import MODE_KWARGS, blocks_as_computed

import daskpad
from daskpad._compat.graphs import query_planning
from daskpad.core.registry import MODES, EdgeFunction
from daskpad.testing import pad_with_constant


def add_one(block):
    # in place: the block handed over is the one changed. (An "empty" pad holds whatever
    # memory held, perhaps a signalling NaN: floating-point errors are not this test's
    # concern.)
    with np.errstate(all="ignore"):
        block += 1
    return block


def step_away(vector, iaxis_pad_width, iaxis, kwargs):
    """A pad function that reads one value next to each edge and writes only the pads."""
    before, after = iaxis_pad_width
    if before:
        vector[:before] = vector[before] - 1
    if after:
        vector[-after:] = vector[-after - 1] + 1


ALL_MODES = [
    *sorted(MODES),
    pad_with_constant,
    daskpad.edge_function(step_away, reads=1),
]
WIDTHS = [
    3,  # narrower than a chunk
    ((0, 20), (13, 3)),  # wider than a chunk, and than axis 1 (10 long)
]
DATA = np.random.default_rng(7).random((17, 10))
CHUNKS = ((5, 5, 6, 1), (4, 4, 2))  # a last chunk of one element; edge chunks narrower than a pad
_SOURCES = itertools.count()


def source(kind="read"):
    """``(x, data)``: data of its own (``DATA`` shifted by a number no other source uses)
    and ``x`` reading it as dask hands out an input's blocks, views of the data, which a
    function writing in place changes. (Data of its own, since dask's query planning keeps
    one array per name, and names arrays by their content.) ``"read"``: each block made by
    its own task, as a lazily read source; ``"array"``: ``from_array``."""
    data = DATA + next(_SOURCES)
    if kind == "array":
        return da.from_array(data, chunks=CHUNKS), data.copy()

    def read(block_info=None):
        return data[tuple(slice(*loc) for loc in block_info[None]["array-location"])]

    x = da.map_blocks(read, chunks=CHUNKS, dtype=data.dtype, meta=data[:0, :0])
    return x, data.copy()


def _name(mode):
    return mode if isinstance(mode, str) else getattr(mode, "__name__", type(mode).__name__)


def _is_function(mode):
    return callable(mode) and not isinstance(mode, EdgeFunction)


@pytest.mark.parametrize("scheduler", ["sync", "threads"])
@pytest.mark.parametrize("width", WIDTHS, ids=["narrow", "wide"])
@pytest.mark.parametrize("mode", ALL_MODES, ids=_name)
def test_a_function_writing_in_place_fails_loudly_or_gets_numpys_values(mode, width, scheduler):
    kwargs = MODE_KWARGS.get(mode, {}) if isinstance(mode, str) else {}
    for x, data in (source(), source("array")):
        y = daskpad.pad(x, width, mode, **kwargs).map_blocks(add_one, dtype=DATA.dtype)
        if _is_function(mode):  # every block new: the writes land where they should
            want = np.pad(data, width, mode, **kwargs) + 1
            np.testing.assert_array_equal(y.compute(scheduler=scheduler), want)
            continue
        with pytest.raises(ValueError, match="read-only"):
            y.compute(scheduler=scheduler)


@pytest.mark.parametrize("scheduler", ["sync", "threads"])
@pytest.mark.parametrize("width", WIDTHS, ids=["narrow", "wide"])
@pytest.mark.parametrize("mode", ALL_MODES, ids=_name)
def test_after_a_copy_a_function_writing_in_place_gets_numpys_values(mode, width, scheduler):
    # the way the read-only blocks point to: dask's np.copy first
    kwargs = MODE_KWARGS.get(mode, {}) if isinstance(mode, str) else {}
    x, data = source()
    want = add_one(np.pad(data, width, mode, **kwargs))
    y = daskpad.pad(x, width, mode, **kwargs).map_blocks(np.copy).map_blocks(add_one)
    got = y.compute(scheduler=scheduler)
    if mode == "empty":  # the pads hold whatever was there: only the data is known
        pairs = np.broadcast_to(np.asarray(width), (DATA.ndim, 2))
        inside = tuple(slice(b, b + n) for (b, _a), n in zip(pairs, DATA.shape))
        got, want = got[inside], want[inside]
    np.testing.assert_array_equal(got, want)


def test_per_axis_modes_fail_loudly_too():
    def padded(x):
        return daskpad.pad(x, ((2, 9), (12, 1)), {0: "wrap", 1: "reflect"}, reflect_type="odd")

    with pytest.raises(ValueError, match="read-only"):
        padded(source()[0]).map_blocks(add_one, dtype=DATA.dtype).compute()
    x, data = source()
    want = np.pad(np.pad(data, ((2, 9), (0, 0)), "wrap"), ((0, 0), (12, 1)), "reflect",
                  reflect_type="odd")  # fmt: skip
    got = padded(x).map_blocks(np.copy).map_blocks(add_one).compute()
    np.testing.assert_array_equal(got, want + 1)


@pytest.mark.parametrize(
    "chunks",
    [
        ((13, 5, 6, 9), (10,)),  # the input's second chunk (5) passes whole, pads joined
        ((13, 5, 15), (10,)),
        "regular",
    ],
)
@pytest.mark.parametrize("mode", [m for m in ALL_MODES if not _is_function(m)], ids=_name)
@pytest.mark.xfail(
    query_planning(),
    reason="under query planning, chunks= is dask's rechunk, whose joined blocks are writable",
    strict=False,
)
def test_in_chunks_of_the_users_too(mode, chunks):
    # a block of chunks= that holds pad values, or is joined from blocks a pad reads, is
    # read-only too; an input chunk passed whole is the input's own block
    kwargs = MODE_KWARGS.get(mode, {}) if isinstance(mode, str) else {}
    widths = ((8, 8), (0, 0))
    x, data = source()
    y = daskpad.pad(x.rechunk(((5, 5, 6, 1), (10,))), widths, mode, chunks=chunks, **kwargs)
    with pytest.raises(ValueError, match="read-only"):
        y.map_blocks(add_one, dtype=DATA.dtype).compute()
    x, data = source()
    y = daskpad.pad(x.rechunk(((5, 5, 6, 1), (10,))), widths, mode, chunks=chunks, **kwargs)
    got = y.map_blocks(np.copy).map_blocks(add_one).compute()
    want = add_one(np.pad(data, widths, mode, **kwargs))
    if mode == "empty":
        got, want = got[8:-8], want[8:-8]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mode", [m for m in ALL_MODES if not _is_function(m)], ids=_name)
def test_every_pad_block_is_read_only_and_every_interior_block_the_inputs(mode):
    kwargs = MODE_KWARGS.get(mode, {}) if isinstance(mode, str) else {}
    x, _data = source()
    inputs = blocks_as_computed(x)
    y = daskpad.pad(x, ((3, 20), (13, 3)), mode, **kwargs)
    first = (_before_blocks(y, 0, 3), _before_blocks(y, 1, 13))
    with dask.config.set(scheduler="sync"):
        blocks = blocks_as_computed(y)
    interior = 0
    for index, block in blocks.items():
        inside = tuple(i - f for i, f in zip(index, first))
        if inside in inputs:
            interior += 1
            np.testing.assert_array_equal(block, inputs[inside])
            continue
        assert type(block) is np.ndarray and not block.flags.writeable, (mode, index)
    assert interior == len(inputs)


def _before_blocks(y, axis, width):
    return int(np.searchsorted(np.cumsum(y.chunks[axis]), width, side="right"))
