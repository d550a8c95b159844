"""The live preview's "as exported" sources: for an action keyed in Blender, what the CUBICSLERP
export (EXPORTED) and its fallback (EXPORTED_FALLBACK) would play, with the scene's export settings.

Each rotation of the object and of its pose bones that the action keys is fitted the way the
exporter fits it (export_motion for Blender's motion, core.fitting.rotation_export for the keys and the
fallback as written), in the bone's or object's own rotation space: the exporter's map into glTF
space is an isometry, so the curve and its errors are the same. The records are an import's
(core.blender_model.clip_record.ChannelRecord) with an identity map, plus the rotation mode, so the preview's
player and writer play them; quaternions are turned into the mode's values (Euler, axis-angle) per
frame.
"""

from __future__ import annotations  # Clip: for the type checker only

from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

import bpy
import numpy as np
import numpy.typing as npt
from bpy.app.handlers import persistent

from ...core.fitting import ChannelTarget, ChannelTask
from ...core.blender_model import ChannelRecord, CurveTarget, SamplerRecord
from ...core.sampling import normalize
from ...core.blender_model import DATA_PATHS, from_quaternions
from ..exporting import export_settings, options_from
from ..exporting import rotation_motion
from ..exporting import bundled_rewrite
from ..fcurves import layered
from ..blender_context import current_scene
from ...core import CUBICSLERP

if TYPE_CHECKING:  # preview_clips imports this module
    from ...core.fitting import ExportOptions, RotationMotion
    from .clips import Clip

SOURCES = ("EXPORTED", "EXPORTED_FALLBACK")
_MAX_CACHED = 64  # "as exported" clips kept (each holds a fit); more clears them all
_NO_TURN = np.array([0.0, 0.0, 0.0, 1.0])


def exported_records(obj: bpy.types.Object, action: bpy.types.Action, slot: str | None,
                     scene: bpy.types.Scene) -> list[ChannelRecord]:
    """Records (action_data layout) of every rotation ``action`` keys on ``obj`` and its bones."""
    settings = export_settings(scene)
    options = options_from(settings) if settings is not None else None
    if options is None or bundled_rewrite()[1]:
        return []  # the export is off (or cannot run here): it would write the bundled samplers
    rate = scene.render.fps / scene.render.fps_base
    bones = [bone.name for bone in obj.pose.bones] if obj.pose is not None else []
    records: list[ChannelRecord] = []
    for bone in [None, *bones]:
        motion = rotation_motion(obj, bone, action)
        if isinstance(motion, str) or len(motion.key_frames) < 2:
            continue  # not keyed here, or not emulated: Blender's own curves play
        records.append(_record(obj, bone, slot, motion, rate, options))
    return records


def _record(obj: bpy.types.Object, bone: str | None, slot: str | None, motion: RotationMotion, rate: float,
            options: ExportOptions) -> ChannelRecord:
    start, end = float(motion.key_frames[0]), float(motion.key_frames[-1])
    # The exporter's fit in the target's own space (time 0 at frame 0): an isometry away from it.
    keys = ChannelTask(ChannelTarget(motion, _NO_TURN, _NO_TURN, 0.0, rate), start, end).fit(options)
    prop, width = DATA_PATHS[motion.mode]
    prefix = f'pose.bones["{bpy.utils.escape_identifier(bone)}"].' if bone else ""
    curves = [CurveTarget(prefix + prop, i) for i in range(width)]

    def record(sampler, fallback):
        return ChannelRecord(-1, "rotation", "", obj.name, "Object", slot or "", prefix + prop, curves,
                             np.eye(4), np.zeros(4), "EXTENSION", sampler, fallback,
                             rotation_mode=motion.mode)

    if keys.linear is not None:  # a core sampler alone (LINEAR, STEP or CUBICSPLINE): both play it
        values = keys.linear.values  # CUBICSPLINE tangent rows are no unit quaternions: as written
        values = values if keys.spline else normalize(values)
        sampler = _sampler(keys.interpolation, keys.linear.times, values)
        return record(sampler, sampler)
    written = keys.fit  # as a file stores it; played normalized, as an import reads it
    if written is None:  # skipped: nothing fitted
        raise ValueError(f"{prefix + prop}: no CUBICSLERP keys were fitted")
    extension = _sampler(CUBICSLERP, written.times, normalize(written.interleaved()))
    if keys.fallback is not None:
        interpolation, times, values = keys.fallback
        if interpolation == "LINEAR":
            values = normalize(values)  # 16-bit quaternions: played normalized, as an import reads them
        return record(extension, _sampler(interpolation, times, values))
    # SAMPLED: the bundled exporter's LINEAR key on every whole frame
    frames = np.arange(np.ceil(start), np.floor(end) + 1.0)
    return record(extension, _sampler("LINEAR", frames / rate, motion.at(frames)))


