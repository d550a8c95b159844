"""The second half of the main job (tools/demo.py): the live preview and the export.

After the add-on's import of the sample: "Play glTF Exactly" is switched on and every clip is
measured against the spec again (now posed by the preview); then the scene is exported twice,
with ``export_scene.gltf_sqlerp`` (CUBICSLERP rotations, fitted LINEAR fallback) and with the
bundled exporter alone, both files are read back by the core and checked by the Khronos
glTF-Validator (when ``python dev.py demo`` found Node.js and installed it), and the figures are
printed side by side.
"""

import contextlib
import importlib.util
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
# The add-on's scene settings and export operator (bpy.ops.export_scene.<OPERATOR>): registered at
# run time, so the bpy stubs do not know them.
PREVIEW, EXPORT, OPERATOR = "gltf_sqlerp_preview", "gltf_sqlerp_export", "gltf_sqlerp"
# What the Khronos validator's warnings on these files mean, in one line each.
WARNINGS = {
    "UNSUPPORTED_EXTENSION": "the validator does not know the draft EXT_animation_sqlerp",
    "VALUE_NOT_IN_LIST": "the draft's CUBICSLERP sampler interpolation, unknown to the validator",
    "NODE_SKINNED_MESH_NON_ROOT": "Blender parents the skinned mesh to its armature",
    "ACCESSOR_JOINTS_USED_ZERO_WEIGHT": "the sample's skin lists joints with weight 0",
    "UNUSED_OBJECT": "data the file holds and nothing uses",
}


@contextlib.contextmanager
def blender_console_aside():
    """Blender's and its glTF add-on's own console lines (they print at the file-descriptor level)
    go to a log while Blender works, so that the demo prints its figures once; the log is shown
    if the work fails."""
    from gltf_sqlerp.pipeline.common import stdout_to
    with tempfile.TemporaryFile(mode="w+") as log:
        try:
            with stdout_to(log.fileno()):
                yield
        except BaseException:
            log.seek(0)
            sys.stderr.write(log.read())
            raise


def report_preview(document, fidelity):
    """Rotation error (degrees) of the live preview, worst clip, against the spec."""
    import bpy
    from gltf_sqlerp.operators.preview import live as preview
    scene = bpy.context.scene
    assert scene is not None, "bpy always has a scene"
    settings = getattr(scene, PREVIEW)
    settings.source = 'EXTENSION'
    settings.enabled = True
    preview.refresh(scene)
    try:
        worst = max(fidelity["measure"](document, a.index).rotation_max_deg for a in document.animations)
    finally:
        settings.enabled = False
        preview.refresh(scene)
    print(f"  {'live preview':<17} every clip: rotation max {worst:.5f}° (posed by the core evaluator)")
    return worst


def report_export(document):
    """Export both ways into a temporary folder; print keys, bytes, errors and validation."""
    import bpy
    from gltf_sqlerp.operators.exporting import session as export_session
    with tempfile.TemporaryDirectory(prefix="gltf_sqlerp_demo_") as folder:
        ours, bundled = Path(folder) / "sqlerp.glb", Path(folder) / "bundled.glb"
        scene = bpy.context.scene
        assert scene is not None, "bpy always has a scene"
        settings = getattr(scene, EXPORT)
        with blender_console_aside():
            export: Callable[..., set[str]] = getattr(bpy.ops.export_scene, OPERATOR)
            result = export(filepath=str(ours), fallback='LINEAR')
            outcome = export_session.last_outcome
            settings.enabled = False
            try:
                bpy.ops.export_scene.gltf(filepath=str(bundled), export_format='GLB')
            finally:
                settings.enabled = True
        print(f"\nexport ({', '.join(result)}): {export_session.summary(outcome)}")
        if outcome is None:
            raise RuntimeError("the export ran with the extension switched off")
        width = max((len(channel.target) for channel in outcome.channels), default=0)
        for channel in outcome.channels:
            how = "kept from the import" if channel.kept else "fitted"
            print(f"  {channel.target:<{width}}  CUBICSLERP {channel.keys:>3} keys ({how}), "
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
    for path, report in zip(paths, validator.validate_all(paths, schema=False)):
        issues = report["issues"]
        errors += issues["numErrors"]
        print(f"  Khronos glTF-Validator, {path.name}: {_count(issues['numErrors'], 'error')}, "
              f"{_count(issues['numWarnings'], 'warning')}{_warnings_explained(issues)}")
    return errors


def _count(number, noun):
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _warnings_explained(issues):
    """'' or ': 3 UNSUPPORTED_EXTENSION (what it means), ...' for the validator's warnings."""
    codes = Counter(m["code"] for m in issues.get("messages", []) if m.get("severity") == 1)
    if not codes:
        return ""
    return ": " + "; ".join(f"{count} {code}" + (f" ({WARNINGS[code]})" if code in WARNINGS else "")
                            for code, count in codes.most_common())


def _validator():
    modules = os.environ.get("GLTF_SQLERP_VALIDATOR") or str(ROOT / ".node" / "node_modules")
    if not (Path(modules) / "gltf-validator").is_dir():
        return None
    spec = importlib.util.spec_from_file_location("gltf_sqlerp_validator",
                                                  ROOT / "tests" / "helpers" / "gltf_validator.py")
    if spec is None or spec.loader is None:
        raise ImportError("cannot load tests/helpers/gltf_validator.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
