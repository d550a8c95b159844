"""The README's picture of the NLA after Add Clips to Rig: docs/nla_add_clips.svg.

Imports CesiumMan (../shared/assets) whole with this add-on, removes its clip (the rig), adds two
clip files onto it (CesiumMan's animation renamed Idle and Walk, written to a temporary folder),
and draws the rig's NLA tracks as Blender's NLA editor lists them (top track first), each strip
from its first to its last frame, and the scene's objects before and after (action names, which
differ between Blender versions, are left out so that every version draws the same picture).
Drawn from the scene, not a screenshot (the bpy module has no window to take one of).

    python dev.py run tools/plot_nla.py [OUT.svg]
"""

import json
import shutil
import sys
import tempfile
from html import escape
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CESIUM_MAN = ROOT.parent / "shared" / "assets" / "khronos" / "CesiumMan" / "glTF" / "CesiumMan.gltf"
WIDTH, LEFT, ROW = 760, 190, 26
OPERATOR = "gltf_sqlerp"  # import_scene's: the stubs do not know it


def clip_files(folder: Path) -> list[Path]:
    """idle.gltf and walk.gltf: CesiumMan with its animation renamed, buffer and texture beside."""
    for sibling in CESIUM_MAN.parent.iterdir():
        if sibling.suffix != ".gltf":
            shutil.copy(sibling, folder)
    paths = []
    for name in ("Idle", "Walk"):
        data = json.loads(CESIUM_MAN.read_text(encoding="utf-8"))
        data["animations"][0]["name"] = name
        path = folder / f"{name.lower()}.gltf"
        path.write_text(json.dumps(data), encoding="utf-8")
        paths.append(path)
    return paths


def measure() -> dict:
    """The rig's tracks after adding the clips: {objects_before, objects_after, rig, tracks}."""
    import bpy
    import runpy
    fidelity = runpy.run_path(str(ROOT / "tools" / "fidelity.py"), run_name="fidelity")
    fidelity["enable_addon"]()
    try:
        fidelity["import_gltf"](CESIUM_MAN)
        for data in [*bpy.data.objects, *bpy.data.shape_keys]:
            data.animation_data_clear()
        for action in list(bpy.data.actions):
            bpy.data.actions.remove(action)
        scene, view_layer = bpy.context.scene, bpy.context.view_layer
        assert scene is not None and view_layer is not None, "a bpy session has both"
        rig = next(o for o in scene.objects if o.type == 'ARMATURE')
        view_layer.objects.active = rig
        before = sorted(o.name for o in scene.objects)
        with tempfile.TemporaryDirectory() as folder:
            files = [{"name": p.name} for p in clip_files(Path(folder))]
            add_clips = getattr(bpy.ops.import_scene, OPERATOR)  # registered by enable_addon
            add_clips(directory=folder, files=files, onto='ACTIVE')
        assert rig.animation_data is not None, "the clips are stashed on the rig"
        tracks = [{"name": t.name, "mute": t.mute, "lock": t.lock,
                   "strips": [(s.frame_start, s.frame_end) for s in t.strips]}
                  for t in reversed(rig.animation_data.nla_tracks)]  # the editor lists the top first
        return {"objects_before": before, "objects_after": sorted(o.name for o in scene.objects),
                "rig": rig.name, "tracks": tracks, "actions": len(bpy.data.actions)}
    finally:
        fidelity["disable_addon"]()


def svg(found: dict) -> str:
    """The picture: a frame ruler, one row per track, the objects before and after."""
    frames = [f for track in found["tracks"] for start, end in track["strips"] for f in (start, end)]
    first, last = min(frames), max(frames)
    scale = (WIDTH - LEFT - 30) / max(last - first, 1.0)
    rows, top = len(found["tracks"]) + 1, 50
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{170 + ROW * rows}" '
           'font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="#303030"/>',
           f'<text x="12" y="22" font-size="14" fill="#e6e6e6">NLA of \'{escape(found["rig"])}\' after Add '
           'Clips to Rig (idle.gltf, walk.gltf), drawn from the scene</text>']
    out += _ruler(first, last, scale, top, rows)
    out.append(f'<rect x="0" y="{top}" width="{WIDTH}" height="{ROW}" fill="#3a3a3a"/>')
    out.append(f'<text x="12" y="{top + 17}" fill="#e6e6e6">▾ {escape(found["rig"])}</text>')
    for row, track in enumerate(found["tracks"], 1):
        out += _track(track, top + ROW * row, lambda frame: LEFT + 10 + (frame - first) * scale, scale)
    y = top + ROW * rows + 28
    before, after = (escape(", ".join(found[key])) for key in ("objects_before", "objects_after"))
    out.append(f'<text x="12" y="{y}" fill="#cfcfcf">Objects before: {before}</text>')
    out.append(f'<text x="12" y="{y + 20}" fill="#cfcfcf">Objects after: {after}; '
               f'{found["actions"]} actions, one per clip</text>')
    out.append("</svg>\n")
    return "\n".join(out)


def _ruler(first, last, scale, top, rows):
    """A vertical line and a label every 10 frames."""
    lines = []
    for frame in range(int(first), int(last) + 1, 10):
        x = LEFT + 10 + (frame - first) * scale
        lines.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + ROW * rows}" stroke="#3d3d3d"/>')
        lines.append(f'<text x="{x:.1f}" y="{top - 6}" fill="#999" text-anchor="middle">{frame}</text>')
    return lines


def _track(track, y, x, scale):
    """A track's name and its strips (x: frame -> x)."""
    state = " (muted, locked)" if track["mute"] and track["lock"] else ""
    lines = [f'<text x="28" y="{y + 17}" fill="#cfcfcf">{escape(track["name"])}{state}</text>']
    for start, end in track["strips"]:
        lines.append(f'<rect x="{x(start):.1f}" y="{y + 4}" width="{(end - start) * scale:.1f}" height="{ROW - 8}" '
                     'rx="3" fill="#5d6f8f" stroke="#9fb3d9" stroke-dasharray="4 2"/>')
        lines.append(f'<text x="{x(start) + 6:.1f}" y="{y + 17}" fill="#fff">{escape(track["name"])} clip, '
                     f'frames {round(start, 2):g}-{round(end, 2):g}</text>')
    return lines


def main(argv: list[str]) -> int:
    found = measure()
    out = Path(argv[0]) if argv else ROOT / "docs" / "nla_add_clips.svg"
    out.parent.mkdir(exist_ok=True)
    out.write_text(svg(found), encoding="utf-8")
    print(f"wrote {out}: {len(found['tracks'])} tracks on {found['rig']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
