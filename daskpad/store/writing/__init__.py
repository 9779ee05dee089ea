"""Writing into zarr: plans of tiles and of chunks copied or computed, streamed writes,
the statistics settled first, and metadata."""
