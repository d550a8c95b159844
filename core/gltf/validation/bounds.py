"""Sizes of every accessor, not only the animation's: the last pass of core.gltf.validation.

The import hands the whole file to Blender's bundled importer, which decodes mesh, skin and morph
accessors with numpy as their JSON says. A file of a few hundred bytes whose accessor claims 2^31
vertices would make it allocate gigabytes, so every accessor's extent is checked here first, from
the JSON and the buffer lengths alone (accessors.check_extent: nothing decoded or allocated).
Only sizes are reported: other problems of non-animation accessors (types, references) are left to
the bundled importer, whose failure the import operator rolls back.
"""

from ..accessors import check_extent
from ..errors import GltfError
from ..file import GltfFile
from .json_checks import Report

# The extent errors this pass reports; anything else check_extent raises is another pass's concern.
SIZE_CODES = ("ACCESSOR_TOO_LONG", "BUFFER_VIEW_TOO_LONG", "ACCESSOR_TOO_LARGE")


def check_bounds(report: Report, gltf: GltfFile) -> None:
    accessors = gltf.json.get("accessors")
    if not isinstance(accessors, list):
        return
    for index in range(len(accessors)):
        if index in gltf.accessor_cache:  # decoded by an earlier pass: its extent held then
            continue
        try:
            check_extent(gltf, index)
        except GltfError as error:
            if error.code in SIZE_CODES:
                report.add(error.code, error.pointer, error.message)
