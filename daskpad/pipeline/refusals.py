"""What the store-to-store pipeline raises: :class:`Refused` for a request that cannot be
done (raised before anything is written), :class:`WriteFailed` for a write that failed
(what it wrote removed); and :func:`located`, a location or its refusal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from daskpad.store.places.locations import Location, StoreError, locate


class Refused(ValueError):
    """What was asked cannot be done; the message says why in one line. Raised before
    anything is written."""


class WriteFailed(Exception):
    """Computing or writing DST failed; wraps the cause. What was written is removed, and
    DST was left as it was, unless ``dst`` says otherwise."""

    def __init__(self, message: str, dst: str = "") -> None:
        super().__init__(message)
        self.dst = dst


def with_notes(e: BaseException) -> str:
    """An exception's message and its notes (which variable a refusal of numpy.pad's is
    about), on one line."""
    return "; ".join([str(e), *getattr(e, "__notes__", ())])


def located(text: str, options: Mapping[str, Any], what: str) -> Location:
    """:func:`daskpad.store.places.locations.locate`, its refusals as :class:`Refused`."""
    try:
        return locate(text, options, what)
    except StoreError as e:
        raise Refused(str(e)) from None
