"""How faithfully Blender plays an imported glTF animation (dev tool; needs the real ``bpy``).

Used by tests/operators/test_import_fidelity.py, bench/bench_import.py and by hand (load this file with
importlib like those do; it registers the package as ``gltf_sqlerp`` if nothing did)::

    fidelity.enable_addon()
    fidelity.import_gltf("CesiumMan.glb")                  # our operator
    fidelity.import_gltf("CesiumMan.glb", exact=False)     # the bundled importer alone
    result = fidelity.measure(core.load("CesiumMan.glb"), 0)
    result.rotation_max_deg, result.vertex_max, result.problems
    fidelity.disable_addon()

``measure`` and ``Fidelity`` are the add-on's own (operators/preview/world_fidelity.py, which says
what is measured): ``pipeline_run.py check`` measures with them too, installed or not.
"""

import os
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "gltf_sqlerp"
if "bpy" not in sys.modules:  # bpy reads and may write the user's Blender folder: use a scratch one
    os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="gltf_sqlerp_fidelity_"))
import bpy  # noqa: E402
import addon_utils  # noqa: E402  (bpy's own module, importable once bpy is)


package = devpath.import_package()
# The measure is the add-on's (pipeline_run.py check uses it too); this file adds what the tests and
# benchmarks need around it: enabling the add-on the way Blender does, importing, a clean scene.
from gltf_sqlerp.bundled_gltf import node_objects as nodes  # noqa: E402
from gltf_sqlerp.operators.blender_context import current_scene  # noqa: E402
from gltf_sqlerp.operators.preview.world_fidelity import (  # noqa: E402
    Fidelity, bundled_time, measure, sample_frames, spec_time)

OPERATOR_CLASS = "IMPORT_SCENE_OT_gltf_sqlerp"
OPERATOR = "gltf_sqlerp"  # bpy.ops.import_scene.<OPERATOR>: registered at run time, unknown to the bpy stubs
_enabled_by = None      # how enable_addon() made the hooks run: "addon_utils" or "preferences"


# --- add-on --------------------------------------------------------------------------------------

def _preferences() -> bpy.types.Preferences:
    preferences = bpy.context.preferences
    if preferences is None:
        raise RuntimeError("bpy has no preferences")
    return preferences


def enable_addon() -> ModuleType:
    """Enable the add-on the way Blender does, so that the bundled importer calls its hooks (it only
    calls hooks of add-ons listed in the preferences). If the package was registered directly
    (``package.register()``), only the preferences entry is added."""
    global _enabled_by
    if _enabled_by is not None:
        return package
    if getattr(bpy.types, OPERATOR_CLASS, None) is not None:
        if PACKAGE not in _preferences().addons:
            _preferences().addons.new().module = PACKAGE
            _enabled_by = "preferences"
        return package
    if package.__file__ is None:
        raise RuntimeError(f"{PACKAGE} was not loaded from a file")
    vars(package)["__time__"] = os.path.getmtime(package.__file__)  # addon_utils reloads without it
    if addon_utils.enable(PACKAGE, default_set=True) is None:
        raise RuntimeError("addon_utils.enable failed for gltf_sqlerp (see the traceback above)")
    _enabled_by = "addon_utils"
    return package


def disable_addon() -> None:
    """Undo enable_addon(): unregister what it registered, drop the entry it added."""
    global _enabled_by
    if _enabled_by == "addon_utils":
        addon_utils.disable(PACKAGE, default_set=True)
    elif _enabled_by == "preferences" and PACKAGE in _preferences().addons:
        _preferences().addons.remove(_preferences().addons[PACKAGE])
    _enabled_by = None


# --- import ---------------------------------------------------------------------------------------

def import_gltf(path, exact=True, source='EXTENSION', fps=None, fps_base=None, bundled_dialog=False,
                **options):
    """Empty the scene, set its rate, import ``path``: with ``import_scene.gltf_sqlerp`` when
    ``exact`` (``options`` go to it), else with the bundled importer alone (our hook switched off,
    or it would rewrite that import too). ``bundled_dialog``: import with File > Import > glTF 2.0
    (``import_scene.gltf``) and the dialog's "Exact Animation" panel set to ``exact``/``source``.
    Returns the operator's result."""
    reset_scene(fps, fps_base)
    return run_import(path, exact, source, bundled_dialog, **options)


def reset_scene(fps: float | None = None, fps_base: float | None = None) -> bpy.types.Scene:
    """An empty scene (add-ons and preferences kept) playing at ``fps`` / ``fps_base``."""
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = current_scene()
    if fps is not None:
        scene.render.fps = int(fps)
    if fps_base is not None:
        scene.render.fps_base = float(fps_base)
    return scene


def run_import(path, exact=True, source='EXTENSION', bundled_dialog=False, **options):
    """The import step of import_gltf alone, into the current scene (what the benchmark times)."""
    settings = getattr(bpy.context.scene, "gltf_sqlerp_import", None)
    if settings is not None:
        settings.exact_animation = bool(exact)
        settings.source = source
    if exact and not bundled_dialog:
        operator: Callable[..., set[str]] = getattr(bpy.ops.import_scene, OPERATOR)
        return operator(filepath=str(path), source=source, **options)
    return bpy.ops.import_scene.gltf(filepath=str(path))


track_names = nodes.track_names        # NLA track name per clip
activate_clip = nodes.activate_clip    # make a clip the active action, as the bundled importer does

__all__ = ["Fidelity", "bundled_time", "measure", "sample_frames", "spec_time"]
