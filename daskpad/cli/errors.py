"""The command's errors: what it prints as its one line, and with which exit status
(:mod:`daskpad.cli.command` catches them)."""

from __future__ import annotations


class CliError(Exception):
    """A problem with what the user asked for; its message is printed as one line."""


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
