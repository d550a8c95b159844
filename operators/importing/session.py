"""What makes an import's animation exact, called by the bundled importer's hooks.

The bundled importer keeps building everything (objects, armatures, meshes, actions, slots, NLA
tracks) so scenes look the way users know. For each glTF animation, once it has made that
animation's actions and stashed them on NLA tracks, its hooks (bundled_gltf.import_hooks) call
``rewrite_animation``, which replaces the keys of every channel with keys fitted by the core to
what the spec plays, fixes the timing, lines the NLA strips up with the action, and stores the
original sampler data on the action. It sees the importer through bundled_gltf.imported only.
"""

from __future__ import annotations  # the importer's view: for the type checker only

import contextlib
import traceback
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import bpy
import numpy as np

from ...core import Channel, Document, Sampler, load
from ...core.blender_model import ChannelRecord, ImportSettings
from ...core.gltf import GltfError
from .. import action_data, fcurves, transaction
from . import pointer_curves, rig_placement, tracks
from .pose_mapping import ChannelMap, node_channel_map, retargeted, weight_channel_map
from .rig_match import MisfitError, RigMatch

if TYPE_CHECKING:  # the bundled importer's view imports the operators
    from ...bundled_gltf import imported

_SLIDER_SLACK = 1e-5  # how far a weight may leave its shape key's slider range before it is widened


class PlannedKeys(Protocol):
    """core.blender_model.keyframes.Keyframes as written here (not on the core's surface)."""
    @property
    def times(self) -> np.ndarray: ...
    @property
    def values(self) -> np.ndarray: ...
    @property
    def left_times(self) -> np.ndarray: ...
    @property
    def left_values(self) -> np.ndarray: ...
    @property
    def right_times(self) -> np.ndarray: ...
    @property
    def right_values(self) -> np.ndarray: ...
    @property
    def interpolation(self) -> np.ndarray: ...


class PlannedChannel(Protocol):
    """core.blender_model.import_plan.ChannelPlan (not on the core's surface): what plays, its keys."""
    @property
    def channel(self) -> Channel: ...
    @property
    def sampler(self) -> Sampler: ...
    @property
    def keyframes(self) -> PlannedKeys: ...
    @property
    def frames_per_second(self) -> float: ...
    @property
    def source(self) -> str: ...
    def jumps(self) -> np.ndarray: ...


class ImportSettingsGroup(Protocol):
    """The scene's ``gltf_sqlerp_import`` (ui/properties.py registers it; operators never import ui)."""
    exact_animation: bool
    source: str
    rotation_tolerance: float
    bake: bool
    onto: str
    prefix_map: str


# Per component of a channel: (data_path, index, F-curve group) of its F-curve, or None.
_Paths = list[tuple[str, int, str] | None]
# Where a channel is written: the ID (None: nowhere, a node the rig has not), its map, its paths.
_Targets = tuple["bpy.types.ID | None", ChannelMap, _Paths]


class ImportSession:
    """What one import needs: the core document, the fitted keys per channel, and the outcome."""

    def __init__(self, document: Document, plans: Mapping[int, Sequence[PlannedChannel]],
                 settings: ImportSettings):
        self.document = document
        self.plans = plans              # {animation index: [ChannelPlan, ...]}
        self.settings = settings
        self.errors: list[str] = []     # readable messages; any makes the operator roll back
        self.animations_done = 0
        self.channels_written = 0
        # (node, path) -> _channel_targets: the same in every clip
        self.targets: dict[tuple[int, str], _Targets] = {}
        self.rig: RigMatch | None = None  # onto='ACTIVE': the rig the clips go onto
        self.misfit: str | None = None    # why the file does not fit the rig: nothing is written
        # (rig ID, action, slot, NLA track name) per clip and rig ID: stashed on the rig afterwards
        self.rig_stashes: list[tuple[bpy.types.ID, bpy.types.Action, Any, str]] = []
        # Onto a rig from the bundled dialog: the data-blocks before the import, and the object
        # active then (no operator of ours runs around that import: the hooks finish it)
        self.dialog_onto: tuple[set[int], bpy.types.Object | None] | None = None
        # KHR_animation_pointer channels to other properties, for the animation being built:
        # what the importer was fed per sampler, and which F-curves it made per channel
        self.pointer_samples: dict[int, pointer_curves.pointer_plan.PointerSamples] = {}
        self.pointer_log: pointer_curves.CurveLog | None = None
        self.pointer_channels_written = 0
        self.notes: list[str] = []  # what was left as the bundled importer made it, and why

    def fail(self, where: str) -> None:
        self.errors.append(f"{where}: {traceback.format_exc(limit=3).strip().splitlines()[-1]}")


