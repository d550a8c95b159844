"""The main job (``python dev.py demo [file.gltf|file.glb] [--fps N] [--core-only]``).

1. Core: loads a glTF file (by default the project's own EXT_animation_sqlerp sample), validates
   it, and for every rotation channel with both the CUBICSLERP extension and a fallback, evaluates
   both over dense samples and prints how far apart they are (spec "Error measure").
2. Blender (the real ``bpy`` module): imports the file with this add-on and, for comparison, with
   Blender's bundled glTF importer alone, plays every clip at every frame and half frame, and
   prints how far each is from the spec (world rotations in degrees, vertices as a fraction of
   the bounding-box diagonal). Import times are measured by bench/bench_import.py.
Exit code 1 on an invalid file, 2 when our import misses the tolerance.
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SAMPLE = ROOT / "samples" / "sqlerp_arm.gltf"


def _import_core():
    devpath.import_package()
    from gltf_sqlerp import core
    from gltf_sqlerp.core.sampling import metrics
    return core, metrics


def node_name(document, index):
    nodes = document.json.get("nodes", [])
    return nodes[index].get("name") or f"node {index}"


def report_animation(document, animation, fps, metrics):
    times = metrics.dense_times(0.0, animation.duration, fps)
    print(f"\nanimation {animation.index} '{animation.name}': {animation.duration:.3f} s, "
          f"{len(animation.channels)} channels, {len(times)} samples ({metrics.SAMPLES_PER_FRAME}"
          f" per frame at {fps:g} fps)")
    worst = None
    for channel in animation.channels:
        sampler, fallback = channel.sampler, channel.fallback
        line = (f"  {node_name(document, channel.node):<14} {channel.path:<11} "
                f"{sampler.interpolation} ({len(sampler.times)} keys)")
        if channel.uses_extension and fallback is not None:
            deviation = metrics.rotation_deviation(
                channel.evaluate(times), channel.evaluate(times, use_fallback=True), times)
            line += (f"  vs fallback {fallback.interpolation} ({len(fallback.times)} keys): "
                     f"{deviation}")
            worst = deviation if worst is None or deviation.max_deg > worst.max_deg else worst
        elif channel.uses_extension:
            line += "  no fallback (viewers without EXT_animation_sqlerp cannot play it)"
        print(line)
    return worst


def parser() -> argparse.ArgumentParser:
    """The command line's options (also read by tests/pipeline/test_pipeline.py)."""
    built = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    built.add_argument("file", nargs="?", default=str(DEFAULT_SAMPLE),
                       help="a .gltf or .glb (default: samples/sqlerp_arm.gltf)")
    built.add_argument("--fps", type=float, default=60.0,
                       help="frame rate for dense sampling (default: %(default)s)")
    built.add_argument("--core-only", action="store_true",
                       help="skip the Blender part (default: off)")
    return built


def main(argv=None):
    args = parser().parse_args(argv)
    core, metrics = _import_core()
    from gltf_sqlerp.pipeline.common import EXIT_FAILED, EXIT_USAGE, invalid_gltf, no_such_file
    if not Path(args.file).is_file():
        print(no_such_file(args.file), file=sys.stderr)
        return EXIT_USAGE
    try:
        document = core.load(args.file)
    except core.GltfError as error:
        print("\n".join(invalid_gltf(args.file, error)), file=sys.stderr)
        return EXIT_FAILED
    print(f"{args.file}: valid, {len(document.animations)} animation(s), "
          f"{len(document.warnings)} warning(s)")
    for warning in document.warnings:
        print(f"  {warning}")
    results = [report_animation(document, a, args.fps, metrics) for a in document.animations]
    results = [r for r in results if r is not None]
    if results:
        worst = max(results, key=lambda r: r.max_deg)
        print(f"\nCUBICSLERP extension vs fallback, worst channel: {worst}")
    if args.core_only:
        return 0
    return report_blender(args.file, document)


TOLERANCE_DEG, VERTEX_TOLERANCE = 0.01, 1e-4


def report_blender(path, document):
    """Import with this add-on and with the bundled importer alone; print both against the spec."""
    import runpy
    fidelity = runpy.run_path(str(ROOT / "tools" / "fidelity.py"), run_name="fidelity")
    import bpy
    fidelity["enable_addon"]()
    print(f"\nBlender {bpy.app.version_string}: every clip at every frame and half frame vs the spec")
    missed = False
    demo_export = runpy.run_path(str(ROOT / "tools" / "demo_export.py"), run_name="demo_export")
    try:
        for label, exact in (("bundled importer", False), ("this add-on", True)):
            with demo_export["blender_console_aside"]():
                fidelity["import_gltf"](path, exact=exact)
            for animation in document.animations:
                result = fidelity["measure"](document, animation.index)
                print(f"  {label:<17} '{animation.name}': rotation max {result.rotation_max_deg:.5f}°,"
                      f" vertices max {result.vertex_max:.2e} of the diagonal")
                if exact:
                    missed |= (result.rotation_max_deg > TOLERANCE_DEG
                               or result.vertex_max > VERTEX_TOLERANCE)
        # The add-on's import is in the scene now: preview it, then export it.
        missed |= demo_export["report_preview"](document, fidelity) > TOLERANCE_DEG
        invalid = demo_export["report_export"](document)
    finally:
        fidelity["disable_addon"]()
    print(f"\nthis add-on {'MISSED' if missed else 'is within'} the tolerance "
          f"({TOLERANCE_DEG}° and {VERTEX_TOLERANCE:g} of the diagonal)"
          f"{'; the export has validator errors' if invalid else ''}")
    return 2 if missed or invalid else 0


if __name__ == "__main__":
    sys.exit(main())
