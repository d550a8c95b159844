"""Structure-aware hypothesis strategies that turn valid glTF files into hostile ones (not a test
module: tests/core/test_fuzz_core.py and bench/fuzz_campaign.py use it).

A seed is a real file split into its parts: the JSON tree, the GLB BIN chunk (for .glb) and the
external buffer files (for .gltf). ``cases()`` draws a seed and one to five mutations of it:

- JSON level: replace any value of the tree by another type, an out-of-range, negative or huge
  number, NaN/Infinity, a NaN-like or empty string, a deep nest; delete a key; duplicate an array;
  swap two integers (indices); put cycles into node children;
- accessor / buffer view level: count, byteOffset, byteStride, componentType, type, normalized,
  min/max, sparse fields (whole sparse blocks with hostile numbers);
- animation level: interpolation strings (CUBICSLERP included), sampler, input/output and channel
  node indices, target paths, EXT_animation_sqlerp payloads and extensionsUsed/Required;
- binary level: flip, truncate or extend the BIN chunk or an external .bin, a buffer turned into
  a ``data:`` URI with hostile base64; GLB header and chunk lengths, version, chunk types; raw
  truncation or byte flips of the serialized JSON text.

``Case.write(folder)`` writes the file (and its external buffers) into a folder and returns its path,
for ``core.load``; ``repr(case)`` names the seed and the mutations, so a failure reads as a recipe.
``run_case`` is the property: a GltfError or nothing, within a time and memory bound.

The parts, one module each: fuzz_seeds.py (the seeds, ``Case``), fuzz_tree_mutations.py (the JSON
and animation levels), fuzz_byte_mutations.py (the binary level) and fuzz_property.py
(``run_case``); this module weighs the mutations and draws the cases.
"""

import copy

from hypothesis import strategies as st

from .fuzz_byte_mutations import m_binary, m_data_uri, m_deep, m_glb, m_text
from .fuzz_property import Escape, exercise, run_case
from .fuzz_seeds import SEEDS, Case, Seed, load_seeds
from .fuzz_tree_mutations import (m_accessor, m_animation, m_buffer_view, m_cycle, m_delete, m_duplicate_array,
                                  m_material, m_mesh, m_replace, m_skin, m_swap_ints)

__all__ = ["SEEDS", "TREE_MUTATIONS", "WEIGHTED", "Case", "Escape", "Seed", "cases", "exercise", "load_seeds",
           "run_case"]

TREE_MUTATIONS = [m_replace, m_delete, m_duplicate_array, m_swap_ints, m_cycle, m_accessor,
                  m_buffer_view, m_animation, m_mesh, m_skin, m_material]
# Structured mutations are drawn more often than blind ones: they reach the validator's deep checks.
WEIGHTED = (TREE_MUTATIONS * 2 + [m_accessor, m_accessor, m_buffer_view, m_animation, m_animation,
                              m_animation, m_mesh, m_skin, m_material]
            + [m_binary, m_glb, m_data_uri, m_text, m_deep])


@st.composite
def cases(draw, seeds=None, max_steps=5):
    """A strategy of inputs: a seed of ``seeds`` (all by default) and 1 to ``max_steps`` mutations."""
    seed = draw(st.sampled_from(seeds or SEEDS))
    case = Case(seed.name, seed.kind, copy.deepcopy(seed.json), seed.bin, dict(seed.files))
    for _ in range(draw(st.integers(1, max_steps))):
        mutation = draw(st.sampled_from(WEIGHTED))
        if isinstance(case.json, bytes) and mutation in TREE_MUTATIONS + [m_data_uri, m_deep]:
            continue  # the JSON is raw text now
        if not isinstance(case.json, dict) and not isinstance(case.json, bytes):
            break
        mutation(draw, case)
    return case
