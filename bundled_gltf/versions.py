"""What differs in Blender's bundled glTF add-on per Blender version, and how this add-on answers.

One row per change, checked against the bundled add-on's sources of every Blender in ``TESTED``
(``scripts/addons_core/io_scene_gltf2`` in each bpy wheel) and glTF-Blender-IO's history. Rows
with a ``name`` that code asks about through ``applies`` decide behaviour; the others record what
was checked so that the next release starts from here. ``last`` None: still so in the newest
Blender tested. A new Blender: add it to ``TESTED`` (and dev.py's matrix), diff its bundled add-on
against the newest here, add a row per change, and run the tests on it.
"""

from dataclasses import dataclass

TESTED = ((4, 2), (4, 5), (5, 0), (5, 2), (5, 3))


@dataclass(frozen=True)
class Change:
    name: str                    # what code passes to ``applies``
    first: tuple[int, int]       # first Blender (major, minor) with the change
    last: tuple[int, int] | None  # last Blender with it; None: every Blender tested since ``first``
    change: str            # what the bundled add-on does
    response: str          # what this add-on does about it, and where


CHANGES = (
    Change("bone_children_misplaced", (4, 2), None,
           "node.py moves objects parented to a bone back by its bone_length, while the BLENDER "
           "bone heuristic builds the edit bone bone_length / max(armature scale) long",
           "bone_children.place_at_bone_heads and tip_offset use the built bone's length"),
    Change("extensions_hook_after_buffer", (4, 2), None,
           "export.py (gltf2_blender_export.py in 4.2) calls gather_gltf_extensions_hook after "
           "finalize_buffer: every reference is an index, the buffer is final (a .gltf's .bin "
           "already written), the JSON not yet made",
           "export_views.merge_animation_views joins animation data's buffer views there, "
           "moving no byte"),
    Change("draft_channel_rejected", (4, 2), None,
           "io.imp.gltf2_io_gltf parses with its module-level gltf_from_dict, which asserts an "
           "int channel 'sampler'; no hook runs before the parse",
           "draft_form wraps gltf_from_dict for the next parse only"),
    Change("hook_errors_crash_logger", (4, 2), None,
           "an import hook that raises calls gltf.log.error with too many arguments: TypeError, "
           "the import aborts half-way (5.2 adds opt-in is_critical, which also aborts)",
           "every import hook catches everything; the operator rolls the scene back"),
    Change("binary_data_moved", (4, 3), None,
           "BinaryData moved from io.exp.gltf2_io_binary_data to io.exp.binary_data",
           "export_accessors imports it from where this Blender has it"),
    Change("slotted_actions", (4, 4), None,
           "actions have slots; gltf.needs_stash entries are (ID, action, slot), not (ID, action)",
           "imported.stashed gives slot None before 4.4"),
    Change("export_panel_table", (4, 4), None,
           "the exporter no longer fills exporter_extension_layout_draw from add-on modules "
           "(upstream 49b56804): an add-on registers its draw function itself",
           "dialogs.register_export_draw, called by ui.export_dialog.register"),
    Change("decode_accessor_hook", (5, 2), None,
           "decode_accessor_before_hook(accessor, array, gltf): a hook may supply an accessor's "
           "data (array.value), uncached, so for reads made while it is set only",
           "fed_samplers answers the animation's reads there instead of writing "
           "gltf.accessor_cache (4.2 to 5.1), so no placeholder outlives the animation"),
    Change("iridescence_cleanup", (5, 2), None,
           "export.py __check_iridescence drops an idle KHR_materials_iridescence and then "
           "rebuilds every animation's samplers from its channels' core 'sampler', losing the "
           "CUBICSLERP samplers (upstream 28801e20); the importer's occlusion texture set-up "
           "makes such materials",
           "export_hooks drops the idle extension first, as the clean-up would"),
    Change("meshopt_export", (5, 2), None,
           "meshopt compression: sampler accessors become 16-bit while their buffer holds float "
           "bytes until written, and the file requires EXT/KHR_meshopt_compression",
           "export_hooks refuses CUBICSLERP with a clear message (docs/manual/robustness.md: Known limits)"),
    Change("critical_hooks", (5, 2), None,
           "is_critical on a user extension: a raising hook aborts the import or export",
           "not set: our hooks never raise, failures are reported by our operators"),
    Change("passthrough_extension_data", (5, 2), None,
           "passthrough_extension_data(list, gltf, export_settings) keeps an extension's dict out "
           "of the JSON clean-up",
           "not needed: {'sampler': int} survives the clean-up (checked on 5.2 and 5.3)"),
    Change("natural_node_order", (5, 2), None,
           "export tree nodes are natural-sorted by name (Outliner order)",
           "nothing: node indices are never assumed"),
    Change("ranges_of_materials", (5, 2), None,
           "export_settings 'ranges'/'slide' also get int keys (material, light, camera ids)",
           "nothing: exported.range / slide look up object uuids (strings)"),
    Change("edit_bone_roll_normalized", (5, 2), None,
           "node.py align_roll gets a normalized vector: the same roll",
           "nothing: rest corrections are read from the vnodes (imported.node_rest)"),
    Change("codec_library_lines", (5, 2), None,
           "the first export prints 'Draco/MeshOptimizer is not available' lines to stdout",
           "nothing: tests that read a child's stdout skip lines they do not own"),
    Change("pointer_in_actions_mode", (5, 3), None,
           "animation pointers and custom-property animation export in ACTIONS mode too",
           "pointer channels are reduced as in the other modes (operators/exporting/pointers.py); "
           "inputs rescaled alike"),
    Change("extras_pointer_slot", (5, 3), None,
           "node-extras pointer animation may stash a second slot for the same object",
           "imported.stashed: the first (TRS and weights) slot per ID is the one rewritten"),
)

_BY_NAME = {change.name: change for change in CHANGES}


def applies(name: str, version: tuple[int, ...] | None = None) -> bool:
    """Whether the change ``name`` is in the bundled add-on of ``version`` (default: this Blender)."""
    if version is None:
        import bpy
        version = bpy.app.version
    change = _BY_NAME[name]
    major_minor = tuple(version[:2])
    return change.first <= major_minor and (change.last is None or major_minor <= change.last)
