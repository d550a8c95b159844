"""core.gltf.view_merge: which buffer views of animation data join, on layouts written out by hand.

Each case is a buffer layout as the bundled exporter writes it (views one after another, padded to
4 bytes) or one that breaks a rule: the expected runs, new indices and accessor offsets are worked
out here from the glTF 2.0 rules (an accessor's byteOffset a multiple of its component size; views
read by anything but animation samplers, or with a stride or target, left alone).
"""

from gltf_sqlerp.core.gltf.view_merge import AccessorUse, View, ViewMerge, plan_merge as plan

FLOAT, SHORT = 4, 2


def animation(view, offset=0, size=FLOAT):
    return AccessorUse(view, offset, size, True)


def test_adjacent_animation_views_become_one_spanning_them():
    # 4 + 12 + 80 bytes at 0, 4, 16; a 6-byte view of shorts at 96, padded to 104; then 8 bytes.
    views = [View(0, 0, 4), View(0, 4, 12), View(0, 16, 80), View(0, 96, 6), View(0, 104, 8)]
    uses = [animation(0), animation(1), animation(2), animation(3, size=SHORT), animation(4)]
    merge = plan(views, uses)
    assert merge.view_map == [0, 0, 0, 0, 0] and merge.dropped == 4
    assert merge.spans == {0: (0, 112)}
    assert merge.accessor_offsets == {1: 4, 2: 16, 3: 96, 4: 104}
    assert merge.first_views() == [0]


def test_an_accessor_keeps_its_own_offset_within_its_old_view():
    views = [View(0, 0, 8), View(0, 8, 32)]
    merge = plan(views, [animation(0), animation(1, offset=16), animation(1)])
    assert merge.accessor_offsets == {1: 24, 2: 8}


def test_a_gap_of_four_bytes_or_more_starts_a_new_view():
    views = [View(0, 0, 8), View(0, 8, 4), View(0, 16, 4), View(0, 20, 4)]
    merge = plan(views, [animation(i) for i in range(4)])
    assert merge.view_map == [0, 0, 1, 1]
    assert merge.spans == {0: (0, 12), 1: (16, 8)}
    assert merge.first_views() == [0, 2]


def test_views_of_other_data_are_left_alone_and_break_runs():
    # View 1: a mesh accessor's; view 3: an image's (pinned); view 4 has a target; view 5 a
    # stride; view 6 is read by a sparse accessor (not an animation use) as well.
    views = [View(0, 0, 4), View(0, 4, 4), View(0, 8, 4), View(0, 12, 4), View(0, 16, 4, plain=False),
             View(0, 20, 4, plain=False), View(0, 24, 4), View(0, 28, 4), View(0, 32, 4)]
    uses = [animation(0), AccessorUse(1, 0, FLOAT, False), animation(2), animation(4), animation(5),
            animation(6), AccessorUse(6, 0, FLOAT, False), animation(7), animation(8)]
    merge = plan(views, uses, pinned=[3])
    assert merge.view_map == [0, 1, 2, 3, 4, 5, 6, 7, 7]
    assert merge.spans == {7: (28, 8)} and merge.dropped == 1


def test_a_view_nothing_reads_is_left_as_it_is():
    views = [View(0, 0, 4), View(0, 4, 4), View(0, 8, 4)]
    merge = plan(views, [animation(0), animation(2)])
    assert merge.view_map == [0, 1, 2] and merge.dropped == 0


def test_an_offset_that_would_break_component_alignment_starts_a_new_view():
    # Shorts at 0 (2 bytes, as a writer without padding would leave them), floats at 2: within a
    # view starting at 0 the floats would sit at byteOffset 2, not a multiple of 4.
    views = [View(0, 0, 2), View(0, 2, 8), View(0, 10, 2)]
    merge = plan(views, [animation(0, size=SHORT), animation(1), animation(2, size=SHORT)])
    assert merge.view_map == [0, 1, 1]
    assert merge.spans == {1: (2, 10)} and merge.accessor_offsets == {2: 8}


def test_views_join_in_buffer_order_within_one_buffer_only():
    # Listed out of byte order, and a second buffer: each buffer's views join by their offsets;
    # the joined view takes the place of the lowest index among them.
    views = [View(0, 8, 4), View(1, 0, 4), View(0, 0, 8), View(1, 4, 4), View(0, 12, 4)]
    merge = plan(views, [animation(i) for i in range(5)])
    assert merge.view_map == [0, 1, 0, 1, 0]
    assert merge.spans == {0: (0, 16), 1: (0, 8)}
    assert merge.accessor_offsets == {0: 8, 3: 4, 4: 12}
    assert merge.first_views() == [0, 1]


def test_overlapping_views_are_not_joined():
    views = [View(0, 0, 8), View(0, 4, 8)]
    assert plan(views, [animation(0), animation(1)]).dropped == 0


def test_nothing_to_join():
    assert plan([], []) == ViewMerge([])
    assert plan([View(0, 0, 4)], [animation(0)]).view_map == [0]
