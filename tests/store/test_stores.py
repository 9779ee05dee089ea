"""Stores in object storage: the command and the writers against a real S3-compatible
server (moto in server mode, on 127.0.0.1), and the held-back root metadata that keeps a
store in the making from opening.

Every store written here is read back with zarr or xarray and compared with numpy.pad of
what was stored in the input.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import unquote, urlparse

import dask.array as da
import numpy as np
import pytest
from helpers.cli_launcher import COMMAND, HOOK_ENV, hooked
from helpers.markers import WRITES

import daskpad
from daskpad.store.places.locations import (
    INCOMPLETE,
    METADATA_DOCS,
    HeldRoot,
    locate,
    storage_options,
)

zarr = pytest.importorskip("zarr")
xr = pytest.importorskip("xarray")
pytest.importorskip("s3fs")
moto_server = pytest.importorskip("moto.server")
#: the server's log of the requests it serves (the server runs in this process)
recorder = pytest.importorskip("moto.moto_api").recorder

from daskpad._compat.libraries import rectilinear_support  # noqa: E402
from daskpad.cli import main  # noqa: E402
from daskpad.store.writing.consolidation import consolidate  # noqa: E402

_SCRIPT = Path(sys.executable).with_name("daskpad")
DASKPAD = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "daskpad"]

CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "daskpad-test",
    "AWS_SECRET_ACCESS_KEY": "daskpad-test",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",
}


@pytest.fixture(scope="module")
def endpoint():
    """The URL of an S3-compatible server on 127.0.0.1 (credentials in the environment;
    the endpoint is given to each use, never through the environment)."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    with pytest.MonkeyPatch.context() as mp:
        for k, v in CREDENTIALS.items():
            mp.setenv(k, v)
        mp.delenv("AWS_ENDPOINT_URL", raising=False)
        yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture(scope="module")
def s3(endpoint):
    import s3fs

    fs = s3fs.S3FileSystem(endpoint_url=endpoint, skip_instance_cache=True)
    fs.mkdir("daskpad-test")
    return fs


@pytest.fixture
def bucket(s3):
    """A fresh prefix in the test bucket: ``s3://daskpad-test/<unique>``."""
    return f"s3://daskpad-test/{uuid.uuid4().hex[:8]}"


def opts(endpoint):
    return {"endpoint_url": endpoint}


def so(endpoint):
    return ["--storage-option", f"endpoint_url={endpoint}"]


def keys(s3, url: str) -> list[str]:
    s3.invalidate_cache()
    path = url.removeprefix("s3://")
    return sorted(k.removeprefix(path + "/") for k in s3.find(path))


def dataset(zarr_format: int = 3) -> xr.Dataset:
    rng = np.random.default_rng(zarr_format)
    return xr.Dataset(
        {
            "t": (("lat", "lon"), rng.normal(280, 10, (8, 10)), {"units": "K"}),
            "n": (("lat", "lon"), rng.integers(-50, 50, (8, 10), dtype="int32")),
        },
        coords={"lat": np.linspace(-70.0, 70.0, 8), "lon": np.arange(0.0, 360.0, 36.0)},
        attrs={"title": "daskpad object store test"},
    )


def put_dataset(url: str, endpoint: str, zarr_format: int = 3) -> xr.Dataset:
    ds = dataset(zarr_format)
    ds.chunk(lat=3, lon=4).to_zarr(
        url, storage_options=opts(endpoint), zarr_format=zarr_format, consolidated=False
    )
    return ds


