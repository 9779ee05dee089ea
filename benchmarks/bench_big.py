"""big: a lazily generated float32 array larger than this machine's memory, padded in
every mode and reduced on local threads, with peak resident memory; daskpad only.

``--big-gb`` (48 by default) in 4096 x 4096 chunks, pad 256; each mode is timed right after
the same sum unpadded, its baseline. ``median`` reads 256 elements at each edge
(``median:256``): a whole-axis median holds whole lines along each axis in turn, about the
whole array (``--big-modes median`` runs it). asv: the ``--quick`` size (0.03 GB in
256 x 256 chunks, pad 16), "unpadded" shown as one more library.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

from .common import ALL_MODES, UNPADDED, Case, _CaseSuite, _progress, _record, asv_params, total
from .sources import source

# the bigger-than-memory modes: a whole-axis median would hold about the whole array
BIG_MODES = [m for m in ALL_MODES if m != "median"] + ["median:256"]


def _inputs(cfg) -> SimpleNamespace:
    """The square source ``x`` and the pad width ``w``."""
    gb = 0.03 if cfg.quick else cfg.big_gb
    side = int(math.sqrt(gb * 1e9 / 4))
    side -= side % 4_096 if not cfg.quick else side % 256
    c = 256 if cfg.quick else 4_096
    return SimpleNamespace(x=source((side, side), (c, c)), w=256 if not cfg.quick else 16)


def _case(mode: str) -> Case:
    """One BIG_MODES entry ("name" or "name:stat_length"), beside the sum unpadded."""
    name, _, length = mode.partition(":")
    kwargs = {"stat_length": int(length)} if length else {}
    return Case(
        (mode,),
        inputs=_inputs,
        pad=lambda fn, i: fn(i.x, i.w, name, **kwargs),
        anchor=lambda i: total(i.x),
        run=total,
    )


CASES = {(mode,): _case(mode) for mode in BIG_MODES}


def section_big(cfg) -> list[dict]:
    i = _inputs(cfg)
    rows = []
    for mode in cfg.big_modes or BIG_MODES:
        name, _, length = mode.partition(":")
        case = _case(mode)
        padded = case.padded(i, ["daskpad"])
        # each mode right after its own unpadded baseline (this VM drifts by 10-30%)
        got = case.timed(i, padded, cfg.repeat, anchor=UNPADDED)
        label = f"{name} stat_length={length}" if length else mode
        y = padded["daskpad"]
        row = {"mode": label, "GB": y.nbytes / 1e9, "unpadded s": got.median(UNPADDED)}
        row["unpadded MB"] = got.median_mb(UNPADDED)
        t, m = got.median("daskpad"), got.median_mb("daskpad")
        _record(row, "daskpad", t, m, y, True, rss=got.rss["daskpad"])
        rows.append(row)
        _progress(cfg, "big", row)
    return rows


class Big(_CaseSuite):
    """Pad + sum of a lazily generated array, beside the same sum unpadded."""

    cases = CASES
    anchor = UNPADDED
    params, param_names = asv_params([UNPADDED, "daskpad"], CASES, "mode")
