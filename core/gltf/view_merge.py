"""Fewer buffer views for animation data, without moving a byte: which views join, and where.

A writer that gives every accessor its own buffer view spends about 45 bytes of JSON per view
({"buffer":0,"byteLength":76,"byteOffset":1024}); a short clip has dozens of small sampler
accessors. Views that lie one after another in a buffer (at most 3 bytes of padding between them)
and hold only animation samplers' accessors can become one view spanning them all, each accessor
reading at its old place through its own byteOffset. ``plan_merge`` says which views join and what
changes; the caller applies it to its own objects (a glTF JSON dict or an exporter's objects), since
the buffer's bytes stay where they are.

glTF 2.0 rules kept: an accessor's byteOffset within its view stays a multiple of its component size
(its offset in the buffer does not change, so that one holds as before); views with byteStride, a
target or extensions are never joined (animation data has none: such a view is something else's,
e.g. meshopt-compressed); a view shared with a non-animation accessor, read by a sparse accessor,
an image or an extension ("pinned") is left alone.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

# The component sizes of glTF 2.0 accessors' componentType, in bytes.
COMPONENT_SIZES = {5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4}
PADDING = 4  # glTF aligns views to 4 bytes: up to 3 bytes of padding between two views


@dataclass(frozen=True)
class View:
    """One buffer view, as ``plan_merge`` sees it.

    Attributes
    ----------
    buffer : int
        Its buffer's index.
    offset : int
        Its byteOffset in that buffer.
    length : int
        Its byteLength.
    plain : bool
        Without byteStride, target and extensions (only such views join).
    """

    buffer: int
    offset: int
    length: int
    plain: bool = True


@dataclass(frozen=True)
class AccessorUse:
    """One accessor, as ``plan_merge`` sees it.

    Attributes
    ----------
    view : int or None
        Its bufferView; None without one.
    offset : int
        Its byteOffset within that view.
    component_size : int
        Bytes per component (COMPONENT_SIZES).
    animation : bool
        Dense, and read by animation samplers only.
    """

    view: int | None
    offset: int
    component_size: int
    animation: bool


@dataclass(frozen=True)
class ViewMerge:
    """Which buffer views join, and what changes for the views and accessors that stay.

    Attributes
    ----------
    view_map : list of int
        Old view index -> new view index; joined views share one.
    spans : dict of int to (int, int)
        New index of each joined view -> its (byteOffset, byteLength).
    accessor_offsets : dict of int to int
        Accessor index -> its new byteOffset within its joined view, where it changed.
    """

    view_map: list[int]
    spans: dict[int, tuple[int, int]] = field(default_factory=dict)
    accessor_offsets: dict[int, int] = field(default_factory=dict)

    @property
    def dropped(self) -> int:
        """How many views the merge removes."""
        return len(self.view_map) - len(set(self.view_map))

    def first_views(self) -> list[int]:
        """The old view each new view is made from (the lowest index of a joined run), in new order."""
        firsts: dict[int, int] = {}
        for old, new in enumerate(self.view_map):
            firsts.setdefault(new, old)
        return [firsts[new] for new in sorted(firsts)]


def plan_merge(views: Sequence[View], accessors: Sequence[AccessorUse], pinned: Iterable[int] = ()) -> ViewMerge:
    """Plan which of ``views`` join into one: runs of adjacent mergeable views of one buffer.

    A view is mergeable when it is plain, not ``pinned`` and read by at least one accessor, every
    one of them an animation accessor. Two views are adjacent when at most 3 bytes of padding lie
    between them, and join only where each accessor's byteOffset in the joined view stays a
    multiple of its component size. Views nothing reads stay as they are.

    Parameters
    ----------
    views : sequence of View
        Every buffer view of the file, by index.
    accessors : sequence of AccessorUse
        Every accessor of the file, by index.
    pinned : iterable of int
        Views also read by something else (a sparse accessor, an image, an extension).

    Returns
    -------
    ViewMerge
        The new view of each old one, the joined views' spans and the accessors' new offsets.

    Examples
    --------
    >>> views = [View(0, 0, 12), View(0, 12, 8), View(0, 20, 16)]  # (buffer, byteOffset, byteLength)
    >>> uses = [AccessorUse(0, 0, 4, True), AccessorUse(1, 0, 4, True), AccessorUse(2, 0, 4, False)]
    >>> merge = plan_merge(views, uses)  # view 2 holds a mesh's data: it stays alone
    >>> merge.view_map, merge.spans, merge.accessor_offsets, merge.dropped
    ([0, 0, 1], {0: (0, 20)}, {1: 12}, 1)
    """
    readers: list[list[int]] = [[] for _ in views]
    mergeable = [view.plain for view in views]
    for index, use in enumerate(accessors):
        if use.view is None or not 0 <= use.view < len(views):
            continue
        readers[use.view].append(index)
        if not use.animation or use.component_size <= 0:
            mergeable[use.view] = False
    for index in pinned:
        if 0 <= index < len(views):
            mergeable[index] = False
    mergeable = [m and bool(r) for m, r in zip(mergeable, readers)]

    runs: list[list[int]] = []
    # Every view of a buffer in byte order: a view that is not mergeable between two others breaks
    # their run, so a joined view never spans another one's bytes.
    for index in sorted(range(len(views)), key=lambda i: (views[i].buffer, views[i].offset, i)):
        if not mergeable[index]:
            runs.append([])
            continue
        run = runs[-1] if runs else []
        if run and _joins(views, accessors, readers, run, index):
            run.append(index)
        else:
            runs.append([index])
    return _merge(views, accessors, readers, [run for run in runs if len(run) > 1])


def _joins(views, accessors, readers, run, index):
    """Whether view ``index`` can extend ``run`` (whose views lie in buffer order)."""
    first, last, view = views[run[0]], views[run[-1]], views[index]
    end = last.offset + last.length
    if view.buffer != first.buffer or not 0 <= view.offset - end < PADDING:
        return False
    # Each accessor's byteOffset within the joined view must stay a multiple of its component size.
    return all((view.offset - first.offset + accessors[a].offset) % accessors[a].component_size == 0
               for a in readers[index])


def _merge(views, accessors, readers, runs):
    owner = list(range(len(views)))  # each old view -> the old view that heads its run
    for run in runs:
        head = min(run)
        for index in run:
            owner[index] = head
    heads = sorted(set(owner))
    new_index = {old: new for new, old in enumerate(heads)}
    view_map = [new_index[owner[i]] for i in range(len(views))]
    spans: dict[int, tuple[int, int]] = {}
    accessor_offsets: dict[int, int] = {}
    for run in runs:
        start = views[run[0]].offset
        end = views[run[-1]].offset + views[run[-1]].length
        spans[view_map[run[0]]] = (start, end - start)
        for index in run:
            for a in readers[index]:
                offset = views[index].offset - start + accessors[a].offset
                if offset != accessors[a].offset:
                    accessor_offsets[a] = offset
    return ViewMerge(view_map, spans, accessor_offsets)
