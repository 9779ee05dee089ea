"""Whether DST may be written: never the input, never inside or around it, never over
something that is not a zarr store, and an existing store only when asked to replace it
(:func:`check_destination`)."""

from __future__ import annotations

from daskpad.pipeline.refusals import Refused
from daskpad.store.places.locations import Location


def check_destination(src: Location, dst: Location, overwrite: bool) -> None:
    """Refuse any DST whose writing could lose data.

    DST may not be SRC, lie inside SRC, or contain SRC (replacing DST would delete it). An
    existing DST is replaced only with ``overwrite`` and only when it is a zarr store (or
    an empty directory).
    """
    if dst.same_or_within(src):
        where = "is SRC" if src.same_or_within(dst) else "lies inside SRC"
        raise Refused(
            f"DST {dst.text!r} {where} {src.text!r}; daskpad never writes into its input"
        )
    if src.same_or_within(dst):
        raise Refused(
            f"DST {dst.text!r} contains SRC {src.text!r}; replacing DST would delete the input"
        )
    if not dst.local:
        if "::" in dst.text:
            raise Refused(f"DST {dst.text!r}: write to the store itself, not through a chain")
        if dst.is_root:
            raise Refused(
                f"DST {dst.text!r} is a bucket, not a store in it: daskpad writes into a "
                f"prefix of its own, such as {dst.text.rstrip('/')}/out.zarr"
            )
        bucket = dst.path.split("/")[0]
        if not dst.fs.exists(bucket):
            raise Refused(
                f"DST {dst.text!r}: {bucket!r} does not exist or cannot be reached (check "
                "the endpoint and credentials: --storage-option, environment)"
            )
        if dst.is_empty():
            return
        if not overwrite:
            raise Refused(f"DST {dst.text!r} already exists; pass --overwrite to replace it")
        if not dst.looks_like_zarr():
            raise Refused(
                f"DST {dst.text!r} holds something that is not a zarr store; --overwrite "
                "replaces only a zarr store, so choose another DST or empty it yourself"
            )
        return
    path = dst.local_path
    if not path.resolve().parent.is_dir():
        raise Refused(f"the directory of DST, {str(path.resolve().parent)!r}, does not exist")
    if path.exists() or path.is_symlink():
        if not overwrite:
            raise Refused(f"DST {dst.text!r} already exists; pass --overwrite to replace it")
        if path.is_symlink() or not path.is_dir():
            raise Refused(
                f"DST {dst.text!r} exists and is not a directory; --overwrite replaces only a "
                "zarr store or an empty directory, so remove it yourself if it should go"
            )
        if not dst.looks_like_zarr() and any(path.iterdir()):
            raise Refused(
                f"DST {dst.text!r} is a directory that is not a zarr store; --overwrite "
                "replaces only a zarr store or an empty directory, so choose another DST or "
                "empty it yourself"
            )
