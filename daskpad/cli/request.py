"""What a run of the command was asked, parsed once: :class:`Request`, a frozen record every
step reads (:func:`request_from` builds it from the parsed command line), and :class:`Run`,
one run of a command: its request and what happens while it runs."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from daskpad.cli.args import (
    MODE_OPTIONS,
    parse_by_dim,
    parse_chunks,
    parse_keyword,
    parse_memory,
    parse_storage_options,
    parse_widths,
)
from daskpad.cli.errors import CliError
from daskpad.pipeline import PadOptions
from daskpad.pipeline.for_command import (
    KEYWORDS,
    Arrivals,
    Modes,
    Widths,
    default_memory,
    keyword_misfits,
    keywords_of,
    modes_of,
)


@dataclass(frozen=True, kw_only=True)
class Request:
    """The options of one command (``pad``, ``info`` or ``demo``), each parsed once: what
    the library pads with (:class:`daskpad.pipeline.PadOptions`) and what only the command
    reads; an option that its command does not have keeps its default here."""

    #: the subcommand: ``pad``, ``info`` or ``demo``
    command: str
    #: SRC, DST, ``--width``, ``--mode``, the modes' options, ``--chunks``, ``--var``,
    #: ``--coords``, ``--memory`` (None: nothing is computed, daskpad info), the output and
    #: where it computes
    options: PadOptions = field(default_factory=lambda: PadOptions(src=""))
    #: the modes' options as given (``--stat-length 3``), for a refusal that names them
    mode_options: tuple[str, ...] = ()
    dry_run: bool = False
    #: ``--progress`` or ``--no-progress``; None: when stderr is a terminal
    progress: bool | None = None
    #: daskpad demo's DIR (None: a new temporary directory)
    directory: str | None = None

    @property
    def modes(self) -> dict[str, str]:
        """Each padded dimension's mode."""
        return modes_of(self.options.mode, self.options.widths)

    def padding_options(self) -> str:
        """The options that asked for the padding, as a refusal names them."""
        widths, mode = self.options.widths, self.options.mode
        given = [f"--width {Widths(widths)}", f"--mode {Modes(mode, widths)}"]
        return " ".join([*given, *self.mode_options])


@dataclass
class Run:
    """One run of a command: its :class:`Request`, and what happens while it runs."""

    request: Request
    #: the signals that arrived (:func:`daskpad.store.stops.recording_stops`; None where nothing
    #: records them: the runs of daskpad demo)
    arrivals: Arrivals | None = None
    #: an old DST that ``--overwrite`` deleted before writing (an object store), for the
    #: message of a run stopped afterwards
    deleted: list[str] = field(default_factory=list)


def request_from(args: argparse.Namespace) -> Request:
    """The :class:`Request` of a parsed command line: every option parsed, in the order the
    command refuses them (daskpad pad without ``--width`` first), before anything is opened."""
    if args.command == "demo":
        return Request(command="demo", directory=args.dir)
    pad = args.command == "pad"
    if pad and not args.width:
        raise CliError("daskpad pad needs at least one --width DIM=WIDTH (see --help)")
    # daskpad info computes nothing: no budget
    memory = None if not pad else _memory(args)
    dst_options = _storage_options(args, "dst") if pad else {}
    widths = parse_widths(args.width or ())
    mode, kwargs = _padding(args, widths)
    policy, chunks = parse_chunks(args.chunks or ())
    output: dict[str, Any] = {}
    if pad:
        output = {
            "dst": args.dst,
            "overwrite": args.overwrite,
            "zarr_format": args.zarr_format,
            "chunk_grid": args.chunk_grid,
            "scheduler": args.scheduler,
            "scheduler_file": args.scheduler_file,
            "workers": args.workers,
            "scheduler_timeout": args.scheduler_timeout,
        }
    options = PadOptions(
        src=args.src,
        src_options=_storage_options(args, "src"),
        dst_options=dst_options,
        widths=widths,
        mode=mode,
        kwargs=kwargs,
        chunk_policy=policy,
        chunks=chunks,
        variables=tuple(args.var or ()),
        coords=args.coords,
        memory=memory,
        **output,
    )
    return Request(
        command=args.command,
        options=options,
        mode_options=tuple(
            f"{flag} {text}"
            for attr, (flag, _) in MODE_OPTIONS.items()
            for text in getattr(args, attr) or ()
        ),
        dry_run=pad and args.dry_run,
        progress=args.progress if pad else None,
    )


def _memory(args: argparse.Namespace) -> int:
    """``--memory``, or its default."""
    return parse_memory(args.memory) if args.memory is not None else default_memory()


def _storage_options(args: argparse.Namespace, which: str) -> dict[str, Any]:
    """``--storage-option``, then ``--src-storage-option`` or ``--dst-storage-option``."""
    common = parse_storage_options(args.storage_option or ())
    own = parse_storage_options(getattr(args, f"{which}_storage_option", None) or ())
    return {**common, **own}


def _padding(
    args: argparse.Namespace, widths: Mapping[str, tuple[int, int]]
) -> tuple[Any, dict[str, Any]]:
    """The mode (one, or ``{dim: mode}``) and its keyword arguments (each one value, or
    ``{dim: value}``), refusing options that fit no padded dimension's mode
    (:func:`daskpad.core.keywords.keyword_misfits`, worded for the command's flags)."""
    mode = parse_by_dim(args.mode or (), "--mode", widths, str) or "constant"
    modes = modes_of(mode, widths)
    kwargs: dict[str, Any] = {}
    texts_of: dict[str, list[str]] = {}
    for attr, (flag, kwarg) in MODE_OPTIONS.items():
        texts = getattr(args, attr)
        if texts:
            keyword = KEYWORDS[kwarg]
            parse = lambda text, k=keyword: parse_keyword(k, text)  # noqa: E731
            kwargs[kwarg] = parse_by_dim(texts, flag, widths, parse)
            texts_of[kwarg] = texts
    named = {k: list(v) if isinstance(v, dict) else [] for k, v in kwargs.items()}
    for misfit in keyword_misfits(modes, set(modes), named):
        flag = KEYWORDS[misfit.keyword].flag
        fits = " or ".join(misfit.fits)
        if not misfit.unused:
            dim = misfit.place
            text = next(t for t in texts_of[misfit.keyword] if t.partition("=")[0].strip() == dim)
            raise CliError(
                f"{flag} {text} does not apply to --mode {dim}={modes[dim]} "
                f"({_takes(modes[dim])}); {flag} is for --mode {fits}"
            )
        if isinstance(mode, str):
            raise CliError(
                f"{flag} does not apply to --mode {mode} ({_takes(mode)}); {flag} is "
                f"for --mode {fits}"
            )
        raise CliError(
            f"{flag} does not apply to the mode of any padded dimension (--mode "
            f"{Modes(mode, widths)}); {flag} is for --mode {fits}"
        )
    return mode, kwargs


def _takes(mode: str) -> str:
    takes = ", ".join(KEYWORDS[k].flag for k in keywords_of(mode))
    return f"it takes {takes or 'no other option'}"
