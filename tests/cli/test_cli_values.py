"""The command pads the values xarray decodes and stores them with the input's encoding.

One dataset holds every kind of encoded variable (CF packing with fill values and missing
values, ``_Unsigned``, ``missing_value``, a float holding both NaN and its fill value,
times, packed coordinates). Each case pads it once with the command, and what xarray opens
from DST must equal xarray's own round trip of ``pad2`` of the opened input through the
same encoding (NaN where NaN); the stored dtypes are the input's, and every element
copied from the input keeps its stored bits.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from helpers.encoded_data import CASES, decoded_input
from helpers.markers import WRITES

xr = pytest.importorskip("xarray")
zarr = pytest.importorskip("zarr")

from daskpad.cli import main  # noqa: E402

pytestmark = pytest.mark.xdist_group("cli-values")


@pytest.fixture(scope="module")
def values_sources(tmp_path_factory) -> dict[str, Path]:
    where = tmp_path_factory.mktemp("values")
    ds = decoded_input().chunk({"time": 2, "lat": 4, "lon": 3})
    out = {}
    with warnings.catch_warnings():
        # zarr's note on consolidated metadata in v3; xarray's on packing without a fill
        warnings.simplefilter("ignore")
        for fmt in (2, 3):
            path = where / f"src_v{fmt}.zarr"
            ds.to_zarr(path, zarr_format=fmt, consolidated=fmt == 2)
            # a float holding NaN besides its fill value: both read as missing
            z = zarr.open_array(path / "fboth", mode="r+")
            z[1, 2] = np.nan
            out[f"zarr{fmt}"] = path
        nc = where / "src.nc"
        ds.load().to_netcdf(nc, engine="h5netcdf")
        out["netcdf"] = nc
    return out


KINDS = ("zarr3", "zarr2", "netcdf")


def options_of(args: list[str]) -> tuple[dict, object, dict]:
    """The widths, mode and keywords the command's options say, as pad2 takes them."""
    widths: dict = {}
    modes: dict = {}
    kwargs: dict = {}
    it = iter(args)
    for flag in it:
        value = next(it)
        if flag == "--width":
            dim, _, w = value.partition("=")
            b, _, a = w.partition(":")
            widths[dim] = (int(b), int(a or b))
        elif flag == "--mode":
            dim, eq, m = value.partition("=")
            modes[dim if eq else None] = m if eq else dim
        else:
            key = {
                "--stat-length": "stat_length",
                "--constant-value": "constant_values",
                "--end-value": "end_values",
                "--reflect-type": "reflect_type",
            }[flag]
            dim, eq, v = value.partition("=")
            v = v if eq else dim
            parsed = v if key == "reflect_type" else (int(v) if key == "stat_length" else float(v))
            if eq:
                kwargs.setdefault(key, {})[dim] = parsed
            else:
                kwargs[key] = parsed
    mode = modes.pop(None) if None in modes else modes
    return widths, mode, kwargs


