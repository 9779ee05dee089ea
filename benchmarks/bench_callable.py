"""callable: mode=<function> on a ~1 GB lazily generated float32 array, padded and
reduced on local threads: time and peak memory.

The function is ``common.user_pad`` (a ramp away from each edge), pad 4 and 64. asv: the
``--quick`` size (1024 x 1024 in 256 x 256 chunks).
"""

from __future__ import annotations

from .bench_correctness import skip_unless_right, verdict
from .common import LIBS, Case, _CaseSuite, _progress, _record, asv_params, cases, total, user_pad
from .sources import source


def _source(cfg):
    """The lazily generated source."""
    if cfg.quick:
        return source((1_024, 1_024), (256, 256))
    return source((16_384, 16_384), (2_048, 2_048))


def _case(width: int) -> Case:
    return Case((width,), inputs=_source, pad=lambda fn, x: fn(x, width, user_pad), run=total)


CASES = cases(_case(4), _case(64))


def section_callable(cfg) -> list[dict]:
    x = _source(cfg)
    rows = []
    for (w,), case in CASES.items():
        row = {"array": f"{x.nbytes / 1e9:.2f} GB float32", "width": w}
        padded = case.padded(x)
        got = case.timed(x, padded, cfg.repeat)
        for lib, y in padded.items():
            ok = verdict(lib, "callable") == "ok"
            t, m = got.median(lib), got.median_mb(lib)
            _record(row, lib, t, m, y, ok, rss=got.rss[lib])
        rows.append(row)
        _progress(cfg, "callable", row)
    return rows


class UserFunction(_CaseSuite):
    """A user function as the mode: pad + sum on local threads."""

    cases = CASES
    params, param_names = asv_params(list(LIBS), CASES, "width")

    def check(self, lib, case, inputs, y) -> None:
        skip_unless_right(lib, "callable")
