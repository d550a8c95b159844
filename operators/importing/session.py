"""What makes an import's animation exact, called by the bundled importer's hooks.

The bundled importer keeps building everything (objects, armatures, meshes, actions, slots, NLA
tracks) so scenes look the way users know. For each glTF animation, once it has made that
animation's actions and stashed them on NLA tracks, its hooks (bundled_gltf.import_hooks) call
``rewrite_animation``, which replaces the keys of every channel with keys fitted by the core to
what the spec plays, fixes the timing, lines the NLA strips up with the action, and stores the
original sampler data on the action. It sees the importer through bundled_gltf.imported only.
"""

import contextlib
import traceback

import bpy
import numpy as np

from ...core.gltf import GltfError
from .. import action_data, fcurves
from . import tracks
from .pose_mapping import node_channel_map, weight_channel_map

EXTENSION = "EXT_animation_sqlerp"

_active = None


class ImportSession:
    """What one import needs: the core document, the fitted keys per channel, and the outcome."""

    def __init__(self, document, plans, settings):
        self.document = document
        self.plans = plans              # {animation index: [ChannelPlan, ...]}
        self.settings = settings        # ImportSettings
        self.errors = []                # readable messages; any makes the operator roll back
        self.animations_done = 0
        self.channels_written = 0
        self.targets = {}               # (node, path) -> _channel_targets: the same in every clip

    def fail(self, where):
        self.errors.append(f"{where}: {traceback.format_exc(limit=3).strip().splitlines()[-1]}")


@contextlib.contextmanager
def active(session):
    """Make ``session`` the one the hook serves while the bundled importer runs."""
    global _active
    previous, _active = _active, session
    try:
        yield session
    finally:
        _active = previous


def current():
    """The session an import through our operator runs (None: File > Import > glTF 2.0)."""
    return _active


def exact_wanted() -> bool:
    """Whether the import starting now is ours to make exact."""
    if _active is not None:
        return True
    settings = getattr(bpy.context.scene, "gltf_sqlerp_import", None)
    return settings is not None and settings.exact_animation


def session_for_bundled_dialog(scene):
    """File > Import > glTF 2.0 with the 'Exact animation' panel on: plan from the scene settings
    (``scene``: bundled_gltf.imported.ImportedScene)."""
    from ...core.blender_model import plan_document
    settings = getattr(bpy.context.scene, "gltf_sqlerp_import", None)
    if settings is None or not settings.exact_animation:
        return None
    from ...core import load
    try:
        document = load(scene.filename)
    except GltfError as error:
        scene.log_error(f"Exact animation skipped: {error}")
        return None
    chosen = import_settings(settings, bpy.context.scene)
    return ImportSession(document, plan_document(document, chosen), chosen)


def import_settings(group, scene):
    """The core's ImportSettings from the scene's gltf_sqlerp_import group. A module function on
    purpose: Blender 4.2 crashes at exit once a PropertyGroup with an ordinary Python method has
    been registered."""
    from ...core.blender_model import ImportSettings
    rate = scene.render.fps / scene.render.fps_base
    return ImportSettings(group.source, group.rotation_tolerance, group.bake, rate)


def rewrite_animation(session, scene, anim_idx: int, track_name: str) -> None:
    """Write the fitted keys of animation ``anim_idx`` into the actions the importer just made
    (``scene``: bundled_gltf.imported.ImportedScene)."""
    stashed = scene.stashed()
    by_id = {}
    for data, action, slot in stashed:
        # The first (TRS and weights) slot per ID: Blender 5.3 may stash a second one for the
        # same object when a file animates its custom properties (versions: extras_pointer_slot).
        by_id.setdefault(data.as_pointer(), (action, slot))
    records, indexes = {}, {}
    for plan in session.plans.get(anim_idx, []):
        channel = plan.channel
        node = scene.channel_node(channel.node, channel.path)
        if node is None:
            continue  # a node the importer did not build (not in the imported scene)
        target = scene.target_id(node, channel.path)
        if target is None or target.as_pointer() not in by_id:
            continue
        action, slot = by_id[target.as_pointer()]
        index = indexes.get(target.as_pointer()) or indexes.setdefault(
            target.as_pointer(), fcurves.CurveIndex(action, slot))
        key = (channel.node, channel.path)
        if key not in session.targets:
            session.targets[key] = _channel_targets(scene, node, channel)
        mapping, paths = session.targets[key]
        for component, curve in _mapped_curves(plan.keyframes, plan.frames_per_second, mapping):
            if paths[component] is not None:
                fcurves.write_keyframes(index.ensure(*paths[component]), *curve)
        records.setdefault(action.as_pointer(), (action, []))[1].append(
            action_data.channel_record(plan, target, slot, mapping,
                                       [(c[0], c[1]) if c is not None else None for c in paths]))
        session.channels_written += 1
    for action, channel_records in records.values():
        action_data.store(action, session.document, session.settings, anim_idx, track_name,
                          channel_records)
    tracks.align_strips(stashed, track_name)


def _channel_targets(scene, node, channel):
    """The ChannelMap of a channel and, per component, (data_path, index, group) or None."""
    if channel.path == "weights":
        names = scene.shape_key_names(channel.node)
        mapping = weight_channel_map(len(names))
        # A morph target the importer made no shape key for has no curve.
        return mapping, [(f'key_blocks["{bpy.utils.escape_identifier(name)}"].value', 0, "")
                         if name is not None else None for name in names]
    mapping = node_channel_map(scene.node_rest(node), channel.path, "Object Transforms")
    return mapping, [(mapping.data_path, i, mapping.group) for i in range(len(mapping.offset))]


def _mapped_curves(keys, frames_per_second, mapping):
    """(component, (co, left, right, codes, bezier)) in Blender values and frames, as the flat
    float32 (frame, value) pairs that foreach_set takes, prepared for all components and sides
    (keys, left and right handles) at once."""
    codes = fcurves.interpolation_codes(keys.interpolation)
    bezier = fcurves.has_bezier(codes)
    if bezier:  # handles shape BEZIER segments only; write_keyframes leaves them out otherwise
        times = np.concatenate([keys.times, keys.left_times, keys.right_times])
        values = np.concatenate([keys.values, keys.left_values, keys.right_values])
    else:
        times, values = keys.times, keys.values
    pairs = _frame_value_pairs(times * frames_per_second, mapping.apply(values))
    sides = pairs.reshape(len(pairs), 1 + 2 * bezier, -1)  # (components, side, keys * 2)
    for component in range(len(pairs)):
        co = sides[component, 0]
        yield component, (co, sides[component, 1], sides[component, 2], codes, True) if bezier \
            else (co, co, co, codes, False)


def _frame_value_pairs(frames, values):
    """(components, keys, 2) float32: per component, the keys' (frame, value) pairs."""
    pairs = np.empty((values.shape[1], len(frames), 2), dtype=np.float32)
    pairs[:, :, 0] = frames
    pairs[:, :, 1] = values.T
    return pairs
