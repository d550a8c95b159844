"""glTF skinning recomputed with plain Python, one node and one vertex at a time: the outside
reference that tests compare the core's scene graph and skinning with.

It follows the skeletal-animation seed's recipe (glTF 2.0 §3.7.3 and the glTF tutorial's "Skins"):
its naive "walk up the parents" global transform, jointMatrix_j = global(joint_j) ·
inverseBindMatrix_j, and the vertex shader's sum Σ w_i · jointMatrix_i · p; a skinned mesh's own
node transform plays no part. Accessor data comes from the caller (decoding is tested on its own).
"""

import math


def mat_mul(a, b):
    return [[sum(a[r][k] * b[k][c] for k in range(4)) for c in range(4)] for r in range(4)]


def mat_vec(m, p):
    return [sum(m[r][k] * p[k] for k in range(4)) for r in range(4)]


def plain_quaternion(q):
    """Textbook rotation matrix of a unit quaternion (x, y, z, w), normalized first: files store
    float32 quaternions written out in decimal, a few 1e-7 away from unit length."""
    norm = math.sqrt(sum(float(v) ** 2 for v in q))
    x, y, z, w = (float(v) / norm for v in q)
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]


def plain_local(node, rotation=None):
    if "matrix" in node:  # column-major: element 4*col + row
        m = node["matrix"]
        return [[float(m[4 * c + r]) for c in range(4)] for r in range(4)]
    t = node.get("translation", [0, 0, 0])
    r = plain_quaternion(node.get("rotation", [0, 0, 0, 1]) if rotation is None else rotation)
    s = node.get("scale", [1, 1, 1])
    translate = [[1, 0, 0, t[0]], [0, 1, 0, t[1]], [0, 0, 1, t[2]], [0, 0, 0, 1]]
    rotate = [r[0] + [0], r[1] + [0], r[2] + [0], [0, 0, 0, 1]]
    scale = [[s[0], 0, 0, 0], [0, s[1], 0, 0], [0, 0, s[2], 0], [0, 0, 0, 1]]
    return mat_mul(mat_mul(translate, rotate), scale)


def plain_globals(nodes, rotations=None):
    """The seed's unrolled loop: global = local(root) · ... · local(parent) · local(node)."""
    parent = {child: i for i, node in enumerate(nodes) for child in node.get("children", [])}
    rotations = rotations or [None] * len(nodes)
    local = [plain_local(node, rotation) for node, rotation in zip(nodes, rotations)]
    out = []
    for i in range(len(nodes)):
        g, current = local[i], parent.get(i)
        while current is not None:
            g, current = mat_mul(local[current], g), parent.get(current)
        out.append(g)
    return out


def plain_skinned_vertex(p, joints_sets, weights_sets, joint_matrices):
    """The seed's vertex shader: position += w_i * (jointMatrix[id_i] * vec4(p, 1))."""
    out = [0.0, 0.0, 0.0]
    for ids, ws in zip(joints_sets, weights_sets):
        for joint, w in zip(ids, ws):
            q = mat_vec(joint_matrices[int(joint)], [p[0], p[1], p[2], 1.0])
            out = [out[k] + float(w) * q[k] for k in range(3)]
    return out


def transform(m, points):
    return [mat_vec(m, [x, y, z, 1.0])[:3] for x, y, z in points]


def plain_joint_matrices(globals_, joints, inverse_binds):
    """jointMatrix_j = global(joint_j) · inverseBindMatrix_j (identity when the skin has none)."""
    identity = [[float(r == c) for c in range(4)] for r in range(4)]
    inverse_binds = inverse_binds if inverse_binds is not None else [identity] * len(joints)
    return [mat_mul(globals_[j], [list(map(float, row)) for row in ibm])
            for j, ibm in zip(joints, inverse_binds)]


def plain_skinned_primitive(positions, joints_sets, weights_sets, joint_matrices):
    """Every vertex of one primitive through plain_skinned_vertex: (V, 3) nested lists."""
    return [plain_skinned_vertex(p, [joints[v] for joints in joints_sets],
                                 [weights[v] for weights in weights_sets], joint_matrices)
            for v, p in enumerate(positions)]
