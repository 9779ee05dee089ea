"""Adding a keyword touches the keyword table and the mode module that takes it: a
throwaway mode, ``scaled_edge`` (the edge value times ``scale``, a new keyword of one
``(before, after)`` pair per axis), written here as a module of its own that declares its
keyword (:func:`daskpad.core.keywords.define`, as a line of the table would) and
registers itself, works through ``daskpad.pad`` (one mode, one per axis, and its misfits),
``pad2``, the command's options and the hypothesis strategies, with no other file
changed; removed, it is gone."""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest
from helpers.throwaway_modules import imported

import daskpad
from daskpad.core.keywords import KEYWORDS, Keyword, define, keyword_misfits, undefine
from daskpad.core.registry import MODES, unregister
from daskpad.testing import assert_pad_matches_numpy, chained_numpy_pad

xr = pytest.importorskip("xarray")
hypothesis = pytest.importorskip("hypothesis")

MODULE = '''
"""scaled_edge: pads that repeat the edge value times ``scale`` (a throwaway family)."""

import numpy as np

from daskpad.core.keywords import Keyword, define
from daskpad.core.registry import Mode, register
from daskpad.core.sides import blockwise_chunks, per_pad_block

define(
    Keyword(
        "scale",
        ("scaled_edge",),
        "values",
        default=1,
        flag="--scale",
        metavar="V|B:A|DIM=V|DIM=B:A",
        help="mode scaled_edge: the factor of the edge value, for every such dimension or "
        "(DIM=) for one (default 1)",
    )
)


def scaled_block(edge, *, factor, start, stop, axis):
    """Pad positions [start, stop) of one face block: the edge element times factor."""
    shape = list(edge.shape)
    shape[axis] = stop - start
    return np.broadcast_to(edge * factor, shape).astype(edge.dtype)


def build(x, ap, plan, sides):
    n = ap.length
    edges = (x.slab(ap.axis, 0, 1), x.slab(ap.axis, n - 1, n))
    factors = ap.pairs["scale"]

    def make(side, chunks, offset):
        kwargs = {"axis": ap.axis, "factor": factors[side]}
        return blockwise_chunks(scaled_block, x, ap.axis, chunks, 0, [edges[side]], kwargs)

    return per_pad_block(ap, sides, make)


def reference(array, pad_width, scale=1):
    """numpy.pad's way, axis after axis: the edge mode's pads, times that axis's scale."""
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (array.ndim, 2))
    factors = np.broadcast_to(np.asarray(scale, dtype=float), (array.ndim, 2))
    out = np.asarray(array)
    for axis, (before, after) in enumerate(widths.tolist()):
        step = [(0, 0)] * out.ndim
        step[axis] = (before, after)
        out = np.pad(out, step, mode="edge")
        index = [slice(None)] * out.ndim
        ends = (slice(0, before), slice(out.shape[axis] - after, out.shape[axis]))
        for part, factor in zip(ends, factors[axis]):
            index[axis] = part
            out[tuple(index)] = out[tuple(index)] * factor
    return out


register([Mode("scaled_edge", "scaled", reference=reference)], build)
'''


@pytest.fixture
def scaled_edge_module(tmp_path):
    with imported(tmp_path, "scaled_edge", MODULE) as module:  # registers the mode
        try:
            yield module
        finally:
            unregister("scaled_edge")
            undefine("scale")
    assert "scaled_edge" not in MODES and "scale" not in KEYWORDS


def test_the_mode_takes_its_keyword_in_every_form(scaled_edge_module):
    assert MODES["scaled_edge"].kwargs == ("scale",)
    data = np.arange(35.0).reshape(5, 7)
    for scale in ({}, {"scale": 2}, {"scale": (2, -1)}, {"scale": ((1, 2), (3, 4))}):
        for chunks in (2, (5, 7)):
            for width in (1, ((0, 4), (6, 1)), 9):
                assert_pad_matches_numpy(data, chunks, width, "scaled_edge", **scale)


