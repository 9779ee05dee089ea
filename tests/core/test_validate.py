"""Every graph daskpad returns passes dask's own check of a classic graph
(``HighLevelGraph.validate``: each layer declares as its dependencies exactly the layers its
tasks read) and equals numpy's result by ``dask.array.utils.assert_eq`` (values, dtype,
meta, and each block against the chunks): ``pad``, ``pad_to``, ``crop`` and
``map_overlap``, under every output-chunk policy and a range of chunk-size budgets, in
every mode with its keywords (one for all axes or one per axis; padding functions, also as
edge functions), on chunkings with one-element remainders and with pads wider than the
axis; and the xarray forms over dask data. Under dask's array query planning a graph is
an expression, with no layers to check: the values are still compared.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import dask
import dask.array as da
import numpy as np
import pytest
from dask.array.utils import assert_eq
from hypothesis import assume, given
from hypothesis import strategies as st

import daskpad
import daskpad.core.regrid
from daskpad._compat.graphs import query_planning
from daskpad.api.shapes import ALIGNS
from daskpad.core.registry import MODES
from daskpad.strategies import CALLABLES, chunkings, pad_cases, per_axis_pad_cases, shapes
from daskpad.testing import chained_numpy_pad

pytestmark = pytest.mark.usefixtures("sync_scheduler")


def step_away(vector: np.ndarray, iaxis_pad_width: Any, iaxis: int, kwargs: Any) -> None:
    """Reads one value next to each edge: a ramp away from it."""
    before, after = iaxis_pad_width
    if before:
        vector[:before] = vector[before] - np.arange(before, 0, -1)
    if after:
        vector[len(vector) - after :] = vector[-after - 1] + np.arange(1, after + 1)


def fill_only(vector: np.ndarray, iaxis_pad_width: Any, iaxis: int, kwargs: Any) -> None:
    """Reads nothing: ``kwargs["padder"]`` (default 10) in the pads, and only there."""
    before, after = iaxis_pad_width
    vector[:before] = kwargs.get("padder", 10)
    vector[len(vector) - after :] = kwargs.get("padder", 10)


ALL_MODES: list[Any] = sorted(MODES)
PER_AXIS = object()  # draw a mode per axis
FUNCTIONS: list[Any] = [function for function, _ in CALLABLES] + [step_away, fill_only]
#: the padding functions that read at most this many values next to each edge and write
#: only the pads (which daskpad.edge_function can promise for them)
EDGE_READS = {step_away: 1, fill_only: 0}
#: dtypes whose values ``assert_eq`` compares (datetimes and objects it cannot)
VALUE_DTYPES = ("bool", "int8", "int64", "uint8", "float32", "float64", "complex128")
#: at most about this many output blocks along an axis for the chunk sizes drawn
AXIS_BLOCKS = 12


def checked(y: da.Array, expected: np.ndarray) -> None:
    """``y``'s graph checked by dask (classic graphs), and ``y`` equal to ``expected``."""
    if not query_planning():
        y.__dask_graph__().validate()
    assert_eq(y, expected, check_graph=not query_planning())


