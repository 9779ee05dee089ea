"""The ``daskpad`` command's parser: its subcommands, their options and help, the types
that check option values, and the parsing of the values that need more than a type (widths,
numbers or pairs, chunks, storage options, memory sizes) into what the commands use
(:mod:`daskpad.cli.request` reads them into one request; :mod:`daskpad.cli.command` runs it)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Iterator, Mapping
from importlib.metadata import version
from typing import Any, NoReturn

from daskpad.cli.errors import CliError
from daskpad.pipeline.for_command import (
    COORDS_POLICIES,
    KEYWORDS,
    MODES,
    Keyword,
    memory_budget,
    other_name,
    storage_options,
)


class _ModeOptions(Mapping[str, tuple[str, str]]):
    """The options of the modes' keywords, read from the keyword table when asked
    (:data:`daskpad.core.keywords.KEYWORDS`): the parsed namespace's attribute ->
    ``(flag, keyword)``."""

    def _options(self) -> dict[str, tuple[str, str]]:
        return {k.option: (k.flag, k.name) for k in KEYWORDS.values() if k.flag}

    def __getitem__(self, attr: str) -> tuple[str, str]:
        return self._options()[attr]

    def __iter__(self) -> Iterator[str]:
        return iter(self._options())

    def __len__(self) -> int:
        return len(self._options())


#: --option's attribute -> the option and the keyword argument of numpy.pad / pad2 it sets
MODE_OPTIONS: Mapping[str, tuple[str, str]] = _ModeOptions()


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line, ``daskpad: error: ...`` as every other
    refusal of the command, whichever subcommand's parser finds it (with the hint to that
    subcommand's ``--help``), and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"daskpad: error: {message} (see {self.prog} --help)\n")


def _own_storage_option(add_argument: Callable[..., Any], which: str) -> None:
    """``--src-storage-option`` or ``--dst-storage-option`` (SRC's or DST's alone), added
    with a parser's or an argument group's ``add_argument``."""
    add_argument(
        f"--{which.lower()}-storage-option",
        action="append",
        metavar="KEY=VALUE",
        help=f"an option for {which}'s filesystem only (over --storage-option)",
    )


def _output_options(pad: argparse.ArgumentParser) -> None:
    """``daskpad pad``'s options for writing DST and where to compute."""
    out = pad.add_argument_group("output and execution")
    _own_storage_option(out.add_argument, "DST")
    out.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an existing DST if it is a zarr store (or what a killed write into an "
        "object store left) or an empty directory; anything else (a file, a directory or "
        "prefix holding other things) is refused. A local DST is replaced only once the new "
        "store is complete; in an object store (s3://, gs://) there is no rename, so the old "
        "DST is deleted BEFORE the new one is written: not atomic",
    )
    out.add_argument("--zarr-format", type=int, choices=(2, 3), help="default: SRC's, or 3")
    out.add_argument(
        "--chunk-grid",
        choices=("regular", "rectilinear"),
        default="regular",
        help="regular (default): DST's chunks all one size per dimension (SRC's zarr v3 "
        "chunks copied as stored bytes where they stay whole: see docs/cli.md). rectilinear: "
        "along each padded dimension the pad before, SRC's chunks, the pad after, each a chunk "
        "of its own (zarr v3's rectilinear chunk grid), so that SRC's whole chunks are copied "
        "as stored bytes (file copies, or copies within the object store) and only the pads "
        "are computed: much faster on large stores. Needs zarr-python 3.2 or newer (Python "
        "3.12); other readers need it too, with ZARR_ARRAY__RECTILINEAR_CHUNKS=True in their "
        "environment (with consolidated metadata, a reader without it opens no variable at all)",
    )
    out.add_argument(
        "--dry-run", action="store_true", help="show what would be written; compute nothing"
    )
    out.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show a progress bar on stderr (default: when stderr is a terminal)",
    )
    out.add_argument(
        "--memory",
        metavar="SIZE",
        help="data to hold at once, about (e.g. 512MB; default: 2GiB, or a quarter of the "
        "memory the command may use, a container's limit included, if less): a write that "
        "would hold more is done tile by tile, reading the input blocks at tile edges twice. "
        "Input blocks are at most SIZE/(8 x threads: N of --workers N, else the cores) where "
        "SRC can be read in part (netCDF-3, "
        "netCDF-4 stored contiguous or unfiltered): an unchunked netCDF variable is read, and "
        "written, in slabs of its leading dimensions that size. A stored chunk read whole "
        "(compressed netCDF-4, any zarr chunk) over SIZE is refused, naming the --memory "
        "and --chunks that work",
    )
    where = out.add_mutually_exclusive_group()
    where.add_argument(
        "--scheduler", metavar="ADDRESS", help="run on this dask.distributed scheduler"
    )
    where.add_argument(
        "--scheduler-file",
        metavar="PATH",
        help="run on the dask.distributed scheduler this file names (as written by "
        "dask scheduler --scheduler-file, or dask-jobqueue)",
    )
    where.add_argument(
        "--workers",
        type=_positive_int,
        metavar="N",
        help="start a local cluster of N worker processes",
    )
    out.add_argument(
        "--scheduler-timeout",
        type=_positive_float,
        default=10.0,
        metavar="SECONDS",
        help="how long to wait for --scheduler to answer (default: 10)",
    )


