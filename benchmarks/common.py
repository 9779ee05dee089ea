"""What the sections share: the libraries compared, the arguments each mode gets, the
verdicts against numpy.pad, tables and the machine line, and what is measured, each
declared once and made the same way by the runner's section and by asv: a case
(:class:`Case`: inputs, a pad, a run, an anchor; asv's ``_CaseSuite``), or, where that shape
does not fit (build phases, held blocks, windows in a child process, whole commands), a
probe (:class:`Probe`: a measured callable at a size; asv's ``_ProbeSuite``).

Timing is in ``timing.py``, the input arrays in ``sources.py``. ``QUICK`` is the
configuration of asv's benchmark classes: every section's ``--quick`` sizes.
"""

from __future__ import annotations

import contextlib
import math
import os
import platform
import shutil
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NoReturn

import dask
import dask.array as da
import numpy as np

import daskpad
from daskpad.core.registry import MODES

from .timing import PAGE, error_text, rounds

HERE = Path(__file__).resolve().parent
ALL_MODES = sorted(MODES)


# --------------------------------------------------------------------------------------
# rows
# --------------------------------------------------------------------------------------


def tasks(x: da.Array) -> int:
    return len(x.__dask_graph__())


def _record(
    row: dict, lib: str, t: float, m: float, y: da.Array, ok: bool, rss: float | None = None
) -> None:
    """Fill one library's cells of a row: "<lib> s" (or "wrong"), "<lib> MB", optionally
    "<lib> RSS MB", and "<lib> tasks", in that column order."""
    row[f"{lib} s"] = t if ok else "wrong"
    row[f"{lib} MB"] = m
    if rss is not None:
        row[f"{lib} RSS MB"] = rss
    row[f"{lib} tasks"] = tasks(y)


# --------------------------------------------------------------------------------------
# the arguments each mode gets
# --------------------------------------------------------------------------------------


def user_pad(vector, iaxis_pad_width, iaxis, kwargs):
    """A user pad function (module level, so it pickles): a ramp away from the edges."""
    before, after = iaxis_pad_width
    if before:
        vector[:before] = vector[before] - np.arange(before, 0, -1)
    if after:
        vector[len(vector) - after :] = vector[-after - 1] + np.arange(1, after + 1)


def mode_arg(name: str) -> Any:
    return user_pad if name == "callable" else name


def same(name: str, got: np.ndarray, want: np.ndarray, interior=None) -> bool:
    if got.shape != want.shape:
        return False
    if name == "empty":
        return interior is None or bool(np.array_equal(got[interior], want[interior]))
    if name == "mean":
        return bool(np.allclose(got, want, rtol=1e-6, atol=1e-6 * float(np.abs(want).max())))
    return bool(np.array_equal(got, want))


