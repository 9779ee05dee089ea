"""Whether the ``hypothesis`` strategies are available, and what :mod:`daskpad.testing`
says of one where hypothesis is not installed."""

from __future__ import annotations

#: the names of :mod:`daskpad.testing.hypothesis_strategies` reachable here (its
#: ``__all__``: a test keeps the two equal)
STRATEGIES = [
    "CALLABLES",
    "PadCase",
    "chunkings",
    "data_arrays",
    "dtypes",
    "invalid_pad_cases",
    "mode_kwargs",
    "pad_cases",
    "pad_widths",
    "per_axis_kwargs",
    "per_axis_modes",
    "per_axis_pad_cases",
    "shapes",
]

try:
    import hypothesis  # noqa: F401
except ImportError:
    HYPOTHESIS = False
else:
    HYPOTHESIS = True


def refuse_strategy(name: str) -> object:
    """:mod:`daskpad.testing`'s ``__getattr__`` without hypothesis: a strategy's name
    raises ImportError saying what it needs, any other name AttributeError."""
    if name in STRATEGIES:
        raise ImportError(f"daskpad.testing.{name} needs hypothesis (pip install hypothesis)")
    raise AttributeError(f"module 'daskpad.testing' has no attribute {name!r}")
