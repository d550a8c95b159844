"""Rewrite a glTF file's dense LINEAR rotations in fewer bytes (EXT_animation_sqlerp where it pays).

    python tools/sqlerp_convert.py INPUT OUTPUT [--tolerance DEG] [--fallback-tolerance DEG]
                                   [--min-ratio R] [--allow-larger]
    python -m tools.sqlerp_convert INPUT OUTPUT [...]     (from the repository folder)

Needs Python 3.11 and numpy only, no Blender (core/conversion/converter.py does the work). A .glb is written as
a .glb, a .gltf as a .gltf. Each LINEAR rotation channel becomes the smallest of LINEAR keys alone
(fewer, or 16-bit) and CUBICSLERP keys with a reduced fallback, within the tolerances in world
space; the replaced data leaves the file. Prints one row per rotation channel. Exit code 0 when
the file was written, 1 for an invalid input file (the error's code and JSON pointer are printed),
2 for bad arguments or a file that cannot be written, 3 when nothing was written because the
output would not be smaller than the input (the reason is printed; --allow-larger writes it).
"""

import argparse
import json
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath

EXIT_NOT_WRITTEN = 3
HEADER = ("channel", "node", "interpolation", "keys", "new form", "new keys", "ratio", "max error°")


def _import_core():
    devpath.import_package()
    from gltf_sqlerp import core
    from gltf_sqlerp.core.conversion import convert
    return core, convert


def gltf_json(path):
    """The JSON of a .gltf or .glb (for node names; the buffers are not read)."""
    data = Path(path).read_bytes()
    if data[:4] == b"glTF":
        length = struct.unpack_from("<I", data, 12)[0]
        data = data[20:20 + length]
    return json.loads(data)


def node_name(document, index):
    nodes = document.get("nodes", [])
    name = nodes[index].get("name") if 0 <= index < len(nodes) else None
    return f"{index} {name}" if name else str(index)


def rows(report, document):
    """Table rows (strings) of a ConvertReport, one per rotation channel."""
    for c in report.channels:
        if c.converted:
            form = c.form if c.form == "LINEAR" else f"{c.form}+{c.fallback}"
            tail = (f"{form} {c.precision.lower()}", str(c.keys), f"{c.original_keys / c.keys:.1f}x",
                    f"{c.max_error_deg:.5f}")
        else:
            tail = ("-", "-", "-", f"left alone: {c.note}")
        yield (c.pointer, node_name(document, c.node), c.interpolation, str(c.original_keys)) + tail


def print_table(table):
    widths = [max(len(row[i]) for row in table) for i in range(len(HEADER) - 1)]
    for row in table:
        # Numbers right-aligned; the last column (error or why a channel was left alone) unpadded.
        cells = [cell.rjust(w) if i >= 3 else cell.ljust(w)
                 for i, (cell, w) in enumerate(zip(row, widths))]
        print("  ".join(cells + [row[-1]]).rstrip())


def summary(report):
    converted = report.converted
    cubic = sum(c.form == "CUBICSLERP" for c in converted)
    before = sum(c.original_keys for c in converted)
    after = sum(c.keys for c in converted)
    growth = (report.destination_bytes / report.source_bytes - 1.0) if report.destination_bytes else 0.0
    lines = [f"{len(converted)} of {len(report.channels)} rotation channels rewritten ({cubic} with "
             f"CUBICSLERP) within {report.tolerance_deg:g}° (fallback {report.fallback_tolerance_deg:g}°): "
             f"{before} keys -> {after}",
             f"world max error: {report.world_max_deg:.5f}° (fallback {report.world_max_fallback_deg:.5f}°)"]
    if report.destination_bytes:
        lines.append(f"size (file and buffers): {report.source_bytes:,} -> {report.destination_bytes:,} "
                     f"bytes ({growth:+.1%}), {report.dropped_accessors} accessors dropped")
    lines.append(f"written: {', '.join(str(f) for f in report.files)}" if report.written else report.reason)
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    """The command line's options (also read by tests/pipeline/test_pipeline.py)."""
    built = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    built.add_argument("input", help="a .gltf or .glb")
    built.add_argument("output", help="the file to write (.glb for a .glb input, .gltf for a .gltf)")
    devpath.import_package()
    from gltf_sqlerp.pipeline.convert import add_conversion_arguments
    add_conversion_arguments(built)
    return built


def main(argv=None):
    args = parser().parse_args(argv)
    core, convert = _import_core()
    from gltf_sqlerp.pipeline.common import EXIT_FAILED, EXIT_USAGE, invalid_gltf, no_such_file
    if not Path(args.input).is_file():
        print(no_such_file(args.input), file=sys.stderr)
        return EXIT_USAGE
    try:
        report = convert(args.input, args.output, tolerance_deg=args.tolerance, min_ratio=args.min_ratio,
                         fallback_tolerance_deg=args.fallback_tolerance, allow_larger=args.allow_larger)
    except core.GltfError as error:
        print("\n".join(invalid_gltf(args.input, error)), file=sys.stderr)
        return EXIT_FAILED
    except (OSError, ValueError) as error:
        print(f"{args.output}: {error}", file=sys.stderr)
        return EXIT_USAGE
    for warning in report.warnings:
        print(f"  {warning}")
    if report.channels:
        print_table([HEADER] + list(rows(report, gltf_json(args.input))))
    print(summary(report))
    return 0 if report.written else EXIT_NOT_WRITTEN


if __name__ == "__main__":
    sys.exit(main())