def _padding_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "src",
        metavar="SRC",
        help="zarr store (v2 or v3) or netCDF file: a local path or a URL (s3://bucket/in.zarr, "
        "gs://..., file://...)",
    )
    parser.add_argument(
        "--storage-option",
        action="append",
        metavar="KEY=VALUE",
        help="an option for the filesystem of a URL SRC or DST (repeatable; dots nest, "
        "VALUE is read as JSON where it is JSON: quote it, 'secret=\"12345\"', to keep "
        "digits text), e.g. endpoint_url=http://127.0.0.1:9000, anon=true, "
        "client_kwargs.region_name=eu-west-1; credentials also come from the usual "
        "environment variables (AWS_ACCESS_KEY_ID, ...)",
    )
    _own_storage_option(parser.add_argument, "SRC")
    g = parser.add_argument_group("padding")
    g.add_argument(
        "--width",
        action="append",
        metavar="DIM=N|DIM=BEFORE:AFTER",
        help="pad dimension DIM by N on both sides, or BEFORE and AFTER (repeat per dimension)",
    )
    g.add_argument(
        "--mode",
        action="append",
        type=_mode_text,
        metavar="MODE|DIM=MODE",
        help="numpy.pad mode: MODE for every padded dimension, or DIM=MODE for one (repeat "
        "per dimension; a padded dimension not named is padded with constant). Bare and "
        f"DIM= forms do not combine. One of {', '.join(sorted(MODES))} (default: constant)",
    )
    g.add_argument(
        "--var", action="append", metavar="NAME", help="pad only this data variable (repeatable)"
    )
    _mode_keyword_options(g)
    g.add_argument(
        "--coords",
        default="extend",
        choices=COORDS_POLICIES,
        help="index coordinates of padded dimensions: extend their spacing (default), drop "
        "them, or pad them as xarray's Dataset.pad does",
    )
    g.add_argument(
        "--chunks",
        action="append",
        metavar="regular|even|DIM=SIZE,...",
        help="output chunks: SRC's own sizes, made regular for zarr (regular, the default; an "
        "unchunked netCDF variable gets slabs of its leading dimensions within --memory); "
        "regular with as many chunks as fit, so no thin last one (even, the fastest to "
        "write); read SRC with SIZE along DIM first (combines with either)",
    )


def _mode_keyword_options(g: Any) -> None:
    """numpy.pad's keywords of its modes, each for every dimension or (DIM=) for one: an
    option for each keyword of the table that has one."""
    for keyword in KEYWORDS.values():
        if keyword.flag:
            g.add_argument(
                keyword.flag, action="append", metavar=keyword.metavar, help=keyword.help
            )


