"""Importing glTF animation exactly: the ``import_scene.gltf_sqlerp`` operator (``operator``), the
work done inside the bundled importer's hooks (``session``), the maps from glTF values to Blender
properties (``pose_mapping``), NLA strips (``tracks``), clips onto a rig already in the scene
(``rig_match``, ``rig_placement``) and the file check (``check_file``)."""

from . import session
from .check_file import GLTF_SQLERP_OT_check_file
from .operator import IMPORT_SCENE_OT_gltf_sqlerp, ONTO_ITEMS, SOURCE_ITEMS
from .pose_mapping import ChannelMap
from .session import PlannedChannel

__all__ = ['ChannelMap', 'GLTF_SQLERP_OT_check_file', 'IMPORT_SCENE_OT_gltf_sqlerp', 'ONTO_ITEMS', 'PlannedChannel',
           'SOURCE_ITEMS', 'session']
