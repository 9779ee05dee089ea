"""An array whose float32 blocks are generated on demand and counted while alive, to read
how many input blocks a write holds at once (tests/store/test_tiles.py, test_stream.py)."""

from __future__ import annotations

import threading
import weakref

import dask.array as da
import numpy as np


class CountedBlocks:
    """float32 blocks generated on demand, counted while alive (a view counts as its block)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.alive = self.peak = self.made = 0

    def __dask_tokenize__(self) -> object:  # dask's array-expr tokenizes map_blocks' function
        return ("counted-source", id(self))

    def array(self, n: int, c: int) -> da.Array:
        return da.map_blocks(
            self._block, chunks=((c,) * n,) * 2, dtype=np.float32, meta=np.empty((0, 0), "f4")
        )

    def _block(self, block_info=None) -> np.ndarray:
        info = block_info[None]
        (r0, _), (c0, _) = info["array-location"]
        block = np.add.outer(
            np.arange(info["chunk-shape"][0], dtype=np.float32) + r0,
            1000 * (np.arange(info["chunk-shape"][1], dtype=np.float32) + c0),
        )
        with self.lock:
            self.made += 1
            self.alive += 1
            self.peak = max(self.peak, self.alive)
        weakref.finalize(block, self._release)
        return block

    def _release(self) -> None:
        with self.lock:
            self.alive -= 1