def quietly(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` without numpy's RuntimeWarnings (a mean of an empty slab, a
    cast of NaN), which numpy and daskpad both give."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        return fn(*args, **kwargs)


def per_axis(mode: Any) -> bool:
    """Whether ``mode`` is a mode per axis."""
    return isinstance(mode, (dict, list, tuple))


def axis_modes(mode: Any) -> list[Any]:
    """The modes of a mode per axis (those named), or the one mode."""
    return list(mode.values() if isinstance(mode, dict) else mode) if per_axis(mode) else [mode]


def undefined(mode: Any) -> bool:
    """Whether ``mode`` leaves pads undefined (``"empty"``, on some axis)."""
    return any(isinstance(m, str) and m == "empty" for m in axis_modes(mode))


def numpy_pad(data: np.ndarray, widths: Any, mode: Any, kwargs: dict[str, Any]) -> Any:
    """numpy's pad (chained, once per axis, for a mode per axis), or None where numpy
    refuses the call (compared in test_parity.py). A padding function that returns its
    line has it written back, as daskpad does (numpy ignores what the function returns)."""
    if per_axis(mode):
        try:
            return quietly(chained_numpy_pad, data, widths, mode, **kwargs)
        except Exception:
            return None
    if callable(mode):
        function = mode

        def mode(vector: np.ndarray, *args: Any) -> None:
            out = function(vector, *args)
            if out is not None and out is not vector:
                vector[...] = out

    try:
        return quietly(np.pad, data, widths, mode, **kwargs)
    except Exception:
        return None


# --------------------------------------------------------------------------------------------
# What is drawn: chunkings with one-element remainders, output-chunk policies
# --------------------------------------------------------------------------------------------


@st.composite
def remainder_chunks(draw: Any, shape: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Regular chunks whose last chunk is a single element wherever the axis allows."""
    chunks = []
    for n in shape:
        if n <= 1:
            chunks.append((n,))
            continue
        sizes = [c for c in range(1, n) if (n - 1) % c == 0 and (n - 1) // c <= AXIS_BLOCKS]
        size = draw(st.sampled_from(sizes))
        chunks.append((size,) * ((n - 1) // size) + (1,))
    return tuple(chunks)


@st.composite
def policies(draw: Any, shape: tuple[int, ...]) -> Any:
    """``chunks=`` for a result of ``shape``: a named policy, dask's usual forms (one size,
    a size per axis, explicit chunks), or chunks with one-element remainders."""
    kind = draw(
        st.sampled_from([None, "merge", "regular", "even", "size", "per-axis", "explicit", "1s"])
    )
    if kind in (None, "merge", "regular", "even"):
        return kind
    least = max([-(-n // AXIS_BLOCKS) for n in shape] + [1])
    if kind == "size":
        return draw(st.integers(least, max(least, 8)))
    if kind == "per-axis":
        return tuple(draw(st.integers(-(-n // AXIS_BLOCKS) or 1, max(n, 1))) for n in shape)
    if kind == "explicit":
        return draw(chunkings(shape))
    return draw(remainder_chunks(shape))


def mode_and_case(
    data: Any, mode: Any, shape: st.SearchStrategy[tuple[int, ...]], functions: bool = True
) -> Any:
    """A drawn :class:`daskpad.strategies.PadCase` for ``mode`` (with its keywords; a mode
    per axis for ``PER_AXIS``, with padding functions among them if ``functions``), of a
    dtype ``assert_eq`` compares, its input chunked irregularly or with one-element
    remainders; a mean reads small integers (summed exactly in any order)."""
    dtype = data.draw(st.sampled_from(VALUE_DTYPES), label="dtype")
    if mode is PER_AXIS:
        cases = per_axis_pad_cases(dtype=dtype, shape=shape, functions=functions)
    else:
        cases = pad_cases(mode, dtype=dtype, shape=shape)
    case = data.draw(cases, label="case")
    if data.draw(st.booleans(), label="one-element remainders"):
        case.chunks = data.draw(remainder_chunks(case.data.shape), label="input chunks")
    if mode in EDGE_READS and data.draw(st.booleans(), label="as an edge function"):
        case.mode = daskpad.edge_function(mode, reads=EDGE_READS[mode])
    if any(isinstance(m, str) and m == "mean" for m in axis_modes(case.mode)):
        seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
        values = np.random.default_rng(seed).integers(0, 5, case.data.shape)
        case.data = values.astype(case.data.dtype)
    return case


def neighbours(block: np.ndarray) -> np.ndarray:
    """Each point plus its two neighbours along every axis (a stencil of depth one)."""
    out = block.copy()
    for axis in range(block.ndim):
        out = out + np.roll(block, 1, axis) + np.roll(block, -1, axis)
    return out


# --------------------------------------------------------------------------------------------
# The property
# --------------------------------------------------------------------------------------------


def _padded(data: Any, case: Any) -> tuple[np.ndarray, da.Array]:
    """numpy's result and daskpad's, in a drawn chunks policy (a draw numpy refuses is
    rejected: test_parity.py compares refusals)."""
    expected = numpy_pad(case.data, case.pad_width, case.mode, case.kwargs)
    assume(expected is not None)
    policy = data.draw(policies(expected.shape), label="chunks")
    x = da.from_array(case.data, chunks=case.chunks)
    return expected, daskpad.pad(x, case.pad_width, case.mode, chunks=policy, **case.kwargs)


def _pad(data: Any, case: Any) -> None:
    expected, y = _padded(data, case)
    if undefined(case.mode):  # (values left undefined)
        if not query_planning():
            y.__dask_graph__().validate()
        assert y.shape == expected.shape
        checked(daskpad.crop(y, case.pad_width), case.data)
        return
    checked(y, expected)


def _pad_to(data: Any, case: Any) -> None:
    shape = case.data.shape
    target = [data.draw(st.integers(n, n + 12), label="target") for n in shape]
    align = data.draw(st.sampled_from(ALIGNS), label="align")
    widths = daskpad.widths_for(shape, target, align=align)
    expected = numpy_pad(case.data, widths, case.mode, case.kwargs)
    assume(expected is not None and not undefined(case.mode))  # (values to compare)
    policy = data.draw(policies(expected.shape), label="chunks")
    x = da.from_array(case.data, chunks=case.chunks)
    y = daskpad.pad_to(x, target, mode=case.mode, align=align, chunks=policy, **case.kwargs)
    checked(y, expected)


def _crop(data: Any, case: Any) -> None:
    expected, y = _padded(data, case)
    # (the data itself, unless a padding function wrote into it)
    inside = tuple(slice(b, b + n) for b, n in zip(_befores(case), case.data.shape))
    checked(daskpad.crop(y, case.pad_width), expected[inside])


def _befores(case: Any) -> list[int]:
    """The width padded before each axis: ``pad_width`` in any of numpy's forms (or a dict)."""
    ndim = case.data.ndim
    widths = case.pad_width
    if isinstance(widths, dict):
        pairs = [widths.get(a, widths.get(a - ndim, 0)) for a in range(ndim)]
        return [int(np.broadcast_to(p, 2)[0]) for p in pairs]
    return [int(b) for b in np.broadcast_to(np.asarray(widths, dtype=np.int64), (ndim, 2))[:, 0]]


def _map_overlap(data: Any, case: Any) -> None:
    shape = case.data.shape
    depth = tuple(data.draw(st.integers(1, 4), label="depth") for _ in shape)
    pairs = [(d, d) for d in depth]
    kwargs = {} if callable(case.mode) else case.kwargs  # (a function's go to the stencil)
    padded = numpy_pad(case.data, pairs, case.mode, kwargs)
    assume(padded is not None and not undefined(case.mode))  # (values to compare)
    around = neighbours(padded)
    expected = around[tuple(slice(d, d + n) for d, n in zip(depth, shape))]
    x = da.from_array(case.data, chunks=case.chunks)
    y = daskpad.map_overlap(neighbours, x, depth, mode=case.mode, **kwargs)
    checked(y, expected)


CALLS = {"pad": _pad, "pad_to": _pad_to, "crop": _crop, "map_overlap": _map_overlap}


@given(data=st.data())
def test_every_graph_passes_dasks_validation_and_equals_numpy(data):
    call = data.draw(st.sampled_from(sorted(CALLS)), label="function")
    if call == "map_overlap":
        modes = [m for m in ALL_MODES if m != "empty"] + FUNCTIONS
        shape = shapes(min_dims=1, max_dims=3).filter(lambda s: 0 not in s)
    else:
        modes = ALL_MODES + FUNCTIONS
        shape = shapes(min_dims=1, max_dims=3)
    if data.draw(st.integers(0, 3), label="a mode per axis") == 0:
        mode = PER_AXIS
    else:
        mode = data.draw(st.sampled_from(modes), label="mode")
    # a small budget cuts pad sides, the narrow slabs of a median and the stripes of whole
    # lines a function reads smaller: other layers, other regridded blocks
    budget = data.draw(st.sampled_from([None, "256B", "4KiB"]), label="budget")
    with dask.config.set({"array.chunk-size": budget} if budget else {}):
        case = mode_and_case(data, mode, shape, functions=call != "map_overlap")
        quietly(CALLS[call], data, case)


# --------------------------------------------------------------------------------------------
# Focused cases
# --------------------------------------------------------------------------------------------

POLICIES = ["merge", "regular", "even", ((4,) * 7 + (1,),), 7]


@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_a_reflected_pad_in_output_chunks_is_a_valid_graph(policy):
    x = da.arange(23, chunks=5)
    checked(daskpad.pad(x, 3, mode="reflect", chunks=policy), np.pad(np.arange(23), 3, "reflect"))


def test_map_overlap_is_a_valid_graph():
    y = daskpad.map_overlap(lambda b: b, da.ones((10, 9), chunks=4), 1, mode="wrap")
    checked(y, np.ones((10, 9)))


@pytest.mark.parametrize("mode", [m for m in ALL_MODES if m != "empty"])
@pytest.mark.parametrize("policy", [None, *POLICIES[:3], 2], ids=str)
def test_every_mode_3d_wider_than_the_axes_with_one_element_chunks(mode, policy):
    data = np.arange(2.0 * 3 * 5).reshape(2, 3, 5) ** 2 % 11
    x = da.from_array(data, chunks=((1, 1), (2, 1), (2, 2, 1)))
    widths = ((3, 0), (1, 7), (6, 2))  # wider than the axes
    kwargs = {"stat_length": None} if mode in ("maximum", "mean", "median", "minimum") else {}
    expected = np.pad(data, widths, mode, **kwargs)
    checked(daskpad.pad(x, widths, mode, chunks=policy, **kwargs), expected)


def test_output_chunks_on_the_grid_make_no_part_tasks():
    # pad blocks and input chunks all end on the output chunks' boundaries: every output
    # block joins whole blocks of the grid, and the layer of cut parts is left out
    x = da.arange(20, chunks=5)
    y = daskpad.pad(x, 5, mode="edge", chunks=10)
    checked(y, np.pad(np.arange(20), 5, "edge"))
    if not query_planning():
        assert daskpad.core.regrid.own_grid(y).chunks == ((5,) * 6,)  # joined, not picked
        assert not [n for n in y.__dask_graph__().layers if n.endswith("-part")]


@pytest.mark.skipif(query_planning(), reason="classic graphs' layers")
def test_dependencies_at_a_million_blocks_are_found_without_visiting_them(monkeypatch):
    # the layers' dependencies come from the axes (at most 3^ndim parts of the grid), not
    # from the output blocks: building asks no output block for its pieces
    asked = []
    pieces = daskpad.core.regrid._Pieces._pieces
    monkeypatch.setattr(
        daskpad.core.regrid._Pieces, "_pieces", lambda p, i: asked.append(i) or pieces(p, i)
    )
    x = da.zeros((10**6, 10**6), chunks=1000)
    y = daskpad.pad(x, 16, mode="reflect", chunks="regular")
    assert y.numblocks == (1001, 1001) and not asked
    assert f"{y.name}-part" in y.__dask_graph__().dependencies[y.name]
    # the same structure (pads narrower than a chunk, chunks shifted), small enough to check
    small = daskpad.pad(da.zeros((40, 40), chunks=10), 3, mode="reflect", chunks="regular")
    assert f"{small.name}-part" in small.__dask_graph__().dependencies[small.name]
    small.__dask_graph__().validate()


# --------------------------------------------------------------------------------------------
# xarray's forms over dask data
# --------------------------------------------------------------------------------------------


def _dask_variables(obj: Any) -> list[Any]:
    variables = obj.variables.values() if hasattr(obj, "data_vars") else [obj.variable]
    return [v.data for v in variables if isinstance(v.data, da.Array)]


def xchecked(result: Any, expected: np.ndarray, name: str | None = None) -> None:
    """Every dask variable of ``result`` passes dask's check (classic graphs), and its
    data (variable ``name`` of a Dataset) equals ``expected``."""
    arrays = _dask_variables(result)
    assert arrays
    if not query_planning():
        for a in arrays:
            a.__dask_graph__().validate()
    data = result[name].data if name is not None else result.data
    quietly(assert_eq, data, expected, check_graph=not query_planning())


@pytest.mark.parametrize("mode", ["constant", "edge", "mean", "median", "reflect", "wrap"])
@pytest.mark.parametrize("policy", [None, "merge", "regular", "even", 3], ids=str)
def test_xarray_forms_over_dask_data_are_valid_graphs(mode, policy):
    xr = pytest.importorskip("xarray")
    values = np.arange(35.0).reshape(5, 7) % 6
    arr = xr.DataArray(
        values, dims=("y", "x"), coords={"x": np.arange(7.0), "y": np.arange(5.0)}
    ).chunk({"y": 2, "x": 3})
    kwargs = {"constant_values": 1.5} if mode == "constant" else {}
    widths = {"y": (1, 6), "x": (9, 2)}  # wider than the axes
    expected = np.pad(values, ((1, 6), (9, 2)), mode, **kwargs)
    xchecked(arr.pad2(widths, mode, chunks=policy, **kwargs), expected)
    xchecked(daskpad.xarray.pad2(arr.to_dataset(name="v"), widths, mode, **kwargs), expected, "v")
    shape = {"y": 12, "x": 18}
    xchecked(arr.pad2.pad_to(shape, mode=mode, align="start", **kwargs),
             np.pad(values, ((0, 7), (0, 11)), mode, **kwargs))  # fmt: skip
    padded = arr.pad2(widths, mode, chunks=policy, **kwargs)
    xchecked(daskpad.xarray.crop(padded, widths), values)
    stencil = daskpad.xarray.map_overlap(arr, neighbours, {"y": 1, "x": 2}, mode, **kwargs)
    around = neighbours(np.pad(values, ((1, 1), (2, 2)), mode, **kwargs))[1:6, 2:9]
    xchecked(stencil, around)
