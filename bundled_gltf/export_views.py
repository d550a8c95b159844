"""Fewer accessors and buffer views for animation data in the bundled exporter's objects.

The exporter gives every accessor its own buffer view (about 45 bytes of JSON each), and every
animation its own key-time accessors. Two steps make a file's JSON smaller without changing what
any sampler reads:

- ``share_equal_inputs`` (in ``gather_gltf_hook``, after our rewrite): samplers whose input
  accessors hold the same bytes, component type, count, type, bounds and no sparse or extension
  data point at one of them. There an accessor is still the exporter's ``gltf2_io.Accessor`` with a
  ``BinaryData`` view; the exporter writes each accessor object once (its lists compare by
  identity), so the copies never reach the buffer either.
- ``merge_animation_views`` (in ``gather_gltf_extensions_hook``): the buffer is final and already
  written for .gltf (exporter.finalize_buffer runs before the hook, 4.2 to 5.3), every reference
  is an index: ``accessors[i].buffer_view`` / ``byte_offset``, the sparse parts' and images'
  ``buffer_view``, ``buffer_views[i].buffer`` / ``byte_offset`` / ``byte_length`` /
  ``byte_stride`` / ``target`` / ``extensions``, samplers' ``input`` / ``output``; extensions are
  plain dicts by then (KHR_draco_mesh_compression's ``"bufferView"``). core.gltf.view_merge plans
  which views join; the views are renumbered here.
"""

from typing import Any

from ..core.gltf import COMPONENT_SIZES, AccessorUse, View, plan_merge, unknown_names

INSTANCING = "EXT_mesh_gpu_instancing"
# Switches for measuring what each step saves (tests compare files written with and without).
SHARE_INPUTS = True
MERGE_VIEWS = True


def share_equal_inputs(animations: list[Any]) -> int:
    """Point samplers (of any animation) whose input accessors are equal at the first such
    accessor; returns how many sampler inputs moved. Accessors that are any sampler's output are
    left alone (their data is not only key times)."""
    outputs = {id(s.output) for a in animations for s in (a.samplers or [])}
    first: dict[tuple, Any] = {}
    moved = 0
    for animation in animations:
        for sampler in animation.samplers or []:
            key = _input_key(sampler.input) if id(sampler.input) not in outputs else None
            if key is None:
                continue
            found = first.setdefault(key, sampler.input)
            if found is not sampler.input:
                sampler.input = found
                moved += 1
    return moved


def _input_key(accessor):
    """What makes two input accessors interchangeable, or None for one not shared."""
    data = getattr(getattr(accessor, "buffer_view", None), "data", None)
    if not isinstance(data, bytes) or accessor.sparse is not None or accessor.extensions or accessor.extras:
        return None
    bounds = tuple(tuple(v) if isinstance(v, list) else v for v in (accessor.min, accessor.max))
    return (data, accessor.byte_offset or 0, accessor.component_type, accessor.count, accessor.type,
            bool(accessor.normalized), bounds)


