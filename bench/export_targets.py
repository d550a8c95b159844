"""Issue 17's export targets, judged on one rig's rows of bench/bench_export.py (no bpy needed).

Every line states the measured figures beside the target, PASS or MISS: a missed target is never
rounded into a pass (no slack on the error bounds: 0.0100x degrees is over 0.01). The default
export's targets (file ratio, world errors, export time against the bundled exporter's, and the
median time ratio over a run) serve bench/bench_real_export.py's clips too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, TypeGuard

if TYPE_CHECKING:  # bench_export.py loads export_modes (bpy) by path; here for the annotations only
    from export_modes import Row

EXT_MAX_DEG, FALLBACK_MAX_DEG = 0.01, 0.1   # default settings, world rotations
DEFAULT_ANIM_RATIO = 2.0                    # keyed rigs (a): default animation bytes vs bundled
NONE_ANIM_RATIO = 4.0                       # keyed rigs (a): fallback NONE vs bundled
PEER_ANIM_RATIO = 2.0                       # ours at a peer's error vs that peer
FIT_SECONDS = 2.0                           # (c): the add-on's time on Blender's thread
# Export wall time of the default export against the bundled exporter's in the same run: at most
# TIME_RATIO times it, or where the bundled exporter takes under TIME_FAST_S, at most TIME_SLACK_S
# more (a ratio of two short times is mostly noise and worker start-up); the median ratio over the
# rigs or clips where it takes TIME_FAST_S or more at most MEDIAN_TIME_RATIO.
TIME_RATIO, TIME_FAST_S, TIME_SLACK_S, MEDIAN_TIME_RATIO = 3.0, 0.5, 1.0, 2.0


@dataclass
class Verdict:
    text: str
    met: bool

    def line(self) -> str:
        return f"{'PASS' if self.met else 'MISS'}  {self.text}"


def _ratio(bundled: int, this: int) -> float:
    return bundled / this if this > 0 else float("inf") if bundled > 0 else 0.0


def _usable(row: Row | None) -> TypeGuard[Row]:
    return row is not None and not row.failed


def _deg(value: float | None) -> str:
    return "-" if value is None else f"{value:.5f}°"


def default_targets(rows: Mapping[str, Row]) -> list[Verdict]:
    """Default settings (fallback AUTO): a smaller file than the bundled exporter's, and the
    world error bounds of the extension and of the fallback."""
    bundled, ours = rows.get("bundled"), rows.get("ours AUTO")
    if not (_usable(bundled) and _usable(ours)):
        return [Verdict("default export: cannot judge (an export failed)", False)]
    bounded = (ours.max_deg is not None and ours.max_deg <= EXT_MAX_DEG and ours.fallback_max_deg is not None
               and ours.fallback_max_deg <= FALLBACK_MAX_DEG)
    ratio = _ratio(bundled.file_bytes, ours.file_bytes)
    # Judged on the bytes, not on the printed ratio: 1.00x printed can be a larger file.
    return [Verdict(f"default file ratio (bundled bytes / ours) {ratio:.3f}x (>= 1.00x): {ours.file_bytes:,} B "
                    f"vs {bundled.file_bytes:,} B", ours.file_bytes <= bundled.file_bytes),
            Verdict(f"default world error: extension {_deg(ours.max_deg)} (<= {EXT_MAX_DEG}°), fallback "
                    f"{_deg(ours.fallback_max_deg)} (<= {FALLBACK_MAX_DEG}°)", bounded)]


def keyed_targets(rows: Mapping[str, Row]) -> list[Verdict]:
    """Keyed rigs (a): animation bytes of the default export >= 2x and of fallback NONE >= 4x
    smaller than the bundled exporter's."""
    bundled = rows.get("bundled")
    verdicts = []
    for label, target in (("ours AUTO", DEFAULT_ANIM_RATIO), ("ours NONE", NONE_ANIM_RATIO)):
        ours = rows.get(label)
        if not (_usable(bundled) and _usable(ours)):
            verdicts.append(Verdict(f"{label} animation bytes: cannot judge (an export failed)", False))
            continue
        ratio = _ratio(bundled.anim_bytes, ours.anim_bytes)
        verdicts.append(Verdict(f"{label} animation bytes {ratio:.2f}x smaller than the bundled exporter's "
                                f"(>= {target:g}x): {ours.anim_bytes:,} B vs {bundled.anim_bytes:,} B",
                                ratio >= target))
    return verdicts