def test_a_mode_per_axis_gives_it_to_its_axes(scaled_edge_module):
    data = np.arange(35.0).reshape(5, 7)
    x = da.from_array(data, chunks=3)
    mode = {0: "scaled_edge", 1: "wrap"}
    for scale in (3, {0: (2, 5)}):
        got = daskpad.pad(x, {0: (1, 2), 1: 1}, mode, scale=scale).compute()
        want = chained_numpy_pad(data, {0: (1, 2), 1: 1}, mode, scale=scale)
        np.testing.assert_array_equal(got, want)


def test_its_misfits_are_the_tables(scaled_edge_module):
    x = da.zeros((4, 4), chunks=2)
    with pytest.raises(ValueError, match=r"mode 'wrap' takes: none; they fit mode\(s\) \['scaled"):
        daskpad.pad(x, 1, "wrap", scale=2)
    with pytest.raises(ValueError, match="scale gives a value for axis 1, whose mode 'wrap'"):
        daskpad.pad(x, 1, {0: "scaled_edge", 1: "wrap"}, scale={1: 2})
    (misfit,) = keyword_misfits({0: "edge"}, {0}, {"scale": ()})
    assert misfit.unused and misfit.fits == ("scaled_edge",)


@pytest.mark.parametrize("chunked", [True, False], ids=["dask", "numpy"])
def test_pad2_takes_it_by_dimension(scaled_edge_module, chunked):
    data = np.arange(12.0).reshape(3, 4)
    ds = xr.Dataset({"t": (("y", "x"), data)})
    ds = ds.chunk(2) if chunked else ds
    out = ds.pad2(x=(1, 2), y=1, mode="scaled_edge", scale={"x": (2, 3)})
    want = scaled_edge_module.reference(data, ((1, 1), (1, 2)), scale=((1, 1), (2, 3)))
    np.testing.assert_array_equal(out.t.compute().values, want)
    with pytest.raises(ValueError, match="scale"):
        ds.pad2(x=1, mode="edge", scale=2)


# (the command writes with xarray's to_zarr, which calls dask.array.store: not implemented
# for dask's array query planning)
@pytest.mark.xfail(
    dask.config.get("array.query-planning", None) is True,
    reason="dask.array.store (used by to_zarr) is not implemented for dask's array-expr",
    strict=True,
)
def test_the_command_has_its_option(scaled_edge_module, tmp_path):
    pytest.importorskip("zarr")
    from daskpad import cli

    data = np.arange(12.0).reshape(3, 4)
    ds = xr.Dataset({"t": (("y", "x"), data)}).chunk(2)
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    ds.to_zarr(src)
    argv = ["pad", str(src), str(dst), "--width", "x=1:2", "--mode", "scaled_edge"]
    assert cli.main([*argv, "--scale", "x=2:3"]) == 0
    want = scaled_edge_module.reference(data, ((0, 0), (1, 2)), scale=((1, 1), (2, 3)))
    np.testing.assert_array_equal(xr.open_zarr(dst).t.values, want)


def test_the_strategies_draw_it(scaled_edge_module):
    from daskpad.testing.hypothesis_strategies import mode_kwargs, per_axis_kwargs

    shape = (3, 4)
    drawn = hypothesis.find(
        mode_kwargs("scaled_edge", np.dtype(float), shape), lambda k: "scale" in k
    )
    assert set(drawn) == {"scale"}
    drawn = hypothesis.find(
        per_axis_kwargs({0: "scaled_edge"}, np.dtype(float), shape),
        lambda k: isinstance(k.get("scale"), dict),
    )
    assert set(drawn["scale"]) == {0}


def test_pad2_names_numpys_keywords_in_its_signature():
    """numpy.pad's keywords (the table as daskpad ships it) are parameters of ``pad2``, for
    ``help()``, editors and type checkers; a registered mode's own keywords arrive through
    ``**kwargs`` (above)."""
    import inspect

    from daskpad.core.keywords import keyword_names
    from daskpad.xarray import pad2

    shipped = set(keyword_names())
    assert shipped == {"stat_length", "constant_values", "end_values", "reflect_type"}
    parameters = inspect.signature(pad2).parameters
    assert all(parameters[k].kind is inspect.Parameter.KEYWORD_ONLY for k in shipped)


