"""cli: the ``daskpad`` command (a fresh process per run) on a zarr store of n x n blocks.

Blocks of 1024 x 1024 float32 (n = 16: 1.1 GB; zstd, zarr's default codec), pad 16 along
both dimensions, regular chunks, in every mode with bounded slabs (``maximum:16`` is
``--stat-length 16``) and the whole-axis statistics: seconds in ``main`` and the process's
peak resident memory against the same command with a zero width (a copy), run in turn
with it, round by round (medians of ``--repeat`` rounds). Cases: local threads with the
default ``--memory`` (``threads``), tile by tile (``--memory 64MB``, ``tiled``) and on a
2-worker local cluster (``--workers 2``, ``cluster``, not with ``--quick``; its baseline
the copy on such a cluster; the memory of its worker processes is not measured). The
section and asv run the same commands (``_command``); asv's probes write the ``--quick``
store (4 x 4 blocks of 64 x 64, ``--memory 64kB`` tile by tile) and, the
command running in a process of its own, its numbers are ``track_*`` values read from
that process, not asv's timings of this one.
"""

from __future__ import annotations

import contextlib
import math
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .common import QUICK, Made, Probe, _ProbeSuite, _progress, _ratio, key_params, probes, tracked
from .sources import source, write_store
from .timing import Rounds, Took, command, rounds


def _run_cli(argv: list[str]) -> Took:
    """``daskpad ARGV`` in a fresh process: seconds in main, peak resident MB, stdout."""
    done = command(argv)
    return Took(done.main_s, done.mb, done.stdout)


#: the command's modes: bounded slabs first, then the whole-axis statistics
CLI_MODES = [
    "constant",
    "edge",
    "linear_ramp",
    "reflect",
    "symmetric",
    "wrap",
    "maximum:16",
    "mean",
    "maximum",
]
#: the cases of each mode (each against its own copy: a cluster's on the cluster)
CLI_CASES = ("threads", "tiled", "cluster")


def _cli_geometry(cfg):
    """(grid sides n, chunk side, --memory of the tiled runs)."""
    sides = (4,) if cfg.quick else (16,)
    chunk = 64 if cfg.quick else 1024
    memory = "64kB" if cfg.quick else "64MB"
    return sides, chunk, memory


def _write_source(src: Path, n: int, chunk: int) -> None:
    """A zarr store (format 3, zstd) of a lazily generated n x n-block float32 variable."""
    write_store(src, source((n * chunk,) * 2, (chunk, chunk)))


def _cli_argv(case: str, src: Path | str, dst: Path | str, mode: str, memory: str) -> list[str]:
    """The command of a case: "unpadded" (a copy, a zero width), "threads" (the default
    ``--memory``), "whole" (``--memory 1TB``), "tiled" (tile by tile under ``memory``),
    "cluster" (``--workers 2``); ``mode`` "" is the copy."""
    where = ["--workers", "2"] if case == "cluster" else []
    if case == "unpadded" or not mode:
        return ["pad", str(src), str(dst), "--width", "y=0", *where]
    name, _, length = mode.partition(":")
    widths = ["--width", "y=16", "--width", "x=16", "--mode", name]
    widths += ["--stat-length", length] if length else []
    limit = {"whole": ["--memory", "1TB"], "tiled": ["--memory", memory]}.get(case, [])
    return ["pad", str(src), str(dst), *widths, *limit, *where]


def _command(case: str, src: Path, dst: Path, mode: str, memory: str) -> Callable[[], Took]:
    """A run of the command of a case (``_cli_argv``): DST removed, then the command in a
    fresh process (seconds in main, peak resident MB, stdout)."""
    argv = [*_cli_argv(case, src, dst, mode, memory), "--no-progress"]

    def run() -> Took:
        shutil.rmtree(dst, ignore_errors=True)
        return _run_cli(argv)

    return run


def _probe(case: str, mode: str, n: int) -> Probe:
    """The command of a case on a store of n x n blocks written for it: the run "command",
    the counts "seconds in main", "peak RSS" (MB) and "tiles", each from a run of its own."""

    def make(cfg) -> Made:
        _, chunk, memory = _cli_geometry(cfg)
        tmp = Path(tempfile.mkdtemp(prefix="daskpad-bench-", dir=cfg.tmp))
        _write_source(tmp / "src.zarr", n, chunk)
        run = _command(case, tmp / "src.zarr", tmp / "dst.zarr", mode, memory)
        counts = {
            "seconds in main": lambda: run().seconds,
            "peak RSS": lambda: run().mb or 0.0,
            "tiles": lambda: _tiles(run().value),
        }
        return Made({"command": run}, counts, tmp)

    return Probe((case, mode, n * n), make, scheduler=None)