def dask_pad(x, widths, mode, **kwargs):
    """dask.array.pad, its PerformanceWarnings silenced; NotImplementedError for a mode it
    does not have (median)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return da.pad(x, widths, mode=mode, **kwargs)


LIBS = {"daskpad": daskpad.pad, "dask.array.pad": dask_pad}


# --------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------


def _fmt(v: Any) -> str:
    if v is None:  # not measured (see the section's notes)
        return "-"
    if isinstance(v, float):
        if v == 0:
            return "0"
        return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"
    return str(v)


def _ratio(a: Any, b: Any) -> str:
    if isinstance(a, float) and isinstance(b, float) and b > 0:
        return f"{a / b:.2f}x"
    return a if isinstance(a, str) else "-"


def markdown_table(rows: list[dict]) -> str:
    """Rows as a markdown table, one column per key in order of first appearance."""
    cols: list[str] = []
    for r in rows:
        cols += [k for k in r if k not in cols]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(_fmt(r.get(c, "")) for c in cols) + " |")
    return "\n".join(lines)


def _progress(cfg, section: str, row: dict) -> None:
    if cfg.verbose:
        print(
            f"  [{section}] " + ", ".join(f"{k}={_fmt(v)}" for k, v in row.items()),
            file=sys.stderr,
            flush=True,
        )


def local_cluster():
    """A 2-worker ``distributed.LocalCluster`` of process workers, one thread each."""
    import distributed

    return distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = os.sysconf("SC_PHYS_PAGES") * PAGE / 2**30
    import distributed
    import zarr

    return (
        f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB RAM, Python "
        f"{platform.python_version()}, numpy {np.__version__}, dask {dask.__version__}, "
        f"distributed {distributed.__version__}, zarr {zarr.__version__}, "
        f"daskpad {daskpad.__version__}"
    )


# --------------------------------------------------------------------------------------
# the chunkings scenarios (remainders, widebuild, widesum): labelled modes, verdicts
# --------------------------------------------------------------------------------------

DASK = "dask.array.pad"
# label -> (numpy.pad mode, keyword arguments)
MODE_ARGS: dict[str, tuple[str, dict[str, Any]]] = {
    "constant": ("constant", {}),
    "edge": ("edge", {}),
    "linear_ramp": ("linear_ramp", {}),
    "maximum": ("maximum", {}),
    "mean": ("mean", {}),
    "median": ("median", {}),
    "minimum": ("minimum", {}),
    "reflect": ("reflect", {}),
    "reflect odd": ("reflect", {"reflect_type": "odd"}),
    "symmetric": ("symmetric", {}),
    "wrap": ("wrap", {}),
}
ALL = list(MODE_ARGS)
QUICK_MODES = ["constant", "edge", "linear_ramp", "mean", "median", "reflect odd", "wrap"]


def attempt(fn: Callable[[], Any]) -> tuple[Any, str | None]:
    """``(result, None)``, or ``(None, "n/a")`` for NotImplementedError (a mode the library
    lacks), or ``(None, "error: ...")``."""
    try:
        return fn(), None
    except NotImplementedError:
        return None, "n/a"
    except Exception as exc:  # any failure is recorded in the row
        return None, error_text(exc)


def blocks(y: da.Array) -> int:
    return math.prod(y.numblocks)


def largest_block(y: da.Array) -> int:
    """Bytes of the largest block: the blocks form a grid, so the product of the largest
    chunk along each axis."""
    return math.prod(max(c, default=0) for c in y.chunks) * y.dtype.itemsize


def agrees(label: str, got: np.ndarray, want: np.ndarray) -> str:
    """``got`` against numpy.pad's ``want``: "ok" when equal (mean: within rounding),
    "rounding" for a float result equal up to rounding (rtol 1e-12 in float64, 1e-6 in
    float32) but not bit for bit, "wrong" otherwise."""
    if got.shape != want.shape:
        return "wrong"
    if np.array_equal(got, want):
        return "ok"
    if want.dtype.kind != "f":
        return "wrong"
    rtol = 1e-12 if want.dtype.itemsize >= 8 else 1e-6
    scale = float(np.abs(want).max(initial=0.0))
    if not np.allclose(got, want, rtol=rtol, atol=rtol * scale):
        return "wrong"
    return "ok" if label == "mean" else "rounding"


RIGHT = ("ok", "rounding")


def verdict_of(results: dict[str, Any], errors: dict[str, str], lib: str, check) -> str:
    if lib in errors:
        return errors[lib]
    return check(results[lib])


def targets(row: dict, checks: dict[str, bool | None]) -> None:
    """Fill "target" and "missed" from ``{name: met}`` (None: not a target in this row)."""
    missed = [name for name, met in checks.items() if met is False]
    row["target"] = "NOT met" if missed else "met"
    row["missed"] = ", ".join(missed) if missed else "-"


# --------------------------------------------------------------------------------------
# asv: the sizes its benchmark classes run at, the libraries they take as a parameter
# --------------------------------------------------------------------------------------

#: the configuration the asv benchmark classes use: every scenario's ``--quick`` sizes, so
#: that each call takes well under a second and ``asv run --quick`` takes minutes
QUICK = SimpleNamespace(
    quick=True,
    repeat=1,
    verbose=False,
    tmp=None,
    full_build=False,
    big_gb=48.0,
    big_modes=None,
    cluster_side=12_288,
    cluster_chunk=2_048,
    cluster_width=64,
    window_timeout=30.0,
)
NUMPY = "numpy.pad"
UNPADDED = "unpadded"
#: the "library" parameter of the asv classes: the dask libraries, with numpy.pad on the
#: in-memory array, or with the same work unpadded (a pipeline's baseline)
WITH_NUMPY = [*LIBS, NUMPY]
WITH_UNPADDED = [UNPADDED, *LIBS]

_ONCE: dict[tuple, Any] = {}


def once(key: tuple, fn: Callable[[], Any]) -> Any:
    """``fn()``, computed once per process for ``key``: asv calls ``setup`` before every
    timed call, and a check of a library's values need not run each time."""
    if key not in _ONCE:
        _ONCE[key] = fn()
    return _ONCE[key]


def skip(reason: str) -> NoReturn:
    """Skip this parameter combination: asv skips one whose ``setup`` raises
    NotImplementedError (a library lacks the mode, or its values are wrong)."""
    raise NotImplementedError(reason)


# --------------------------------------------------------------------------------------
# cases: declared once, timed by the runner, run by asv
# --------------------------------------------------------------------------------------


