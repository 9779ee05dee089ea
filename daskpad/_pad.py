"""``daskpad.pad``: the door. Normalise and check the arguments, then build the graph."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import dask.array as da

from ._function import pad_with_function
from ._graph import pad_axes
from ._normalize import check_with_numpy, normalize


def pad(
    array: Any,
    pad_width: Any,
    mode: str | Callable[..., Any] = "constant",
    *,
    chunks: Any = None,
    **kwargs: Any,
) -> da.Array:
    """Pad an array lazily, exactly as :func:`numpy.pad` would.

    Parameters
    ----------
    array : dask.array.Array or array_like
        The array to pad. Anything else is wrapped with :func:`dask.array.asarray`.
    pad_width : int, sequence or dict
        Widths as numpy.pad takes them: ``n``, ``(n,)``, ``(before, after)``,
        ``((before, after),)``, one ``(before, after)`` pair per axis, or
        ``{axis: n or (before, after)}``.
    mode : str or function, default "constant"
        Any numpy.pad mode: ``"constant"``, ``"edge"``, ``"linear_ramp"``, ``"maximum"``,
        ``"mean"``, ``"median"``, ``"minimum"``, ``"reflect"``, ``"symmetric"``,
        ``"wrap"``, ``"empty"``, or a function ``f(vector, iaxis_pad_width, iaxis, kwargs)``
        that fills ``vector`` in place (returning the padded vector also works). A function
        gets whole lines, axis after axis, which holds much of the array in memory at once;
        one marked with :func:`daskpad.edge_function` (it reads only a few values next to
        each edge and writes only the pads) is computed from the edge chunks instead.
    chunks : None, "merge", "regular", "even" or dask chunks, optional
        The output chunks. ``None`` (default) keeps every interior chunk as it is and cuts
        each pad region into chunks of the axis's largest input chunk (the remainder
        outermost), never larger than dask's ``array.chunk-size`` and grown towards it where
        such blocks would be far below it (see docs/chunks.md). ``"merge"`` joins
        the thin outermost pad chunk of each side to its neighbour (the edge chunk, when
        the pad is narrower than it). ``"regular"`` gives each axis chunks the size of the
        input's largest chunk along it, all equal but the last, as zarr requires.
        ``"even"`` is regular too, with as many chunks as the padded axis holds input
        chunks (rounded), so no thin last chunk is left: the fastest to store in zarr,
        which writes every chunk whole. Each output block is assembled in one task from
        the blocks it overlaps (no rechunk plan): the pad regions are cut at the output
        chunks' boundaries. Any other value is read as dask reads ``chunks`` for the padded
        shape. A result (or its pad grid) of more than 10**8 blocks is refused with a
        ValueError.
    **kwargs
        ``constant_values``, ``end_values``, ``stat_length``, ``reflect_type`` as numpy.pad
        takes them, for the modes that take them; for a function, passed to it.

    Returns
    -------
    dask.array.Array
        Lazy, with numpy.pad's shape, dtype and values. Interior chunks are the input's;
        pad regions get chunks sized from the input's largest chunk and the budget. When
        nothing is padded the input array itself is returned.

    Raises
    ------
    TypeError, ValueError
        Whatever numpy.pad raises for the same arguments, raised here before any
        computation, with numpy's message followed by the argument, axis and value.
        Additionally, ``reflect_type`` other than ``"even"``/``"odd"`` (numpy silently
        treats it as ``"even"``) and dask arrays with unknown chunk sizes raise ValueError.

    Notes
    -----
    Statistics over a slab larger than dask's ``array.chunk-size`` are reduced in a tree:
    exact for maximum/minimum, for mean equal to numpy's up to floating-point summation
    order; median narrows the other axes' chunks so that one slab fits the budget.

    Examples
    --------
    >>> import dask.array as da, daskpad
    >>> x = da.arange(6, chunks=2)
    >>> daskpad.pad(x, (2, 3), mode="reflect").compute()
    array([2, 1, 0, 1, 2, 3, 4, 5, 4, 3, 2])
    >>> daskpad.pad(x, 2, mode="reflect", reflect_type="odd").compute()
    array([-2, -1,  0,  1,  2,  3,  4,  5,  6,  7])
    >>> daskpad.pad(x, 1, mode="median").chunks
    ((1, 2, 2, 2, 1),)
    """
    x = array if isinstance(array, da.Array) else da.asarray(array)
    if any(math.isnan(c) for chunks in x.chunks for c in chunks):
        raise ValueError(
            f"daskpad.pad needs known chunk sizes, but this array has chunks {x.chunks}; "
            "call x.compute_chunk_sizes() first"
        )
    plan = normalize(tuple(int(n) for n in x.shape), pad_width, mode, kwargs, x.dtype.itemsize)
    check_with_numpy(plan, x.dtype, mode, kwargs)
    if plan.is_identity and chunks is None:
        return x
    if plan.builder == "function":
        return pad_with_function(x, plan, chunks)
    return pad_axes(x, plan, chunks)
