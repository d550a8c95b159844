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
    buffer: int
    offset: int
    length: int
    plain: bool = True  # no byteStride, target or extensions


@dataclass(frozen=True)
class AccessorUse:
    view: int | None     # its bufferView, None without one
    offset: int          # its byteOffset within that view
    component_size: int  # bytes per component (COMPONENT_SIZES)
    animation: bool      # dense, and read by animation samplers only


@dataclass(frozen=True)
class ViewMerge:
    view_map: list[int]                 # old view index -> new view index (joined views share one)
    spans: dict[int, tuple[int, int]] = field(default_factory=dict)  # new index -> (byteOffset, byteLength)
    accessor_offsets: dict[int, int] = field(default_factory=dict)   # accessor -> new byteOffset, where changed

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
    """Which of ``views`` join into one: runs of adjacent mergeable views of one buffer, in
    buffer order. A view is mergeable when it is plain, not ``pinned`` and read by at least one
    accessor, every one of them an animation accessor. Views nothing reads stay as they are."""
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
