"""glTF Sqlerp Animation: glTF animation into and out of Blender, exactly as the spec says.

This module only registers the Blender parts. Importing the package (and ``core``) needs no bpy, so
pipelines and tests can use the evaluator without Blender.
"""

from collections.abc import Callable
from typing import Any

__version__ = "0.1.0"  # the same as blender_manifest.toml and CHANGELOG.md (tests/repository/test_manifest.py)


def register() -> None:
    from . import operators, ui
    operators.register()
    ui.register()


def unregister() -> None:
    from . import operators, ui
    ui.unregister()
    operators.unregister()


# Names Blender's bundled glTF add-on looks up on every enabled add-on module, and where they live.
# Resolved on first use so that importing the package never needs bpy.
_FORWARDED = {
    "glTF2ImportUserExtension": "bundled_gltf.import_hooks",
    "glTF2ExportUserExtension": "bundled_gltf.export_hooks",
    "draw_export": "ui.export_dialog",
    "draw_import": "ui.import_dialog",
    # The bundled exporter samples with frame_set: the live preview is held while it runs.
    "glTF2_pre_export_callback": "bundled_gltf.export_hooks",
    "glTF2_post_export_callback": "bundled_gltf.export_hooks",
}


def __getattr__(name: str) -> Callable[..., Any]:
    """A forwarded class or function (_FORWARDED), imported on first use."""
    module = _FORWARDED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib
    try:
        return getattr(importlib.import_module(f".{module}", __name__), name)
    except ImportError as error:
        # The bundled add-on asks with hasattr(), which only swallows AttributeError: a failed
        # import here must not break every glTF import or export of the user's Blender.
        raise AttributeError(f"{name} is unavailable: {error}") from error