def _sampler(interpolation, times, values):
    return SamplerRecord(interpolation, np.asarray(times, dtype=np.float64).reshape(-1),
                         np.asarray(values, dtype=np.float64).reshape(-1, 4))


def to_mode_values(records: Sequence[ChannelRecord], quaternions: npt.ArrayLike) -> np.ndarray:
    """The flat values the writer expects (each record's own components, in its curves' order)
    from the player's flat quaternions (4 per record, x y z w): one conversion per rotation mode."""
    q = np.asarray(quaternions, dtype=np.float64).reshape(-1, 4)
    modes = [r.rotation_mode for r in records]
    widths = [len(r.curves) for r in records]
    out = np.empty(sum(widths))
    starts = np.concatenate([[0], np.cumsum(widths)[:-1]]).astype(np.intp)
    for mode in set(modes):
        rows = np.array([i for i, m in enumerate(modes) if m == mode], dtype=np.intp)
        values = from_quaternions(mode, q[rows])
        width = values.shape[1]
        out[(starts[rows][:, None] + np.arange(width)).ravel()] = values.ravel()
    return out



_clips: dict[Hashable, Clip] = {}


def clip_for(action: bpy.types.Action, slot: str | None, owner: bpy.types.ID | None, source: str,
             clip_class: type[Clip]) -> tuple[Hashable, Clip]:
    """(cache key, clip) of ``owner`` playing ``action`` keyed in Blender, as the export would
    write it. Rebuilt when the scene's export settings or rate change, when the action's keys
    change in number, or on any edit of the action seen by the depsgraph (on_depsgraph_update)."""
    scene = current_scene()
    settings = export_settings(scene)
    if settings is None:
        raise RuntimeError("the scene has no export settings (the add-on's ui is not registered)")
    state = (settings.enabled, settings.tolerance, settings.fallback, settings.fallback_tolerance,
             settings.precision, scene.render.fps, scene.render.fps_base)
    key = ("exported", action.session_uid, slot, getattr(owner, "session_uid", None), source, state,
           _key_count(action))
    if key not in _clips:
        if len(_clips) >= _MAX_CACHED:
            _clips.clear()
        played = "FALLBACK" if source == "EXPORTED_FALLBACK" else "EXTENSION"
        exported_class = _exported_class(clip_class)
        with unplayable_on_failure(_clips, key, exported_class, played):
            records = exported_records(owner, action, slot, scene) if isinstance(owner, bpy.types.Object) else []
            _clips[key] = exported_class(scene.render.fps / scene.render.fps_base, records, played)
    return key, _clips[key]


@contextmanager
def unplayable_on_failure(cache: dict[Hashable, Clip], key: Hashable, clip_class: type[Clip],
                          source: str) -> Iterator[None]:
    """A clip that cannot be built (damaged stored data, a failed fit) is cached as one that plays
    nothing before the error goes on to be reported: later frame changes skip it at once instead
    of building it again (a fit, for an "as exported" source), until its key changes."""
    try:
        yield
    except Exception:
        cache[key] = clip_class(1.0, [], source)
        raise


def _key_count(action: bpy.types.Action) -> int:
    curves = action.fcurves if not layered(action) else [
        curve for layer in action.layers for strip in layer.strips for bag in strip.channelbags
        for curve in bag.fcurves]
    return sum(len(curve.keyframe_points) for curve in curves)


_classes = {}


def _exported_class(clip_class):
    """preview_clips.Clip whose values are the rotation modes' values of the played quaternions."""
    exported = _classes.get(clip_class)
    if exported is None:
        class ExportedClip(clip_class):
            def values(self, action_frame):
                return to_mode_values(self.records, super().values(action_frame))
        exported = _classes[clip_class] = ExportedClip
    return exported


def forget() -> None:
    _clips.clear()


@persistent
def on_depsgraph_update(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph) -> None:
    """An edited action (keys moved in the Graph Editor, a script's fcurve.update()) drops the
    "as exported" clips: they are fitted again when next played."""
    if _clips and any(isinstance(update.id, bpy.types.Action) for update in depsgraph.updates):
        _clips.clear()
