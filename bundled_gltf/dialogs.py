"""The bundled exporter's dialog: its table of add-on panels drawn in File > Export > glTF 2.0.

The exporter draws every function in its ``exporter_extension_layout_draw`` table. Blender 4.2
filled that table itself with ``draw_export`` of every enabled add-on exposing a
``glTF2ExportUserExtension`` (the package root forwards ``draw_export`` for it); from 4.4 on an
add-on puts its function there itself (versions: export_panel_table). The importer still calls
``draw_import`` of every enabled add-on module that exposes a ``glTF2ImportUserExtension``, in
every Blender tested.
"""

from __future__ import annotations  # bpy's types: for the type checker only (no bpy needed here)

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import bpy

    # draw(context, layout): a panel's contents in the bundled export dialog
    DrawFunction = Callable[[bpy.types.Context, bpy.types.UILayout], None]


def _layout_table() -> dict[str, Any] | None:
    """The bundled exporter's ``exporter_extension_layout_draw`` dict, or None without one. Only a
    loaded bundled add-on is asked: importing it here, before Blender enables it, would make
    Blender reload it on enabling (its load time unknown), which empties the table again."""
    module = sys.modules.get("io_scene_gltf2")
    table = getattr(module, "exporter_extension_layout_draw", None)
    return table if isinstance(table, dict) else None


def register_export_draw(key: str, draw: DrawFunction) -> None:
    """Draw ``draw(context, layout)`` in the bundled export dialog under ``key`` (the add-on's
    module name, the key Blender 4.2 used too, so the two never draw the panel twice)."""
    table = _layout_table()
    if table is not None:
        table[key] = draw


def unregister_export_draw(key: str, draw: DrawFunction) -> None:
    table = _layout_table()
    if table is not None and table.get(key) is draw:
        del table[key]
