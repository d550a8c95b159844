"""File > Export > glTF 2.0 with CUBICSLERP rotations: ``export_scene.gltf_sqlerp``.

The bundled exporter writes everything (meshes, materials, every other channel) exactly as users
know it; export_session adds the CUBICSLERP samplers while it gathers. The bundled exporter writes
into a fresh folder beside the destination; only when it succeeded, the add-on's own part did
too and the core reads the result back without error are the files moved into place (each with
os.replace), so a failed export never touches a file already at the path.
"""

import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, cast

import bpy
from bpy_extras.io_utils import ExportHelper

from ...core import Document, GltfError, load
from . import options as export_properties, session as export_session
from ...core.fitting import ExportOptions
from .outcome import Outcome, bundled_rewrite

_FORMATS = {".glb": 'GLB', ".gltf": 'GLTF_SEPARATE'}


class ExportFailed(Exception):
    pass


def export(filepath: str | os.PathLike[str], options: ExportOptions,
           use_selection: bool = False) -> tuple[Outcome, Document]:
    """Export the scene to ``filepath`` (.glb or .gltf) with ``options``; returns the export's
    Outcome and the written file as the core read it back (core.Document: its warnings, its
    channels). Raises ExportFailed."""
    path = Path(filepath)
    export_format = _FORMATS.get(path.suffix.lower())
    if export_format is None:
        raise ExportFailed(f"{path.name}: the file name must end in .glb or .gltf")
    if not path.parent.is_dir():
        raise ExportFailed(f"folder {path.parent} does not exist")
    missing = bundled_rewrite()[1]
    if missing:
        raise ExportFailed(missing)
    staging = Path(tempfile.mkdtemp(prefix=".gltf_sqlerp-", dir=path.parent))
    try:
        outcome, document = _export_into(staging / path.name, export_format, options, use_selection)
        _move_into_place(staging, path.parent)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return outcome, document


def _export_into(staged: Path, export_format: str, options: ExportOptions,
                 use_selection: bool) -> tuple[Outcome, Document]:
    with export_session.Override(options):
        try:
            # An operator call returns its result set (the stubs say None).
            result = cast(set[str], bpy.ops.export_scene.gltf(filepath=str(staged), export_format=export_format,
                                                              use_selection=use_selection))
        except RuntimeError as error:  # the bundled exporter reported an ERROR
            raise ExportFailed(f"the glTF exporter failed: {str(error).strip()}") from None
        outcome = export_session.last_outcome
    if outcome is None:  # asked for CUBICSLERP, but the hook never ran: the exporter changed
        raise ExportFailed(f"Blender {bpy.app.version_string}: the bundled glTF exporter did not call "
                           "gather_gltf_hook; no CUBICSLERP samplers were written")
    if result != {'FINISHED'} or not staged.is_file():
        raise ExportFailed(f"the glTF exporter did not finish ({', '.join(result)})")
    if outcome.error:
        raise ExportFailed(f"fitting CUBICSLERP samplers failed: {outcome.error}")
    try:
        document = load(str(staged))  # the check of the written data by the add-on's own core
    except GltfError as error:
        raise ExportFailed(f"the written file does not read back: {error}") from None
    return outcome, document


def _move_into_place(staging, folder):
    # The main file last: until it lands, a reader of the destination sees the old file.
    files = sorted(staging.rglob("*"), key=lambda p: p.suffix.lower() in (".glb", ".gltf"))
    for source in files:
        if source.is_file():
            destination = folder / source.relative_to(staging)
            destination.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, destination)


class EXPORT_SCENE_OT_gltf_sqlerp(bpy.types.Operator, ExportHelper):
    """Export glTF 2.0 with the bundled exporter, writing every rotation as a CUBICSLERP sampler
    (EXT_animation_sqlerp) fitted to Blender's motion, with a fallback for other viewers"""

    bl_idname = "export_scene.gltf_sqlerp"
    bl_label = "Export glTF (CUBICSLERP Rotations)"
    bl_options = {'REGISTER'}

    filename_ext = ".glb"
    filter_glob: bpy.props.StringProperty(default="*.glb;*.gltf", options={'HIDDEN'})
    tolerance: export_properties.tolerance_property()
    precision: export_properties.precision_property()
    fallback: export_properties.fallback_property()
    fallback_tolerance: export_properties.fallback_tolerance_property()
    property_tolerance: export_properties.property_tolerance_property()
    world_space: export_properties.world_space_property()
    use_selection: bpy.props.BoolProperty(name="Selected Objects", default=False)
    if TYPE_CHECKING:
        filepath: str  # ExportHelper's property, which the stubs leave out

    def check(self, context: bpy.types.Context) -> bool:
        # ExportHelper keeps the extension in step with the name typed; .gltf is allowed too.
        if Path(self.filepath).suffix.lower() == ".gltf":
            self.filename_ext = ".gltf"
        return super().check(context)

    def execute(self, context: bpy.types.Context) -> set[str]:
        options = ExportOptions(self.tolerance, self.fallback, self.fallback_tolerance, self.precision,
                                property_tolerance=self.property_tolerance, world_space=self.world_space)
        try:
            outcome, document = export(self.filepath, options, self.use_selection)
        except ExportFailed as error:
            self.report({'ERROR'}, f"{error}; nothing was written")
            return {'CANCELLED'}
        for warning in document.warnings:
            self.report({'WARNING'}, warning.text())
        self.report({'INFO'}, f"{Path(self.filepath).name}: {export_session.summary(outcome)}")
        return {'FINISHED'}