def round_trip(ds: xr.Dataset, where: Path) -> xr.Dataset:
    """``ds`` written by xarray with its own encoding, and opened again."""
    ds = ds.copy()
    for var in ds.variables.values():
        for key in (
            "chunks",
            "preferred_chunks",
            "compressors",
            "filters",
            "shards",
            "serializer",
        ):
            var.encoding.pop(key, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (xarray's notes on packing floats into integers)
        ds.to_zarr(where, zarr_format=3, consolidated=False)
    return xr.open_zarr(where, consolidated=False).load()


def open_input(path: Path, **kwargs) -> xr.Dataset:
    if path.suffix == ".nc":
        return xr.open_dataset(path, engine="h5netcdf", **kwargs)
    return xr.open_zarr(path, consolidated="_v2" in path.name, **kwargs)


@pytest.fixture(scope="module")
def values_runs(values_sources, tmp_path_factory):
    """Each case on each input kind: ``{(case, kind): (exit status, DST)}``."""
    where = tmp_path_factory.mktemp("values-out")
    out = {}
    for case, args in CASES.items():
        for kind in KINDS:
            dst = where / f"{case}-{kind}.zarr"
            out[case, kind] = (main(["pad", str(values_sources[kind]), str(dst), *args]), dst)
    return out


@WRITES
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", list(CASES))
def test_dst_opens_to_the_round_trip_of_pad2(case, kind, values_runs, values_sources, tmp_path):
    rc, dst = values_runs[case, kind]
    assert rc == 0
    widths, mode, kwargs = options_of(CASES[case])
    with open_input(values_sources[kind]) as src:
        padded = src.pad2(widths, mode=mode, **kwargs).compute()
        expected = round_trip(padded, tmp_path / "e")
        if padded.s8.encoding.get("_Unsigned"):  # (xarray's writer drops _Unsigned)
            expected["s8"] = padded.s8
    got = xr.open_zarr(dst, consolidated=True).load()
    assert set(got.variables) == set(expected.variables)
    for name, var in expected.variables.items():
        np.testing.assert_array_equal(got[name].values, var.values, err_msg=str(name))
        assert got[name].dtype == var.dtype, name


@WRITES
@pytest.mark.parametrize("kind", ["zarr3", "zarr2"])
@pytest.mark.parametrize("case", list(CASES))
def test_stored_dtypes_and_copied_bits_are_the_inputs(case, kind, values_runs, values_sources):
    """Stored dtypes are the input's; every element copied from the input (the interior,
    and the pads of axes padded by copying) keeps its stored bits."""
    _, dst = values_runs[case, kind]
    widths, mode, kwargs = options_of(CASES[case])
    raw_in = open_input(values_sources[kind], mask_and_scale=False, decode_times=False)
    raw_out = xr.open_zarr(dst, mask_and_scale=False, decode_times=False)
    for name, var in raw_in.variables.items():
        out = raw_out[name]
        # an integer without a fill value padded with NaN: stored as pad2 made it, float,
        # the values decoded (an _Unsigned byte read unsigned)
        if out.dtype != var.dtype and var.dtype.kind in "iu" and "_FillValue" not in var.attrs:
            assert out.dtype.kind == "f" and "_Unsigned" not in out.attrs, name
            decoded = var.values.view("uint8") if "_Unsigned" in var.attrs else var.values
            inner = tuple(slice(widths.get(d, (0, 0))[0], None) for d in var.dims)
            got = out.values[inner][tuple(slice(0, n) for n in var.shape)]
            np.testing.assert_array_equal(got, decoded, err_msg=str(name))
            continue
        assert out.dtype == var.dtype, name
        # the pads of copying axes are numpy.pad of the stored values
        copying = _copying(mode, kwargs, var.dims, widths, name in raw_in.indexes)
        pairs = [widths.get(d, (0, 0)) if d in copying else (0, 0) for d in var.dims]
        modes = {k: _mode(mode, d) for k, d in enumerate(var.dims) if d in copying}
        expected = np.asarray(var.values)
        for k, m in modes.items():
            alone = [pairs[i] if i == k else (0, 0) for i in range(var.ndim)]
            expected = np.pad(expected, alone, mode=m)
        inner = tuple(
            slice(widths.get(d, (0, 0))[0], widths.get(d, (0, 0))[0] + n)
            if d not in copying
            else slice(None)
            for d, n in zip(var.dims, var.shape)
        )
        got = np.asarray(out.values)[inner]
        assert got.tobytes() == expected.tobytes(), name


def _mode(mode, dim):
    return mode.get(dim, "constant") if isinstance(mode, dict) else mode


def _copying(mode, kwargs, dims, widths, is_index):
    odd = kwargs.get("reflect_type") == "odd"
    return {
        d
        for d in dims
        if widths.get(d, (0, 0)) != (0, 0)
        and not is_index
        and _mode(mode, d) in ("edge", "wrap", "symmetric", "reflect")
        and not odd
    }


# --------------------------------------------------------------------------------------
# What the encoding cannot hold is refused by name, before anything is written
# --------------------------------------------------------------------------------------
@WRITES
@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--constant-value", "4"], "tp"),  # 40000: out of int16 once packed
        (["--constant-value=-3.2767"], "tp"),  # the fill value itself: would read NaN
        (["--mode", "linear_ramp", "--end-value", "300"], "u8"),  # out of uint8
    ],
)
def test_values_the_encoding_cannot_hold_are_refused(
    options, words, values_sources, tmp_path, capsys
):
    """(A value inside the range is rounded into the stored type, as xarray rounds it.)"""
    dst = tmp_path / "out.zarr"
    args = [
        "pad",
        str(values_sources["zarr3"]),
        str(dst),
        "--width",
        "lat=1",
        "--var",
        words,
        *options,
    ]
    if "--mode" not in options:
        args += ["--mode", "constant"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("daskpad: error:") and err.count("\n") == 1, err
    assert f"variable {words!r}: a padded value cannot be stored in its encoding" in err, err
    assert not dst.exists()
    assert not list(tmp_path.iterdir())


@WRITES
@pytest.mark.parametrize(
    ("options", "why"),
    [
        (["--constant-value", "1"], "a time that 'days since 2000-01-01' in int64 cannot"),
        (["--constant-value", "86400000000000"], None),  # 1970-01-02: a whole day
    ],
)
def test_a_time_constant_the_units_cannot_hold_is_refused(
    options, why, values_sources, tmp_path, capsys
):
    """``when`` is stored as whole days (int64): a constant of 1 (ns since the epoch, as
    --help says) is refused in one line, with no warning before it; a whole day is not."""
    dst = tmp_path / "out.zarr"
    args = ["pad", str(values_sources["zarr3"]), str(dst), "--width", "time=1", "--var", "when"]
    status = main([*args, "--mode", "constant", *options])
    err = capsys.readouterr().err
    if why is None:
        assert status == 0, err
        day = np.datetime64("1970-01-02", "ns")
        assert (xr.open_zarr(dst).when.values[[0, -1]] == day).all()
        return
    assert status == 2
    assert err.startswith("daskpad: error:") and err.count("\n") == 1, err
    assert "variable 'when': a padded value cannot be stored" in err and why in err, err
    assert not list(tmp_path.iterdir())


@WRITES
def test_a_mode_a_variables_dtype_cannot_take_names_the_variable(values_sources, tmp_path, capsys):
    """numpy.pad's refusal of a mean of times, in one line that says which variable."""
    dst = tmp_path / "out.zarr"
    args = ["pad", str(values_sources["zarr3"]), str(dst), "--width", "time=1", "--mode", "mean"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("daskpad: error: --width time=1 --mode mean: "), err
    assert err.count("\n") == 1, err
    assert "in the variable 'when' (datetime64[ns])" in err, err
    assert not list(tmp_path.iterdir())


def test_a_value_out_of_the_packed_range_says_the_range():
    from daskpad.xarray.storable import encode as _encode

    encoding = {"dtype": "int16", "scale_factor": 1e-4, "_FillValue": -32767}
    with pytest.raises(ValueError, match=r"1000000 is outside what int16 holds \(values from "):
        _encode(np.array([1e6]), variable="tp", encoding=encoding)


def test_nat_without_a_fill_value_in_int32_is_refused_as_missing():
    """(int64 stores NaT as its smallest value; int32 has no room for it.)"""
    from daskpad.xarray.storable import encode as _encode

    encoding = {"dtype": "int32", "units": "hours since 2020-01-01"}
    with pytest.raises(ValueError, match="no _FillValue to store a missing value"):
        _encode(np.array(["NaT"], "datetime64[ns]"), variable="vt", encoding=encoding)


@WRITES
def test_a_run_on_workers_writes_the_same(values_runs, values_sources, tmp_path):
    """The same values through ``--workers 2`` (process workers)."""
    dst = tmp_path / "w.zarr"
    argv = ["pad", str(values_sources["zarr3"]), str(dst), *CASES["mixed"], "--workers", "2"]
    run = subprocess.run(
        [sys.executable, "-m", "daskpad", *argv],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    _, threads = values_runs["mixed", "zarr3"]
    a, b = xr.open_zarr(dst).load(), xr.open_zarr(threads).load()
    xr.testing.assert_identical(a, b)


def test_the_input_is_what_the_tests_mean():
    """(The variables' encodings survive the writing: xarray keeps _Unsigned only in
    attrs it is given, for one.)"""
    ds = decoded_input()
    assert ds.s8.dtype == "int8" and ds.s8.attrs["_Unsigned"] == "true"
    assert xr.decode_cf(ds).s8.dtype == "uint8"


def test_a_time_the_units_cannot_express_is_refused():
    """Half a day in whole days: xarray would change the units; refused instead."""
    from daskpad.xarray.storable import encode as _encode

    when = np.array(["2000-01-02", "2000-01-02T12"], "datetime64[ns]")
    encoding = {"dtype": "int64", "units": "days since 2000-01-01"}
    np.testing.assert_array_equal(_encode(when[:1], variable="t", encoding=encoding), [1])
    with (
        pytest.warns(UserWarning, match="serialized faithfully"),  # (xarray's, on the way)
        pytest.raises(ValueError, match="variable 't': a padded value cannot be stored"),
    ):
        _encode(when, variable="t", encoding=encoding)


@WRITES
def test_dry_run_says_which_pads_are_copied_and_which_computed(values_sources, tmp_path, capsys):
    dst = tmp_path / "out.zarr"
    assert main(["pad", str(values_sources["zarr3"]), str(dst), *CASES["mixed"], "--dry-run"]) == 0
    out = capsys.readouterr().out.split("pads, per variable")[1].split("would write")[0]
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    assert "copied along lat; computed along lon" in lines["tp"]
    assert "computed along lat" in lines["lat"]  # an index: extended labels
    assert "when" not in lines  # no padded dimension
    assert not dst.exists()