def compute(y: da.Array, *_: Any) -> Any:
    return y.compute()


def total(y: da.Array, *_: Any) -> Any:
    """The float64 sum of ``y``, computed."""
    return y.sum(dtype=np.float64).compute()


@dataclass(frozen=True)
class Case:
    """One case of a section. ``inputs(cfg)``: its inputs at the size ``cfg`` asks for
    (asv's: ``QUICK``); ``pad(fn, inputs)``: the padded array of one of ``libs`` (by
    library, ``LIBS`` unless given); ``run(y, inputs, library)``: what is timed of it
    (computed into memory, a sum, a store); ``anchor(inputs)``: the work it is timed
    against (numpy.pad, the same work unpadded), or None. On local threads, or with
    ``scheduler`` None on whatever dask's configuration says (a cluster's client)."""

    key: tuple
    inputs: Callable[[Any], Any]
    pad: Callable[[Callable, Any], da.Array]
    anchor: Callable[[Any], Any] | None = None
    run: Callable[..., Any] = compute
    scheduler: str | None = "threads"
    libs: Any = field(default_factory=lambda: LIBS)

    def padded(self, inputs: Any, libs: Any = None, tried: bool = False) -> dict[str, da.Array]:
        """The padded array of each of ``libs`` (names; all unless given); with ``tried``,
        one whose pad raises is left out."""
        names = self.libs if libs is None else libs
        if not tried:
            return {lib: self.pad(self.libs[lib], inputs) for lib in names}
        made = {lib: attempt(partial(self.pad, self.libs[lib], inputs))[0] for lib in names}
        return {lib: y for lib, y in made.items() if y is not None}

    def runs(self, inputs: Any, padded: dict[str, da.Array], anchor: str = "numpy"):
        """The anchor's run (named ``anchor``) and each padded array's."""
        fns = {} if self.anchor is None else {anchor: partial(self.anchor, inputs)}
        return fns | {lib: partial(self.run, y, inputs, lib) for lib, y in padded.items()}

    def scheduled(self) -> Any:
        if self.scheduler is None:
            return contextlib.nullcontext()
        return dask.config.set(scheduler=self.scheduler)

    def timed(self, inputs, padded: dict[str, da.Array], repeat: int, anchor="numpy", **kw):
        """``timing.rounds`` (``kw`` its options) of the anchor and each padded array."""
        with self.scheduled():
            return rounds(self.runs(inputs, padded, anchor), repeat, **kw)


def cases(*declared: Case) -> dict[tuple, Case]:
    return {case.key: case for case in declared}


def asv_params(libraries: list[str], declared: dict[tuple, Case], *names: str):
    """asv's ``params`` and ``param_names``: the library, then each part of the cases'
    keys, its values in their order of first appearance."""
    parts = [list(dict.fromkeys(key[i] for key in declared)) for i in range(len(names))]
    return (libraries, *parts), ("library", *names)


class _CaseSuite:
    """asv's benchmarks over a section's cases (a subclass sets ``cases``, ``params`` and
    ``param_names``): ``setup`` builds the case at the ``--quick`` size for one library,
    ``anchor`` standing for the case's anchor; the case's run is timed, its peak memory
    measured and the padded array's tasks counted (the anchor: 0). Private, so that asv
    collects its subclasses only, each in its section's module."""

    cases: dict[tuple, Case]
    anchor = NUMPY

    def check(self, lib: str, case: Case, inputs: Any, y: da.Array) -> None:
        """Skip (``skip``) a library whose values are known wrong; here, none."""

    def skip_unless_anchor(self, lib: str, y: da.Array, verdict, right=(True,)) -> None:
        """Skip ``lib`` unless ``verdict(its values, the anchor's)`` is one of ``right``
        (found once per process)."""

        def found() -> Any:
            with self.case.scheduled():
                return verdict(y.compute(), self.case.anchor(self.inputs))

        got = once((type(self).__name__, lib, *self.case.key), found)
        if got not in right:
            skip(f"{lib} {self.case.key}: values {got}")

    inputs: Any = None

    def setup(self, lib: str, *key: Any) -> None:
        self.case = self.cases.get(key) or skip(f"no case {key}")
        self.inputs = self.case.inputs(QUICK)
        self.y: da.Array | None = None
        if lib == self.anchor:
            self.run = self.case.runs(self.inputs, {}, lib)[lib]
            return
        self.y = self.case.pad(self.case.libs[lib], self.inputs)
        self.check(lib, self.case, self.inputs, self.y)
        self.run = self.case.runs(self.inputs, {lib: self.y})[lib]

    def teardown(self, *params: Any) -> None:
        """Remove the inputs' temporary directory ``tmp``, if they have one (asv calls
        teardown after a skipped setup too)."""
        if getattr(self.inputs, "tmp", None) is not None:
            shutil.rmtree(self.inputs.tmp, ignore_errors=True)
        self.inputs = None

    def time_case(self, *params: Any) -> None:
        with self.case.scheduled():
            self.run()

    def peakmem_case(self, *params: Any) -> None:
        with self.case.scheduled():
            self.run()

    def track_tasks(self, *params: Any) -> int:
        return 0 if self.y is None else tasks(self.y)

    track_tasks.unit = "tasks"  # type: ignore[attr-defined]


