"""Scripted and batch runs: ``main(argv) -> exit code``.

Subcommands (``--help`` on each for its options):

- ``verify FILE``: import FILE with this add-on into an empty scene and measure, for every imported
  clip and channel, how far Blender's curves are from the spec (operators.preview.deviation: the same
  measure as the Deviation Report, 8 samples per frame). Needs Blender (bpy).
- ``export [BLEND] --output FILE``: open BLEND (else the current scene) and export it with
  CUBICSLERP rotations (operators.exporting.operator.export). Needs Blender (bpy).
- ``convert INPUT_DIR OUTPUT_DIR``: rewrite the LINEAR rotations of every .gltf/.glb under
  INPUT_DIR in fewer bytes (core.conversion.converter, numpy only), written to the same relative paths under
  OUTPUT_DIR; a file with no rotation channel to rewrite is 'unchanged', one whose output would
  not be smaller is 'skipped' with the reason, both unwritten. One process per file, ``--jobs`` at
  a time (default: every core). Resumes: a file is not redone while its input, every file that
  input references, the options that change the output and the tool's version are the same
  (pipeline.fingerprint; core.conversion.converter writes atomically, so a present output is complete). A
  journal of finished files is kept in OUTPUT_DIR.
- ``convert-file INPUT OUTPUT``: one file, the unit of work of ``convert`` and of farm jobs.
- ``export-blends INPUT_DIR OUTPUT_DIR``: every .blend under INPUT_DIR exported as ``export`` does,
  one .glb per file or per action (pipeline.blends). Needs Blender (bpy) in each process.

``convert`` and ``export-blends`` run their files ``--jobs`` at a time on this machine, or one task
per file on a Dask cluster with ``--dask ADDRESS`` or ``--dask local:N`` (pipeline.cluster).
- ``add-clips BLEND FOLDER``: add every .gltf/.glb under FOLDER as clips of the rig in BLEND
  (``import_scene.gltf_sqlerp(onto='ACTIVE')``, one file at a time: one that does not fit is
  reported and the others are added) and save it (pipeline.clips). Needs Blender (bpy).

Every command prints a JSON report on stdout (or to ``--report FILE``) and returns 0 when all went
well, 1 when a file failed (invalid glTF, failed import or export, deviation over the tolerance),
2 for a usage error (bad arguments, missing folder, no bpy where it is needed).

Run it with pipeline_run.py beside this file (``blender --background --python pipeline_run.py --
ARGS`` or ``python pipeline_run.py ARGS``), or from Python: ``pipeline.main(["convert", a, b])``.
"""

import argparse
import sys
import time
from collections.abc import Sequence

from .common import (
    EXIT_USAGE, UsageError, write_report, console_to_stderr, terminate_as_interrupt, end_with_parent
)
from .blender import (
    export_command, verify_command, assign_action, enable_addon, measure_clips, world_fidelity
)
from .blends import export_blends_command, add_export_blends_arguments
from .clips import add_clips_command, add_clips_arguments
from .convert import (
    convert_command, convert_file_command, add_conversion_arguments, convert_file, convert_folder,
    gltf_files
)

__all__ = ["main", "convert_file", "convert_folder", "gltf_files", "enable_addon", "assign_action",
           "measure_clips", "world_fidelity"]


def add_dask_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dask", metavar="ADDRESS",
                        help="run one task per file on the Dask cluster whose scheduler is at "
                             "ADDRESS (e.g. tcp://10.0.0.5:8786; the folders and this add-on on "
                             "storage every worker shares), or on a LocalCluster of N workers "
                             "with local:N (needs the distributed package; default: off, --jobs)")


def export_options(sub: argparse.ArgumentParser) -> None:
    """The options of an export, for ``export`` and ``export-blends`` (pipeline.blends passes them on)."""
    sub.add_argument("--fallback", choices=("AUTO", "LINEAR", "SAMPLED", "CUBICSPLINE", "NONE"),
                     default="AUTO",
                     help="what viewers without the extension play: AUTO the smaller of a fitted "
                          "LINEAR or CUBICSPLINE sampler, LINEAR fitted, SAMPLED the bundled "
                          "exporter's per-frame keys, CUBICSPLINE fitted, NONE none (the file "
                          "then requires the extension) (default: %(default)s)")
    sub.add_argument("--tolerance", type=float, default=0.01, metavar="DEG",
                     help="largest angle between the world rotations the extension plays and "
                          "Blender's (degrees, default: %(default)s)")
    sub.add_argument("--fallback-tolerance", type=float, default=0.1, metavar="DEG",
                     help="the same for the fallback (degrees, at least --tolerance, "
                          "default: %(default)s)")
    sub.add_argument("--precision", choices=("SHORT", "FLOAT"), default="SHORT",
                     help="quaternions as normalized 16-bit integers (SHORT) or 32-bit floats "
                          "(default: %(default)s)")
    sub.add_argument("--property-tolerance", type=float, default=1e-4, metavar="FRACTION",
                     help="translation, scale and morph-weight keys within this fraction of the "
                          "model's size (default 1e-4; 0 keeps a key per frame)")
    sub.add_argument("--per-channel", action="store_true",
                     help="hold the tolerances per channel, not for world rotations (faster on "
                          "rigs with long animated chains; default: off)")
    sub.add_argument("--selection", action="store_true",
                     help="selected objects only (default: off, the whole scene)")


