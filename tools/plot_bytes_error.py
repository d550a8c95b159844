"""The README's picture: file bytes against world rotation error on one real clip, docs/bytes_error.svg.

One CMU capture clip (16_27, 120 fps, imported with Blender's bundled BVH importer) exported as
bench/bench_real_export.py exports it, in one run: Blender's bundled exporter, gltfpack and
glTF-Transform's ``resample`` applied to the bundled file (the benchmark's pinned peers), and this
add-on at its default and at other rotation tolerances. Each file is measured as the benchmark
measures it (its functions, not a copy): the whole file's bytes, and the largest world rotation error
of any bone against Blender at 8 samples per frame, the file played by the add-on's core. Drawn as
plain SVG, no plotting library; the measured points are printed too.

    python dev.py run tools/plot_bytes_error.py [OUT.svg]

The figure depends on the Blender that exports (its bundled exporter's bytes): the SVG names it
(FIGURE_BLENDER), and tests/repository/test_readme_figures.py draws the picture again with that Blender and
compares byte for byte.
"""

from __future__ import annotations

import math
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from html import escape
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import devpath

ROOT = devpath.ROOT
OUT = ROOT / "docs" / "bytes_error.svg"
CLIP = "16_27"
FIGURE_BLENDER = "4.5"  # the pinned Blender (dev.py's key) that draws docs/bytes_error.svg
DEFAULT_TOLERANCE = 0.01  # degrees: the export's default
TOLERANCES = (0.003, DEFAULT_TOLERANCE, 0.03, 0.1, 0.3, 1.0)
PEERS = ("gltfpack", "glTF-Transform")


@dataclass
class Point:
    label: str
    file_bytes: int
    max_deg: float


def measure() -> tuple[str, list[Point]]:
    """(Blender's version, the points): the bundled exporter, the peers, ours at each tolerance."""
    bench = devpath.load_module("gltf_sqlerp_bench_real_export", ROOT / "bench" / "bench_real_export.py")
    rc = bench.load_real_clips()
    [source] = [clip for clip in rc.find_clips(bench.ASSETS) if clip.name == CLIP]
    peers_bin = bench.peers.ensure_peers()  # a figure without its peers is no figure: this raises
    folder = Path(tempfile.mkdtemp(prefix="gltf_sqlerp_bytes_error_"))
    rc.fidelity.enable_addon()
    try:
        rc.import_clip(source)
        paths = {mode: folder / f"{mode.replace(' ', '_')}.glb" for mode in ("bundled", "no animation")}
        for mode, path in paths.items():
            bench.export(mode, path)
        for label in PEERS:
            paths[label] = folder / f"{label}.glb"
            bench.peers.run_peer(peers_bin, label, paths["bundled"], paths[label])
        for tolerance in TOLERANCES:
            paths[f"ours {tolerance:g}"] = path = folder / f"ours_{tolerance:g}.glb"
            devpath.quiet(lambda path=path, tolerance=tolerance: rc.bpy.ops.export_scene.gltf_sqlerp(
                filepath=str(path), tolerance=tolerance))
        points = _measured(bench, rc, paths)
    finally:
        rc.fidelity.disable_addon()
        shutil.rmtree(folder, ignore_errors=True)
    return rc.bpy.app.version_string, points


def _measured(bench, rc, paths: dict[str, Path]) -> list[Point]:
    render = rc.bpy.context.scene.render
    motions, calibration, _ = bench.blender_motions(rc.core.load(str(paths["bundled"])), render)
    rate, baseline = render.fps / render.fps_base, paths["no animation"].stat().st_size
    points = []
    for mode, path in paths.items():
        if mode == "no animation":
            continue
        row = bench.measure(bench.Row(CLIP, mode), path, motions, calibration, rate, baseline)
        if row.failed or row.max_deg is None:
            raise RuntimeError(f"{mode}: {row.failed or 'no error measured'}")
        points.append(Point(mode, row.file_bytes, row.max_deg))
    return points


# --- drawing -------------------------------------------------------------------------------------

WIDTH, HEIGHT = 760, 400
LEFT, RIGHT, TOP, BOTTOM = 80, 30, 50, 70
DECADES = (-3, 2)  # the error axis: 0.001 to 100 degrees, logarithmic
COLOURS = {"bundled": "#d62728", "gltfpack": "#9467bd", "glTF-Transform": "#ff7f0e", "ours": "#2ca02c"}
NAMES = {"bundled": "Blender's bundled exporter", "gltfpack": "gltfpack (defaults)",
         "glTF-Transform": "glTF-Transform resample"}


