"""The input's stored objects: which a zarr v3 document reads as they are, and the
copies of them, by the stores' own means where they have any."""
