"""``daskpad.pad``: the door. Normalise and check the arguments, then build the graph."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import dask.array as da

import daskpad.modes  # noqa: F401  (the mode families register their modes)
from daskpad.core.axes import pad_axes
from daskpad.core.chunks import merge_slivers, output_chunks
from daskpad.core.per_axis import is_per_axis, normalize_per_axis
from daskpad.core.plan import PadPlan, check_with_numpy, normalize
from daskpad.core.regrid import regrid
from daskpad.modes.function import pad_with_function

if TYPE_CHECKING:
    import numpy.typing as npt

#: one axis's mode: a numpy.pad mode's name, or a function ``f(vector, iaxis_pad_width,
#: iaxis, kwargs)`` that pads ``vector`` in place (returning the padded vector also works)
AxisMode = str | Callable[..., object]
#: a mode per axis: ``{axis: mode}`` or one mode per axis
AxisModes = Mapping[int, AxisMode] | Sequence[AxisMode]
#: :func:`pad`'s ``mode``: one for every axis, or a mode per axis
PadMode = AxisMode | AxisModes


def pad(
    array: da.Array | npt.ArrayLike,
    pad_width: npt.ArrayLike | Mapping[int, npt.ArrayLike],
    mode: PadMode = "constant",
    *,
    chunks: object = None,
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

        A mode per axis: ``{axis: mode}`` (axes not named are ``"constant"``) or one mode
        per axis, each a name or a function, as scipy.ndimage takes them. The result is
        numpy.pad called once per axis, in axis order, each call padding its axis alone
        with its own mode on the result of the calls before: the corners of axis ``k``'s
        pads come from the pads of axes ``0 .. k-1`` (a periodic longitude after a
        mirrored latitude wraps the latitude's pads too). A function given for one axis is
        called, at its step, on every axis's lines (the others with width ``(0, 0)``), as
        numpy.pad calls it.
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
        takes them, for the modes that take them; for a function, passed to it. With a
        mode per axis, each goes to the axes whose mode takes it: in numpy's forms (a
        value, a pair, one pair per axis, each axis taking its own pair), or as
        ``{axis: value or (before, after)}`` (``{axis: "odd"}`` for ``reflect_type``).
        A function among the modes gets the keywords no padded axis's mode takes; a
        keyword nothing takes is refused with ``ValueError``, as numpy refuses it.

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

    A mode per axis: rows mirrored, then columns wrapped (corners included):

    >>> import numpy as np
    >>> grid = da.from_array(np.arange(6).reshape(2, 3), chunks=2)
    >>> daskpad.pad(grid, 1, mode={0: "symmetric", 1: "wrap"}).compute()
    array([[2, 0, 1, 2, 0],
           [2, 0, 1, 2, 0],
           [5, 3, 4, 5, 3],
           [5, 3, 4, 5, 3]])
    >>> daskpad.pad(grid, 1, mode=["constant", "edge"], constant_values={0: 9}).compute()
    array([[9, 9, 9, 9, 9],
           [0, 0, 1, 2, 2],
           [3, 3, 4, 5, 5],
           [9, 9, 9, 9, 9]])
    """
    x = array if isinstance(array, da.Array) else da.asarray(array)
    if any(math.isnan(c) for chunks in x.chunks for c in chunks):
        raise ValueError(
            f"daskpad.pad needs known chunk sizes, but this array has chunks {x.chunks}; "
            "call x.compute_chunk_sizes() first"
        )
    shape = tuple(int(n) for n in x.shape)
    if is_per_axis(mode):
        plan = normalize_per_axis(shape, pad_width, mode, kwargs, x.dtype)
    else:
        plan = normalize(shape, pad_width, cast("AxisMode", mode), kwargs, x.dtype.itemsize)
        check_with_numpy(plan, x.dtype, mode, kwargs)
    if plan.is_identity and chunks is None:
        return x
    if plan.whole_lines:
        return pad_with_function(x, plan, chunks)
    if plan.steps and not _one_grid(x, plan):
        return _pad_in_steps(x, plan, chunks)
    return pad_axes(x, plan, chunks)


def _one_grid(x: da.Array, plan: PadPlan) -> bool:
    """Whether the axes of a mode per axis can be padded in one block grid, each axis by
    its own mode's builder: not where a step hands whole lines to a user function, nor
    where the input holds no element (a later axis's mode then reads what the earlier
    axes' pads hold, not the input)."""
    return 0 not in x.shape and not any(step.whole_lines for _a, step in plan.steps)


def _pad_in_steps(x: da.Array, plan: PadPlan, chunks: object) -> da.Array:
    """A mode per axis as the padding of one axis after another, each step a pad of its
    own, then cut into the output chunks asked for."""
    y = x
    for _axis, step in plan.steps:
        y = pad_with_function(y, step) if step.whole_lines else pad_axes(y, step)
    return in_output_chunks(y, x.chunks, [(ap.before, ap.after) for ap in plan.axes], chunks)


def in_output_chunks(
    y: da.Array,
    input_chunks: tuple[tuple[int, ...], ...],
    widths: Sequence[tuple[int, int]],
    chunks: object,
) -> da.Array:
    """``y``, the pad by ``widths`` of an array in ``input_chunks`` laid out in chunks of
    its own (``chunks=None``'s, or a pad's in steps), in the output chunks ``chunks`` asks
    for (:func:`pad`'s ``chunks``), each block assembled from the blocks it overlaps."""
    pairs = [(int(before), int(after)) for before, after in widths]
    target = output_chunks(chunks, input_chunks, y.shape, y.dtype, pairs)
    if isinstance(chunks, str) and chunks == "merge":
        target = merge_slivers(y.chunks, dict(enumerate(pairs)))
    return y if target is None else regrid(y, target)