#: asv's: the ``--quick`` stores, the copy (the same for every mode) with mode "reflect"
PROBES = probes(
    *(
        _probe(case, mode, n)
        for case in ("unpadded", "whole", "tiled")
        for mode in ("reflect", "mean")
        for n in _cli_geometry(QUICK)[0]
        if case != "unpadded" or mode == "reflect"
    )
)


def _tiles(out: str) -> int:
    """Tiles the command wrote, from its first line of output (1: written in one piece)."""
    first = out.splitlines()[0]
    tiled = " tiles, each holding" in first
    return int(first.split(" in ")[1].split()[0]) if tiled else 1


@contextlib.contextmanager
def _s3_server() -> Iterator[tuple[str, Any] | None]:
    """An S3-compatible server on 127.0.0.1 (moto's server mode) with a bucket, and an
    s3fs filesystem on it; None without moto and s3fs. The credentials go to the
    environment, which the command inherits; the endpoint goes on its command line."""
    try:
        import s3fs
        from moto.server import ThreadedMotoServer
    except ImportError:
        yield None
        return
    import logging
    import os

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    saved = {k: os.environ.get(k) for k in _S3_CREDENTIALS}
    os.environ.update(_S3_CREDENTIALS)
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        fs = s3fs.S3FileSystem(endpoint_url=endpoint, skip_instance_cache=True)
        fs.mkdir("daskpad-bench")
        yield endpoint, fs
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        server.stop()


_S3_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "daskpad-bench",
    "AWS_SECRET_ACCESS_KEY": "daskpad-bench",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",
}


def _paired(row: dict, case: str, got: Rounds, memory: bool = True) -> None:
    """A case's cells: its copy's and its pad's median seconds and their ratio, and (with
    ``memory``) the pad's median peak resident MB and its ratio to the copy's."""
    t_copy, t_pad = got.median("copy"), got.median("pad")
    row.update({f"{case} copy s": t_copy, f"{case} s": t_pad})
    row[f"{case} ratio"] = _ratio(t_pad, t_copy)
    if memory:
        m_copy, m_pad = got.median_mb("copy"), got.median_mb("pad")
        row[f"{case} RSS MB"] = m_pad
        row[f"{case} RSS ratio"] = _ratio(m_pad, m_copy)


def _s3_row(cfg, src: Path, n: int, chunk: int) -> dict | None:
    """The command reading SRC from and writing DST to an S3-compatible server on
    127.0.0.1, reflect, against the same command copying it there."""
    with _s3_server() as server:
        if server is None:
            return None
        endpoint, fs = server
        fs.put(str(src), "daskpad-bench/src.zarr", recursive=True)
        where = ["--storage-option", f"endpoint_url={endpoint}", "--no-progress"]

        def run(mode: str) -> Took:
            if fs.exists("daskpad-bench/dst.zarr"):
                fs.rm("daskpad-bench/dst.zarr", recursive=True)
            argv = _cli_argv(
                "threads", "s3://daskpad-bench/src.zarr", "s3://daskpad-bench/dst.zarr", mode, ""
            )
            return _run_cli([*argv, *where])

        got = rounds({"copy": lambda: run(""), "pad": lambda: run("reflect")}, cfg.repeat)
    row: dict[str, Any] = {"blocks": f"{n} x {n}", "mode": "reflect, S3 (moto, 127.0.0.1)"}
    row["input MB"] = n * n * chunk * chunk * 4 / 1e6
    _paired(row, "threads", got)
    return row


