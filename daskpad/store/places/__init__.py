"""Where a store is (a local path, an fsspec URL) and how a write becomes visible only
once complete: a temporary sibling renamed, or the root document written last."""