def run(*argv: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """The command as a subprocess: (status, stdout, stderr). The endpoint reaches it only
    through --storage-option."""
    env = {**os.environ, **CREDENTIALS, **(env or {})}
    env.pop("AWS_ENDPOINT_URL", None)
    command = COMMAND if hooked(env) else DASKPAD
    proc = subprocess.run(
        [*command, *map(str, argv)], capture_output=True, text=True, timeout=240, env=env
    )
    return proc.returncode, proc.stdout, proc.stderr


def read(url: str, endpoint: str) -> xr.Dataset:
    return xr.open_zarr(url, storage_options=opts(endpoint), consolidated=True)


# --------------------------------------------------------------------------------------
# Locations and storage options
# --------------------------------------------------------------------------------------
def test_storage_options_nest_and_parse_json():
    assert storage_options(["anon=true", "client_kwargs.region_name=eu-west-1", "n=3"]) == {
        "anon": True,
        "client_kwargs": {"region_name": "eu-west-1"},
        "n": 3,
    }
    with pytest.raises(ValueError, match="KEY=VALUE"):
        storage_options(["anon"])
    with pytest.raises(ValueError, match="already given a value"):
        storage_options(["a=1", "a.b=2"])


def test_local_paths_and_file_urls_are_local(tmp_path):
    for text in (str(tmp_path / "a.zarr"), f"file://{tmp_path}/a.zarr"):
        where = locate(text)
        assert where.local and where.local_path == tmp_path / "a.zarr"


def test_a_missing_driver_is_named():
    try:
        import gcsfs  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("gcsfs is installed: nothing is missing")
    rc, _, err = run("info", "gs://some-bucket/era5.zarr")
    assert rc == 2
    # fsspec's own message names the package; the command adds the extra that installs it
    line = err.strip()
    assert line.startswith("daskpad: error: SRC 'gs://some-bucket/era5.zarr': gs://: ")
    assert "gcsfs" in line and line.endswith("(pip install 'daskpad[gcs]')")
    assert len(err.strip().splitlines()) == 1


# --------------------------------------------------------------------------------------
# Root metadata held back
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("zarr_format", [2, 3])
def test_held_root_opens_only_once_published(tmp_path, zarr_format):
    from zarr.storage import LocalStore

    inner = LocalStore(tmp_path / "s.zarr")
    held = HeldRoot(inner)
    ds = dataset(zarr_format)  # in memory: no dask in the write
    ds.to_zarr(held, zarr_format=zarr_format, consolidated=False)
    consolidate(held, zarr_format)
    # arrays and chunks are in the store, but nothing at its top: it does not open
    on_disk = sorted(p.name for p in (tmp_path / "s.zarr").iterdir())
    assert not set(on_disk) & {"zarr.json", ".zgroup", ".zattrs", ".zmetadata"}
    with pytest.raises(FileNotFoundError):  # (zarr: GroupNotFoundError)
        xr.open_zarr(tmp_path / "s.zarr")
    with pytest.raises(FileNotFoundError):  # (zarr: GroupNotFoundError)
        zarr.open_group(tmp_path / "s.zarr", mode="r")
    # ... while the writer sees the whole store
    assert sorted(zarr.open_group(held, mode="r").array_keys()) == ["lat", "lon", "n", "t"]
    held.publish()
    back = xr.open_zarr(tmp_path / "s.zarr", consolidated=True)
    xr.testing.assert_identical(back.load(), ds.load())


def test_held_root_holds_every_metadata_document(tmp_path):
    from zarr.abc.store import OffsetByteRequest, RangeByteRequest, SuffixByteRequest
    from zarr.core.buffer import default_buffer_prototype
    from zarr.core.sync import sync
    from zarr.storage import LocalStore

    held = HeldRoot(LocalStore(tmp_path / "s.zarr"))
    root = zarr.open_group(held, mode="w")
    sub = root.create_group("sub")
    sub.create_array("a", shape=(4,), chunks=(2,), dtype="i4")[...] = [1, 2, 3, 4]
    root.create_array("empty", shape=(3,), chunks=(3,), dtype="f8")  # no chunk written
    # neither the root, nor the group, nor the array opens from the store itself
    on_disk = {p.name for p in (tmp_path / "s.zarr").rglob("*") if p.is_file()}
    assert on_disk == {"0", "1"}  # the chunks of sub/a, and nothing else
    for path in ("", "/sub", "/sub/a"):
        with pytest.raises(FileNotFoundError):
            zarr.open(str(tmp_path / "s.zarr") + path, mode="r")
    # ... while the writer sees it all, listings included
    assert sorted(zarr.open_group(held, mode="r").keys()) == ["empty", "sub"]
    assert list(zarr.open_group(held, mode="r")["sub"].array_keys()) == ["a"]
    proto = default_buffer_prototype()
    whole = sync(held.get("zarr.json", proto)).to_bytes()
    for request, part in [
        (RangeByteRequest(2, 7), whole[2:7]),
        (OffsetByteRequest(5), whole[5:]),
        (SuffixByteRequest(4), whole[-4:]),
    ]:
        assert sync(held.get("zarr.json", proto, request)).to_bytes() == part
    with pytest.raises(ValueError):  # a read-only view writes nothing, held or not
        sync(held.with_read_only(True).set("zarr.json", proto.buffer.from_bytes(b"{}")))
    held.publish()
    assert zarr.open_array(str(tmp_path / "s.zarr") + "/sub/a", mode="r")[...].tolist() == [
        1,
        2,
        3,
        4,
    ]


def test_held_root_holds_documents_written_synchronously(tmp_path):
    from zarr.core.buffer import default_buffer_prototype
    from zarr.storage import LocalStore

    held = HeldRoot(LocalStore(tmp_path / "s.zarr"))
    doc = default_buffer_prototype().buffer.from_bytes(b'{"zarr_format": 3}')
    chunk = default_buffer_prototype().buffer.from_bytes(b"1234")
    held.set_sync("a/zarr.json", doc)
    held.set_sync("a/c/0", chunk)
    on_disk = {str(p.relative_to(tmp_path / "s.zarr")) for p in tmp_path.rglob("*") if p.is_file()}
    assert on_disk == {"a/c/0"}  # (the chunk, not the document)
    assert held.get_sync("a/zarr.json").to_bytes() == b'{"zarr_format": 3}'
    assert held.get_sync("a/c/0").to_bytes() == b"1234"
    assert held.get_sync("b/zarr.json") is None
    held.delete_sync("a/zarr.json")
    assert held.get_sync("a/zarr.json") is None
    held.delete_sync("a/c/0")
    assert not (tmp_path / "s.zarr" / "a" / "c" / "0").exists()


def test_daskpad_imports_without_zarr():
    import subprocess
    import sys

    code = "import sys; sys.modules['zarr'] = None; import daskpad; daskpad.pad"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_held_root_travels_with_the_store(tmp_path):
    import pickle

    from zarr.storage import LocalStore

    held = HeldRoot(LocalStore(tmp_path / "s.zarr"))
    zarr.create_array(held, shape=(4,), chunks=(2,), dtype="i4")
    copy = pickle.loads(pickle.dumps(held))
    assert zarr.open_array(copy, mode="r").shape == (4,)
    assert zarr.open_array(held.with_read_only(True), mode="r").shape == (4,)


# --------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------
@WRITES
@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("where", ["s3 -> s3", "local -> s3", "s3 -> local", "file -> file"])
def test_pad_in_object_stores_equals_numpy(where, zarr_format, endpoint, bucket, s3, tmp_path):
    def url(end: str, name: str) -> str:
        return {"s3": f"{bucket}/{name}", "local": str(tmp_path / name),
                "file": f"file://{tmp_path}/{name}"}[end]  # fmt: skip

    src, dst = url(where.split()[0], "in.zarr"), url(where.split()[-1], "out.zarr")
    if src.startswith("s3://"):
        ds = put_dataset(src, endpoint, zarr_format)
    else:
        ds = dataset(zarr_format)
        ds.chunk(lat=3, lon=4).to_zarr(
            tmp_path / "in.zarr", zarr_format=zarr_format, consolidated=False
        )
    rc, out, err = run(
        "pad", src, dst, "--width", "lat=2", "--width", "lon=1:3", "--mode", "wrap", *so(endpoint)
    )
    assert rc == 0, err
    assert f"padded {src} -> {dst}" in out
    back = read(dst, endpoint) if dst.startswith("s3://") else xr.open_zarr(dst, consolidated=True)
    for name in ("t", "n"):
        want = np.pad(ds[name].values, ((2, 2), (1, 3)), mode="wrap")
        np.testing.assert_array_equal(back[name].values, want)
        assert back[name].dtype == ds[name].dtype
    assert back.attrs["title"] == ds.attrs["title"]
    remote = {"storage_options": opts(endpoint)} if dst.startswith("s3://") else {}
    assert zarr.open_group(dst, mode="r", **remote).metadata.zarr_format == zarr_format
    if dst.startswith("s3://"):
        assert (".zmetadata" if zarr_format == 2 else "zarr.json") in keys(s3, dst)
    else:  # written under a temporary name, renamed into place
        assert sorted(p.name for p in tmp_path.iterdir() if "out" in p.name) == ["out.zarr"]


def test_a_bare_array_in_an_object_store(endpoint, bucket):
    data = np.arange(30.0).reshape(5, 6)
    z = zarr.create_array(
        f"{bucket}/a.zarr",
        shape=data.shape,
        chunks=(2, 4),
        dtype=data.dtype,
        dimension_names=("y", "x"),
        storage_options=opts(endpoint),
    )
    z[...] = data
    rc, _, err = run("pad", f"{bucket}/a.zarr", f"{bucket}/b.zarr", "--width", "x=3",
                     "--mode", "symmetric", *so(endpoint))  # fmt: skip
    assert rc == 0, err
    out = zarr.open_array(f"{bucket}/b.zarr", mode="r", storage_options=opts(endpoint))
    np.testing.assert_array_equal(out[...], np.pad(data, ((0, 0), (3, 3)), mode="symmetric"))
    assert tuple(out.metadata.dimension_names) == ("y", "x")


@WRITES
def test_netcdf_in_an_object_store(endpoint, bucket, s3, tmp_path):
    pytest.importorskip("h5netcdf")
    ds = dataset()
    ds.to_netcdf(tmp_path / "in.nc", engine="h5netcdf")
    s3.put(str(tmp_path / "in.nc"), f"{bucket.removeprefix('s3://')}/in.nc")
    rc, _, err = run("pad", f"{bucket}/in.nc", f"{bucket}/out.zarr", "--width", "lon=2",
                     "--mode", "edge", *so(endpoint))  # fmt: skip
    assert rc == 0, err
    back = read(f"{bucket}/out.zarr", endpoint)
    np.testing.assert_array_equal(back.t.values, np.pad(ds.t.values, ((0, 0), (2, 2)), "edge"))


@WRITES
def test_refusals_in_object_stores(endpoint, bucket, s3):
    src = f"{bucket}/in.zarr"
    put_dataset(src, endpoint)
    s3.pipe(f"{bucket.removeprefix('s3://')}/notes/readme.txt", b"not a store")
    if not s3.exists("daskpad-empty"):
        s3.mkdir("daskpad-empty")
    before = keys(s3, bucket)
    cases = {
        "inside": (
            [f"{src}/sub.zarr"],
            f"DST '{src}/sub.zarr' lies inside SRC '{src}'; daskpad never writes into its input",
        ),
        "is src": ([src, "--overwrite"], f"DST '{src}' is SRC '{src}'; daskpad never writes"),
        "contains": ([bucket, "--overwrite"], f"DST '{bucket}' contains SRC '{src}'"),
        "exists": ([src.replace("in.zarr", "notes")],
                   f"DST '{bucket}/notes' already exists; pass --overwrite to replace it"),
        "not zarr": ([f"{bucket}/notes", "--overwrite"],
                     f"DST '{bucket}/notes' holds something that is not a zarr store"),
        "no bucket": (["s3://no-such-bucket-daskpad/out.zarr"],
                      "DST 's3://no-such-bucket-daskpad/out.zarr': 'no-such-bucket-daskpad' "
                      "does not exist or cannot be reached"),
        "a bucket": (["s3://daskpad-empty/", "--overwrite"],
                     "DST 's3://daskpad-empty/' is a bucket, not a store in it"),
        "chained": ([f"simplecache::{bucket}/o.zarr"], f"DST 'simplecache::{bucket}/o.zarr': "
                    "write to the store itself, not through a chain"),
    }  # fmt: skip
    for name, (dst_args, message) in cases.items():
        rc, _, err = run("pad", src, *dst_args, "--width", "lat=1", *so(endpoint))
        assert rc == 2, name
        assert err.startswith(f"daskpad: error: {message}"), (name, err)
    # a chained SRC is where its innermost URL is: DST may not be it
    rc, _, err = run("pad", f"simplecache::{src}", src, "--overwrite", "--width", "lat=1",
                     *so(endpoint))  # fmt: skip
    assert (rc, err.strip()) == (2, f"daskpad: error: DST '{src}' is SRC 'simplecache::{src}'; "
                                 "daskpad never writes into its input")  # fmt: skip
    # stores one level down are not a store: --overwrite does not delete them
    put_dataset(f"{bucket}/stores/a.zarr", endpoint)
    rc, _, err = run("pad", src, f"{bucket}/stores", "--overwrite", "--width", "lat=1",
                     *so(endpoint))  # fmt: skip
    assert rc == 2 and "holds something that is not a zarr store" in err
    before = keys(s3, bucket)
    rc, _, err = run("info", f"{bucket}/missing.zarr", *so(endpoint))
    assert (rc, err.strip()) == (2, f"daskpad: error: SRC '{bucket}/missing.zarr' does not exist")
    rc, _, err = run("info", src, "--storage-option", "endpoint_url")
    assert (rc, err.strip()) == (
        2,
        "daskpad: error: --storage-option: expected KEY=VALUE, got 'endpoint_url'",
    )
    assert keys(s3, bucket) == before  # nothing written, nothing deleted


@WRITES
def test_a_failed_write_removes_what_it_wrote(endpoint, bucket, s3):
    src, dst = f"{bucket}/in.zarr", f"{bucket}/out.zarr"
    ds = put_dataset(src, endpoint)
    fail = {HOOK_ENV: "fail"}
    for extra in ([], ["--memory", "2kB"]):  # in one computation, and tile by tile
        rc, _, err = run("pad", src, dst, "--width", "lat=1", *extra, *so(endpoint), env=fail)
        assert rc == 1
        assert err.startswith("daskpad: error: writing DST failed, DST left as it was: ")
        assert keys(s3, dst) == []
    rc, out, err = run("pad", src, dst, "--width", "lon=1", *so(endpoint))
    assert rc == 0 and f"padded {src} -> {dst}: " in out, err
    # --overwrite says what it did, when it works ...
    rc, out, err = run("pad", src, dst, "--width", "lat=1", "--mode", "edge", "--overwrite",
                       *so(endpoint))  # fmt: skip
    assert rc == 0
    assert f"padded {src} -> {dst} (replaced the old DST): " in out
    assert err.strip() == (
        f"daskpad: note: deleted the old {dst} before writing (an object store has no "
        "rename: --overwrite is not atomic there)"
    )
    np.testing.assert_array_equal(
        read(dst, endpoint).t.values, np.pad(ds.t.values, ((1, 1), (0, 0)), mode="edge")
    )
    # ... and when it fails
    rc, _, err = run("pad", src, dst, "--width", "lat=1", "--overwrite", *so(endpoint), env=fail)
    assert rc == 1
    assert err.splitlines()[0] == (
        f"daskpad: note: deleted the old {dst} before writing (an object store has no "
        "rename: --overwrite is not atomic there)"
    )
    assert err.splitlines()[1].startswith(
        "daskpad: error: writing DST failed, the old DST was deleted before writing: "
    )
    assert keys(s3, dst) == []


def _start_slow(src: str, dst: str, endpoint: str, *extra: str) -> subprocess.Popen:
    """A pad whose blocks each sleep, returned once it writes chunks into DST."""
    import s3fs

    env = {**os.environ, **CREDENTIALS, HOOK_ENV: "sleep:0.3"}
    env.pop("AWS_ENDPOINT_URL", None)
    proc = subprocess.Popen(
        [*COMMAND, "pad", src, dst, "--width", "lat=1", "--mode", "edge", *so(endpoint), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    fs = s3fs.S3FileSystem(endpoint_url=endpoint, skip_instance_cache=True)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        found = keys(fs, dst)
        if INCOMPLETE in found and any(k.startswith(("t/c/", "t/0")) for k in found):
            return proc
        assert proc.poll() is None, proc.communicate()[1]
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("the write never started")


STOPS = {
    signal.SIGINT: (130, "daskpad: interrupted; nothing was written to DST"),
    signal.SIGTERM: (143, "daskpad: terminated (SIGTERM); nothing was written to DST"),
}


@WRITES
@pytest.mark.parametrize(
    "sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["SIGINT", "SIGTERM", "SIGKILL"]
)
def test_a_store_in_the_making_never_opens(sig, endpoint, bucket, s3):
    src, dst = f"{bucket}/in.zarr", f"{bucket}/out.zarr"
    ds = put_dataset(src, endpoint)
    proc = _start_slow(src, dst, endpoint)
    written = keys(s3, dst)
    assert INCOMPLETE in written
    assert not [k for k in written if k.rpartition("/")[2] in METADATA_DOCS], written
    with pytest.raises(FileNotFoundError):  # (zarr: GroupNotFoundError)
        xr.open_zarr(dst, storage_options=opts(endpoint))
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    if sig in STOPS:
        assert (proc.returncode, err.strip().splitlines()[-1]) == STOPS[sig]
        assert keys(s3, dst) == []
        return
    # killed outright: what it wrote stays, and still does not open; --overwrite clears it
    assert keys(s3, dst) != []
    with pytest.raises(FileNotFoundError):  # (zarr: GroupNotFoundError)
        xr.open_zarr(dst, storage_options=opts(endpoint))
    rc, _, err = run("pad", src, dst, "--width", "lat=1", "--mode", "edge", *so(endpoint))
    assert rc == 2 and "already exists; pass --overwrite" in err
    rc, _, err = run(
        "pad", src, dst, "--width", "lat=1", "--mode", "edge", "--overwrite", *so(endpoint)
    )
    assert rc == 0, err
    np.testing.assert_array_equal(
        read(dst, endpoint).t.values, np.pad(ds.t.values, ((1, 1), (0, 0)), mode="edge")
    )


@WRITES
def test_a_stop_after_overwrite_says_the_old_store_is_gone(endpoint, bucket, s3):
    src, dst = f"{bucket}/in.zarr", f"{bucket}/out.zarr"
    put_dataset(src, endpoint)
    put_dataset(dst, endpoint)
    proc = _start_slow(src, dst, endpoint, "--overwrite")
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143
    assert err.strip().splitlines()[-1] == (
        "daskpad: terminated (SIGTERM); nothing was written to DST; the old DST had been "
        "deleted (--overwrite in an object store)"
    )
    assert keys(s3, dst) == []


@WRITES
@pytest.mark.cluster
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stopped_run_on_local_workers_removes_what_it_wrote(sig, endpoint, bucket, s3):
    src, dst = f"{bucket}/in.zarr", f"{bucket}/out.zarr"
    put_dataset(src, endpoint)
    proc = _start_slow(src, dst, endpoint, "--workers", "2")
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert (proc.returncode, err.strip().splitlines()) == (STOPS[sig][0], [STOPS[sig][1]])
    time.sleep(1)  # (a worker still writing would show up here)
    assert keys(s3, dst) == []


@WRITES
@pytest.mark.cluster
def test_storage_options_reach_the_workers(endpoint, bucket):
    src, dst = f"{bucket}/in.zarr", f"{bucket}/out.zarr"
    ds = put_dataset(src, endpoint)
    env = {**os.environ, **CREDENTIALS}
    env.pop("AWS_ENDPOINT_URL", None)  # the endpoint comes from --storage-option only
    for extra in ([], ["--memory", "2kB"]):
        proc = subprocess.run(
            [*DASKPAD, "pad", src, dst, "--width", "lon=2", "--mode", "reflect", "--workers",
             "2", "--overwrite", *so(endpoint), *extra],
            capture_output=True, text=True, timeout=240, env=env,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        np.testing.assert_array_equal(
            read(dst, endpoint).t.values, np.pad(ds.t.values, ((0, 0), (2, 2)), "reflect")
        )


# --------------------------------------------------------------------------------------
# The writers
# --------------------------------------------------------------------------------------
def test_to_zarr_of_an_array_in_an_object_store(endpoint, bucket, s3):
    a = np.arange(12 * 14, dtype="int16").reshape(12, 14)
    y = daskpad.pad(da.from_array(a, chunks=5), ((3, 1), (2, 6)), mode="reflect")
    url = f"{bucket}/a.zarr"
    z = daskpad.to_zarr(y, url, memory=4 * 25 * 2, storage_options=opts(endpoint))
    np.testing.assert_array_equal(z[...], np.pad(a, ((3, 1), (2, 6)), mode="reflect"))
    with pytest.raises(FileExistsError):
        daskpad.to_zarr(y, url, storage_options=opts(endpoint))

    def boom(block):
        raise RuntimeError("no")

    bad = y.map_blocks(boom, dtype=y.dtype, meta=np.empty((0, 0), y.dtype))
    with pytest.raises(RuntimeError, match="no"):
        daskpad.to_zarr(bad, f"{bucket}/b.zarr", memory=4 * 25 * 2, storage_options=opts(endpoint))
    assert keys(s3, f"{bucket}/b.zarr") == []


@WRITES
def test_xarray_to_zarr_in_an_object_store(endpoint, bucket, s3):
    ds = dataset().chunk(lat=3, lon=4)
    padded = ds.pad2(lat=2, lon=(1, 3), mode="wrap")
    url = f"{bucket}/x.zarr"
    daskpad.xarray.to_zarr(padded, url, memory="1kB", storage_options=opts(endpoint))
    back = read(url, endpoint)
    np.testing.assert_array_equal(back.t.values, np.pad(ds.t.values, ((2, 2), (1, 3)), "wrap"))
    daskpad.xarray.to_zarr(
        padded.isel(lat=slice(0, 4)), url, mode="w", storage_options=opts(endpoint)
    )
    assert read(url, endpoint).sizes["lat"] == 4


# --------------------------------------------------------------------------------------
# Rectilinear chunk grids: SRC's whole chunks copied within the object store
# --------------------------------------------------------------------------------------
#: lat 12 in chunks of 3 (all whole), lon 18 in chunks of 4 (the last one partial); the
#: pads read one element at each end, so the chunks away from the ends are never read
GRID_CHUNKS = {"lat": 3, "lon": 4}
GRID_PADS = {"lat": (2, 2), "lon": (1, 5)}
GRID_ARGS = ["--width", "lat=2", "--width", "lon=1:5", "--mode", "edge"]


def grid_dataset() -> xr.Dataset:
    rng = np.random.default_rng(12)
    return xr.Dataset(
        {
            "t": (("lat", "lon"), rng.normal(280, 10, (12, 18)), {"units": "K"}),
            "n": (("lat", "lon"), rng.integers(-50, 50, (12, 18), dtype="int32")),
        },
        coords={"lat": np.linspace(-55.0, 55.0, 12), "lon": np.arange(0.0, 360.0, 20.0)},
    )


def copied_chunks(ds: xr.Dataset) -> dict[str, tuple[str, bool]]:
    """Each whole input chunk key of ``t`` and ``n``: its key in DST, and whether it lies
    away from both ends of every axis (no pad reads it)."""
    out = {}
    for name in ("t", "n"):
        dims = ds[name].dims
        sizes = [ds.sizes[d] for d in dims]
        chunk = [GRID_CHUNKS[d] for d in dims]
        shift = [-(-GRID_PADS[d][0] // c) for d, c in zip(dims, chunk)]
        count = [-(-n // c) for n, c in zip(sizes, chunk)]
        for index in np.ndindex(*(n // c for n, c in zip(sizes, chunk))):
            moved = "/".join(str(i + s) for i, s in zip(index, shift))
            interior = all(0 < i < m - 1 for i, m in zip(index, count))
            out[f"{name}/c/{'/'.join(map(str, index))}"] = (f"{name}/c/{moved}", interior)
    return out


def recorded(path: Path) -> list[dict]:
    """The requests moto's recorder wrote to ``path``, one JSON document a line."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def read_rectilinear(url: str, endpoint: str) -> xr.Dataset:
    with zarr.config.set({"array.rectilinear_chunks": True}):
        return read(url, endpoint).load()


@pytest.fixture(scope="module")
def grid_stores(endpoint, s3, tmp_path_factory):
    """SRC in the object store and on disk (the same dataset), and what xarray reads from
    the regular grid's DST of ``GRID_ARGS``: ``({"s3": ..., "local": ...}, dataset)``."""
    if rectilinear_support() is not None:
        pytest.skip("rectilinear grids need zarr-python >= 3.2")
    where = f"s3://daskpad-test/{uuid.uuid4().hex[:8]}"
    out = {"s3": f"{where}/in.zarr", "local": str(tmp_path_factory.mktemp("grid") / "in.zarr")}
    ds = grid_dataset().chunk(GRID_CHUNKS)
    ds.to_zarr(out["s3"], zarr_format=3, consolidated=False, storage_options=opts(endpoint))
    ds.to_zarr(out["local"], zarr_format=3, consolidated=False)
    regular = f"{where}/regular.zarr"
    assert main(["pad", out["s3"], regular, *GRID_ARGS, "--no-progress", *so(endpoint)]) == 0
    return out, read(regular, endpoint).load()


@WRITES
@pytest.mark.parametrize("where", ["s3", "local"], ids=["s3 -> s3", "local -> s3"])
def test_a_rectilinear_dst_copies_whole_chunks_in_the_store(
    where, grid_stores, endpoint, bucket, s3, tmp_path, monkeypatch, capsys
):
    """From the same object store: each whole chunk of SRC copied by the server (S3's
    CopyObject), none of those the pads do not read ever sent; from a local SRC: the bytes
    read and written. Either way the chunks are SRC's bytes and the dataset is the regular
    grid's."""
    sources, regular = grid_stores
    src, rect = sources[where], f"{bucket}/rect.zarr"
    ds = grid_dataset()
    argv = ["pad", src, rect, *GRID_ARGS, "--chunk-grid", "rectilinear", "--progress"]
    argv += so(endpoint)
    if where == "s3":  # the installed command, its requests logged by the server
        monkeypatch.setattr(recorder, "_location", str(tmp_path / "requests.jsonl"))
        recorder.reset_recording()
        recorder.start_recording()  # (the server runs in this process)
        try:
            rc, out, err = run(*argv)
        finally:
            recorder.stop_recording()
    else:
        rc = main(argv)
        out, err = capsys.readouterr()
    assert rc == 0, err
    assert f"padded {src} -> {rect}: " in out
    how = "copies within the object store" if where == "s3" else "bytes read and written"
    said = [line for line in err.splitlines() if line.startswith("copying ")]
    assert len(said) == 1 and said[0].startswith(f"copying {len(copied_chunks(ds))} chunks (")
    # (6 x 7 chunks per variable: 4 x 4 copied, the rest computed; along lon the partial
    # last chunk of 2 and the pad of 5 after it make one stretch of 7, in chunks of 4, 3)
    assert said[0].endswith(f") as stored bytes ({how}); computing 52 chunks"), said

    back = read_rectilinear(rect, endpoint)
    xr.testing.assert_identical(back, regular)
    np.testing.assert_array_equal(
        back.t.values, np.pad(ds.t.values, tuple(GRID_PADS.values()), mode="edge")
    )
    s3.invalidate_cache()
    for name in ("t", "n"):
        doc = json.loads(s3.cat(f"{rect.removeprefix('s3://')}/{name}/zarr.json"))
        assert doc["chunk_grid"]["name"] == "rectilinear"

    # every whole input chunk is in DST byte for byte, under its shifted key
    chunks = copied_chunks(ds)
    assert sum(interior for _, interior in chunks.values()) == 12  # (2 x 3 per variable)
    for key, (moved, _) in chunks.items():
        if where == "s3":
            stored = s3.cat(f"{src.removeprefix('s3://')}/{key}")
        else:
            stored = Path(src, key).read_bytes()
        assert s3.cat(f"{rect.removeprefix('s3://')}/{moved}") == stored, key
    if where == "local":
        return

    # the server never sent a chunk the pads do not read, and copied each whole one
    requests = recorded(tmp_path / "requests.jsonl")
    prefix = "/" + src.removeprefix("s3://") + "/"
    got, copied = set(), set()
    for r in requests:
        path = unquote(urlparse(r["url"]).path)
        headers = {k.lower(): v for k, v in r["headers"].items()}
        if r["method"] == "GET" and path.startswith(prefix):
            got.add(path.removeprefix(prefix))
        source = headers.get("x-amz-copy-source")
        if r["method"] == "PUT" and source:
            copied.add(unquote(source).lstrip("/").removeprefix(prefix.lstrip("/")))
    interior = {key for key, (_, inside) in chunks.items() if inside}
    assert got & (set(chunks) - interior)  # (the pads' reads are in the log: it is complete)
    assert not got & interior, sorted(got & interior)
    assert copied == set(chunks)


def test_a_local_locations_size_is_the_bytes_of_its_files(tmp_path):
    root = tmp_path / "a.zarr"
    (root / "t" / "c" / "0").mkdir(parents=True)
    (root / "zarr.json").write_bytes(b"x" * 10)
    (root / "t" / "c" / "0" / "1").write_bytes(b"y" * 1000)
    (root / "t" / "c" / "0" / "2").write_bytes(b"")
    (root / "link").symlink_to(root / "t")  # (a link to a folder is not followed)
    assert locate(str(root)).size() == 1010
    assert locate(str(tmp_path / "missing")).size() == 0
