"""What the live preview plays: which imported clip each animated ID plays at the scene's time,
at which action frame, and the core's PosePlayer for it.

An ID plays its directly assigned action (on Blender 4.4+ only the records of its
``action_slot``); with no action assigned, the clip of the top NLA strip that plays at the scene's
time (unmuted track, soloed tracks only when one is soloed, Blender's hold rules), with the scene
frame mapped into the action through the strip (start, action range, scale, repeat, reverse) as
Blender's NLA does; in NLA tweak mode the assigned action through the strip being edited. Action
frame f is glTF time f / ``frames_per_second`` (stored at import). Action influence, blend modes
and the tracks below the played one are not mixed in: the clip's channels show the clip alone.

KHR_animation_pointer properties play the same way on the data-blocks they animate (the cameras
and lights of the scene's objects, their materials and the materials' node trees): the reference
the import kept of each F-curve (core.blender_model.reference_values), not a sampler.
"""

import bisect
from collections.abc import Hashable, Iterator
from typing import cast

import bpy
import numpy as np

from ...core.blender_model import ChannelRecord, PointerRecord, reference_values
from ...core.sampling import PosePlayer
from .. import action_data
from ..fcurves import SlotUser
from . import exported as preview_exported, write as preview_write

KEY = action_data.KEY
_FLT_EPSILON = float(np.finfo(np.float32).eps)
# Blender's frames and the file's key times are float32: a frame that lands on a key in float32
# plays that key in Blender (a STEP curve switches there), while t = frame / fps in float64 can be
# a few ulps before it. Within this many float32 ulps the preview plays the key time itself.
_KEY_SNAP_ULPS = 4
_MAX_CACHED = 256
# Looked up once, not per frame: a failed attribute lookup on a Blender struct raises, slowly.
_SLOTS = "action_slot" in bpy.types.AnimData.bl_rna.properties  # Blender 4.4+
_KEYED: dict[type, bool] = {}  # type of an object's data -> whether it can have shape keys

# What plays now: (action, slot identifier or None, action frame)
Played = tuple[bpy.types.Action, str | None, float]


def playing(scene: bpy.types.Scene,
            exported: bool = False) -> Iterator[tuple[bpy.types.ID, bpy.types.Action, str | None, float]]:
    """(ID, action, slot identifier or None, action frame) for every object of ``scene`` and
    every shape-key block of its objects that plays an imported clip now; ``exported``: actions
    keyed in Blender too (the "as exported" sources)."""
    frame = scene.frame_current_final  # frame + subframe, time remapping applied, as the NLA uses
    keys = set()
    for obj in scene.objects:
        animation_data = obj.animation_data
        if animation_data is not None:
            found = clip_of(animation_data, frame, exported)
            if found is not None:
                yield (obj,) + found
        data = obj.data
        keyed = _KEYED.get(type(data))
        if keyed is None:
            keyed = _KEYED[type(data)] = data is not None and "shape_keys" in data.bl_rna.properties
        # A Mesh, Curve or Lattice: the data that can have shape keys
        key = cast(bpy.types.Mesh, data).shape_keys if keyed else None
        if key is not None and key.animation_data is not None and key.as_pointer() not in keys:
            keys.add(key.as_pointer())  # a mesh shared by several objects: its key block once
            found = clip_of(key.animation_data, frame)
            if found is not None:
                yield (key,) + found
        for owner in _pointer_owners(obj, data):
            if owner.animation_data is not None and owner.as_pointer() not in keys:
                keys.add(owner.as_pointer())  # shared cameras, lights and materials: once
                # Imported references only, whatever the source: an imported clip plays its own.
                found = clip_of(owner.animation_data, frame)
                if found is not None:
                    yield (owner,) + found


_PointerOwner = bpy.types.Camera | bpy.types.Light | bpy.types.Material | bpy.types.NodeTree


