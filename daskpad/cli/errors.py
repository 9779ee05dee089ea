"""The command's own error: a command line that asks for something it cannot do, said in
one line with exit status 2 (:mod:`daskpad.cli.command` catches it, and the library's
refusals, :class:`daskpad.pipeline.Refused`)."""

from __future__ import annotations


class CliError(Exception):
    """A problem with the command line; its message is printed as one line."""
