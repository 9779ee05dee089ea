"""``chunk_grid="rectilinear"`` of the public writers, ``daskpad.to_zarr`` and
``daskpad.xarray.to_zarr``: the store is on zarr's rectilinear chunk grid of the blocks each
array was made of (``own_grid``: for ``pad(..., chunks="regular")`` the input's blocks and the
pad's), each block written whole by one task.

What zarr (and xarray) read back must equal numpy.pad (and the padded dataset), in the
own grid's chunks; the write adds one task per block to the blocks' own graph; and the
refusals (an unknown grid, zarr v2, zarr-python older than 3.2) come before anything is
written.
"""

from __future__ import annotations

import doctest
import math
import warnings

import dask
import dask.array as da
import numpy as np
import pytest
from helpers.graphfacts import added_tasks
from helpers.markers import WRITES
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import daskpad
from daskpad._compat.libraries import rectilinear_grids, rectilinear_support
from daskpad.core.registry import MODES
from daskpad.core.regrid import own_grid
from daskpad.store.writing import chunk_plans as _rectilinear
from daskpad.store.writing import settle as _settle
from daskpad.store.writing.chunk_plans import RectilinearUnsupported
from daskpad.strategies import pad_cases
from daskpad.testing.reference import DTYPES

xr = pytest.importorskip("xarray")
zarr = pytest.importorskip("zarr")

NEEDS = pytest.mark.skipif(
    rectilinear_support() is not None, reason="rectilinear grids need zarr-python >= 3.2"
)

#: dtypes zarr v3 stores as they are (not datetimes, strings or objects)
_ZARR_DTYPES = [d for d in DTYPES if d.kind in "biufc"]
#: every mode but "empty", whose pads numpy leaves undefined
_MODES = sorted(m for m in MODES if m != "empty")


def _own_chunks(y: da.Array) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(c for c in cs if c) for cs in own_grid(y).chunks)


class _Computations:
    """What :func:`daskpad.store.writing.settle.compute_tiles` hands to dask, each computation's
    collections, as it goes."""

    def __init__(self, mp: pytest.MonkeyPatch) -> None:
        self.seen: list[list[da.Array]] = []
        real = _settle.compute_apart

        def spy(collections):
            self.seen.append(list(collections))
            return real(collections)

        mp.setattr(_settle, "compute_apart", spy)