def _pointer_owners(obj: bpy.types.Object, data: bpy.types.ID | None) -> Iterator[_PointerOwner]:
    """What KHR_animation_pointer channels animate for ``obj``: its camera or light, its
    materials and their node trees."""
    if isinstance(data, (bpy.types.Camera, bpy.types.Light)):
        yield data
    for slot in obj.material_slots:
        material = slot.material
        if material is not None:
            yield material
            if material.node_tree is not None:
                yield material.node_tree


def clip_of(animation_data: bpy.types.AnimData, frame: float, exported: bool = False) -> Played | None:
    """(action, slot identifier or None, action frame) of the imported clip it plays (or, with
    ``exported``, of any action), or None."""
    action = animation_data.action
    if action is not None:
        if animation_data.use_tweak_mode:
            strip = _tweaked_strip(animation_data, action)
            if strip is not None:
                frame = strip_frame(strip, _clamped(strip, frame))
        return _imported(action, animation_data, frame, exported)
    if not animation_data.use_nla:
        return None
    strip = top_strip(animation_data.nla_tracks, frame)
    if strip is None or strip.type != 'CLIP' or strip.action is None:
        return None
    return _imported(strip.action, strip, strip_frame(strip, _clamped(strip, frame)), exported)


def _imported(action: bpy.types.Action, owner: bpy.types.AnimData | bpy.types.NlaStrip, frame: float,
              exported: bool = False) -> Played | None:
    if action.get(KEY) is None and not exported:
        return None
    if not _SLOTS:  # before Blender 4.4: no slots, one action per ID
        return action, None, frame
    slot = cast(SlotUser, owner).action_slot  # Blender 4.4+ (the stubs are 4.2's)
    return None if slot is None else (action, slot.identifier, frame)


def _tweaked_strip(animation_data, action):
    """The strip being edited in tweak mode (Blender plays the action through it). Python sees no
    'tweaked' flag: the strip of that action on the active track, the active or selected first."""
    candidates = [(not track.active, not strip.active, not strip.select, rank, strip)
                  for rank, (track, strip) in enumerate(
                      (t, s) for t in animation_data.nla_tracks for s in t.strips)
                  if strip.action == action]
    return min(candidates, key=lambda c: c[:4])[4] if candidates else None


def top_strip(tracks: bpy.types.NlaTracks, frame: float) -> bpy.types.NlaStrip | None:
    """The strip of the topmost playing track that plays at ``frame`` (None if none does)."""
    solo = any(track.is_solo for track in tracks)
    for track in reversed(tracks):
        if track.mute or (solo and not track.is_solo):
            continue
        strip = _strip_at(track.strips, frame)
        if strip is not None:
            return strip
    return None


def _strip_at(strips, frame):
    """Blender's nlastrips_ctime_get_strip: the strip containing ``frame``, else the one held
    before the first strip, between two strips or after the last; None if none or it is muted."""
    found = None
    count = len(strips)
    for index, strip in enumerate(strips):
        if strip.frame_start <= frame <= strip.frame_end:
            found = strip
            break
        if frame < strip.frame_start:
            if index == 0:
                found = strip if strip.extrapolation == 'HOLD' else None
            else:
                previous = strips[index - 1]
                found = previous if previous.extrapolation != 'NOTHING' else None
            break
        if index == count - 1:  # after the last strip
            found = strip if strip.extrapolation != 'NOTHING' else None
    return None if found is None or found.mute else found


def _clamped(strip, frame):
    return min(max(frame, strip.frame_start), strip.frame_end)


def strip_frame(strip: bpy.types.NlaStrip, frame: float) -> float:
    """Scene frame to action frame inside a strip (Blender's nlastrip_get_frame_actionclip, the
    evaluation mode): scale and repeat wrap the action range; reversed strips play it backwards."""
    scale = abs(strip.scale)
    start, end = strip.action_frame_start, strip.action_frame_end
    length = end - start
    if abs(length) < _FLT_EPSILON:
        length = 1.0
    repeat = strip.repeat
    whole = abs(repeat - np.floor(repeat)) < _FLT_EPSILON
    at_end = abs(frame - strip.frame_end) < _FLT_EPSILON and whole
    inside = np.fmod(frame - strip.frame_start, length * scale) / scale
    if strip.use_reverse:
        return start if at_end else end - inside
    return end if at_end else start + inside