# --------------------------------------------------------------------------------------
# probes: a measured callable at a size, where a case's pad-then-run does not fit
# --------------------------------------------------------------------------------------


@dataclass
class Made:
    """What a probe makes at one size: ``runs``, its measured callables by name (called
    with no arguments; one that times itself returns ``timing.Took``); ``counts``, the
    numbers read of it by name (called with no arguments, after the runs they need);
    ``tmp``, a directory to remove afterwards."""

    runs: dict[str, Callable[[], Any]]
    counts: dict[str, Callable[[], float]] = field(default_factory=dict)
    tmp: Path | None = None

    def timed(self, repeat: int, names: Any = None, **kw: Any):
        """``timing.rounds`` (``kw`` its options) of the runs named (all unless given)."""
        return rounds({n: self.runs[n] for n in names or self.runs}, repeat, **kw)

    def remove(self) -> None:
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)


@dataclass(frozen=True)
class Probe:
    """One measured thing of a section (build phases, held blocks, windows computed in a
    child process, whole commands): ``make(cfg)`` builds it at the size ``cfg`` asks for
    (asv's: ``QUICK``), a :class:`Made`; it raises NotImplementedError (``skip``) where it
    does not apply. Its runs go on local threads, or with ``scheduler`` None on whatever
    dask's configuration says."""

    key: tuple
    make: Callable[[Any], Made]
    scheduler: str | None = "threads"

    def scheduled(self) -> Any:
        if self.scheduler is None:
            return contextlib.nullcontext()
        return dask.config.set(scheduler=self.scheduler)


def probes(*declared: Probe) -> dict[tuple, Probe]:
    return {probe.key: probe for probe in declared}


def key_params(declared: dict[tuple, Any], *names: str):
    """asv's ``params`` and ``param_names``: each part of the keys, its values in their
    order of first appearance."""
    return tuple(list(dict.fromkeys(key[i] for key in declared)) for i in range(len(names))), names


class _ProbeSuite:
    """asv's benchmarks over a section's probes (a subclass sets ``probes``, ``params``,
    ``param_names`` and its benchmarks, each made by :func:`timed`, :func:`peakmem` or
    :func:`tracked` from a run or count of the probe's): ``setup`` makes the probe named by
    the parameters at the ``--quick`` size, ``teardown`` removes its directory."""

    probes: dict[tuple, Probe]
    made: Made | None = None

    def check(self, *key: Any) -> None:
        """Skip (``skip``) a parameter combination the report does not time; here, none."""

    def setup(self, *key: Any) -> None:
        self.probe = self.probes.get(key) or skip(f"no case {key}")
        self.check(*key)
        self.made = self.probe.make(QUICK)

    def teardown(self, *key: Any) -> None:
        if self.made is not None:
            self.made.remove()
        self.made = None

    def _run(self, name: str) -> Any:
        with self.probe.scheduled():
            return self.made.runs[name]()  # type: ignore[union-attr]


def timed(run: str) -> Callable[..., None]:
    """An asv ``time_*`` benchmark of the probe's run ``run``."""

    def time_run(self: _ProbeSuite, *params: Any) -> None:
        self._run(run)

    return time_run


def peakmem(run: str) -> Callable[..., None]:
    """An asv ``peakmem_*`` benchmark of the probe's run ``run``."""

    def peakmem_run(self: _ProbeSuite, *params: Any) -> None:
        self._run(run)

    return peakmem_run


def tracked(count: str, unit: str, after: str | None = None) -> Callable[..., float]:
    """An asv ``track_*`` benchmark of the probe's count ``count`` (in ``unit``), read after
    its run ``after``, if given."""

    def track_count(self: _ProbeSuite, *params: Any) -> float:
        if after is not None:
            self._run(after)
        with self.probe.scheduled():
            return self.made.counts[count]()  # type: ignore[union-attr]

    track_count.unit = unit  # type: ignore[attr-defined]
    return track_count