_active: ImportSession | None = None


@contextlib.contextmanager
def active(session: ImportSession) -> Iterator[ImportSession]:
    """Make ``session`` the one the hook serves while the bundled importer runs."""
    global _active
    previous, _active = _active, session
    try:
        yield session
    finally:
        _active = previous


def current() -> ImportSession | None:
    """The session an import through our operator runs (None: File > Import > glTF 2.0)."""
    return _active


def exact_wanted() -> bool:
    """Whether the import starting now is ours to make exact."""
    if _active is not None:
        return True
    settings = getattr(bpy.context.scene, "gltf_sqlerp_import", None)
    return settings is not None and settings.exact_animation


def session_for_bundled_dialog(scene: imported.ImportedScene) -> ImportSession | None:
    """File > Import > glTF 2.0 with the 'Exact animation' panel on: plan from the scene settings.
    Onto the active rig: the importer is told to leave the scene's selection and collections
    alone (what it builds goes again, finish_bundled_onto)."""
    from ...core.blender_model import plan_document
    blender_scene = bpy.context.scene
    settings = getattr(blender_scene, "gltf_sqlerp_import", None)
    if blender_scene is None or settings is None or not settings.exact_animation:
        return None
    try:
        document = load_for_import(scene.filename)
    except GltfError as error:
        scene.log_error(f"Exact animation skipped: {error}")
        return None
    chosen = import_settings(settings, blender_scene)
    session = ImportSession(document, plan_document(document, chosen), chosen)
    if settings.onto == 'ACTIVE':
        _onto_active(session, settings, blender_scene)
        scene.build_for_removal()
    return session


def _onto_active(session: ImportSession, group: ImportSettingsGroup, scene: bpy.types.Scene) -> None:
    active = bpy.context.active_object
    session.dialog_onto = (transaction.snapshot(), active)
    if active is None:
        session.misfit = "no active object to add the clips to: select the rig"
        return
    try:
        session.rig = RigMatch.of(active, scene, group.prefix_map)
    except ValueError as error:
        session.misfit = str(error)


def finish_bundled_onto(session: ImportSession, scene: imported.ImportedScene) -> None:
    """After the last animation of a bundled-dialog import onto the rig: stash the clips and
    remove the rest, or, when the file cannot go onto the rig or anything failed, remove all the
    import added and say why in the importer's report (an ERROR: scripts get a RuntimeError).
    Either way the importer's last steps (selecting what it built, making its first object active)
    are pointed at the object active before."""
    if session.dialog_onto is None:
        return
    before, active = session.dialog_onto
    problem = rig_placement.refusal(session) if session.misfit is not None else (
        "; ".join(session.errors) or rig_placement.refusal(session))
    if problem:
        removed = transaction.rollback(before)
        scene.log_error(f"Exact animation: {problem}; the scene is unchanged ({removed} data-blocks "
                        "removed)", popup=True)
    else:
        rig_placement.settle(session, before)
    scene.forget_built_objects(active)
    view_layer = bpy.context.view_layer
    if view_layer is not None:  # the importer made what it built active on the way (4.4+)
        view_layer.update()
        view_layer.objects.active = active


def load_for_import(path: str) -> Document:
    """The core's document of a file Blender's bundled importer is about to import: the required
    extensions that importer manages are taken (core.load's ``also_required``), so that every file
    it imports, ours imports too. Raises GltfError."""
    from ...bundled_gltf import imported as bundled
    return load(path, also_required=bundled.managed_extensions())