class Clip:
    """One (action, slot, ID type, source): the records it plays, their player, the rate, and the
    references of the pointer F-curves it plays."""

    def __init__(self, frames_per_second: float, records: list[ChannelRecord], source: str,
                 pointers: list[PointerRecord] | None = None):
        self.records = records  # core.blender_model.clip_record.ChannelRecord
        self.pointers = pointers or []
        self.frames_per_second = float(frames_per_second)
        self.player = PosePlayer.from_records(records, source) if records else None
        played = [r.played(source) for r in records]
        times = np.unique(np.concatenate([s.times for s in played])) if played else np.empty(0)
        self.key_times = times.tolist()

    def values(self, action_frame: float) -> np.ndarray:
        """Blender values of every record at ``action_frame``: one flat float64 array."""
        if self.player is None:  # no records: the preview skips such a clip
            raise ValueError("a clip without records plays no values")
        return self.player.flat_at(self.time(action_frame))

    def pointer_values(self, action_frame: float) -> np.ndarray:
        """Blender values of every pointer F-curve at ``action_frame``: one flat float64 array."""
        frame = [float(action_frame)]
        return np.concatenate([reference_values(p, frame, self.frames_per_second)[0] for p in self.pointers])

    def time(self, action_frame: float) -> float:
        t = float(action_frame) / self.frames_per_second
        keys = self.key_times
        i = bisect.bisect_left(keys, t)                  # keys[i - 1] < t <= keys[i]
        resolution = _KEY_SNAP_ULPS * _FLT_EPSILON * max(abs(t), 1.0)
        if i and t - keys[i - 1] <= resolution:          # of two near keys, the earlier
            return keys[i - 1]
        if i < len(keys) and keys[i] - t <= resolution:
            return keys[i]
        return t


_clips: dict[Hashable, Clip] = {}


def clip_for(action: bpy.types.Action, slot: str | None, id_type: str, source: str,
             owner: bpy.types.ID | None = None) -> tuple[Hashable, Clip]:
    """The cached Clip; rebuilt when the action's stored data is replaced (a new ID property
    group: a re-import or ``action_data.store``) or the source changes. Edits of single values
    inside the stored group are not seen: call ``forget()`` after such an edit. With an "as
    exported" source, an action keyed in Blender gets the export's curves for ``owner``
    (preview_exported); an imported clip plays its extension or fallback."""
    data = action.get(KEY)
    if source in preview_exported.SOURCES:
        if data is None:
            return preview_exported.clip_for(action, slot, owner, source, Clip)
        source = "FALLBACK" if source == "EXPORTED_FALLBACK" else "EXTENSION"
    key = (action.session_uid, hash(data), slot, id_type, source)  # hash: the group's address
    clip = _clips.get(key)
    if clip is None:
        if len(_clips) >= _MAX_CACHED:
            _clips.clear()
        with preview_exported.unplayable_on_failure(_clips, key, Clip, source):
            stored = action_data.load(action)
            if stored is None:  # an action keyed in Blender plays for "as exported" sources only
                raise ValueError(f"'{action.name}' carries no glTF clip record")
            records = [r for r in stored.channels if r.id_type == id_type
                       and (slot is None or r.slot in (slot, ""))]
            kind = getattr(owner, "id_type", "")  # 'NODETREE', 'CAMERA', ...
            pointers = [p for p in stored.pointers if p.id_type in (kind, "")
                        and (slot is None or p.slot in (slot, ""))]
            _clips[key] = Clip(stored.frames_per_second, records, source, pointers)
        clip = _clips[key]
    return key, clip


def forget() -> None:
    """Drop every cached player and writer (file loads, undo, add-on disabled)."""
    _clips.clear()
    action_data.forget()
    preview_exported.forget()
    preview_write.forget()