def _x(degrees: float) -> float:
    low, high = DECADES
    fraction = (math.log10(max(degrees, 10.0 ** low)) - low) / (high - low)
    return LEFT + fraction * (WIDTH - LEFT - RIGHT)


def _y(file_bytes: int, top_bytes: int) -> float:
    return HEIGHT - BOTTOM - file_bytes / top_bytes * (HEIGHT - TOP - BOTTOM)


def _axes(top_bytes: int, step: int) -> list[str]:
    bottom, right = HEIGHT - BOTTOM, WIDTH - RIGHT
    parts = [f'<line x1="{LEFT}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#333"/>',
             f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="#333"/>']
    for decade in range(DECADES[0], DECADES[1] + 1):
        x = _x(10.0 ** decade)
        parts.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{bottom}" stroke="#ddd"/>')
        parts.append(f'<text x="{x:.1f}" y="{bottom + 18}" text-anchor="middle">{10.0 ** decade:g}°</text>')
    for value in range(0, top_bytes + 1, step):
        y = _y(value, top_bytes)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{value // 1000:,} KB</text>')
    parts.append(f'<text x="{(LEFT + right) / 2:.0f}" y="{HEIGHT - 30}" text-anchor="middle">largest world '
                 'rotation error of any bone, 8 samples per frame (degrees, log scale)</text>')
    return parts


# Where each label sits from its point: (text-anchor, dx, dy). The bundled exporter and glTF-Transform
# land on one spot (resample keeps the bundled file's error), so one label goes above, one below;
# the default's label hangs below our line, joined to its point.
PLACES = {"bundled": ("end", -9, 20), "glTF-Transform": ("end", -9, -9), "gltfpack": ("end", -9, -9),
          "default": ("start", -10, 90), "ours": ("start", 9, -9)}


def _marker(point: Point, colour: str, top_bytes: int, text: str, place: str) -> list[str]:
    x, y = _x(point.max_deg), _y(point.file_bytes, top_bytes)
    anchor, dx, dy = PLACES[place]
    leader = [f'<line x1="{x:.1f}" y1="{y + 6:.1f}" x2="{x:.1f}" y2="{y + dy - 13:.1f}" stroke="{colour}"/>'] \
        if dy > 30 else []
    return [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{colour}"/>', *leader,
            f'<text x="{x + dx:.1f}" y="{y + dy:.1f}" text-anchor="{anchor}" fill="{colour}">{escape(text)}</text>']


def _ours(points: list[Point], top_bytes: int) -> list[str]:
    ours = sorted((p for p in points if p.label.startswith("ours")), key=lambda p: p.max_deg)
    line = " ".join(f"{_x(p.max_deg):.1f},{_y(p.file_bytes, top_bytes):.1f}" for p in ours)
    parts = [f'<polyline points="{line}" fill="none" stroke="{COLOURS["ours"]}" stroke-width="2"/>']
    for point in ours:
        tolerance = point.label.split()[1]
        default = float(tolerance) == DEFAULT_TOLERANCE
        text = (f"this add-on, default ({tolerance}°): {point.file_bytes:,} B, {point.max_deg:.3g}°" if default
                else f"{tolerance}°")
        parts += _marker(point, COLOURS["ours"], top_bytes, text, "default" if default else "ours")
    return parts


def draw(version: str, points: list[Point]) -> str:
    """The SVG text: every point at its error (x) and bytes (y), ours joined in tolerance order."""
    step = 25_000
    top_bytes = step * math.ceil(max(p.file_bytes for p in points) * 1.15 / step)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
             f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
             f'<text x="{LEFT}" y="22" font-size="15" font-weight="bold">File bytes against rotation error: '
             f'a real capture clip (CMU {CLIP}, 120 fps)</text>',
             f'<text x="{LEFT}" y="40" fill="#555">Exported from Blender {escape(version)} (bpy); '
             'peers applied to the bundled file; lower left is better</text>', *_axes(top_bytes, step)]
    for point in (p for p in points if not p.label.startswith("ours")):
        parts += _marker(point, COLOURS[point.label], top_bytes,
                         f"{NAMES[point.label]}: {point.file_bytes:,} B, {point.max_deg:.3g}°", point.label)
    parts += _ours(points, top_bytes)
    return "\n".join(parts + ["</svg>"]) + "\n"


def main(argv: list[str]) -> int:
    devpath.ensure_bpy(__file__)
    out = Path(argv[0]) if argv else OUT
    version, points = measure()
    for point in points:
        print(f"{point.label:<16}{point.file_bytes:>10,} B{point.max_deg:>12.5f} deg", flush=True)
    out.write_text(draw(version, points), encoding="utf-8")
    print(f"wrote {out}", flush=True)
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(code)  # the bpy module of Blender 4.2 crashes at exit after a glTF export