def import_settings(group: ImportSettingsGroup, scene: bpy.types.Scene) -> ImportSettings:
    """The core's ImportSettings from the scene's gltf_sqlerp_import group. A module function on
    purpose: Blender 4.2 crashes at exit once a PropertyGroup with an ordinary Python method has
    been registered."""
    rate = scene.render.fps / scene.render.fps_base
    return ImportSettings(group.source, group.rotation_tolerance, group.bake, rate)


def bind_rig(session: ImportSession, scene: imported.ImportedScene) -> None:
    """Once the importer made the nodes: match them with the session's rig. A file that does not
    fit it is noted (``misfit``), and no animation is written."""
    if session.rig is None:
        return
    channels = [(scene.channel_node(plan.channel.node, plan.channel.path), plan.channel.path)
                for plans in session.plans.values() for plan in plans]
    try:
        session.rig.bind(scene, [handle for handle, _ in channels if handle is not None],
                         [handle for handle, path in channels if handle is not None and path == "rotation"])
    except MisfitError as error:
        session.misfit = str(error)


def prepare_animation(session: ImportSession, scene: imported.ImportedScene, anim_idx: int) -> None:
    """Before the importer builds animation ``anim_idx``: feed it one key for the samplers we
    rewrite and the spec's samples for the pointer channels we make exact (none onto a rig: what
    the importer builds there is removed)."""
    session.pointer_samples = {} if session.rig is not None or session.misfit is not None else \
        pointer_curves.feeds(session.document.animations[anim_idx], session.settings.frames_per_second)
    session.pointer_log = pointer_curves.CurveLog() if session.pointer_samples else None
    scene.feed_animation(anim_idx, pointer_curves.as_fed(session.pointer_samples))


def pointer_channel_starts(session: ImportSession, scene: imported.ImportedScene, anim_idx: int,
                           channel: object) -> None:
    """The importer starts a pointer channel of animation ``anim_idx`` (its own channel object)."""
    if session.pointer_log is not None:
        session.pointer_log.channel_starts(scene.channel_index(anim_idx, channel))


def _rewrite_pointers(session: ImportSession, anim_idx: int) -> list[pointer_curves.Reference]:
    """Rewrite the animation's pointer F-curves; the references of those rewritten."""
    log, session.pointer_log = session.pointer_log, None
    kept: list[pointer_curves.Reference] = []
    if log is None:
        return kept
    done, notes = pointer_curves.rewrite(session.document.animations[anim_idx], session.pointer_samples,
                                         log.finish(), session.settings.frames_per_second, kept)
    session.pointer_channels_written += done
    session.notes.extend(notes)
    return kept


