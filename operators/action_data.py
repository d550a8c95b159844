"""The original glTF samplers, kept on the Action as custom properties.

The preview and a later export evaluate the spec's curves from this data, without the file. Each
channel records its node, its target in Blender (ID, slot, data path), the affine map from glTF
values to that target (pose space for bones), and the samplers: the one played and, for
EXT_animation_sqlerp channels, the other one (fallback or extension).

Layout of ``action["gltf_sqlerp"]`` (version 1): file, animation (index), name (NLA track),
source, tolerance_deg, bake, frames_per_second, and ``channels``: a list of records with node,
path ('translation'|'rotation'|'scale'|'weights'), pointer, id_name, id_type ('Object'|'Key'),
slot (identifier, '' on 4.2), data_path, curves ({data_path, index} per component, index -1
where Blender has no property), matrix (k*k floats, row-major) and offset (k floats) mapping glTF
values to the property's values, source ('EXTENSION'|'FALLBACK': which sampler the curves play),
sampler and, for EXT_animation_sqlerp channels, fallback: {interpolation, pointer, times,
width, values (rows flattened; cubic samplers keep in-tangent, value, out-tangent rows)}.
"""

import numpy as np

KEY = "gltf_sqlerp"
VERSION = 1


def sampler_record(sampler):
    # float64 numpy arrays become the same double arrays as lists of floats do, read straight from
    # their buffer: 30x faster than .tolist() (a 1,000-key CUBICSLERP channel: 1.3 ms a sampler).
    return {"interpolation": sampler.interpolation, "pointer": sampler.pointer,
            "times": _doubles(sampler.times), "width": int(sampler.values.shape[1]),
            "values": _doubles(sampler.values)}


def _doubles(array):
    return np.ascontiguousarray(array, dtype=np.float64).reshape(-1)


def channel_record(plan, target, slot, mapping, curves):
    """``curves``: per component, (data_path, array_index) of its F-curve, or None where Blender
    has no property for it (a morph target without a shape key)."""
    channel = plan.channel
    record = {"node": int(channel.node), "path": channel.path, "pointer": channel.pointer,
              "id_name": target.name, "id_type": target.bl_rna.identifier,
              "slot": getattr(slot, "identifier", ""), "data_path": mapping.data_path,
              "curves": [{"data_path": c[0], "index": int(c[1])} if c is not None
                         else {"data_path": "", "index": -1} for c in curves],
              "matrix": mapping.matrix.ravel().tolist(), "offset": mapping.offset.tolist(),
              "source": plan.source, "sampler": sampler_record(channel.sampler)}
    if channel.fallback is not None:
        record["fallback"] = sampler_record(channel.fallback)
    return record


def store(action, document, settings, anim_idx, track_name, records):
    """Write the records of one glTF animation onto ``action`` (one action per animation on 4.4+,
    per animation and object on 4.2: each keeps the channels it animates)."""
    action[KEY] = {
        "version": VERSION, "file": str(document.path or ""), "animation": int(anim_idx),
        "name": track_name, "source": settings.source, "tolerance_deg": settings.tolerance_deg,
        "bake": settings.bake, "frames_per_second": settings.frames_per_second,
        "channels": records,
    }


def load(action):
    """The stored data as plain Python, or None for an action we did not import."""
    data = action.get(KEY)
    return data.to_dict() if data is not None else None
