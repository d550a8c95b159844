"""The context's scene and window manager, which the stubs type as Optional: Blender has both
whenever an import, an export, a frame change or a report runs; None would be a context the add-on
never runs in, and says so instead of failing on None further on."""

import bpy


def current_scene() -> bpy.types.Scene:
    scene = bpy.context.scene
    if scene is None:
        raise RuntimeError("glTF Sqlerp Animation: this context has no scene")
    return scene


def current_window_manager() -> bpy.types.WindowManager:
    window_manager = bpy.context.window_manager
    if window_manager is None:
        raise RuntimeError("glTF Sqlerp Animation: this context has no window manager")
    return window_manager
