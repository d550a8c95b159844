"""Check a glTF file's animations without changing the scene.

Loads the file with ``core.load`` (parsing, validation of the animation data, evaluation set-up) and
reports what it found: counts as INFO, each repairable problem as WARNING, and a file that cannot be
used as ERROR naming the glTF-Validator code and the JSON pointer of the offending object.
"""

from typing import TYPE_CHECKING

import bpy
from bpy_extras.io_utils import ImportHelper

from ...core import Document, Finding, GltfError
from . import session as import_session
from ...core import CUBICSLERP


def _plural(count, noun):
    return f"{count} {noun}{'' if count == 1 else 's'}"


def describe(finding: Finding, filename: str) -> str:
    return f"{filename}: {finding.message} [{finding.code} at {finding.pointer or '/'}]"


def summary(document: Document, filename: str) -> str:
    """One line with the counts a user checks first."""
    channels = [channel for animation in document.animations for channel in animation.channels]
    # A channel of EXT_animation_sqlerp evaluates its CUBICSLERP sampler (the core one is a fallback).
    sqlerp = sum(channel.sampler.interpolation == CUBICSLERP for channel in channels)
    return (f"{filename}: {_plural(len(document.animations), 'animation')}, "
            f"{_plural(len(channels), 'channel')} ({sqlerp} EXT_animation_sqlerp), "
            f"{_plural(len(document.warnings), 'warning')}")


class GLTF_SQLERP_OT_check_file(bpy.types.Operator, ImportHelper):
    """Read a glTF file and report its animations and any problems, without changing the scene"""

    bl_idname = "gltf_sqlerp.check_file"
    bl_label = "Check glTF Animation"
    # Nothing in the scene changes, so there is nothing to undo.
    bl_options = {'REGISTER'}

    filter_glob: bpy.props.StringProperty(default="*.gltf;*.glb", options={'HIDDEN'})
    if TYPE_CHECKING:
        filepath: str  # ImportHelper's property, which the stubs leave out

    def execute(self, context: bpy.types.Context) -> set[str]:
        filename = bpy.path.basename(self.filepath)
        try:
            document = import_session.load_for_import(self.filepath)  # as the import reads it
        except GltfError as error:
            # Unreadable files arrive here too (IO_ERROR). Every error of the pass is reported, so a
            # user can fix the file in one go.
            for finding in error.findings:
                self.report({'ERROR'}, describe(finding, filename))
            return {'CANCELLED'}

        for finding in document.warnings:
            self.report({'WARNING'}, describe(finding, filename))
        self.report({'INFO'}, summary(document, filename))
        return {'FINISHED'}
