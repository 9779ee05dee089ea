"""``daskpad pad --chunk-grid rectilinear`` from zarr v2 and sharded inputs.

A zarr v2 array's chunk objects are copied where a zarr v3 codec reads the same bytes
(blosc, zstd, gzip; C order; no filters), under zarr v3's keys (``i.j`` or ``i/j`` become
``c/i/j``), with a concrete fill value; other v2 arrays are computed. A sharded array's
shards are copied where the pads are whole inner chunks, and other pads are refused in
one line before anything is written. Either way DST opens as the regular grid's DST does,
and only the chunks the pads read are decoded.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from helpers.encoded_data import CASES, decoded_input
from helpers.markers import WRITES
from helpers.stores import (
    NEEDS,
    counted_reads,
    expanded_shapes,
    opened,
    rectilinear_axis,
    widths_of,
    zarr_json,
)

xr = pytest.importorskip("xarray")
zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")

from daskpad._compat.libraries import rectilinear_support  # noqa: E402
from daskpad.cli import main  # noqa: E402

pytestmark = [pytest.mark.xdist_group("rectilinear"), NEEDS]

CHUNKS = {"time": 2, "lat": 4, "lon": 3}  # lat 6 and lon 8: partial last chunks

# name -> (compressor, separator of the v2 chunk keys)
V2_STORES = {
    "zstd": (numcodecs.Zstd(level=3), "."),
    "blosc": (numcodecs.Blosc(cname="zstd", clevel=3, shuffle=numcodecs.Blosc.BITSHUFFLE), "/"),
    "gzip": (numcodecs.GZip(level=5), "."),
}
# a packed int16 with _FillValue and missing values (tp), floats holding NaN (f32m,
# fboth), an int8 whose v2 fill value is null (s8), times (when), unpadded arrays (w)
V2_RUNS = [("zstd", "copies"), ("blosc", "mixed"), ("gzip", "odd")]
MISSING = {"tp": (0, 0, 0), "s8": (0, 0), "f32m": (1, 1, 1)}  # chunks SRC never wrote


DEFAULT = {"separator": "/"}  # zarr v3's default chunk keys: c/i/j


def _v2_key(index: tuple[int, ...], separator: str) -> str:
    return separator.join(map(str, index))


@pytest.fixture(scope="module")
def v2_sources(tmp_path_factory) -> dict[str, Path]:
    where = tmp_path_factory.mktemp("rect-v2")
    out = {}
    for name, (compressor, separator) in V2_STORES.items():
        ds = decoded_input().chunk(CHUNKS)
        for var in ds.variables.values():
            var.encoding.update(
                compressors=(compressor,),
                chunk_key_encoding={"name": "v2", "separator": separator},
            )
        path = where / f"{name}_v2.zarr"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (xarray's notes on packing)
            ds.to_zarr(path, zarr_format=2, consolidated=True)
        for var, index in MISSING.items():  # read as the fill value (s8's: 0)
            (path / var / _v2_key(index, separator)).unlink()
        out[name] = path
    return out


@pytest.fixture(scope="module")
def v2_runs(v2_sources, tmp_path_factory) -> dict[tuple[str, str], tuple[Path, Path]]:
    """Each run on both grids: ``{(store, case): (regular DST, rectilinear DST)}``."""
    if rectilinear_support() is not None:
        pytest.skip("rectilinear grids need zarr-python >= 3.2")
    where = tmp_path_factory.mktemp("rect-v2-out")
    out = {}
    for store, case in V2_RUNS:
        src = str(v2_sources[store])
        regular, rect = where / f"{store}-{case}.zarr", where / f"{store}-{case}-rect.zarr"
        assert main(["pad", src, str(regular), *CASES[case], "--no-progress"]) == 0
        argv = ["pad", src, str(rect), *CASES[case], "--no-progress"]
        assert main([*argv, "--chunk-grid", "rectilinear"]) == 0
        out[store, case] = regular, rect
    return out


@WRITES
@pytest.mark.parametrize(("store", "case"), V2_RUNS)
def test_v2_dst_opens_as_the_regular_grid_does(store, case, v2_runs):
    regular, rect = v2_runs[store, case]
    xr.testing.assert_identical(opened(rect), opened(regular))


@WRITES
@pytest.mark.parametrize(("store", "case"), V2_RUNS)
def test_v2_chunks_are_copied_byte_for_byte_under_v3_keys(store, case, v2_runs, v2_sources):
    _, rect = v2_runs[store, case]
    src, separator = v2_sources[store], V2_STORES[store][1]
    widths = widths_of(CASES[case])
    copied = 0
    for name in ("tp", "f32m", "u8", "s8", "fboth", "elev", "when", "w"):
        zarray = json.loads((src / name / ".zarray").read_text())
        doc = zarr_json(rect / name)
        if np.dtype(doc["data_type"]) != np.dtype(zarray["dtype"]):
            continue  # a new dtype (NaN padded into integers): every chunk computed
        assert doc["chunk_key_encoding"] == {"name": "default", "configuration": DEFAULT}
        assert doc["codecs"][-1]["name"] == store  # SRC's compressor, as its v3 codec
        fill = zarray["fill_value"]
        assert doc["fill_value"] == (0 if fill is None else fill)  # concrete
        stored, shape = zarray["chunks"], zarray["shape"]
        if doc["chunk_grid"]["name"] == "regular":  # not padded: SRC's grid
            assert doc["chunk_grid"]["configuration"]["chunk_shape"] == stored
            first, along = [0] * len(shape), [-(-n // c) for n, c in zip(shape, stored)]
        else:
            sizes = expanded_shapes(doc["chunk_grid"]["configuration"]["chunk_shapes"])
            first, along = [], []
            for d, got, c, n in zip(doc["dimension_names"], sizes, stored, shape):
                expected, f, copied_along = rectilinear_axis(n, c, *widths.get(d, (0, 0)))
                assert tuple(got) == expected, (name, d)
                first.append(f)
                along.append(copied_along)
        for index in np.ndindex(*along):
            a = src / name / _v2_key(index, separator)
            b = rect / name / "c" / Path(*(str(i + f) for i, f in zip(index, first)))
            assert a.exists() == b.exists(), (name, index)
            if a.exists():
                assert a.read_bytes() == b.read_bytes(), (name, index)
                copied += 1
    assert copied


NY, NX, CY, CX = 40, 50, 8, 10  # 5 x 5 chunks


def _plain_v2(path: Path, **array: object) -> Path:
    """A zarr v2 store of one float32 variable t (lat, lon) in 5 x 5 chunks, stored as
    ``array`` says (compressors, filters, order), its coordinates zstd."""
    values = np.random.default_rng(1).normal(size=(NY, NX)).astype("float32")
    values[3, 3] = np.nan
    root = zarr.open_group(path, mode="w", zarr_format=2)
    t = root.create_array(
        "t", shape=(NY, NX), chunks=(CY, CX), dtype="f4", fill_value=np.nan, **array
    )
    t[...] = values
    t.attrs["_ARRAY_DIMENSIONS"] = ["lat", "lon"]
    for dim, n in (("lat", NY), ("lon", NX)):
        c = root.create_array(dim, shape=(n,), chunks=(n,), dtype="f8", fill_value=np.nan,
                              compressors=numcodecs.Zstd(level=1))  # fmt: skip
        c[...] = np.arange(n) * 1.0
        c.attrs["_ARRAY_DIMENSIONS"] = [dim]
    zarr.consolidate_metadata(path)
    return path


def _v2_reads(monkeypatch, src: Path) -> tuple[list[str], list[int]]:
    """The chunk keys of ``src``'s t read through zarr, and a count of the zarr v2 chunks
    zarr decodes."""
    from zarr.codecs._v2 import V2Codec

    keys = counted_reads(monkeypatch, src, lambda key: key[:2] == "t/" and key[2:3].isdigit())
    decoded = [0]
    decode = V2Codec._decode_sync

    def counted_decode(self, *args, **kwargs):
        decoded[0] += 1
        return decode(self, *args, **kwargs)

    monkeypatch.setattr(V2Codec, "_decode_sync", counted_decode)
    return keys, decoded


@WRITES
def test_only_the_v2_chunks_the_pads_read_are_decoded_each_once(tmp_path, monkeypatch):
    src = _plain_v2(tmp_path / "src.zarr", compressors=numcodecs.Zstd(level=3))
    keys, decoded = _v2_reads(monkeypatch, src)
    options = ["--width", "lat=3", "--width", "lon=12", "--mode", "reflect"]
    dst = tmp_path / "out.zarr"
    assert main(["pad", str(src), str(dst), *options, "--chunk-grid", "rectilinear"]) == 0
    # reflect 3 reads chunk 0 and the last along lat; 12 > CX reads two along lon
    rows, cols = {0, 4}, {0, 1, 3, 4}
    wanted = [(i, j) for i, j in np.ndindex(5, 5) if i in rows or j in cols]
    assert sorted(keys) == sorted(f"t/{i}.{j}" for i, j in wanted)  # each once, no other
    assert decoded[0] == len(keys) + 2  # (and the coordinates lat and lon)
    for i, j in np.ndindex(5, 5):  # (every chunk whole: copied, read or not)
        copy = dst / "t" / "c" / str(i + 1) / str(j + 2)
        assert copy.read_bytes() == (src / "t" / f"{i}.{j}").read_bytes()


@WRITES
@pytest.mark.parametrize(
    ("array", "why"),
    [
        ({"filters": [numcodecs.Shuffle(elementsize=4)]}, "zarr v2 filters shuffle"),
        ({"order": "F"}, "zarr v2 order F"),
        ({"compressors": numcodecs.LZMA()}, "zarr v2 compressor lzma"),
    ],
    ids=["filters", "order-F", "lzma"],
)
def test_other_v2_arrays_are_computed(array, why, tmp_path, capsys):
    src = _plain_v2(tmp_path / "src.zarr", **array)
    options = ["--width", "lat=3", "--width", "lon=2:0", "--mode", "symmetric"]
    regular, rect = tmp_path / "regular.zarr", tmp_path / "rect.zarr"
    grid = ["--chunk-grid", "rectilinear"]
    assert main(["pad", str(src), str(rect), *options, *grid, "--dry-run"]) == 0
    said = capsys.readouterr().out
    assert f"t  0 copied, 42 computed ({why}); chunks (3, 5x8, 3) x (2, 5x10)" in said
    assert main(["pad", str(src), str(regular), *options, "--no-progress"]) == 0
    assert main(["pad", str(src), str(rect), *options, *grid, "--no-progress"]) == 0
    xr.testing.assert_identical(opened(rect), opened(regular))
    assert zarr_json(rect / "t")["chunk_grid"]["name"] == "rectilinear"


@WRITES
def test_dry_run_says_v2_chunks_are_copied(v2_sources, tmp_path, capsys):
    dst = tmp_path / "out.zarr"
    argv = ["pad", str(v2_sources["blosc"]), str(dst), "--width", "lat=2", "--mode", "reflect"]
    assert main([*argv, "--chunk-grid", "rectilinear", "--dry-run"]) == 0
    out = capsys.readouterr().out
    # time 4 in chunks of 2; lat 6 (4, 2) padded 2:2, its last chunk and the pad after
    # it cut as one stretch of 4; lon 8 (3, 3, 2), its last declared 3
    said = "tp         6 copied, 12 computed (from keys i/j); chunks (2, 2) x (2, 4, 4) x "
    assert f"{said}(3, 3, 2)" in out
    assert "lon_label  copied whole (not padded; SRC's grid; from keys i/j)" in out
    assert not dst.exists()


# --------------------------------------------------------------------------------------
# Sharded inputs
# --------------------------------------------------------------------------------------
@WRITES
def test_sharded_shards_are_copied_where_the_pads_are_whole_inner_chunks(
    sharded, tmp_path, monkeypatch
):
    options = ["--width", "lat=12:4", "--width", "lon=5:0", "--mode", "reflect"]
    regular, rect = tmp_path / "regular.zarr", tmp_path / "rect.zarr"
    assert main(["pad", str(sharded), str(regular), *options, "--no-progress"]) == 0
    keys = counted_reads(monkeypatch, sharded, lambda key: key.startswith("t/c/"))
    argv = ["pad", str(sharded), str(rect), *options, "--no-progress"]
    assert main([*argv, "--chunk-grid", "rectilinear"]) == 0
    monkeypatch.undo()
    read = set(keys)
    xr.testing.assert_identical(opened(rect), opened(regular))
    doc = zarr_json(rect / "t")
    assert doc["codecs"] == zarr_json(sharded / "t")["codecs"]  # sharded, as SRC
    # lat: 12 before in shards of 8 (4, 8), 5 shards, 4 after; lon: 5 before, 5 shards
    # (the last, 7 long, declared whole and copied)
    assert expanded_shapes(doc["chunk_grid"]["configuration"]["chunk_shapes"]) == [
        [4, 8, 8, 8, 8, 8, 8, 4],
        [5, 10, 10, 10, 10, 10],
    ]
    for i, j in np.ndindex(5, 5):
        a, b = sharded / "t/c" / f"{i}/{j}", rect / "t/c" / f"{i + 2}/{j + 1}"
        assert a.read_bytes() == b.read_bytes(), (i, j)
    # reflect reads the first two shards (rows 1 to 12) and the last along lat, the first
    # along lon: no other
    shards = {f"t/c/{i}/{j}" for i, j in np.ndindex(5, 5) if i in (0, 1, 4) or j == 0}
    assert read and read <= shards


@pytest.mark.parametrize(
    ("widths", "said"),
    [
        (
            ["--width", "lat=3"],
            "t is stored in shards of inner chunks (4, 5), and DST's shards must be whole "
            "inner chunks: --width lat=3:3 makes some that are not; widths that work: "
            "lat=B:A with B and A multiples of 4 (or --chunk-grid regular)",
        ),
        (
            ["--width", "lon=5"],
            "--width lon=5:5 makes some that are not (lon's last shard of 7 and the pad of "
            "5 after it make 12, not a multiple of 5); widths that work: lon=B:A with B a "
            "multiple of 5 and A 0 or 3 plus a multiple of 5",
        ),
    ],
    ids=["width", "partial-last-shard"],
)
def test_sharded_pads_that_split_inner_chunks_are_refused(widths, said, sharded, tmp_path, capsys):
    dst = tmp_path / "out.zarr"
    for dry in ([], ["--dry-run"]):
        argv = ["pad", str(sharded), str(dst), *widths, "--chunk-grid", "rectilinear", *dry]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert said in err and len(err.strip().splitlines()) == 1, err
        assert err.startswith("daskpad: error: --chunk-grid rectilinear: t is stored in")
        assert not dst.exists()


@WRITES
def test_a_partial_last_shard_and_the_pad_after_it_make_whole_inner_chunks(sharded, tmp_path):
    # lon 47 in shards of 10 (the last 7), inner chunks of 5: 7 + 8 = 15, shards 10 and 5
    dst = tmp_path / "out.zarr"
    argv = ["pad", str(sharded), str(dst), "--width", "lon=5:8", "--mode", "wrap"]
    assert main([*argv, "--chunk-grid", "rectilinear", "--no-progress"]) == 0
    doc = zarr_json(dst / "t")
    assert expanded_shapes(doc["chunk_grid"]["configuration"]["chunk_shapes"])[1] == [
        5, 10, 10, 10, 10, 10, 5,
    ]  # fmt: skip
    with zarr.config.set({"array.rectilinear_chunks": True}):
        got = zarr.open_array(dst / "t")[...]
        np.testing.assert_array_equal(
            got, np.pad(zarr.open_array(sharded / "t")[...], ((0, 0), (5, 8)), mode="wrap")
        )


def test_dry_run_says_shards_are_copied(sharded, tmp_path, capsys):
    dst = tmp_path / "out.zarr"
    argv = ["pad", str(sharded), str(dst), "--width", "lat=4:0", "--chunk-grid", "rectilinear"]
    assert main([*argv, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "t  25 copied, 5 computed (shards of inner chunks (4, 5)); chunks (4, 5x8) x " in out
    assert not dst.exists()
