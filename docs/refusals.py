"""Write ``docs/refusals.md``: every input the ``daskpad`` command refuses, with its message.

Run from the repository root::

    python docs/refusals.py            # writes docs/refusals.md
    python docs/refusals.py out.md     # or anywhere else

Each row is a real run of ``python -m daskpad`` against a small store made here; the
script fails if a refusal does not exit with its status or prints more than one line, so
the table cannot drift from what the command does. Paths are shown relative to the
temporary directory the runs use. The object-store rows run against an S3-compatible
server (moto's, on 127.0.0.1, reached through ``AWS_ENDPOINT_URL``) holding a bucket
``bucket`` with a prefix ``notes/``; they are left out where moto and s3fs are missing.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import xarray as xr

# (what is refused, arguments, exit status); SRC, DST, ... are paths in the run's directory
CASES: list[tuple[str, list[str], int]] = [
    ("no command", [], 2),
    ("SRC that does not exist", ["pad", "missing.zarr", "out.zarr", "--width", "lat=1"], 2),
    ("SRC a directory but no store", ["pad", "notes", "out.zarr", "--width", "lat=1"], 2),
    ("no --width", ["pad", "src.zarr", "out.zarr"], 2),
    ("--width without =", ["pad", "src.zarr", "out.zarr", "--width", "lat2"], 2),
    ("--width negative", ["pad", "src.zarr", "out.zarr", "--width=lat=-1"], 2),
    ("--width of 2**63 or more", ["pad", "src.zarr", "out.zarr", "--width", f"lat={10**30}"], 2),
    ("--width naming a dimension twice",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--width", "lat=2"], 2),
    ("--width of a dimension SRC lacks", ["pad", "src.zarr", "out.zarr", "--width", "depth=1"], 2),
    ("--width making more than 10**8 blocks",
     ["info", "src.zarr", "--width", f"lat={10**15}", "--mode", "wrap"], 2),
    ("--var that SRC lacks",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--var", "q"], 2),
    ("unknown --mode",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--mode", "nearest"], 2),
    ("another library's name for a mode",
     ["pad", "src.zarr", "out.zarr", "--width", "lon=1", "--mode", "lon=periodic"], 2),
    ("a second bare --mode",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--mode", "wrap", "--mode", "edge"],
     2),
    ("two modes for one dimension",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--mode", "lat=wrap",
      "--mode", "lat=edge"], 2),
    ("a bare --mode with --mode DIM=",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--width", "lon=1",
      "--mode", "wrap", "--mode", "lat=edge"], 2),
    ("a mode for a dimension without --width",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--mode", "lon=wrap"], 2),
    ("a second bare --stat-length (or --constant-value, --end-value, --reflect-type)",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--mode", "mean",
      "--stat-length", "1", "--stat-length", "2"], 2),
    ("--reflect-type for a dimension without --width",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--mode", "reflect",
      "--reflect-type", "lon=odd"], 2),
    ("an option the mode does not take",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--mode", "wrap", "--stat-length", "2"],
     2),
    ("an option for a dimension whose mode does not take it",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--width", "lon=1",
      "--mode", "lat=mean", "--mode", "lon=wrap", "--stat-length", "lon=2"], 2),
    ("an option no padded dimension's mode takes",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--mode", "lat=wrap",
      "--end-value", "1"], 2),
    ("--constant-value that is not a number",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--constant-value", "x"], 2),
    ("--constant-value the dtype cannot hold",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--var", "n",
      "--constant-value", "1000000"], 2),
    ("--chunks malformed",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--chunks", "lat=0"], 2),
    ("--memory malformed",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--memory", "lots"], 2),
    ("--memory less than a stored chunk read whole",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--memory", "50"], 2),
    ("--chunks making blocks over --memory",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--memory", "200",
      "--chunks", "lat=8,lon=10"], 2),
    ("--chunk-grid rectilinear with --zarr-format 2",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--chunk-grid", "rectilinear",
      "--zarr-format", "2"], 2),
    ("DST that is SRC", ["pad", "src.zarr", "src.zarr", "--width", "lat=1", "--overwrite"], 2),
    ("DST inside SRC", ["pad", "src.zarr", "src.zarr/sub.zarr", "--width", "lat=1"], 2),
    ("DST that exists", ["pad", "src.zarr", "existing.zarr", "--width", "lat=1"], 2),
    ("DST a directory but no store, with --overwrite",
     ["pad", "src.zarr", "notes", "--width", "lat=1", "--overwrite"], 2),
    ("--workers 0", ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--workers", "0"], 2),
    ("--scheduler malformed",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--scheduler", "notanaddress"], 2),
    ("--scheduler that refuses",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--scheduler", "tcp://127.0.0.1:1"], 2),
    ("--scheduler-file that does not exist",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--scheduler-file", "none.json"], 2),
    ("--scheduler-timeout not positive",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--scheduler-timeout", "0"], 2),
    ("a URL of no known filesystem",
     ["pad", "src.zarr", "nosuch://bucket/out.zarr", "--width", "lat=1"], 2),
    ("--storage-option without =",
     ["pad", "src.zarr", "out.zarr", "--width", "lat=1", "--storage-option", "anon"], 2),
]  # fmt: skip


# the same, in object storage (s3://bucket/..., see _s3)
S3_CASES: list[tuple[str, list[str], int]] = [
    ("DST a bucket, not a prefix in it",
     ["pad", "src.zarr", "s3://bucket/", "--width", "lat=1", "--overwrite"], 2),
    ("DST a chained URL", ["pad", "src.zarr", "simplecache::s3://bucket/out.zarr",
                           "--width", "lat=1"], 2),
    ("DST in a bucket that does not exist or cannot be reached",
     ["pad", "src.zarr", "s3://no-such-bucket/out.zarr", "--width", "lat=1"], 2),
    ("DST holding something that is not a zarr store",
     ["pad", "src.zarr", "s3://bucket/notes", "--width", "lat=1", "--overwrite"], 2),
    ("SRC in object storage that does not exist",
     ["pad", "s3://bucket/missing.zarr", "out.zarr", "--width", "lat=1"], 2),
]  # fmt: skip


@contextlib.contextmanager
def _s3() -> Iterator[dict[str, str] | None]:
    """The environment reaching a moto server with ``s3://bucket/notes/todo.txt``, or
    None where moto or s3fs is not installed."""
    try:
        import s3fs
        from moto.server import ThreadedMotoServer
    except ImportError:
        yield None
        return
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    env = {
        **os.environ,
        "AWS_ENDPOINT_URL": f"http://{host}:{port}",
        "AWS_ACCESS_KEY_ID": "docs",
        "AWS_SECRET_ACCESS_KEY": "docs",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    fs = s3fs.S3FileSystem(
        endpoint_url=env["AWS_ENDPOINT_URL"], key="docs", secret="docs", skip_instance_cache=True
    )
    fs.mkdir("bucket")
    fs.pipe("bucket/notes/todo.txt", b"keep me")
    try:
        yield env
    finally:
        server.stop()


def _setup(where: Path) -> None:
    rng = np.random.default_rng(0)
    ds = xr.Dataset(
        {
            "t": (("lat", "lon"), rng.normal(280, 10, (8, 10))),
            "n": (("lat", "lon"), rng.integers(-50, 50, (8, 10)).astype("int16")),
        },
        coords={"lat": np.linspace(-70.0, 70.0, 8), "lon": np.arange(0.0, 360.0, 36.0)},
    )
    ds.chunk(lat=3, lon=4).to_zarr(where / "src.zarr", zarr_format=3, consolidated=False)
    ds.to_zarr(where / "existing.zarr", zarr_format=3, consolidated=False)
    (where / "notes").mkdir()
    (where / "notes" / "todo.txt").write_text("keep me")


def _row(
    what: str, argv: list[str], status: int, where: Path, env: dict[str, str] | None = None
) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "daskpad", *argv],
        capture_output=True,
        text=True,
        cwd=where,
        timeout=60,
        env=env,
    )
    lines = run.stderr.strip().splitlines()
    if run.returncode != status or (argv and len(lines) != 1):
        raise SystemExit(f"{what}: status {run.returncode}, stderr:\n{run.stderr}")
    message = lines[0] if argv else lines[0] + " ... (the whole --help, on stderr)"
    command = " ".join(["daskpad", *argv])
    message = message.replace("|", "\\|")  # (a table cell)
    return f"| {what} | `{command}` | {status} | `{message}` |"


def main(out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        _setup(where)
        rows = [_row(what, argv, status, where) for what, argv, status in CASES]
        with _s3() as env:
            if env is not None:
                rows += [_row(what, argv, status, where, env) for what, argv, status in S3_CASES]
    text = [
        "# What the `daskpad` command refuses",
        "",
        "Made with `python docs/refusals.py` (each row is a run of the command against a",
        "small store; status 2 is a usage error). Every refusal is one line on stderr, made",
        "before anything is written, and leaves SRC and DST as they were; `--debug` adds the",
        "traceback.",
        "",
        "| refused | command | status | message |",
        "|---|---|---|---|",
        *rows,
        "",
    ]
    out.write_text("\n".join(text))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("refusals.md"))