def rewrite_animation(session: ImportSession, scene: imported.ImportedScene, anim_idx: int,
                      track_name: str) -> None:
    """Write the fitted keys of animation ``anim_idx`` into the actions the importer just made
    (onto the rig's objects and bones when the session has one)."""
    if session.misfit is not None:
        return
    kept = _rewrite_pointers(session, anim_idx)
    stashed = scene.stashed()
    by_id: dict[int, tuple[bpy.types.Action, fcurves.ActionSlot | None]] = {}
    for data, action, slot in stashed:
        # The first (TRS and weights) slot per ID: Blender 5.3 may stash a second one for the
        # same object when a file animates its custom properties (versions: extras_pointer_slot).
        by_id.setdefault(data.as_pointer(), (action, slot))
    records: dict[int, tuple[bpy.types.Action, list[ChannelRecord]]] = {}
    indexes: dict[int, fcurves.CurveIndex] = {}
    for plan in session.plans.get(anim_idx, []):
        channel = plan.channel
        node = scene.channel_node(channel.node, channel.path)
        made = scene.target_id(node, channel.path) if node is not None else None
        if made is None or made.as_pointer() not in by_id:
            continue  # a node the importer did not build (not in the imported scene)
        key = (channel.node, channel.path)
        if key not in session.targets:
            session.targets[key] = _channel_targets(session, scene, node, channel, made)
        target, mapping, paths = session.targets[key]
        if target is None:
            continue  # not on the rig: listed by the rig match
        action, slot = by_id[made.as_pointer()]
        index = indexes.get(made.as_pointer()) or indexes.setdefault(
            made.as_pointer(), fcurves.CurveIndex(action, slot))
        if session.rig is not None:
            rig_placement.claim_slot(session, made, target, action, slot, track_name)
        for component, curve in _mapped_curves(plan.keyframes, plan.frames_per_second, mapping):
            path = paths[component]
            if path is not None:
                fcurves.write_keyframes(index.ensure(*path), *curve)
        if channel.path == "weights":
            _widen_sliders(target, plan.keyframes, paths)
        records.setdefault(action.as_pointer(), (action, []))[1].append(
            action_data.channel_record(plan, target, slot, mapping,
                                       [(c[0], c[1]) if c is not None else None for c in paths]))
        session.channels_written += 1
    if session.rig is not None:
        rig_placement.hold_unturned_bones(session, scene, anim_idx, by_id, indexes)
        for index in indexes.values():  # the importer's one-key curves of nodes not on the rig
            index.remove_unwritten()
    pointers = pointer_curves.records(kept, stashed)
    for address, (action, channel_records) in records.items():
        action_data.store(action, session.document, session.settings, anim_idx, track_name,
                          channel_records, pointers.pop(address, (action, []))[1])
    for action, pointer_records in pointers.values():  # actions of pointer channels alone
        action_data.store(action, session.document, session.settings, anim_idx, track_name, [],
                          pointer_records)
    tracks.align_strips(stashed, track_name)


def _widen_sliders(shape_keys: bpy.types.ID, keys: PlannedKeys, paths: _Paths) -> None:
    """Blender clamps a shape key's value to its slider range ([0, 1] by default), while a
    CUBICSPLINE weight may overshoot it: each range is widened to hold every key and handle of its
    curve (a Bezier segment stays within them), up to Blender's limits of -10 and 10."""
    values = np.concatenate([keys.values, keys.left_values, keys.right_values])
    for component, path in enumerate(paths):
        if path is None:
            continue
        block = shape_keys.path_resolve(path[0].rsplit(".", 1)[0])  # 'key_blocks["Smile"]'
        if not isinstance(block, bpy.types.ShapeKey):
            continue
        low, high = float(values[:, component].min()), float(values[:, component].max())
        # Float noise at the ends (a weight of -1.5e-7) clamps to nothing a viewer could see.
        if low < block.slider_min - _SLIDER_SLACK:
            block.slider_min = max(low, -10.0)
        if high > block.slider_max + _SLIDER_SLACK:
            block.slider_max = min(high, 10.0)


def _channel_targets(session: ImportSession, scene: imported.ImportedScene, node: Any, channel: Channel,
                     made: bpy.types.ID) -> _Targets:
    """The ID the channel plays on, its ChannelMap and, per component, (data_path, index, group)
    or None (``node``: the importer's handle of the node, untyped; ``made``: the ID the importer
    made for it). Onto a rig: the rig's, or (None, ...) when the rig has no such node."""
    if channel.path == "weights":
        names = scene.shape_key_names(channel.node)
        target = made
        if session.rig is not None:
            target, names = rig_placement.shape_keys(session.rig, scene, node, names)
        mapping = weight_channel_map(len(names))
        # A morph target the importer made no shape key for has no curve.
        return target, mapping, [(f'key_blocks["{bpy.utils.escape_identifier(name)}"].value', 0, "")
                                 if name is not None else None for name in names]
    mapping = node_channel_map(scene.node_rest(node), channel.path, "Object Transforms")
    target = made
    if session.rig is not None:
        placed = session.rig.target(node)
        if placed is None:
            return None, mapping, []
        target = placed.obj
        mapping = retargeted(mapping, channel.path, placed.change, placed.roll, placed.bone, placed.ratio)
    return target, mapping, [(mapping.data_path, i, mapping.group) for i in range(len(mapping.offset))]


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
