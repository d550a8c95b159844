"""The one seam to Blender's bundled glTF add-on (``io_scene_gltf2``).

Everything that knows that add-on's internals lives in this package: its hook names and
signatures, its parser, its accessor cache and decode hooks, its vnodes and export tree, its
export settings keys, its ``gltf2_io`` classes and its dialog table. The rest of the add-on talks
to the views and functions here, never to ``io_scene_gltf2`` itself, and ``versions.py`` holds what
differs per Blender version: a new Blender release means reading that table and this package.

- ``versions``: the table of changes in the bundled add-on per Blender version, and ``applies``.
- ``import_hooks`` / ``export_hooks``: the user-extension classes it instantiates, which unpack
  its hook arguments and hand views to the handlers in ``handlers``.
- ``handlers``: whom the hooks hand their views to, registered by ``operators.register()``
  (its import and export sessions and the live preview): this package never imports operators.
- ``imported``: a view of one running import (nodes, stashed actions, rest corrections).
- ``bone_children``: its misplaced objects parented to bones, and the correction.
- ``draft_form``: the one-parse patch of its parser for the draft form of EXT_animation_sqlerp.
- ``exported``: a view of one running export (the node tree and the export settings we read).
- ``export_accessors``: its accessor and sampler objects, read into numpy and built from numpy.
- ``export_views``: equal key-time inputs shared, and animation data's buffer views joined in its
  finished glTF objects (core.gltf.view_merge plans which).
- ``dialogs``: its export dialog's table of add-on panels.
- ``node_objects``: which object or bone its import made of each glTF node, by its own rules
  (names, bones, bind pose), for the world fidelity measure.

The exporter's glTF objects (animations, channels, samplers, accessors) are read elsewhere by their
glTF property names, as the spec spells them; building them and reading their bytes is done here.
Importing this package needs no bpy; its modules do.
"""

from .dialogs import register_export_draw, unregister_export_draw

# Modules the rest of the add-on uses, imported by name when needed (each needs bpy but the views'
# ``exported`` and ``imported``, which the rest of the add-on names as types).
__all__ = ['draft_form', 'export_accessors', 'export_hooks', 'exported', 'handlers', 'import_hooks', 'imported',
           'node_objects', 'register_export_draw', 'unregister_export_draw', 'versions']
