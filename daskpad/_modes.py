"""The one table of padding modes.

Every place that needs to know something about a mode reads it here: argument validation
(:mod:`daskpad._normalize`), the graph builders (:mod:`daskpad._graph`) and the tests.
Adding a mode means adding a row here and, if no existing builder fits, one builder.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class Mode:
    """What daskpad knows about one ``numpy.pad`` mode.

    Attributes
    ----------
    name
        The mode string, as numpy spells it.
    kwargs
        The keyword arguments numpy accepts for this mode (anything else is an error).
    builder
        The family of graph builder that produces its pad blocks:
        ``"fill"`` (constant/empty: no input data), ``"gather"`` (values copied or
        reflected from the array: edge, reflect, symmetric, wrap), ``"ramp"``
        (linear_ramp) and ``"stat"`` (maximum, mean, median, minimum).
    needs_data
        Whether the mode reads the array, so it cannot extend an axis of length 0.
    stat
        For statistic modes, the name of the numpy reduction (``numpy.<stat>``).
    """

    name: str
    kwargs: tuple[str, ...]
    builder: str
    needs_data: bool = True
    stat: str | None = None


_TABLE = (
    Mode("constant", ("constant_values",), "fill", needs_data=False),
    Mode("empty", (), "fill", needs_data=False),
    Mode("edge", (), "gather"),
    Mode("reflect", ("reflect_type",), "gather"),
    Mode("symmetric", ("reflect_type",), "gather"),
    Mode("wrap", (), "gather"),
    Mode("linear_ramp", ("end_values",), "ramp"),
    Mode("maximum", ("stat_length",), "stat", stat="amax"),
    Mode("mean", ("stat_length",), "stat", stat="mean"),
    Mode("median", ("stat_length",), "stat", stat="median"),
    Mode("minimum", ("stat_length",), "stat", stat="amin"),
)

#: All string modes, by name (read-only).
MODES: MappingProxyType[str, Mode] = MappingProxyType({m.name: m for m in _TABLE})

#: The values ``reflect_type`` may take (numpy documents these two and silently treats
#: anything else as ``"even"``; daskpad refuses anything else).
REFLECT_TYPES = ("even", "odd")
