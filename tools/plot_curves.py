"""The README's picture of the curves: docs/curves.svg, for the sample's elbow.

Top: the elbow's rotation angle over time as the glTF spec plays it (the CUBICSLERP extension) and
as its LINEAR fallback plays it. Bottom: how far (degrees, world space) each of these is from the
extension at every 1/240 s: the fallback (spec slerp), Blender playing this add-on's import, and
Blender playing the bundled importer's (the fallback as component-wise lerp). Blender's values are
read with frame_set from the real Blender (the bpy module); the spec's from the core. Written as
plain SVG, no plotting library. Run: ``python dev.py run tools/plot_curves.py [OUT.svg]``.
"""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import devpath

ROOT = devpath.ROOT
SAMPLE = ROOT / "samples" / "sqlerp_arm.gltf"
NODE, BONE = "Elbow", "Elbow"
STEP = 1.0 / 240.0
COLOURS = {"extension (spec)": "#1f77b4", "fallback (spec)": "#ff7f0e",
           "this add-on in Blender": "#2ca02c", "bundled importer in Blender": "#d62728"}


def spec_curves(core, np):
    """(times, {label: local rotations (T, 4)}, {label: world rotations (T, 4)}) from the core."""
    document = core.load(str(SAMPLE))
    index = _node_index(SAMPLE, NODE)
    animation = document.animations[0]
    channel = next(c for c in animation.channels if c.node == index and c.path == "rotation")
    times = np.arange(0.0, animation.duration + 1e-9, STEP)
    local = {"extension (spec)": channel.evaluate(times), "fallback (spec)": channel.evaluate(times, True)}
    world = {label: np.array([_rotation(document.node_matrices(0, t, use_fallback=fallback)[index], np)
                              for t in times])
             for label, fallback in (("extension (spec)", False), ("fallback (spec)", True))}
    return times, local, world


def _node_index(path, name):
    import json
    return [n.get("name") for n in json.loads(Path(path).read_text())["nodes"]].index(name)


def _rotation(matrix, np):
    """Unit quaternion (x, y, z, w) of a 4x4 matrix's rotation (columns normalized)."""
    m = np.asarray(matrix, dtype=np.float64)[:3, :3]
    m = m / np.linalg.norm(m, axis=0)
    w = math.sqrt(max(0.0, 1.0 + m[0, 0] + m[1, 1] + m[2, 2])) / 2.0
    x = math.copysign(math.sqrt(max(0.0, 1.0 + m[0, 0] - m[1, 1] - m[2, 2])) / 2.0, m[2, 1] - m[1, 2])
    y = math.copysign(math.sqrt(max(0.0, 1.0 - m[0, 0] + m[1, 1] - m[2, 2])) / 2.0, m[0, 2] - m[2, 0])
    z = math.copysign(math.sqrt(max(0.0, 1.0 - m[0, 0] - m[1, 1] + m[2, 2])) / 2.0, m[1, 0] - m[0, 1])
    return np.array([x, y, z, w])


def blender_world(fidelity, exact, times, np):
    """World rotations (T, 4) of the elbow bone as Blender plays the import, at each time."""
    import bpy
    fidelity["import_gltf"](str(SAMPLE), exact=exact)
    scene = bpy.context.scene
    assert scene is not None, "bpy always has a scene"
    arm = next(o for o in scene.objects if o.type == 'ARMATURE')
    assert arm.pose is not None, "an armature object has a pose"
    rate = scene.render.fps / scene.render.fps_base
    rows = []
    for t in times:
        frame = t * rate
        scene.frame_set(int(math.floor(frame)), subframe=frame - math.floor(frame))
        q = (arm.matrix_world @ arm.pose.bones[BONE].matrix).to_quaternion()
        rows.append([q.x, q.y, q.z, q.w])
    return np.array(rows)


def deviations(world, quat, np):
    """Degrees from the extension's world rotation. Blender's world = X · glTF world · C: X the
    importer's Y-up to Z-up turn (+90 degrees about X), C the constant turn of the bone's axes
    (its heuristic), measured on the add-on's import at t = 0 and used for both imports."""
    reference = world["extension (spec)"]
    x = np.array([math.sqrt(0.5), 0.0, 0.0, math.sqrt(0.5)])
    ours = quat.multiply(quat.conjugate(x), world["this add-on in Blender"][:1])
    correction = quat.multiply(quat.conjugate(ours), reference[:1])   # C^-1
    result = {}
    for label, rows in world.items():
        if label == "extension (spec)":
            continue
        aligned = rows if "spec" in label else quat.multiply(quat.multiply(quat.conjugate(x), rows),
                                                             correction)
        result[label] = quat.angle_between(aligned, reference)
    return result