@pytest.mark.parametrize(
    ("keyword", "message"),
    [
        (Keyword("reflect_type", ("reflect",), "choice"), "defined already"),
        (Keyword("chunks", ("edge",), "values"), "an argument of the pad functions"),
        (Keyword("scale2", ("edge",), "values", flag="--end-value"), "belongs to another keyword"),
    ],
    ids=["twice", "an argument's name", "a flag taken"],
)
def test_a_keyword_that_would_shadow_another_is_refused(keyword, message):
    with pytest.raises(ValueError, match=message):
        define(keyword)
    assert "scale2" not in KEYWORDS


LEVEL_MODULE = '''
"""level: pads filled with the keyword ``level``, a value written into the pads as it is."""

import numpy as np

from daskpad.core.keywords import Keyword, define
from daskpad.core.registry import Mode, register
from daskpad.core.sides import blockwise_chunks, per_pad_block

define(
    Keyword(
        "level",
        ("level",),
        "values",
        default=0,
        in_pads=True,
        flag="--level",
        metavar="V|B:A|DIM=V|DIM=B:A",
        help="mode level: the value of the pads",
    )
)


def level_block(edge, *, value, start, stop, axis):
    shape = list(edge.shape)
    shape[axis] = stop - start
    return np.full(shape, value, edge.dtype)


def build(x, ap, plan, sides):
    n = ap.length
    edges = (x.slab(ap.axis, 0, 1), x.slab(ap.axis, n - 1, n))

    def make(side, chunks, offset):
        kwargs = {"axis": ap.axis, "value": ap.pairs["level"][side]}
        return blockwise_chunks(level_block, x, ap.axis, chunks, 0, [edges[side]], kwargs)

    return per_pad_block(ap, sides, make)


def reference(array, pad_width, level=0):
    return np.pad(array, pad_width, mode="constant", constant_values=level)


register([Mode("level", "leveled", reference=reference)], build)
'''


@pytest.fixture
def level(tmp_path):
    with imported(tmp_path, "level_mode", LEVEL_MODULE) as module:
        try:
            yield module
        finally:
            unregister("level")
            undefine("level")


def _packed() -> xr.Dataset:
    """An int16 variable packed with scale_factor 0.5 (values -16384 to 16383.5)."""
    raw = np.arange(12, dtype="int16").reshape(3, 4)
    attrs = {"scale_factor": 0.5, "_FillValue": np.int16(-32767)}
    return xr.Dataset({"t": (("y", "x"), raw, attrs)})


def test_a_keyword_whose_values_go_into_the_pads_is_checked_against_the_encoding(level, tmp_path):
    """The table says which keywords' values are written into the pads (``in_pads``):
    pad2 refuses one the kept encoding cannot store, at the call, whatever it is called."""
    ds = xr.decode_cf(_packed()).chunk(2)
    with pytest.raises(ValueError, match="1000000 is outside what int16 holds"):
        ds.pad2(x=1, mode="level", level=1e6)
    out = ds.pad2(x=1, mode="level", level=(2.5, -3))
    np.testing.assert_array_equal(out.t.compute().values[:, [0, -1]], [[2.5, -3]] * 3)


@pytest.mark.xfail(
    dask.config.get("array.query-planning", None) is True,
    reason="dask.array.store (used by to_zarr) is not implemented for dask's array-expr",
    strict=True,
)
def test_the_command_checks_such_a_keyword_before_writing(level, tmp_path, capsys):
    pytest.importorskip("zarr")
    from daskpad import cli

    _packed().to_zarr(tmp_path / "src.zarr")
    dst = tmp_path / "dst.zarr"
    argv = ["pad", str(tmp_path / "src.zarr"), str(dst), "--width", "x=1", "--mode", "level"]
    assert cli.main([*argv, "--level", "1000000"]) == 2
    err = capsys.readouterr().err
    assert "1000000 is outside what int16 holds" in err and err.count("\n") == 1, err
    assert not dst.exists()
    assert cli.main([*argv, "--level", "7"]) == 0
    assert (xr.open_zarr(dst).t.values[:, 0] == 7).all()
