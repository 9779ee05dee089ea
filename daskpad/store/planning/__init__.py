"""Planning a write: the memory budget, tiles, the chunks zarr can store, and the grids
of a rectilinear write; arithmetic on chunks and sizes, nothing written."""
