"""The second half of the main job (tools/demo.py): the live preview and the export.

After the add-on's import of the sample: "Play glTF Exactly" is switched on and every clip is
measured against the spec again (now posed by the preview); then the scene is exported twice,
with ``export_scene.gltf_sqlerp`` (CUBICSLERP rotations, fitted LINEAR fallback) and with the
bundled exporter alone, both files are read back by the core and checked by the Khronos
glTF-Validator (when ``python dev.py demo`` found Node.js and installed it), and the figures are
printed side by side.
"""

import importlib.util
import os
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def report_preview(document, fidelity):
    """Rotation error (degrees) of the live preview, worst clip, against the spec."""
    import bpy
    from gltf_sqlerp.operators import preview
    scene = bpy.context.scene
    scene.gltf_sqlerp_preview.source = 'EXTENSION'
    scene.gltf_sqlerp_preview.enabled = True
    preview.refresh(scene)
    try:
        worst = max(fidelity["measure"](document, a.index).rotation_max_deg for a in document.animations)
    finally:
        scene.gltf_sqlerp_preview.enabled = False
        preview.refresh(scene)
    print(f"  live preview       every clip: rotation max {worst:.5f}° (posed by the core evaluator)")
    return worst


def report_export(document):
    """Export both ways into a temporary folder; print keys, bytes, errors and validation."""
    import bpy
    from gltf_sqlerp.operators import export_session
    with tempfile.TemporaryDirectory(prefix="gltf_sqlerp_demo_") as folder:
        ours, bundled = Path(folder) / "sqlerp.glb", Path(folder) / "bundled.glb"
        result = bpy.ops.export_scene.gltf_sqlerp(filepath=str(ours), fallback='LINEAR')
        outcome = export_session.last_outcome
        scene = bpy.context.scene
        scene.gltf_sqlerp_export.enabled = False
        try:
            bpy.ops.export_scene.gltf(filepath=str(bundled), export_format='GLB')
        finally:
            scene.gltf_sqlerp_export.enabled = True
        print(f"\nexport ({', '.join(result)}): {export_session.summary(outcome)}")
        for channel in outcome.channels:
            how = "kept from the import" if channel.kept else "fitted"
            print(f"  {channel.target:<10} CUBICSLERP {channel.keys:>3} keys ({how}), "
                  f"{channel.max_error_deg:.4f}° from Blender; "
                  f"LINEAR fallback {channel.fallback_keys:>3} keys, "
                  f"{channel.fallback_error_deg:.3f}° from the CUBICSLERP curve")
        figures = [(label, path, _rotation_keys(path)) for label, path in
                   (("this add-on", ours), ("bundled exporter", bundled))]
        for label, path, keys in figures:
            print(f"  {label:<17} {path.stat().st_size:>7} bytes, rotation samplers: {keys}")
        return _validate([ours, bundled])


def _rotation_keys(path):
    from gltf_sqlerp.core import load
    document = load(str(path))
    counts = {}
    for animation in document.animations:
        for channel in animation.channels:
            if channel.path != "rotation":
                continue
            key = "CUBICSLERP" if channel.uses_extension else channel.sampler.interpolation
            counts[key] = counts.get(key, 0) + len(channel.sampler.times)
            if channel.uses_extension and channel.fallback is not None:
                name = f"{channel.fallback.interpolation} fallback"
                counts[name] = counts.get(name, 0) + len(channel.fallback.times)
    return ", ".join(f"{n} {k} keys" for k, n in counts.items())


def _validate(paths):
    """Core read-back and, when installed, the Khronos validator; returns the number of errors."""
    from gltf_sqlerp.core import load
    for path in paths:
        print(f"  {path.name}: the core reads it back with {len(load(str(path)).warnings)} warning(s)")
    validator = _validator()
    if validator is None:
        print("  Khronos glTF-Validator: not installed (needs Node.js; `python dev.py test` installs it)")
        return 0
    errors = 0
    for path, report in zip(paths, validator.validate_all(paths)):
        issues = report["issues"]
        errors += issues["numErrors"]
        print(f"  Khronos glTF-Validator, {path.name}: {issues['numErrors']} errors, "
              f"{issues['numWarnings']} warnings")
    return errors


def _validator():
    modules = os.environ.get("GLTF_SQLERP_VALIDATOR") or str(ROOT / ".node" / "node_modules")
    if not (Path(modules) / "gltf-validator").is_dir():
        return None
    spec = importlib.util.spec_from_file_location("gltf_sqlerp_validator",
                                                  ROOT / "tests" / "gltf_validator.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