def _mode_text(text: str) -> str:
    """``--mode MODE`` or ``--mode DIM=MODE``, with a MODE numpy.pad has."""
    mode = text.partition("=")[2] if "=" in text else text
    if mode in MODES:
        return text
    said = other_name(mode)
    hint = f"; {mode!r} is {said} (docs/boundaries.md)" if said else ""
    raise argparse.ArgumentTypeError(
        f"invalid choice: {mode!r} (choose from {', '.join(map(repr, sorted(MODES)))}){hint}"
    )


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, not {text!r}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, not {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``daskpad`` command (a factory without arguments, as documentation
    tools render it); each parsed namespace names its subcommand as ``command``."""
    parser = Parser(prog="daskpad", description="numpy.pad for datasets that do not fit in memory")
    parser.add_argument("--version", action="version", version=f"daskpad {version('daskpad')}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    # --debug after the command too (not listed again; kept if given before it)
    debug_after = Parser(add_help=False)
    debug_after.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    pad = sub.add_parser(
        "pad",
        parents=[debug_after],
        help="pad SRC into a new zarr store DST",
        description="Pad a zarr store or netCDF file SRC into a new zarr store DST, lazily and "
        "chunk by chunk. Each variable is padded as pad2 pads the values xarray decodes "
        "(scale_factor and add_offset applied, _FillValue and missing_value masked, times as "
        "times) and stored with SRC's encoding: elements copied from SRC (the interior, the "
        "pads of edge, wrap and even reflection) keep their stored numbers, computed ones are "
        "encoded, and a value the encoding cannot hold is refused before anything is written. "
        "Where pad2 changes a variable's dtype (NaN, the default constant, in integers "
        "without a fill value), DST stores that dtype. DST opens only once it is completely "
        "written (a local DST is renamed into place; in an object store its root metadata is "
        "written last), and a failed or interrupted run removes what it wrote.",
    )
    _padding_options(pad)
    pad.add_argument(
        "dst",
        metavar="DST",
        help="the zarr store to write: a local path or a URL (s3://bucket/out.zarr, gs://...)",
    )
    _output_options(pad)

    info = sub.add_parser(
        "info",
        parents=[debug_after],
        help="describe SRC and what a padding would produce",
        description="Show SRC's dimensions, chunks and sizes and, given --width, the padded "
        "shapes, chunks and task counts, without computing anything.",
    )
    _padding_options(info)

    demo = sub.add_parser(
        "demo", parents=[debug_after], help="pad a small synthetic global dataset with a few modes"
    )
    demo.add_argument(
        "dir", metavar="DIR", nargs="?", help="where to write (default: a new temporary directory)"
    )
    return parser


# --------------------------------------------------------------------------------------
# Parsing option values
# --------------------------------------------------------------------------------------
def parse_width(text: str) -> tuple[str, tuple[int, int]]:
    """``"lat=2"`` -> ``("lat", (2, 2))``; ``"lon=3:5"`` -> ``("lon", (3, 5))``.

    >>> parse_width("lon=3:5")
    ('lon', (3, 5))
    >>> parse_width("lat=2")
    ('lat', (2, 2))
    """
    dim, sep, value = text.partition("=")
    parts = value.split(":")
    ok = sep and dim and len(parts) in (1, 2) and all(p.strip().isdigit() for p in parts)
    if not ok:
        raise CliError(
            f"--width {text!r} is malformed: expected DIM=WIDTH or DIM=BEFORE:AFTER with "
            "non-negative integers, e.g. --width lat=2 --width lon=3:5"
        )
    before = int(parts[0])
    after = int(parts[-1])
    if max(before, after) >= 2**63:
        raise CliError(
            f"--width {text!r}: a width must be below 2**63 (no array dimension is longer); "
            "widths whose padded array would exceed the block limit are refused too"
        )
    return dim.strip(), (before, after)


def parse_widths(texts: Iterable[str]) -> dict[str, tuple[int, int]]:
    """All ``--width`` options -> ``{dim: (before, after)}``; a dimension may appear once."""
    widths: dict[str, tuple[int, int]] = {}
    for text in texts:
        dim, pair = parse_width(text)
        if dim in widths:
            raise CliError(f"--width names dimension {dim!r} twice; give each dimension once")
        widths[dim] = pair
    return widths


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


def parse_value(text: str, flag: str, *, integer: bool = False) -> Any:
    """``"V"`` or ``"BEFORE:AFTER"`` -> a number or a pair (ints for ``integer``).

    >>> parse_value("0:-1.5", "--end-value")
    (0, -1.5)
    >>> parse_value("nan", "--constant-value")
    nan
    """
    parts = text.split(":")
    what = "non-negative integers" if integer else "numbers"
    try:
        if len(parts) not in (1, 2):
            raise ValueError
        values = [int(p) if integer else _number(p) for p in parts]
        if integer and any(v < 0 for v in values):
            raise ValueError
    except ValueError:
        raise CliError(
            f"{flag} {text!r} is malformed: expected a value or BEFORE:AFTER, as {what} "
            f"(write {flag}=-1:2 when the value starts with a minus sign)"
        ) from None
    return values[0] if len(values) == 1 else tuple(values)


def parse_by_dim(
    texts: Iterable[str], flag: str, widths: Mapping[str, Any], parse: Callable[[str], Any]
) -> Any:
    """A repeatable option given bare (``V``: every dimension it applies to) or per
    dimension (``DIM=V``) -> ``parse(V)``, ``{DIM: parse(V)}``, or None when not given.

    A second bare one, a dimension named twice, bare and ``DIM=`` forms together, and a
    dimension without ``--width`` are refused, naming the option.

    >>> parse_by_dim(["lat=odd", "lon=even"], "--reflect-type", {"lat": 1, "lon": 1}, str)
    {'lat': 'odd', 'lon': 'even'}
    """
    bare: list[str] = []
    named: dict[str, str] = {}
    for text in texts:
        dim, sep, _ = text.partition("=")
        if not sep:
            bare.append(text)
            continue
        dim = dim.strip()
        if not dim:
            raise CliError(f"{flag} {text!r} is malformed: expected DIM=VALUE or a bare VALUE")
        if dim in named:
            raise CliError(
                f"{flag} names dimension {dim!r} twice ({flag} {named[dim]}, {flag} {text}); "
                "give each dimension once"
            )
        named[dim] = text
    if len(bare) > 1:
        raise CliError(
            f"{flag} is given {len(bare)} times without a dimension "
            f"({', '.join(f'{flag} {t}' for t in bare)}); give one {flag} for every padded "
            f"dimension, or one {flag} DIM=... per dimension"
        )
    if bare and named:
        first = next(iter(named.values()))
        raise CliError(
            f"{flag} {bare[0]} (every padded dimension) and {flag} {first} (one dimension) do "
            f"not combine: give each dimension its own {flag} DIM=..."
            + (" (one not named is padded with constant)" if flag == "--mode" else "")
            + f", or one bare {flag} for all"
        )
    for dim, text in named.items():
        if dim not in widths:
            raise CliError(
                f"{flag} {text} names dimension {dim!r}, which has no --width: it applies to "
                f"padded dimensions only (add --width {dim}=N, or leave it out)"
            )
    if bare:
        return parse(bare[0])
    if named:
        return {dim: parse(text.partition("=")[2]) for dim, text in named.items()}
    return None


def parse_keyword(keyword: Keyword, text: str) -> Any:
    """One value of a keyword's option (``DIM=`` taken off), read as its kind says: one of
    its choices, a length or pair of lengths (integers), a value or pair of values.

    >>> parse_keyword(KEYWORDS["stat_length"], "3:1")
    (3, 1)
    >>> parse_keyword(KEYWORDS["reflect_type"], "odd")
    'odd'
    """
    if keyword.kind == "choice":
        if text not in keyword.choices:
            bare = " or ".join(keyword.choices)
            named = " or ".join(f"DIM={c}" for c in keyword.choices)
            raise CliError(f"{keyword.flag} {text!r} is malformed: expected {bare}, or {named}")
        return text
    return parse_value(text, keyword.flag, integer=keyword.kind == "lengths")


def parse_chunks(texts: Iterable[str]) -> tuple[str, dict[str, int]]:
    """``--chunks``: the policy that makes the padded chunks regular for zarr
    (``regular``, the default, or ``even``) and chunk sizes to read SRC with
    (``lat=45,lon=90``)."""
    policy, sizes = "regular", {}
    for text in texts:
        if text in ("regular", "even"):
            policy = text
            continue
        for item in text.split(","):
            dim, sep, value = item.partition("=")
            if not (sep and dim.strip() and value.strip().isdigit() and int(value) > 0):
                raise CliError(
                    f"--chunks {text!r} is malformed: expected 'regular', 'even' or "
                    "DIM=SIZE[,DIM=SIZE] with positive integer sizes, e.g. --chunks lat=45,lon=90"
                )
            sizes[dim.strip()] = int(value)
    return policy, sizes


def parse_storage_options(texts: Iterable[str]) -> dict[str, Any]:
    """The ``--storage-option KEY=VALUE`` options, nested at the dots in KEY.

    >>> parse_storage_options(["endpoint_url=http://127.0.0.1:5555", "anon=false"])
    {'endpoint_url': 'http://127.0.0.1:5555', 'anon': False}
    """
    try:
        return storage_options(texts)
    except ValueError as e:
        raise CliError(f"--storage-option: {e}") from None


def parse_memory(text: str) -> int:
    """``--memory SIZE``: bytes, as ``2GB``, ``512MiB`` or ``1e9``.

    >>> parse_memory("512MiB")
    536870912
    """

    try:
        return memory_budget(text)
    except ValueError:
        raise CliError(f"--memory expects a size such as 2GB or 512MiB, got {text!r}") from None
