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
    parse_memory,
    parse_reflect_type,
    parse_storage_options,
    parse_value,
    parse_widths,
)
from daskpad.cli.io import CliError, Modes, Widths, modes_of
from daskpad.cli.signals import Arrivals
from daskpad.core.registry import MODES, modes_taking
from daskpad.store.tiling import default_memory
from daskpad.xarray.coords import CoordsPolicy


@dataclass(frozen=True, kw_only=True)
class Request:
    """The options of one command (``pad``, ``info`` or ``demo``), each parsed once; an
    option that its command does not have keeps its default here."""

    #: the subcommand: ``pad``, ``info`` or ``demo``
    command: str
    #: SRC and DST as given (a path or a URL)
    src: str = ""
    dst: str = ""
    #: ``--storage-option`` with ``--src-storage-option`` (SRC's) or ``--dst-storage-option``
    src_options: Mapping[str, Any] = field(default_factory=dict)
    dst_options: Mapping[str, Any] = field(default_factory=dict)
    #: ``--width``: ``{dim: (before, after)}``
    widths: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    #: ``--mode``: one mode, or ``{dim: mode}`` (a padded dimension not named: constant)
    mode: str | Mapping[str, str] = "constant"
    #: each padded dimension's mode
    modes: Mapping[str, str] = field(default_factory=dict)
    #: the modes' keyword arguments (``--constant-value``, ...): each one value, or
    #: ``{dim: value}``
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    #: those options as given (``--stat-length 3``), for a refusal that names them
    mode_options: tuple[str, ...] = ()
    #: ``--chunks``: the policy that makes the padded chunks regular (regular, even), and
    #: the sizes SRC is read with
    chunk_policy: str = "regular"
    chunks: Mapping[str, int] = field(default_factory=dict)
    #: ``--var``: the data variables to pad (all where empty)
    variables: tuple[str, ...] = ()
    #: ``--coords``
    coords: CoordsPolicy = "extend"
    #: ``--memory`` or its default (daskpad pad); None: nothing is computed (daskpad info)
    memory: int | None = None
    #: the options of daskpad pad's output and execution
    overwrite: bool = False
    zarr_format: int | None = None
    #: ``--chunk-grid rectilinear``
    rectilinear: bool = False
    dry_run: bool = False
    #: ``--progress`` or ``--no-progress``; None: when stderr is a terminal
    progress: bool | None = None
    scheduler: str | None = None
    scheduler_file: str | None = None
    workers: int | None = None
    scheduler_timeout: float = 10.0
    #: daskpad demo's DIR (None: a new temporary directory)
    directory: str | None = None

    def padding_options(self) -> str:
        """The options that asked for the padding, as a refusal names them."""
        given = [f"--width {Widths(self.widths)}", f"--mode {Modes(self.mode, self.widths)}"]
        return " ".join([*given, *self.mode_options])


@dataclass
class Run:
    """One run of a command: its :class:`Request`, and what happens while it runs."""

    request: Request
    #: the signals that arrived (:func:`daskpad.cli.signals.answered`; None where nothing
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
            "rectilinear": args.chunk_grid == "rectilinear",
            "dry_run": args.dry_run,
            "progress": args.progress,
            "scheduler": args.scheduler,
            "scheduler_file": args.scheduler_file,
            "workers": args.workers,
            "scheduler_timeout": args.scheduler_timeout,
        }
    return Request(
        command=args.command,
        src=args.src,
        src_options=_storage_options(args, "src"),
        dst_options=dst_options,
        widths=widths,
        mode=mode,
        modes=modes_of(mode, widths),
        kwargs=kwargs,
        mode_options=tuple(
            f"{flag} {text}"
            for attr, (flag, _) in MODE_OPTIONS.items()
            for text in getattr(args, attr) or ()
        ),
        chunk_policy=policy,
        chunks=chunks,
        variables=tuple(args.var or ()),
        coords=args.coords,
        memory=memory,
        **output,
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
    ``{dim: value}``), refusing options that fit no padded dimension's mode."""
    mode = parse_by_dim(args.mode or (), "--mode", widths, str) or "constant"
    modes = modes_of(mode, widths)
    kwargs: dict[str, Any] = {}
    for attr, (flag, kwarg) in MODE_OPTIONS.items():
        texts = getattr(args, attr)
        if not texts:
            continue
        if kwarg == "reflect_type":
            parse: Any = parse_reflect_type
        else:
            integer = kwarg == "stat_length"

            def parse(text: str, flag: str = flag, integer: bool = integer) -> Any:
                return parse_value(text, flag, integer=integer)

        value = parse_by_dim(texts, flag, widths, parse)
        fits = " or ".join(modes_taking([kwarg]))
        takers = [d for d, m in modes.items() if kwarg in MODES[m].kwargs]
        if isinstance(value, dict):
            for dim in value:
                if dim not in takers:
                    text = next(t for t in texts if t.partition("=")[0].strip() == dim)
                    raise CliError(
                        f"{flag} {text} does not apply to --mode {dim}={modes[dim]} "
                        f"({_takes(modes[dim])}); {flag} is for --mode {fits}"
                    )
        elif not takers:
            if isinstance(mode, str):
                raise CliError(
                    f"{flag} does not apply to --mode {mode} ({_takes(mode)}); {flag} is "
                    f"for --mode {fits}"
                )
            raise CliError(
                f"{flag} does not apply to the mode of any padded dimension (--mode "
                f"{Modes(mode, widths)}); {flag} is for --mode {fits}"
            )
        kwargs[kwarg] = value
    return mode, kwargs


def _takes(mode: str) -> str:
    takes = ", ".join(f for f, k in MODE_OPTIONS.values() if k in MODES[mode].kwargs)
    return f"it takes {takes or 'no other option'}"