def merge_animation_views(gltf: Any) -> int:
    """Join the buffer views that only animation samplers' accessors read, where they lie one after
    another in a buffer; returns how many views were dropped. Nothing changes when the file holds
    an extension that might reference a view in a way not known here."""
    names, slots = _scan(gltf)
    if unknown_names(names):
        return 0
    accessors, views = list(gltf.accessors or []), list(gltf.buffer_views or [])
    own = {id(a) for a in accessors}
    pinned = {index for holder, _, index in slots if id(holder) not in own}
    animation = _animation_accessors(gltf)
    uses = [AccessorUse(a.buffer_view if isinstance(a.buffer_view, int) else None, a.byte_offset or 0,
                        COMPONENT_SIZES.get(a.component_type, 0), i in animation and a.sparse is None)
            for i, a in enumerate(accessors)]
    spans = [View(v.buffer, v.byte_offset or 0, v.byte_length,
                  v.byte_stride is None and v.target is None and not v.extensions) for v in views]
    merge = plan_merge(spans, uses, pinned)
    if not merge.dropped:
        return 0
    firsts = merge.first_views()
    spans_before = [(v.byte_offset, v.byte_length) for v in views]
    offsets_before = [a.byte_offset for a in accessors]
    try:
        for new, (offset, length) in merge.spans.items():
            views[firsts[new]].byte_offset, views[firsts[new]].byte_length = offset, length
        for index, offset in merge.accessor_offsets.items():
            accessors[index].byte_offset = offset or None  # 0 is glTF's default: left out of the JSON
        _point(slots, merge.view_map)
        gltf.buffer_views = [views[i] for i in firsts]
    except BaseException:
        # Half a renumbering would break the file: everything goes back as the exporter made it.
        for view, (offset, length) in zip(views, spans_before):
            view.byte_offset, view.byte_length = offset, length
        for accessor, offset in zip(accessors, offsets_before):
            accessor.byte_offset = offset
        _point(slots, [old for _, _, old in slots], by_slot=True)
        gltf.buffer_views = views
        raise
    return merge.dropped


def _point(slots, indices, by_slot=False):
    """Set each reference in ``slots`` to indices[its old index] (``by_slot``: to indices[n] for
    the n-th slot)."""
    for n, (holder, key, old) in enumerate(slots):
        value = indices[n] if by_slot else indices[old]
        if isinstance(holder, dict):
            holder[key] = value
        else:
            setattr(holder, key, value)


def _scan(gltf):
    """(extension names, buffer view references): every name under an ``extensions`` dict or of an
    Extension object, and (holder, key, view index) for every ``buffer_view`` attribute and
    ``"bufferView"`` key that holds an index, anywhere in the exporter's objects (io_scene_gltf2's
    classes, dicts and lists; extras are the user's data, not references)."""
    names = {n for n in (gltf.extensions_used or []) if isinstance(n, str)}
    slots, seen, stack = [], set(), [gltf]
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, (str, bytes, int, float, bool)) or item is None:
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            extensions = item.get("extensions")
            if isinstance(extensions, dict):
                names.update(k for k in extensions if isinstance(k, str))
            if isinstance(item.get("bufferView"), int):
                slots.append((item, "bufferView", item["bufferView"]))
            stack.extend(v for k, v in item.items() if k != "extras")  # user data, not references
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif type(item).__module__.startswith("io_scene_gltf2") and hasattr(item, "__dict__"):
            members = vars(item)
            if isinstance(members.get("extensions"), dict):
                names.update(k for k in members["extensions"] if isinstance(k, str))
            if isinstance(members.get("name"), str) and "extension" in members:  # an Extension object
                names.add(members["name"])
            if isinstance(members.get("buffer_view"), int):
                slots.append((item, "buffer_view", members["buffer_view"]))
            stack.extend(v for k, v in members.items() if k != "extras")
    return names, slots


def _animation_accessors(gltf):
    """Indices of the accessors that animation samplers read and nothing else does."""
    sampled = {i for a in gltf.animations or [] for s in a.samplers or [] for i in (s.input, s.output)
               if isinstance(i, int)}
    return sampled - _other_accessors(gltf)


def _other_accessors(gltf):
    """Indices of the accessors meshes, skins and instanced nodes read."""
    found = []
    for mesh in gltf.meshes or []:
        for primitive in mesh.primitives or []:
            found += list((primitive.attributes or {}).values()) + [primitive.indices]
            found += [i for target in primitive.targets or [] for i in target.values()]
    found += [skin.inverse_bind_matrices for skin in gltf.skins or []]
    for node in gltf.nodes or []:
        extension = (node.extensions or {}).get(INSTANCING) if isinstance(node.extensions, dict) else None
        data = getattr(extension, "extension", extension)
        if isinstance(data, dict):
            found += list((data.get("attributes") or {}).values())
    return {i for i in found if isinstance(i, int)}