def _parser():
    parser = argparse.ArgumentParser(
        prog="pipeline_run.py", description="glTF Sqlerp batch runs: verify an import, export with "
        "CUBICSLERP rotations, convert folders of glTF files, add clips to a rig. Prints a JSON "
        "report; exit code 0 ok, 1 some file failed, 2 usage error.",
        epilog="Under Blender: blender --background --python pipeline_run.py -- COMMAND ...")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(sub):
        sub.add_argument("--report", metavar="FILE",
                         help="write the JSON report to FILE (default: print it on stdout)")
        sub.add_argument("--quiet", action="store_true",
                         help="no progress on stderr (default: off; a bar on a terminal, else a "
                              "line per file)")
        return sub

    verify = common(commands.add_parser(
        "verify", help="import a file with the add-on and report its fidelity (needs Blender)",
        description="Import FILE with import_scene.gltf_sqlerp into an empty scene; report, per "
        "clip and channel, the largest difference between Blender's curves and the spec."))
    verify.add_argument("file", help="a .gltf or .glb")
    verify.add_argument("--source", choices=("EXTENSION", "FALLBACK"), default="EXTENSION",
                        help="play the CUBICSLERP samplers (EXTENSION) or what viewers without the "
                             "extension play (FALLBACK) (default: %(default)s)")
    verify.add_argument("--tolerance", type=float, default=0.01, metavar="DEG",
                        help="import rotation tolerance (degrees, default 0.01); a rotation "
                             "channel further than this from the spec fails the run")
    verify.add_argument("--no-world", action="store_true",
                        help="skip the world-space measure (world rotations and skinned vertices "
                             "at every frame and half frame; default: off)")

    export = common(commands.add_parser(
        "export", help="export a .blend (or the current scene) with CUBICSLERP rotations "
        "(needs Blender)", description="Open BLEND if given and export the scene with "
        "export_scene.gltf_sqlerp's exporter: CUBICSLERP rotations plus a fallback."))
    export.add_argument("blend", nargs="?", help="a .blend to open (default: the current scene)")
    export.add_argument("--output", "-o", help="the .glb or .gltf to write (required, no default, "
                                               "but with --list-actions)")
    export.add_argument("--list-actions", action="store_true",
                        help="only list BLEND's actions in the report (export-blends --per-action "
                             "asks for them; default: off)")
    export.add_argument("--action", metavar="NAME",
                        help="make this action the active one of the objects it animates first "
                             "(default: the actions as the .blend has them)")
    export.add_argument("--object", metavar="NAME", action="append",
                        help="with --action: the object(s) to give it (default: every object "
                             "with animation data, else the active object)")
    export_options(export)


    def conversion_options(sub):
        add_conversion_arguments(sub)
        sub.add_argument("--progress-lines", action="store_true", help=argparse.SUPPRESS)
        sub.add_argument("--force", action="store_true",
                         help="convert again even when the output is up to date (same input files, "
                              "options and tool version; default: off)")

    convert = common(commands.add_parser(
        "convert", help="convert a folder of .gltf/.glb files, in parallel, resumable (numpy only)",
        description="Rewrite the LINEAR rotations of every .gltf and .glb under INPUT_DIR in fewer "
        "bytes (LINEAR keys alone or CUBICSLERP with a reduced fallback), written to the same "
        "relative paths under OUTPUT_DIR; files that would not get smaller are skipped."))
    convert.add_argument("input_dir")
    convert.add_argument("output_dir")
    convert.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                         help="files converted at once, one process each (default: every core)")
    add_dask_argument(convert)
    conversion_options(convert)

    one = common(commands.add_parser(
        "convert-file", help="convert one file (the unit of work of convert and of farm tasks)"))
    one.add_argument("input")
    one.add_argument("output")
    conversion_options(one)

    blends = common(commands.add_parser(
        "export-blends", help="export every .blend of a folder, in parallel or on a Dask cluster "
        "(needs Blender)", description="Export every .blend under INPUT_DIR with CUBICSLERP "
        "rotations as export does, one .glb per file (or per action) under OUTPUT_DIR."))
    add_export_blends_arguments(blends)
    blends.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                        help="exports at once, one process each (default: every core)")
    add_dask_argument(blends)
    export_options(blends)

    add_clips_arguments(common(commands.add_parser(
        "add-clips", help="add every clip of a folder to the rig of a .blend and save it "
        "(needs Blender)", description="Open BLEND, import every .gltf/.glb under FOLDER onto its "
        "rig (the scene's armature, or --rig) as NLA clips, and save the .blend.")))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit code (never raises SystemExit)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = _parser().parse_args(argv)
    except SystemExit as stop:  # --help (0) or a usage error (2)
        return int(stop.code or 0)
    started = time.perf_counter()
    terminate_as_interrupt()
    end_with_parent()
    try:
        with console_to_stderr(args.command in ("verify", "export", "add-clips")):
            report = _COMMANDS[args.command](args)
        code = report.pop("exit_code")
    except UsageError as error:
        print(error, file=sys.stderr)
        report, code = {"command": args.command, "ok": False, "error": str(error)}, EXIT_USAGE
    report["exit_code"] = code
    report["seconds"] = round(time.perf_counter() - started, 3)
    write_report(report, args.report)
    return code


_COMMANDS = {"verify": verify_command, "export": export_command, "convert": convert_command,
             "convert-file": convert_file_command, "add-clips": add_clips_command,
             "export-blends": export_blends_command}