def angle_of(local, np):
    """Rotation angle (degrees) of each local rotation: how far the joint is turned from rest."""
    return {label: np.degrees(2.0 * np.arctan2(np.linalg.norm(q[:, :3], axis=1), np.abs(q[:, 3])))
            for label, q in local.items()}


def svg(times, angles, errors):
    width, height, left, right = 760, 520, 70, 20
    panels = [(40, 230, angles, "rotation angle (°)"), (300, 460, errors, "from the extension (°, world)")]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             'font-family="sans-serif" font-size="12">', '<rect width="100%" height="100%" fill="white"/>',
             f'<text x="{left}" y="22" font-size="14">samples/sqlerp_arm.gltf, elbow: CUBICSLERP, '
             'its LINEAR fallback, and Blender</text>']
    for top, bottom, series, title in panels:
        parts += _panel(times, series, top, bottom, left, width - right, title)
    y = height - 14
    x = left
    for label, colour in COLOURS.items():
        parts.append(f'<rect x="{x}" y="{y - 9}" width="14" height="3" fill="{colour}"/>'
                     f'<text x="{x + 18}" y="{y}">{label}</text>')
        x += 30 + 7 * len(label)
    parts.append("</svg>")
    return "\n".join(parts)


def _panel(times, series, top, bottom, x0, x1, title):
    import numpy as np
    high = max(float(np.max(v)) for v in series.values())
    low = min(0.0, min(float(np.min(v)) for v in series.values()))
    high = high if high > low else low + 1.0

    def point(t, v):
        return (x0 + (x1 - x0) * t / times[-1], bottom - (bottom - top) * (v - low) / (high - low))

    out = [f'<rect x="{x0}" y="{top}" width="{x1 - x0}" height="{bottom - top}" fill="none" stroke="#999"/>',
           f'<text x="{x0}" y="{top - 6}">{title}</text>',
           f'<text x="{x0 - 6}" y="{bottom}" text-anchor="end">{low:.3g}</text>',
           f'<text x="{x0 - 6}" y="{top + 10}" text-anchor="end">{high:.3g}</text>',
           f'<text x="{x1}" y="{bottom + 16}" text-anchor="end">{times[-1]:.2f} s</text>',
           f'<text x="{x0}" y="{bottom + 16}">0 s</text>']
    for label, values in series.items():
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in (point(t, v) for t, v in zip(times, values)))
        out.append(f'<polyline fill="none" stroke="{COLOURS[label]}" stroke-width="1.4" points="{path}"/>')
    return out


def measure():
    """(times, angles, errors): the curves of the picture. ``errors``: per series, degrees from
    the extension in world space at every STEP (the maxima are the README's figures)."""
    devpath.ensure_bpy(__file__)
    import runpy

    import numpy as np
    devpath.import_package()
    import importlib
    core = importlib.import_module("gltf_sqlerp.core")
    quat = importlib.import_module("gltf_sqlerp.core.sampling.quaternions")
    times, local, world = spec_curves(core, np)
    fidelity = runpy.run_path(str(ROOT / "tools" / "fidelity.py"), run_name="fidelity")
    fidelity["enable_addon"]()
    try:
        world["this add-on in Blender"] = blender_world(fidelity, True, times, np)
        world["bundled importer in Blender"] = blender_world(fidelity, False, times, np)
    finally:
        fidelity["disable_addon"]()
    return times, angle_of(local, np), deviations(world, quat, np)


def main(argv):
    import numpy as np
    times, angles, errors = measure()
    out = Path(argv[0]) if argv else ROOT / "docs" / "curves.svg"
    out.parent.mkdir(exist_ok=True)
    out.write_text(svg(times, angles, errors), encoding="utf-8")
    for label, values in errors.items():
        print(f"{label:<28} max {float(np.max(values)):.4f}° from the extension")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
