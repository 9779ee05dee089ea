"""Labelled padding for xarray objects: :func:`pad2` and the ``pad2`` accessor.

Importing this module (which ``import daskpad`` does when xarray is installed) registers a
callable accessor ``pad2`` on :class:`xarray.Dataset` and :class:`xarray.DataArray`::

    ds.pad2(x=(1, 2), mode="reflect")
    ds.pad2({"x": 2, "y": (0, 3)}, mode="wrap")

The accessor only forwards to :func:`pad2`, which does the work: dask-backed variables pad
lazily through :func:`daskpad.pad`, in-memory variables through :func:`numpy.pad`, and both
give the same values.

Rules, in brief (the docstring of :func:`pad2` has the details):

- **Widths** are given per dimension name, as an int or a ``(before, after)`` pair. A width
  of 0 leaves the dimension alone (except with ``coords="xarray"``, where, as in xarray, it
  still resets the index and promotes for the default fill).
- **Modes** are one for every dimension or one per dimension name
  (``mode={"lon": "wrap", "lat": "symmetric"}``, "constant" for padded dimensions it does
  not name); a variable is then padded one dimension at a time in its own dimension order,
  as chained ``numpy.pad`` calls pad it, and a variable without some padded dimensions gets
  the modes of those it has. The keywords (``constant_values``, ``end_values``,
  ``stat_length``, ``reflect_type``) take one value or one per dimension name.
- **Data variables** that have no padded dimension are returned untouched. With
  ``mode="constant"`` and no ``constant_values``, the fill follows xarray's convention: NaN
  (NaT for times), promoting integers to float (``float32`` up to two-byte integers,
  ``float64`` above) and booleans to object. An explicit ``constant_values`` keeps the dtype,
  as in :func:`numpy.pad` and xarray's ``pad``: a fraction is cast as numpy casts it, and a
  value the dtype cannot hold at all (NaN in integers, a number out of range) is an error.
- **Index coordinates** (``coords="extend"``, the default) are continued with their edge
  spacing, so they stay monotonic and unique whatever the mode: ``x = [0, 1, 2]`` padded by 2
  on both sides becomes ``[-2, -1, 0, 1, 2, 3, 4]``, a longitude ``[0, 1, ..., 359]`` padded
  with wrap becomes ``[-2, -1, 0, ..., 359, 360, 361]``. Numbers, datetimes (numpy's, and
  cftime's in their own calendar: a noleap ``CFTimeIndex`` stays noleap) and timedeltas
  can be extended; an index of strings or other objects, of fewer than two values, that is
  not strictly monotonic, or whose extension its dtype cannot hold apart (overflow, rounding)
  cannot, and padding its dimension raises a ``ValueError`` that names the other policies.
  ``coords="drop"`` removes the index coordinates of padded dimensions; ``coords="xarray"``
  reproduces :meth:`xarray.Dataset.pad` exactly.
- **Other coordinates** along a padded dimension are padded like data: with the data's mode
  for edge, reflect, symmetric and wrap, and with the default fill (NaN/NaT with promotion)
  for every other mode, as xarray does.
- **attrs** follow ``keep_attrs`` (default: xarray's ``keep_attrs`` option, which keeps them).
  Encodings of padded variables lose the keys that describe the old on-disk layout
  (``chunks``, ``preferred_chunks``, ``shards``, ``chunksizes``, ``contiguous``,
  ``original_shape``) and ``dtype`` when the data was promoted: they describe the input.
- **Writing**: the default chunks keep the input's and add the pad's own at the edges,
  which zarr cannot store as they are: :func:`to_zarr` here takes them, xarray's
  ``to_zarr`` needs ``chunks="regular"`` (or ``"even"``); ``to_netcdf`` takes any.
"""

from daskpad.xarray.accessor import Pad2Accessor
from daskpad.xarray.coords import COORDS_POLICIES
from daskpad.xarray.named_shapes import crop, map_overlap, pad_to, widths_for
from daskpad.xarray.padding import pad2
from daskpad.xarray.writer import to_zarr

__all__ = [
    "COORDS_POLICIES",
    "Pad2Accessor",
    "crop",
    "map_overlap",
    "pad2",
    "pad_to",
    "to_zarr",
    "widths_for",
]