def section_cli(cfg) -> list[dict]:
    """The command on a zarr store of n x n blocks in every mode: time and peak resident
    memory of the process on local threads, tile by tile and on a 2-worker cluster, each
    against the same command copying the store, round by round."""
    sides, chunk, memory = _cli_geometry(cfg)
    block_mb = chunk * chunk * 4 / 1e6
    tmp = Path(tempfile.mkdtemp(prefix="daskpad-bench-", dir=cfg.tmp))
    modes = ["reflect", "mean"] if cfg.quick else CLI_MODES
    rows = []
    try:
        for n in sides:
            src, dst = tmp / "src.zarr", tmp / "dst.zarr"
            _write_source(src, n, chunk)

            for mode in modes:
                row: dict[str, Any] = {"blocks": f"{n} x {n}", "mode": mode}
                row["input MB"] = n * n * block_mb
                for case in CLI_CASES[:2] if cfg.quick else CLI_CASES:
                    copy = "cluster" if case == "cluster" else "threads"
                    fns = {
                        "copy": _command(copy, src, dst, "", memory),
                        "pad": _command(case, src, dst, mode, memory),
                    }
                    got = rounds(fns, cfg.repeat, memory=False)
                    # (the workers' memory is not the command's)
                    _paired(row, case, got, memory=case != "cluster")
                    if case == "tiled":
                        row["tiles"] = _tiles(got.results["pad"])
                        row["--memory"] = memory
                rows.append(row)
                _progress(cfg, "cli", row)
            s3 = None if cfg.quick else _s3_row(cfg, src, n, chunk)
            if s3 is not None:
                rows.append(s3)
                _progress(cfg, "cli", s3)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


def _bigstore_geometry(cfg) -> tuple[int, int, int]:
    """(blocks per side, chunk side, pad width) of the bigger-than-memory store."""
    if cfg.quick:
        return 4, 64, 16
    side = math.sqrt(cfg.bigstore_gb * 1e9 / 4)
    return math.ceil(side / 1024), 1024, 256


def section_bigstore(cfg) -> list[dict]:
    """The command on a zarr store bigger than this machine's memory (``--bigstore-gb``,
    31 GB of float32 by default, zstd; written once under ``--tmp`` and kept there for the
    next run, never in the repository): pad 256, reflect, default ``--memory``, against the
    same command copying the store, round by round (medians of ``--repeat``)."""
    n, chunk, width = _bigstore_geometry(cfg)
    where = Path(cfg.tmp or tempfile.gettempdir())
    src = where / f"daskpad-bigstore-{n}x{n}x{chunk}.zarr"
    if not (src / "v" / "zarr.json").exists():
        _write_source(src, n, chunk)
    dst = where / "daskpad-bigstore-out.zarr"
    pad = ["--width", f"y={width}", "--width", f"x={width}", "--mode", "reflect"]
    cases = {"copy": ["--width", "y=0"], "pad": pad}

    def run(argv: list[str]) -> Took:
        shutil.rmtree(dst, ignore_errors=True)
        return _run_cli(["pad", str(src), str(dst), *argv, "--no-progress"])

    try:
        fns = {case: lambda argv=argv: run(argv) for case, argv in cases.items()}
        got = rounds(fns, cfg.repeat, memory=False)
    finally:
        shutil.rmtree(dst, ignore_errors=True)
    row: dict[str, Any] = {"blocks": f"{n} x {n}", "mode": f"reflect, pad {width}"}
    row["input GB"] = n * n * chunk * chunk * 4 / 1e9
    row["on disk GB"] = sum(f.stat().st_size for f in src.rglob("*") if f.is_file()) / 1e9
    row.update({"copy s": got.median("copy"), "pad s": got.median("pad")})
    row["ratio"] = _ratio(got.median("pad"), got.median("copy"))
    row.update({"copy RSS MB": got.median_mb("copy"), "pad RSS MB": got.median_mb("pad")})
    row["tiles"] = _tiles(got.results["pad"])
    row["rounds"] = " ".join(
        f"{a:.0f}/{b:.0f}" for a, b in zip(got.seconds["copy"], got.seconds["pad"])
    )
    _progress(cfg, "bigstore", row)
    return [row]


# --------------------------------------------------------------------------------------
# asv
# --------------------------------------------------------------------------------------


class Command(_ProbeSuite):
    """``daskpad pad`` in a fresh process: seconds in ``main`` and peak resident memory,
    unpadded (a copy), in one piece and tile by tile."""

    probes = PROBES
    params, param_names = key_params(PROBES, "case", "mode", "blocks")
    track_seconds_in_main = tracked("seconds in main", "seconds")
    track_peak_rss = tracked("peak RSS", "MB")
    track_tiles = tracked("tiles", "tiles")