def peer_targets(rows: Mapping[str, Row], peer_anim: dict[str, int]) -> list[Verdict]:
    """Ours at each peer's measured world error (tolerance and fallback tolerance set to it):
    animation bytes >= 2x smaller than the peer's (``peer_anim``: the peer's animation bytes, the
    smaller of its file minus our no-animation file and minus the peer applied to that file), with
    world errors (extension and fallback) no larger than the peer's."""
    verdicts = []
    for peer, peer_bytes in peer_anim.items():
        theirs, ours = rows.get(peer), rows.get(f"ours @{peer}")
        if not (_usable(theirs) and _usable(ours)) or theirs.max_deg is None or ours.max_deg is None:
            verdicts.append(Verdict(f"ours at {peer}'s error: cannot judge (an export or the peer failed)", False))
            continue
        ratio = _ratio(peer_bytes, ours.anim_bytes)
        within = ours.max_deg <= theirs.max_deg and (ours.fallback_max_deg or 0.0) <= theirs.max_deg
        verdicts.append(Verdict(
            f"ours at {peer}'s error ({theirs.max_deg:.4f}°): animation bytes {ratio:.2f}x smaller than "
            f"{peer}'s (>= {PEER_ANIM_RATIO:g}x): {ours.anim_bytes:,} B vs {peer_bytes:,} B; our world "
            f"error {_deg(ours.max_deg)}, fallback {_deg(ours.fallback_max_deg)} (<= {peer}'s)",
            ratio >= PEER_ANIM_RATIO and within))
    return verdicts


def fit_target(rows: Mapping[str, Row]) -> list[Verdict]:
    """(c): the default export's fitting time on Blender's thread under 2 s (the other fallbacks'
    times in the same line, for reference)."""
    ours = rows.get("ours AUTO")
    if not _usable(ours) or ours.fit_s is None:
        return [Verdict("fitting time: cannot judge (the default export failed)", False)]
    others = ", ".join(f"{label.split()[1]} {row.fit_s:.2f} s" for label, row in rows.items()
                       if label in ("ours LINEAR", "ours NONE") and _usable(row) and row.fit_s is not None)
    bundled = rows.get("bundled")
    wall = (f"; export {ours.export_s:.1f} s vs the bundled exporter's {bundled.export_s:.1f} s alone"
            if _usable(bundled) else "")
    return [Verdict(f"fitting {ours.fit_s:.2f} s of Blender's thread with the default fallback "
                    f"(< {FIT_SECONDS:g} s; {others or 'no other fallback measured'}{wall})",
                    ours.fit_s < FIT_SECONDS)]


def time_target(ours_s: float | None, bundled_s: float | None) -> Verdict:
    """The default export's wall time against the bundled exporter's (TIME_RATIO, or TIME_SLACK_S
    more where the bundled exporter takes under TIME_FAST_S)."""
    if ours_s is None or bundled_s is None:
        return Verdict("export time: cannot judge (an export failed)", False)
    ratio = ours_s / bundled_s if bundled_s > 0 else float("inf")
    if bundled_s < TIME_FAST_S:
        return Verdict(f"default export time {ours_s:.2f} s vs the bundled exporter's {bundled_s:.2f} s "
                       f"({ratio:.2f}x; it takes under {TIME_FAST_S:g} s: at most {TIME_SLACK_S:g} s more, "
                       f"{ours_s - bundled_s:+.2f} s)", ours_s <= bundled_s + TIME_SLACK_S)
    return Verdict(f"default export time {ours_s:.2f} s vs the bundled exporter's {bundled_s:.2f} s: "
                   f"{ratio:.2f}x (<= {TIME_RATIO:g}x)", ratio <= TIME_RATIO)


def median_time_target(times: list[tuple[str, float, float]]) -> Verdict:
    """The median of the default export's time ratio over the (name, ours s, bundled s) where the
    bundled exporter takes TIME_FAST_S or more (none: nothing to judge, said so, met)."""
    slow = sorted((ours / bundled, name) for name, ours, bundled in times if bundled >= TIME_FAST_S)
    if not slow:
        return Verdict(f"median export time ratio: no rig or clip where the bundled exporter takes "
                       f"{TIME_FAST_S:g} s or more in this run (nothing to judge)", True)
    ratios = [r for r, _ in slow]
    middle = len(ratios) // 2
    median = ratios[middle] if len(ratios) % 2 else (ratios[middle - 1] + ratios[middle]) / 2
    listed = ", ".join(f"{name} {r:.2f}x" for r, name in slow)
    return Verdict(f"median default export time ratio {median:.2f}x (<= {MEDIAN_TIME_RATIO:g}x) over the "
                   f"{len(ratios)} where the bundled exporter takes >= {TIME_FAST_S:g} s: {listed}",
                   median <= MEDIAN_TIME_RATIO)


def print_targets(verdicts: Mapping[str, list[Verdict]], median: Verdict, over: str) -> int:
    """All target lines again, per rig or clip, then the median time ratio ``over`` them all;
    returns how many were missed."""
    print("\ntargets (issue 17):")
    for name, lines in verdicts.items():
        print(f"  {name}\n" + "\n".join(f"    {v.line()}" for v in lines))
    print(f"  over the {over}\n    {median.line()}")
    every = [v for lines in verdicts.values() for v in lines] + [median]
    missed = sum(not v.met for v in every)
    print(f"  {len(every) - missed} passed, {missed} missed")
    return missed
