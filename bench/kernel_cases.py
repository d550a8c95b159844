"""The cases of bench/bench_kernels.py: each kernel choice of the core beside the alternative it
replaced, on the same inputs, with a check that the two give the same result.

The choice is the core's own function, called as it is; where a choice is one numpy call rather
than a function (a matmul, a float32 sin), the case makes that call. The alternative is what the
module's docstring or comment names: plain numpy, or the core's own per-channel
path (keyframes_for). numpy only, no bpy: the clip record's Blender side is bench_kernels.py's.
"""

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath

ROOT = Path(__file__).resolve().parents[1]
TOLERANCE_DEG = 0.01  # the import's default


@dataclass
class Case:
    """One choice against its alternative: ``expect`` names the one that should be faster ("choice",
    or "" where the case shows the limit of the choice and ``note`` says what decides there)."""
    label: str
    module: str
    choice: Callable[[], object]
    alternative: Callable[[], object]
    same: Callable[[object, object], bool]
    expect: str = "choice"
    note: str = ""
    repeats: int | None = None  # fewer for the slowest cases


def equal(a, b) -> bool:
    return bool(np.array_equal(a, b))


def close(rtol: float, atol: float = 0.0) -> Callable[[object, object], bool]:
    return lambda a, b: bool(np.allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol))


def rotations(rng: np.random.Generator, keys: int, step_deg: float) -> np.ndarray:
    """(keys, 4) unit quaternions turning up to ``step_deg`` per key (bench/synthetic_rig.py's)."""
    rig = devpath.load_module("gltf_sqlerp_synthetic_rig", ROOT / "bench" / "synthetic_rig.py")
    return rig.smooth_rotations(rng, keys, step_deg)


