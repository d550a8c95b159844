"""The hook into Blender's bundled glTF importer that makes its animation exact.

The bundled importer keeps building everything (objects, armatures, meshes, actions, slots, NLA
tracks) so scenes look the way users know. For each glTF animation, once it has made that
animation's actions and stashed them on NLA tracks, ``gather_import_animation_after_hook`` replaces
the keys of every channel with keys fitted by the core to what the spec plays, fixes the timing,
lines the NLA strips up with the action, and stores the original sampler data on the action.

The bundled importer calls hooks as ``hook(*args, gltf)``. In Blender 4.5 an exception escaping a
hook crashes its error logger and aborts the import half-way, so every hook here catches
everything and records it on the session; the operator rolls the scene back when anything failed.
"""

import contextlib
import traceback
from collections import namedtuple

import bpy
import numpy as np

from ..core.errors import GltfError
from . import action_data, bone_children, draft_form, fcurves, tracks
from .pose_mapping import node_channel_map, weight_channel_map

EXTENSION = "EXT_animation_sqlerp"
# The importer accepts a file that requires an extension when a user extension declares it
# (it reads ``.name`` and ``.required``), so a plain record is enough on every Blender version.
_Declared = namedtuple("_Declared", "name extension required")

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


class glTF2ImportUserExtension:
    """Instantiated by the bundled importer for every enabled add-on module that exposes it."""

    def __init__(self):
        self.session = _active
        # Declare the extension only when we will handle it: otherwise a file that requires it
        # would pass the importer's check and then crash it, instead of being refused cleanly.
        wanted = _exact_wanted()
        self.extensions = [_Declared(EXTENSION, {}, True)] if wanted else []
        if wanted:
            # Instantiated just before the importer parses the file: the draft form needs help there.
            draft_form.patch_next_parse()

    def gather_import_gltf_before_hook(self, gltf):
        draft_form.unpatch()
        if self.session is None:
            self.session = _session_for_bundled_dialog(gltf)

    def gather_import_scene_after_nodes_hook(self, *args):
        if self.session is None:
            return
        try:
            bone_children.place_at_bone_heads(args[-1])
        except Exception:
            self.session.fail("placing objects parented to bones")

    # The hooks take (anim_idx, ..., gltf) from 4.2 to 5.0; read by position from both ends so that
    # an argument added in between does not break the import.
    def gather_import_animation_before_hook(self, *args):
        if self.session is None:
            return
        anim_idx, gltf = args[0], args[-1]
        try:
            _placeholder_keys(gltf, anim_idx)
        except Exception:
            self.session.fail(f"preparing animation {anim_idx}")

    def gather_import_animation_after_hook(self, *args):
        session = self.session
        if session is None:
            return
        anim_idx, track_name, gltf = args[0], args[1], args[-1]
        try:
            _rewrite_animation(session, gltf, anim_idx, track_name)
            session.animations_done += 1
        except Exception:
            session.fail(f"animation {anim_idx} '{track_name}'")


def _exact_wanted():
    if _active is not None:
        return True
    settings = getattr(bpy.context.scene, "gltf_sqlerp_import", None)
    return settings is not None and settings.exact_animation


def _session_for_bundled_dialog(gltf):
    """File > Import > glTF 2.0 with the 'Exact animation' panel on: plan from the scene settings."""
    from ..core.import_plan import plan_document
    settings = getattr(bpy.context.scene, "gltf_sqlerp_import", None)
    if settings is None or not settings.exact_animation:
        return None
    from ..core import load
    try:
        document = load(gltf.filename)
    except GltfError as error:
        gltf.log.error(f"Exact animation skipped: {error}")
        return None
    from ..ui.properties import import_settings
    chosen = import_settings(settings, bpy.context.scene)
    return ImportSession(document, plan_document(document, chosen), chosen)


_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}
_PLACEHOLDER = ("LINEAR", "STEP", "CUBICSPLINE")


def _placeholder_keys(gltf, anim_idx):
    """Give the bundled importer one key per channel that the hook rewrites anyway.

    It converts every key with mathutils in Python (most of its import time on dense clips), only
    for us to replace the result. It reads animation data through ``gltf.accessor_cache`` first,
    so one key's worth of data per sampler there makes it build the same actions, slots, F-curves
    and NLA tracks at almost no cost. Only samplers of channels we rewrite are touched.
    """
    animation = gltf.data.animations[anim_idx]
    for channel in animation.channels:
        if channel.target.node is None or channel.target.path not in _TRS_AND_WEIGHTS:
            continue
        sampler = animation.samplers[channel.sampler]
        if sampler.interpolation not in _PLACEHOLDER:
            continue
        inputs, outputs = gltf.data.accessors[sampler.input], gltf.data.accessors[sampler.output]
        rows = max(outputs.count // max(inputs.count, 1), 1)
        gltf.accessor_cache[sampler.input] = [[0.0]]
        gltf.accessor_cache[sampler.output] = [[0.0] * _WIDTH[outputs.type]] * rows


_TRS_AND_WEIGHTS = ("translation", "rotation", "scale", "weights")


def _stashed(gltf):
    """(ID, action, slot) the importer stashed for this animation; slot is None on Blender 4.2."""
    for entry in gltf.needs_stash:
        yield entry[0], entry[1], (entry[2] if len(entry) > 2 else None)


def _target_id(gltf, vnode, path):
    if path == "weights":
        return vnode.blender_object.data.shape_keys
    if vnode.type == type(vnode).Bone:
        return gltf.vnodes[vnode.bone_arma].blender_object
    return vnode.blender_object


def _rewrite_animation(session, gltf, anim_idx, track_name):
    stashed = list(_stashed(gltf))
    by_id = {}
    for data, action, slot in stashed:
        # The first (TRS and weights) slot per ID: Blender 5.3 may stash a second one for the
        # same object when a file animates its custom properties through animation pointers.
        by_id.setdefault(data.as_pointer(), (action, slot))
    mesh_vnodes = {v.mesh_node_idx: v for v in gltf.vnodes.values()
                   if getattr(v, "mesh_node_idx", None) is not None}
    records, indexes = {}, {}
    for plan in session.plans.get(anim_idx, []):
        channel = plan.channel
        vnode = mesh_vnodes.get(channel.node) if channel.path == "weights" else gltf.vnodes.get(channel.node)
        if vnode is None:
            continue  # a node the importer did not build (not in the imported scene)
        target = _target_id(gltf, vnode, channel.path)
        if target is None or target.as_pointer() not in by_id:
            continue
        action, slot = by_id[target.as_pointer()]
        index = indexes.get(target.as_pointer()) or indexes.setdefault(
            target.as_pointer(), fcurves.CurveIndex(action, slot))
        key = (channel.node, channel.path)
        if key not in session.targets:
            session.targets[key] = _channel_targets(gltf, vnode, channel)
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


def _channel_targets(gltf, vnode, channel):
    """The ChannelMap of a channel and, per component, (data_path, index, group) or None."""
    if channel.path == "weights":
        names = gltf.data.meshes[gltf.data.nodes[channel.node].mesh].shapekey_names
        mapping = weight_channel_map(len(names))
        # A morph target the importer made no shape key for has no curve.
        return mapping, [(f'key_blocks["{bpy.utils.escape_identifier(name)}"].value', 0, "")
                         if name is not None else None for name in names]
    mapping = node_channel_map(gltf, vnode, channel.path, "Object Transforms")
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
