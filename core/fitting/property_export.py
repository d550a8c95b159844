"""How closely an export's translation, scale and morph-weight channels follow the bundled
exporter's samples: one tolerance, a fraction of the model's size (ExportOptions.property_tolerance,
default 1e-4), turned into each channel's own bound for core.fitting.vector_reduction.

- Model size: the diagonal of the world bounding box of what the scene shows (meshes' evaluated
  bounding boxes, armatures' bone heads and tails, in glTF units: the exporter keeps Blender's
  units and turns axes, which keeps distances). A scene without either (empties, cameras, lights)
  takes the box of its exported objects' origins and of its translation channels' values instead,
  and one glTF unit (a metre) when that box is a point.
- Translation: a distance (Euclidean, in the node's parent space) of fraction x model size. An
  error there moves the node and everything under it, so the distance is split evenly along the
  longest chain of nodes with moving translations through the node (the import's split of the
  rotation tolerance, core.blender_model.import_plan.rotation_budgets) and divided by the largest scale its
  ancestors can have (their static scale or any animated value): the errors of a chain then add up
  to at most fraction x model size in world space. Still nodes (the bundled exporter writes a
  node's unanimated translation as two keys that differ by float32 rounding) take no share: each
  is held at one value, and what they add is set aside (chain_budgets).
- Scale: per component, fraction x the component's magnitude (a relative error): a point under
  the node at distance r from it moves by at most fraction x r, at most fraction x model size,
  split likewise along chains of nodes with moving scales (relative errors compound). Below
  SCALE_FLOOR of the channel's largest magnitude the bound stops shrinking, so a scale that passes
  through zero still has room.
- Weights: per component, fraction in weight units (weights mostly span [0, 1]): a morph target
  moves its vertices by at most fraction x its largest displacement.

Errors of different channels add up: a node's world position may be off by the translation
chain's share plus what scales above it add, about fraction x model size, next to the rotations'
own tolerance.
"""

import numpy as np
import numpy.typing as npt

from ..gltf import as_stored
from ..blender_model import chain_sums, rotation_budgets

PATHS = ("translation", "scale", "weights")
SCALE_FLOOR = 0.01
STILL = 0.05  # a channel that moves less than this part of its chain's tolerance is still
ROUNDING = 1e-6  # of the tolerance: a still channel's room for the float32 rounding of its check
UNIT_SIZE = 1.0  # the model size of a scene whose points are all one point


def model_size(points: npt.ArrayLike, fallback_points: npt.ArrayLike = ()) -> float:
    """Measure a model's size: the diagonal of the bounding box of its points.

    Parameters
    ----------
    points : (n, 3) float array
        World positions of what the scene shows; non-finite rows are left out.
    fallback_points : (m, 3) float array
        Positions measured when ``points`` has none (objects' origins, translation keys).

    Returns
    -------
    float
        The diagonal, or UNIT_SIZE (one glTF unit) when the box is a point or there are no points.

    Examples
    --------
    >>> model_size([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]])  # sqrt(1 + 4 + 4)
    3.0
    >>> model_size([], [[1.0, 1.0, 1.0]])  # one point: one unit
    1.0
    """
    for chosen in (points, fallback_points):
        chosen = np.asarray(chosen, dtype=np.float64).reshape(-1, 3)
        chosen = chosen[np.isfinite(chosen).all(axis=1)]
        if len(chosen):
            size = float(np.linalg.norm(chosen.max(axis=0) - chosen.min(axis=0)))
            return size if size > 0.0 else UNIT_SIZE
    return UNIT_SIZE


def parents_first(parents: npt.ArrayLike) -> np.ndarray:
    """Node indices sorted by depth (roots first) for ``parents`` ((N,), -1 for roots)."""
    parents = np.asarray(parents, dtype=np.intp)
    depth = np.zeros(len(parents), dtype=np.intp)
    above = parents.copy()
    for _ in range(len(parents)):  # one pass per level; a cycle (bad input) stops at N levels
        moving = above >= 0
        if not moving.any():
            break
        depth += moving
        above = np.where(moving, parents[np.maximum(above, 0)], -1)
    return np.argsort(depth, kind="stable")


def chain_budgets(parents: npt.ArrayLike, spread: npt.ArrayLike, total: float) -> np.ndarray:
    """Split an error bound along chains of nodes into each node's own budget.

    A node whose spread is at most STILL x total is still (the bundled exporter's samples of an
    unanimated property wobble by the rounding of its float32 matrix decomposition): it is held at
    one value, with its spread as its budget. The largest sum of still budgets along a chain
    through a node is set aside; the rest is split evenly along the longest chain of moving nodes
    through it (core.blender_model.import_plan.rotation_budgets), so the errors of any chain add
    up to ``total`` at most (at least half of it is left to moving nodes, however many still ones).

    Parameters
    ----------
    parents : (N,) int array
        Each node's parent index, -1 for a root.
    spread : (N,) float array
        Per node, the error of its channel held at one value (``spread_of``, in the units of
        ``total``); NaN for a node without the channel.
    total : float
        The error bound along any chain of nodes from a root (``total_tolerance``).

    Returns
    -------
    (N,) float array
        Per node, the part of ``total`` its own channel may use.

    Examples
    --------
    A still root (0.02 <= STILL x 1) keeps its spread (and 1e-6 of room for rounding); its two
    moving descendants share what is left, 0.98.

    >>> chain_budgets([-1, 0, 1], [0.02, 1.0, 1.0], 1.0).round(4).tolist()
    [0.02, 0.49, 0.49]
    """
    parents = np.asarray(parents, dtype=np.intp)
    spread = np.asarray(spread, dtype=np.float64)
    if not len(parents):
        return np.zeros(0)
    present = ~np.isnan(spread)
    still = present & (spread <= STILL * total)
    own = np.where(still, spread + ROUNDING * total, 0.0)  # room for the rounding of the check
    order = parents_first(parents)
    moving_count = rotation_budgets(parents, order, np.flatnonzero(present & ~still))
    left = np.maximum(total - chain_sums(parents, order, own), 0.5 * total)
    return np.where(still, own, left / moving_count)


