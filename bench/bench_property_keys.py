"""Translation, scale and morph-weight keys and bytes: Blender's bundled exporter against ours.
Figures: none in the manual (a development measure of export_compaction).

    .venv/bin/python bench/bench_property_keys.py                       # every clip
    .venv/bin/python bench/bench_property_keys.py --clips CesiumMan 16_27
    .venv/bin/python bench/bench_property_keys.py --property-tolerance 1e-3

Clips as bench/bench_real_export.py takes them (bench/real_clips.py: the Khronos models with
animations, imported with the bundled importer alone, and the CMU BVH clips). Each is exported
twice to .glb: by the bundled exporter alone (our export switched off) and by
export_scene.gltf_sqlerp (defaults but the property tolerance). Columns, per path (translation,
scale, weights): channels, keys (summed sampler input counts) and bytes (the samplers' input and
output accessors, an accessor shared by several samplers counted once for the path that meets it
first); anim B: every animation accessor's bytes. The bpy module of Blender 4.2 crashes at exit
after a glTF export: the script ends with os._exit.
"""

import argparse
import os
import sys
import tempfile
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))
import real_clips

bpy, fidelity, core = real_clips.bpy, real_clips.fidelity, real_clips.core
PATHS = ("translation", "scale", "weights")
_SIZE = {5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4}
_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


def accessor_bytes(gltf_json, index):
    accessor = gltf_json["accessors"][index]
    return accessor["count"] * _WIDTH[accessor["type"]] * _SIZE[accessor["componentType"]]


def figures(path) -> dict[str, list[int] | int]:
    """{path: [channels, keys, bytes]} and "anim": all animation accessors' bytes, of one file."""
    document = core.load(str(path))
    gltf_json, counted = document.json, set()
    counts = {p: [0, 0, 0] for p in PATHS}
    for animation in gltf_json.get("animations", []):
        for channel in animation["channels"]:
            path_name = channel["target"].get("path")
            sampler = animation["samplers"][channel["sampler"]]
            if path_name in counts:
                row = counts[path_name]
                row[0] += 1
                row[1] += gltf_json["accessors"][sampler["input"]]["count"]
                for index in (sampler["input"], sampler["output"]):
                    if index not in counted:
                        counted.add(index)
                        row[2] += accessor_bytes(gltf_json, index)
    used = {s[k] for a in gltf_json.get("animations", []) for s in a["samplers"] for k in ("input", "output")}
    return {**counts, "anim": sum(accessor_bytes(gltf_json, i) for i in used)}


def export_both(folder, tolerance):
    """(bundled file, ours file, our outcome) of the scene as it is."""
    from gltf_sqlerp.operators.exporting import session as export_session
    bundled, ours = folder / "bundled.glb", folder / "ours.glb"
    settings = bpy.context.scene.gltf_sqlerp_export
    settings.enabled = False
    fidelity.devpath.quiet(lambda: bpy.ops.export_scene.gltf(filepath=str(bundled), export_format='GLB'))
    settings.enabled = True
    fidelity.devpath.quiet(lambda: bpy.ops.export_scene.gltf_sqlerp(filepath=str(ours),
                                                                     property_tolerance=tolerance))
    return bundled, ours, export_session.last_outcome


def row(name, bundled, ours):
    cells = [f"{name:18s}"]
    for p in PATHS:
        b, o = bundled[p], ours[p]
        if b[0]:
            cells.append(f"{p[:5]} {b[0]:3d} ch {b[1]:6d}->{o[1]:5d} keys {b[2]:8d}->{o[2]:7d} B")
    cells.append(f"anim B {bundled['anim']:8d}->{ours['anim']:8d}")
    return " | ".join(cells)


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--clips", nargs="*")
    parser.add_argument("--property-tolerance", type=float, default=1e-4)
    args = parser.parse_args()
    fidelity.enable_addon()
    shared = Path(os.environ.get("GLTF_SQLERP_SHARED", real_clips.ROOT.parent / "shared"))
    clips = real_clips.find_clips(shared / "assets")
    clips = [c for c in clips if not args.clips or c.name in args.clips]
    with tempfile.TemporaryDirectory() as folder:
        for clip in clips:
            real_clips.import_clip(clip)
            bundled, ours, outcome = export_both(Path(folder), args.property_tolerance)
            print(row(clip.name, figures(bundled), figures(ours)), flush=True)
            if outcome is None:
                raise RuntimeError("our export ran with the extension switched off")
            worst = max((p.max_error for p in outcome.properties if not p.skipped), default=0.0)
            skipped = [f"{p.target} {p.path}: {p.skipped}" for p in outcome.properties if p.skipped]
            print(f"{'':18s}   model size {outcome.model_size:.4g}, worst {worst:.3f} of its tolerance"
                  + (f"; kept: {skipped[:3]}" if skipped else "") + (f"; ERROR {outcome.error}"
                                                                      if outcome.error else ""), flush=True)
    fidelity.disable_addon()


if __name__ == "__main__":
    code = 0
    try:
        main()
    except BaseException:  # noqa: BLE001
        import traceback
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    os._exit(code)