def cubicslerp_rows(times: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """(3n, 4) CUBICSLERP rows with the time-aware control points as both tangents."""
    from gltf_sqlerp.core.sampling import quaternions as quat
    s = quat.control_points(times, keys)
    return np.stack([s, keys, s], axis=1).reshape(-1, 4)


# --- core/sampling/interpolation.py ---------------------------------------------------------------

def evaluator_blocks(rng: np.random.Generator) -> Case:
    """Evaluator's loop over blocks of CHUNK samples against one pass of the same kernel over the
    whole query (every temporary then as long as the query)."""
    from gltf_sqlerp.core.constants import CUBICSLERP
    from gltf_sqlerp.core.sampling import Evaluator, segment_parameters
    times = np.cumsum(rng.uniform(0.02, 0.06, 1_000))
    evaluator = Evaluator(CUBICSLERP, times, cubicslerp_rows(times, rotations(rng, 1_000, 6.0)), rotation=True)
    query = np.linspace(times[0], times[-1], 1_000_000)

    def whole():
        kernel = evaluator.kernel
        assert kernel is not None  # set for two keys or more
        out = np.empty((len(query), 4))
        k, t = segment_parameters(evaluator.times, evaluator.durations, query, ordered=True)
        kernel(k, t, out, True)
        start, end = t == 0.0, t == 1.0  # a key's own value at its time, as Evaluator restores it
        out[start], out[end] = evaluator.keys[k[start]], evaluator.keys[k[end] + 1]
        return out
    return Case("Evaluator, blocks of CHUNK samples | one whole-array pass (CUBICSLERP, 1,000 keys, "
                "1 M samples)", "sampling/interpolation.py", lambda: evaluator(query), whole, equal, repeats=3)


def slerp_keys_once(rng: np.random.Generator) -> Case:
    """slerp_keys against an Evaluator set up for a sampler of four keys played once."""
    from gltf_sqlerp.core.sampling import Evaluator, slerp_keys
    times = np.array([0.0, 10.0, 20.0, 30.0]) / 24.0
    keys = rotations(rng, 4, 30.0)
    query = np.arange(241) / (8 * 24.0)  # 8 samples a frame over its 30 frames
    return Case("slerp_keys | Evaluator set up and played once (4 keys, 241 samples)",
                "sampling/interpolation.py", lambda: slerp_keys(times, keys, query),
                lambda: Evaluator("LINEAR", times, keys, rotation=True)(query), close(0.0, 1e-12))


def gather_runs(rng: np.random.Generator, rows: int) -> Case:
    """Gather of a sorted index (np.repeat over its runs) against np.take of the same index."""
    from gltf_sqlerp.core.sampling import Gather
    index = np.repeat(np.arange(1_000), 64)  # 64,000 samples in 1,000 runs
    x = rng.random(2_000) if rows == 1 else rng.random((rows, 2_000))
    gather = Gather(index, ordered=True)
    shape = "1-D array" if rows == 1 else f"({rows}, n) array"
    return Case(f"Gather of a sorted index | np.take (64,000 samples in 1,000 runs, {shape})",
                "sampling/arcs.py", lambda: gather(x),
                lambda: np.take(x, index, axis=-1, mode="clip"), equal)


def ordered_segments(rng: np.random.Generator) -> Case:
    """segment_index of sorted queries (a search per key) against a search per query."""
    from gltf_sqlerp.core.sampling import segment_index
    times = np.cumsum(rng.uniform(0.02, 0.06, 1_600))
    query = np.linspace(times[0], times[-1], 64_000)
    return Case("segment_index, sorted queries | np.searchsorted per query (64,000 queries, 1,600 keys)",
                "sampling/segments.py", lambda: segment_index(times, query, ordered=True),
                lambda: np.clip(np.searchsorted(times, query, side="right") - 1, 0, len(times) - 2), equal)


def column_stores(rng: np.random.Generator, into_view: bool) -> Case:
    """Evaluator's store of a block's normalized (4, CHUNK) quaternions into its (CHUNK, 4) rows:
    four strided columns (core.sampling.interpolation.store_normalized) against a block
    normalized in place and copied transposed into the rows, or (``into_view``) multiplied
    straight into the rows' transposed view."""
    from gltf_sqlerp.core.sampling import CHUNK
    from gltf_sqlerp.core.sampling.interpolation import store_normalized
    q = rng.normal(size=(4, CHUNK))
    rows, other = np.empty((CHUNK, 4)), np.empty((CHUNK, 4))

    def inverse_norms():
        inverse = np.einsum("ij,ij->j", q, q)
        np.sqrt(inverse, out=inverse)
        return np.divide(1.0, inverse, out=inverse, where=inverse > 0.0)

    def columns():
        store_normalized(q, rows)
        return rows

    def block():
        if into_view:
            np.multiply(q, inverse_norms(), out=other.T)
        else:
            other[...] = (q * inverse_norms()).T
        return other
    if into_view:
        return Case(f"four strided columns | a multiply into the transposed rows ({CHUNK:,} quaternions)",
                    "sampling/interpolation.py", columns, block, equal, "", "even: neither copies a block")
    return Case(f"four strided columns | a transposed block copied ({CHUNK:,} quaternions)",
                "sampling/interpolation.py", columns, block, equal)


def chord_maxima(rng: np.random.Generator) -> Case:
    """The largest angle between (n, 4) rotations as the largest squared chord, converted once,
    against the largest of angle_between's angles."""
    from gltf_sqlerp.core.sampling import angle_between, chords, normalize
    p = normalize(rng.normal(size=(16_384, 4)))
    q = normalize(p + rng.normal(0.0, 1e-3, p.shape))
    return Case("largest squared chord, in degrees once | largest angle_between (16,384 pairs)",
                "sampling/chords.py", lambda: chords.max_angle_deg(p, q), lambda: angle_between(p, q).max(),
                close(1e-9))


# --- core/fitting ---------------------------------------------------------------------------------

def normal_systems(rng: np.random.Generator, count: int) -> Case:
    """The tangent fit's 8x8 normal systems (27 probe equations each) by Cholesky and
    substitutions against numpy's batched solve."""
    rows = rng.normal(size=(count, 27, 8))
    matrix, rhs = np.matmul(rows.transpose(0, 2, 1), rows), rng.normal(size=(count, 8))
    # How fast each is depends on the BLAS threads (bench_kernels.py --blas-threads): what decides
    # is that the choice gives the same keys at any thread count.
    from gltf_sqlerp.core.fitting.hermite_tangents import solve_spd
    return Case(f"Cholesky and substitutions | np.linalg.solve ({count:,} 8x8 systems)",
                "fitting/hermite_tangents.py", lambda: solve_spd(matrix, rhs),
                lambda: np.linalg.solve(matrix, rhs[..., None])[..., 0], close(1e-9, 1e-12),
                "", "the same keys at any BLAS thread count decide")


def arc_points(rng: np.random.Generator) -> Case:
    """Points a cos + e sin of 1,000 arcs at 9 probes: (M, 2) @ (2, 4) matmuls against
    broadcasting over the trailing axis of 4."""
    a, e = rng.normal(size=(1_000, 4)), rng.normal(size=(1_000, 4))
    phase = rng.uniform(0.0, 1.0, (1_000, 9))
    weights = np.stack([np.cos(phase), np.sin(phase)], axis=2)
    return Case("(M, 2) @ (2, 4) matmul | broadcasting over a trailing axis of 4 (1,000 arcs x 9 probes)",
                "fitting/sqlerp_tangents.py", lambda: np.matmul(weights, np.stack([a, e], axis=1)),
                lambda: weights[..., 0, None] * a[:, None, :] + weights[..., 1, None] * e[:, None, :],
                close(1e-12, 1e-15))


def circle_planes(rng: np.random.Generator) -> Case:
    """The plane of 1,000 weighted great-circle fits (9 points each, near their circle): two steps
    of subspace iteration from the middle point and the chord against numpy's batched eigh."""
    from gltf_sqlerp.core.fitting.sqlerp_tangents import circle_plane, orthonormal
    plane = orthonormal(rng.normal(size=(1_000, 4)), rng.normal(size=(1_000, 4)))
    theta = rng.uniform(0.2, 1.0, (1_000, 1)) * np.linspace(-1.0, 1.0, 9)  # arcs of 0.4-2 radians
    s = np.cos(theta)[..., None] * plane[:, None, 0] + np.sin(theta)[..., None] * plane[:, None, 1]
    s += rng.normal(0.0, 1e-4, s.shape)  # fit residuals of a tolerance's order
    s /= np.linalg.norm(s, axis=2)[..., None]
    weights = rng.uniform(0.2, 0.5, (1_000, 9)) ** 2

    def subspace():
        found = circle_plane(s, weights, orthonormal(s[:, 4], s[:, -1] - s[:, 0]), steps=2)
        return np.matmul(found.transpose(0, 2, 1), found)  # the plane's projector: basis-free

    def eigh():  # from the same points: circle_plane builds the scatter matrix too
        scatter = np.matmul((s * weights[..., None]).transpose(0, 2, 1), s)
        vectors = np.linalg.eigh(scatter)[1][..., 2:]
        return np.matmul(vectors, vectors.transpose(0, 2, 1))
    return Case("subspace iteration, 2 steps | np.linalg.eigh (1,000 fits of 9 points, scatter built by both)",
                "fitting/sqlerp_tangents.py", subspace, eigh, close(0.0, 1e-9))


def unit_rows(rng: np.random.Generator) -> Case:
    """unit() on rows that are unit already (it checks) against dividing every time."""
    from gltf_sqlerp.core.fitting.sqlerp_tangents import unit
    from gltf_sqlerp.core.sampling import quaternions as quat
    q = quat.normalize(rng.normal(size=(9_000, 4)))
    return Case("unit(): check the lengths | divide by them (9,000 unit rows)", "fitting/sqlerp_tangents.py",
                lambda: unit(q), lambda: q / np.sqrt(np.einsum("ij,ij->i", q, q))[:, None], close(0.0, 1e-15))


def float32_sin(rng: np.random.Generator) -> Case:
    """numpy's sin of a block of phases in float32 against float64."""
    from gltf_sqlerp.core.sampling import CHUNK
    x = rng.uniform(0.0, math.pi / 2, CHUNK)
    x32 = x.astype(np.float32)
    return Case(f"np.sin in float32 | float64 ({CHUNK:,} phases)", "fitting/screening.py",
                lambda: np.sin(x32), lambda: np.sin(x), close(0.0, 1e-6))


def float32_arithmetic(rng: np.random.Generator) -> Case:
    """A multiply and an add over (4, CHUNK) quaternion components in float32 against float64."""
    from gltf_sqlerp.core.sampling import CHUNK
    a, b, c = (rng.random((4, CHUNK)) for _ in range(3))
    a32, b32, c32 = (v.astype(np.float32) for v in (a, b, c))

    def multiply_add(x, y, z):
        out = x * y
        out += z
        return out
    return Case(f"a * b + c in float32 | float64 ((4, {CHUNK:,}))", "fitting/screening.py",
                lambda: multiply_add(a32, b32, c32), lambda: multiply_add(a, b, c), close(1e-6))


# --- core/sampling/node_tree.py -------------------------------------------------------------------

def tree_levels(rng: np.random.Generator) -> Case:
    """depth_levels (a boolean mask per level) against the same walk with np.isin, on a 69-node
    character-sized tree (bench/bench_export.py's (a3) has 69 bones, 19 deep)."""
    from gltf_sqlerp.core.sampling import depth_levels
    parents = np.array([-1] + [i - 1 if rng.random() < 0.7 else int(rng.integers(0, i)) for i in range(1, 69)])

    def with_isin():
        level, levels = np.flatnonzero(parents == -1), []
        while level.size:
            levels.append(level)
            level = np.flatnonzero(np.isin(parents, level))
        return levels
    return Case("depth_levels, a boolean mask | np.isin (a 69-node tree)", "sampling/node_tree.py",
                lambda: depth_levels(parents), with_isin, same_levels)


def same_levels(a, b) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


# --- core/blender_model/keyframes_batch.py --------------------------------------------------------

def same_keys(a, b) -> bool:
    return len(a) == len(b) and all(np.allclose(x.times, y.times, rtol=0.0, atol=1e-12)
                                    and np.allclose(x.values, y.values, rtol=0.0, atol=1e-12) for x, y in zip(a, b))


def slerp_channels(rng: np.random.Generator) -> Case:
    """Keyframes of slerp channels fitted in one pass over their concatenation against
    keyframes_for channel by channel (RiggedFigure's size: 57 channels of 40 keys)."""
    from gltf_sqlerp.core.blender_model import keyframes_for
    from gltf_sqlerp.core.blender_model.keyframes_batch import keyframes_for_channels
    from gltf_sqlerp.core.sampling import Sampler
    times = np.arange(40) / 24.0
    samplers = [Sampler("LINEAR", times, rotations(rng, 40, 6.0), "rotation", "") for _ in range(57)]
    tolerances = [TOLERANCE_DEG] * len(samplers)
    return Case("slerp channels in one pass | keyframes_for each (57 channels x 40 keys)",
                "blender_model/keyframes_batch.py", lambda: keyframes_for_channels(samplers, tolerances),
                lambda: [keyframes_for(s, TOLERANCE_DEG) for s in samplers], same_keys)


def joined_channels(rng: np.random.Generator, channels: int, keys: tuple[int, int], gap_frames: tuple[float, float],
                    step_deg: float, tolerance: float, label: str) -> Case:
    """CUBICSLERP channels refined together on one time line against keyframes_for each."""
    from gltf_sqlerp.core.blender_model import keyframes_for
    from gltf_sqlerp.core.blender_model.keyframes_joined import cubicslerp_channels
    from gltf_sqlerp.core.constants import CUBICSLERP
    from gltf_sqlerp.core.sampling import Sampler
    samplers = []
    for _ in range(channels):
        count = int(rng.integers(keys[0], keys[1] + 1))
        times = np.cumsum(rng.uniform(*gap_frames, count)) / 24.0
        samplers.append(Sampler(CUBICSLERP, times, cubicslerp_rows(times, rotations(rng, count, step_deg)),
                                "rotation", ""))
    tolerances = [tolerance] * channels
    long_channels = keys[0] > 200  # keyframes_batch.JOINED_KEYS: longer ones go one by one
    return Case(f"CUBICSLERP channels refined together | keyframes_for each ({label})",
                "blender_model/keyframes_batch.py", lambda: cubicslerp_channels(samplers, tolerances),
                lambda: [keyframes_for(s, tolerance) for s in samplers], same_keys,
                "" if long_channels else "choice",
                "limit: no gain joined, so long channels go one by one" if long_channels else "",
                repeats=3 if long_channels else None)


def numpy_cases(rng: np.random.Generator) -> list[Case]:
    """Every case that needs numpy only, in the order of the table."""
    return [evaluator_blocks(rng), column_stores(rng, False), column_stores(rng, True), slerp_keys_once(rng),
            gather_runs(rng, 1), gather_runs(rng, 4), ordered_segments(rng), chord_maxima(rng),
            normal_systems(rng, 1_000), normal_systems(rng, 3), arc_points(rng), circle_planes(rng),
            unit_rows(rng), float32_sin(rng), float32_arithmetic(rng), tree_levels(rng), slerp_channels(rng),
            joined_channels(rng, 60, (2, 60), (6.0, 10.0), 30.0, TOLERANCE_DEG,
                            "60 channels of 2-60 keys 6-10 frames apart"),
            # bench/bench_import.py's CUBICSLERP rig: 1,000 keys at 30 a second, the tolerance
            # shared along its 100-bone chain (core.blender_model.rotation_budgets)
            joined_channels(rng, 20, (1_000, 1_000), (0.8, 0.8), 6.0, TOLERANCE_DEG / 100,
                            "20 channels of 1,000 keys, 0.0001 deg")]