def total_tolerance(path: str, fraction: float, size: float = 1.0) -> float:
    """Turn the export's property tolerance into the error bound of a chain for a path.

    Parameters
    ----------
    path : str
        "translation", "scale" or "weights".
    fraction : float
        The export's property tolerance (ExportOptions.property_tolerance).
    size : float
        The model's size (``model_size``), for translations.

    Returns
    -------
    float
        A world distance (fraction x size) for translations, a relative error (fraction) for
        scales, weight units (fraction) for weights (see the module's text).

    Examples
    --------
    >>> total_tolerance("translation", 1e-4, 2.0), total_tolerance("scale", 1e-4, 2.0)
    (0.0002, 0.0001)
    """
    return float(fraction) * float(size) if path == "translation" else float(fraction)


def spread_of(path: str, values: npt.ArrayLike, parent_scale: float = 1.0) -> float:
    """Measure the error of a channel held at one value, the middle of its values' range.

    Parameters
    ----------
    path : str
        "translation", "scale" or "weights".
    values : (n, d) float array
        The channel's keys.
    parent_scale : float
        For translations, how much the parent space stretches a distance (``ancestor_scales``).

    Returns
    -------
    float
        The largest error, in the units of total_tolerance: a world distance for translations
        (Euclidean, times ``parent_scale``), relative to each key's magnitude for scales, weight
        units for weights.

    Examples
    --------
    >>> spread_of("translation", [[0.0, 0.0, 0.0], [0.0, 3.0, 4.0]], parent_scale=2.0)  # 2 x 2.5
    5.0
    >>> spread_of("scale", [[1.0], [3.0]]), spread_of("weights", [[0.0], [0.5]])  # 2 is 1 off the key 1
    (1.0, 0.25)
    """
    values = np.asarray(values, dtype=np.float64)
    deviation = values - as_stored(0.5 * (values.min(axis=0) + values.max(axis=0)), "FLOAT")
    if path == "translation":
        return float(np.sqrt(np.einsum("ij,ij->i", deviation, deviation)).max() * parent_scale)
    if path == "scale":
        return float((np.abs(deviation) / _magnitude(values)).max())
    return float(np.abs(deviation).max())


def ancestor_scales(parents: npt.ArrayLike, largest_scale: npt.ArrayLike) -> np.ndarray:
    """Bound how much each node's parent space stretches a distance.

    Parameters
    ----------
    parents : (N,) int array
        Each node's parent index, -1 for a root.
    largest_scale : (N,) float array
        Per node, the largest magnitude its scale can take (static or any animated value).

    Returns
    -------
    (N,) float array
        Per node, the product of ``largest_scale`` over its strict ancestors (1 at a root).

    Examples
    --------
    >>> ancestor_scales([-1, 0, 1], [2.0, 3.0, 5.0]).tolist()  # a chain: 1, 2, 2 x 3
    [1.0, 2.0, 6.0]
    """
    parents = np.asarray(parents, dtype=np.intp)
    largest = np.asarray(largest_scale, dtype=np.float64)
    product = np.ones(len(parents))
    above = parents.copy()
    for _ in range(len(parents)):
        moving = above >= 0
        if not moving.any():
            break
        product *= np.where(moving, largest[np.maximum(above, 0)], 1.0)
        above = np.where(moving, parents[np.maximum(above, 0)], -1)
    return product


def channel_tolerance(path: str, values: npt.ArrayLike, budget: float,
                      parent_scale: float = 1.0) -> tuple[float | np.ndarray, bool]:
    """Turn a channel's budget into the tolerance core.fitting.vector_reduction.reduce_vectors takes.

    Parameters
    ----------
    path : str
        One of PATHS: "translation", "scale" or "weights".
    values : (n, d) float array
        The channel's keys.
    budget : float
        Its part of total_tolerance (``chain_budgets``).
    parent_scale : float
        Its ``ancestor_scales``: a translation's tolerance in its parent space is the world one
        over it.

    Returns
    -------
    tolerance : float or (n, d) float array
        A distance for translations, per key and component for scales (budget x magnitude, at
        least SCALE_FLOOR of the largest), the budget for weights.
    norm : bool
        True for translations (a Euclidean distance), False for per-component bounds.

    Raises
    ------
    ValueError
        For a path that is not one of PATHS.

    Examples
    --------
    >>> channel_tolerance("translation", [[0.0, 0.0, 0.0]], 0.01, parent_scale=2.0)
    (0.005, True)
    >>> tolerance, norm = channel_tolerance("scale", [[1.0], [0.5]], 0.01)  # relative: 1 % of each
    >>> tolerance.tolist(), norm
    ([[0.01], [0.005]], False)
    """
    if path == "translation":
        return float(budget) / max(float(parent_scale), 1e-6), True
    if path == "scale":
        return float(budget) * _magnitude(values), False
    if path == "weights":
        return float(budget), False
    raise ValueError(f"channel_tolerance: {path!r} is not one of {', '.join(PATHS)}")


def _magnitude(scales):
    """|scales| per key and component, at least SCALE_FLOOR of the channel's largest."""
    magnitude = np.abs(np.asarray(scales, dtype=np.float64))
    floor = SCALE_FLOOR * magnitude.max() if magnitude.size else 0.0
    return np.maximum(magnitude, max(floor, 1e-12))