# --------------------------------------------------------------------------------------
# daskpad.to_zarr
# --------------------------------------------------------------------------------------
@NEEDS
@settings(max_examples=max(settings().max_examples // 2, 10))
@given(data=st.data())
def test_to_zarr_stores_numpy_pad_in_the_blocks_it_was_made_of(tmp_path_factory, data):
    mode = data.draw(st.sampled_from(_MODES), label="mode")
    case = data.draw(pad_cases(mode, dtype=data.draw(st.sampled_from(_ZARR_DTYPES))))
    x = da.from_array(case.data, chunks=case.chunks)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            expected = np.pad(case.data, case.pad_width, mode, **case.kwargs)
            y = daskpad.pad(x, case.pad_width, mode, chunks="regular", **case.kwargs)
        except Exception:  # numpy refuses it too: test_parity compares the errors
            assume(False)
        where = tmp_path_factory.mktemp("rect") / "a.zarr"
        with pytest.MonkeyPatch.context() as mp, dask.config.set(scheduler="sync"):
            computations = _Computations(mp)
            z = daskpad.to_zarr(y, where, chunk_grid="rectilinear")
    with rectilinear_grids():
        back = zarr.open_array(where, mode="r")
        stored = back[...]
    # the store holds the pad's values exactly; numpy.pad's for every mode but the mean,
    # which daskpad sums in another order (assert_pad_matches_numpy's tolerance; the
    # parity suite compares it)
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_array_equal(stored, y.compute())
    if mode != "mean":
        np.testing.assert_array_equal(stored, expected)
    assert back.shape == expected.shape and back.dtype == expected.dtype
    assert z.shape == expected.shape
    if y.ndim == 0 or 0 in y.shape:  # no rectilinear grid: the regular one
        assert back.metadata.chunk_grid.__class__.__name__.startswith("Regular")
        return
    assert back.read_chunk_sizes == _own_chunks(y)
    # one computation; the write adds one task per block to the blocks' own graph
    ((writes,),) = computations.seen
    own = own_grid(y)
    work, aliases = added_tasks(own, writes)
    assert (work, aliases) == (math.prod(own.numblocks), 0)


@NEEDS
def test_any_dask_array_is_stored_in_its_own_chunks(tmp_path):
    x = da.from_array(np.arange(8 * 7).reshape(8, 7), chunks=((3, 1, 4), (2, 5)))
    z = daskpad.to_zarr(x, tmp_path / "a.zarr", chunk_grid="rectilinear")
    assert z.read_chunk_sizes == ((3, 1, 4), (2, 5))
    np.testing.assert_array_equal(z[...], np.arange(8 * 7).reshape(8, 7))
    # the pad's default chunks, too: the grid of its blocks as they are
    y = daskpad.pad(x, ((5, 0), (1, 9)), mode="symmetric")
    z = daskpad.to_zarr(y, tmp_path / "b.zarr", chunk_grid="rectilinear")
    assert z.read_chunk_sizes == _own_chunks(y)
    np.testing.assert_array_equal(z[...], np.pad(x.compute(), ((5, 0), (1, 9)), "symmetric"))


@NEEDS
@pytest.mark.parametrize("x", [da.zeros((0, 4), chunks=2), da.from_array(np.float64(2.5))])
def test_an_array_without_a_rectilinear_grid_is_stored_on_the_regular_one(tmp_path, x):
    z = daskpad.to_zarr(x, tmp_path / "a.zarr", chunk_grid="rectilinear")
    assert z.shape == x.shape and z.metadata.zarr_format == 3
    assert z.metadata.chunk_grid.__class__.__name__.startswith("Regular")
    np.testing.assert_array_equal(z[...], x.compute())


@NEEDS
def test_to_zarr_commits_a_local_store_only_when_complete(tmp_path):
    x = da.ones((6, 6), chunks=3)
    z = daskpad.to_zarr(daskpad.pad(x, 1, "edge"), tmp_path / "a.zarr", chunk_grid="rectilinear")
    assert [p.name for p in tmp_path.iterdir()] == ["a.zarr"]  # no temporary sibling left
    assert z.read_chunk_sizes == ((1, 3, 3, 1), (1, 3, 3, 1))
    with pytest.raises(FileExistsError, match="overwrite=True"):
        daskpad.to_zarr(x, tmp_path / "a.zarr", chunk_grid="rectilinear")
    z = daskpad.to_zarr(x, tmp_path / "a.zarr", chunk_grid="rectilinear", overwrite=True)
    assert z.read_chunk_sizes == ((3, 3), (3, 3))


@NEEDS
@pytest.mark.parametrize(
    "function",
    [daskpad.to_zarr, pytest.param(daskpad.xarray.to_zarr, marks=WRITES)],
    ids=["to_zarr", "xarray.to_zarr"],
)
def test_the_docstring_examples_run(tmp_path, monkeypatch, function):
    # the Examples skip the rectilinear lines where zarr-python is older than 3.2: here
    # they run, in order, and must show what they say
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(
        function.__doc__, {}, function.__qualname__, None, 0
    )
    assert any("chunk_grid=" in e.source for e in test.examples)
    for example in test.examples:
        example.options.pop(doctest.SKIP, None)
    report: list[str] = []
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test, out=report.append)
    assert result.failed == 0, "".join(report)


# --------------------------------------------------------------------------------------
# daskpad.xarray.to_zarr
# --------------------------------------------------------------------------------------
def _dataset() -> xr.Dataset:
    """Numbers, packed integers (values the packing holds exactly, NaN among them),
    integers, times, strings and an attribute each, on two chunked dimensions."""
    rng = np.random.default_rng(0)
    t = np.datetime64("2000-01-01", "ns") + np.arange(11) * np.timedelta64(1, "D")
    packed = rng.integers(-50, 50, (11, 9)) * 0.5
    packed[3, 4] = np.nan
    ds = xr.Dataset(
        {
            "a": (("t", "x"), rng.random((11, 9)), {"units": "K"}),
            "packed": (
                ("t", "x"),
                packed,
                {"long_name": "packed"},
                {"dtype": "int16", "scale_factor": 0.5, "_FillValue": -999},
            ),
            "n": (("x",), np.arange(9, dtype="int32")),
            "when": (("t",), t + np.timedelta64(6, "h")),
            "label": (("t",), np.array(list("abcdefghijk"))),
        },
        coords={"t": t, "x": np.arange(9.0) * 2},
        attrs={"title": "rectilinear"},
    )
    return ds.chunk({"t": 4, "x": (2, 4, 3)})


@NEEDS
@WRITES
@pytest.mark.parametrize("mode", ["edge", "reflect", "wrap", "constant", "maximum"])
def test_xarray_to_zarr_round_trips_a_padded_dataset(tmp_path, mode):
    ds = _dataset()
    if mode == "constant":  # NaN promotes the integers: leave the strings unpadded
        ds = ds.drop_vars("label")
    if mode == "maximum":
        ds = ds.drop_vars(["label", "when"])
    padded = ds.pad2(t=(3, 2), x=(1, 5), mode=mode, chunks="regular")
    where = tmp_path / "out.zarr"
    with pytest.MonkeyPatch.context() as mp:
        computations = _Computations(mp)
        daskpad.xarray.to_zarr(padded, where, chunk_grid="rectilinear")
    with rectilinear_grids():
        back = xr.open_zarr(where)
        assert {k: v.chunks for k, v in back.data_vars.items()} == {
            k: _own_chunks(v.data) for k, v in padded.data_vars.items()
        }
        xr.testing.assert_identical(back.compute(), padded.compute())
    # one computation, one task per block of every variable
    ((*writes,),) = computations.seen
    assert len(writes) == len(padded.data_vars)
    for w, var in zip(writes, padded.data_vars.values()):
        own = own_grid(var.data)
        assert added_tasks(own, w) == (math.prod(own.numblocks), 0)


@NEEDS
@WRITES
def test_xarray_to_zarr_keeps_an_empty_dimension_regular(tmp_path):
    ds = xr.Dataset(
        {"a": (("y", "x"), da.ones((0, 6), chunks=3)), "b": ("x", da.arange(6, chunks=4))}
    )
    padded = ds.pad2(x=2, mode="edge", chunks="regular")
    daskpad.xarray.to_zarr(padded, tmp_path / "out.zarr", chunk_grid="rectilinear")
    with rectilinear_grids():
        back = xr.open_zarr(tmp_path / "out.zarr")
        assert back.b.chunks == (_own_chunks(padded.b.data)[0],)
        assert back.a.shape == (0, 10)
        xr.testing.assert_identical(back.compute(), padded.compute())


# --------------------------------------------------------------------------------------
# Refusals, before anything is written (zarr-python here need not have the grid)
# --------------------------------------------------------------------------------------
def _writers(tmp_path):
    x = da.ones((4, 4), chunks=2)
    ds = xr.Dataset({"a": (("y", "x"), x)})
    return [
        lambda **kw: daskpad.to_zarr(x, tmp_path / "out.zarr", **kw),
        lambda **kw: daskpad.xarray.to_zarr(ds, tmp_path / "out.zarr", **kw),
    ]


@pytest.mark.parametrize("which", [0, 1])
def test_zarr_v2_has_no_rectilinear_grid(tmp_path, which):
    write = _writers(tmp_path)[which]
    with pytest.raises(ValueError, match=r"^chunk_grid='rectilinear' is a zarr v3 grid: .*got 2"):
        write(chunk_grid="rectilinear", zarr_format=2)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("which", [0, 1])
def test_an_unknown_chunk_grid_is_refused(tmp_path, which):
    write = _writers(tmp_path)[which]
    with pytest.raises(ValueError, match=r"^chunk_grid must be 'regular' or 'rectilinear', got"):
        write(chunk_grid="irregular")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("which", [0, 1])
def test_an_older_zarr_is_refused_in_one_line(tmp_path, monkeypatch, which):
    why = "zarr-python 3.1.6 has no rectilinear chunk grids: they need zarr-python 3.2 or newer"
    monkeypatch.setattr(_rectilinear, "rectilinear_support", lambda: why)
    write = _writers(tmp_path)[which]
    with pytest.raises(RectilinearUnsupported) as caught:
        write(chunk_grid="rectilinear")
    assert str(caught.value) == why
    assert isinstance(caught.value, ValueError)
    assert not list(tmp_path.iterdir())


def test_to_zarr_takes_no_chunks_on_the_rectilinear_grid(tmp_path, monkeypatch):
    monkeypatch.setattr(_rectilinear, "rectilinear_support", lambda: None)
    with pytest.raises(ValueError, match=r"^chunk_grid='rectilinear' stores x's blocks"):
        daskpad.to_zarr(
            da.ones(4, chunks=2), tmp_path / "a.zarr", chunk_grid="rectilinear", chunks=2
        )
    assert not list(tmp_path.iterdir())


@NEEDS
def test_empty_blocks_are_no_chunks_of_the_rectilinear_grid(tmp_path):
    """A dask array's blocks of length 0 (a boolean mask's, a slice's) are left out of the
    grid zarr declares, whose chunks are at least 1 long; the values are the array's."""
    # (as a boolean mask leaves them: x[x > 55].compute_chunk_sizes())
    y = da.from_array(np.arange(56.0, 100.0), chunks=((0, 0, 4, 10, 10, 10, 10),))
    z = daskpad.to_zarr(y, tmp_path / "a.zarr", chunk_grid="rectilinear")
    with rectilinear_grids():
        assert z.read_chunk_sizes == ((4, 10, 10, 10, 10),)
        np.testing.assert_array_equal(z[...], np.arange(56.0, 100.0))


@NEEDS
@WRITES
def test_empty_blocks_of_a_variable_are_no_chunks_of_its_grid(tmp_path):
    data = da.concatenate([da.ones(5, chunks=5), da.zeros(0, chunks=0), da.ones(5, chunks=5)])
    daskpad.xarray.to_zarr(
        xr.Dataset({"v": ("x", data)}), tmp_path / "b.zarr", chunk_grid="rectilinear"
    )
    with rectilinear_grids():
        assert xr.open_zarr(tmp_path / "b.zarr").v.chunks == ((5, 5),)


def test_the_writers_refuse_what_they_would_not_pass_on(tmp_path):
    """``compute=False`` (xarray's "do not write") and the plans' own keywords are refused
    by the writers that write whole stores, never taken silently."""
    ds = xr.Dataset({"v": ("x", da.ones(10, chunks=5))})
    with pytest.raises(TypeError, match="compute=, which it does not pass to xarray's to_zarr"):
        daskpad.xarray.to_zarr(ds, tmp_path / "a.zarr", compute=False)
    with pytest.raises(TypeError, match=r"consolidated=, which it does not pass to zarr\."):
        daskpad.to_zarr(da.ones(10, chunks=5), tmp_path / "b.zarr", consolidated=False)
    assert not (tmp_path / "a.zarr").exists() and not (tmp_path / "b.zarr").exists()
