"""Long fuzzing campaign of the core's glTF reader (issue 6): the property of tests/core/test_fuzz_core.py
run for many more inputs, outside the test suite.
Figures of docs/manual/robustness.md: "Last campaign" (Security and robustness).

    python dev.py run bench/fuzz_campaign.py --minutes 10
    python dev.py run bench/fuzz_campaign.py --examples 20000 [--seed 1] [--out fuzz_escapes]

Each input is a seed file (our samples, glTF-Validator's animation cases, Khronos models) with one
to five structural mutations (tests/helpers/fuzz_strategies.py). Prints how many inputs were tried, how
many loaded, how many raised GltfError (by code), the peak traced memory and the slowest input;
every escape (another exception type, an input over the time limit or the memory bound, a GltfError
without code/pointer/message) is saved under --out with its recipe, and the exit code is 1.
"""

import argparse
import collections
import json
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import cast

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests"))
import devpath  # noqa: E402  (tools/devpath.py: how dev scripts import this repository)

devpath.import_package()
from gltf_sqlerp import core  # noqa: E402

from helpers import fuzz_strategies as fs  # noqa: E402
from hypothesis import HealthCheck, given, settings, seed as hypothesis_seed  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--examples", type=int, default=None, help="number of inputs to try")
    parser.add_argument("--minutes", type=float, default=None, help="time budget (default 10)")
    parser.add_argument("--seed", type=int, default=None, help="hypothesis seed (default: random)")
    parser.add_argument("--memory-mb", type=float, default=256.0)
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per input")
    parser.add_argument("--out", type=Path, default=ROOT / "fuzz_escapes")
    args = parser.parse_args(argv)
    minutes = args.minutes if args.minutes is not None or args.examples is not None else 10.0
    stop_at = time.monotonic() + minutes * 60 if minutes is not None else None
    examples = args.examples or 10**9

    outcomes, codes = collections.Counter(), collections.Counter()
    escapes = []
    stats = {"tried": 0, "peak": 0, "peak_case": None, "slowest": 0.0, "slowest_case": None}
    started = time.monotonic()

    class Budget(BaseException):
        """Out of time: a BaseException, so hypothesis stops at once instead of taking it for a
        failure and replaying the input."""

    with tempfile.TemporaryDirectory(prefix="gltf_fuzz_") as folder:
        # HealthCheckMeta.__iter__ is unannotated: pyright infers the metaclass, it yields HealthChecks.
        @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
                  suppress_health_check=cast(list[HealthCheck], list(HealthCheck)))
        @given(fs.cases())
        def campaign(case):
            if stop_at is not None and time.monotonic() > stop_at:
                raise Budget()
            stats["tried"] += 1
            try:
                outcome, peak, seconds = fs.run_case(core, case, folder, args.memory_mb, args.time_limit)
            except fs.Escape as escape:
                escapes.append(escape)
                _save(args.out, len(escapes), escape)
                return
            kind, _, code = outcome.partition(":")
            outcomes[kind] += 1
            if code:
                codes[code] += 1
            if peak > stats["peak"]:
                stats["peak"], stats["peak_case"] = peak, case
            if seconds > stats["slowest"]:
                stats["slowest"], stats["slowest_case"] = seconds, case
            if stats["tried"] % 1000 == 0:
                print(f"  {stats['tried']} inputs, {len(escapes)} escapes, "
                      f"{time.monotonic() - started:.0f} s", flush=True)

        if args.seed is not None:
            campaign = hypothesis_seed(args.seed)(campaign)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy's overflow/NaN casts of hostile data: expected
            try:
                campaign()
            except Budget:
                pass

    elapsed = time.monotonic() - started
    print(f"\ninputs tried: {stats['tried']} in {elapsed / 60:.1f} min "
          f"({stats['tried'] / max(elapsed, 1e-9):.0f}/s)")
    print(f"loaded and evaluated fine: {outcomes['ok']}")
    print(f"GltfError on load: {outcomes['GltfError']}; GltfError while evaluating: {outcomes['eval']}")
    for code, count in codes.most_common():
        print(f"  {count:7d}  {code}")
    print(f"peak traced memory of one input: {stats['peak'] / 2**20:.1f} MB "
          f"(bound {args.memory_mb:g} MB): {stats['peak_case']!r}")
    print(f"slowest input: {stats['slowest']:.3f} s (limit {args.time_limit:g} s): "
          f"{stats['slowest_case']!r}")
    print(f"escapes: {len(escapes)}" + (f" (saved in {args.out})" if escapes else ""))
    for escape in escapes[:20]:
        print(f"  {escape}")
    return 1 if escapes else 0


def _save(out, number, escape):
    """The input's files and its recipe, to reproduce with core.load(<folder>/fuzz.gl*)."""
    folder = out / f"escape_{number:04d}"
    folder.mkdir(parents=True, exist_ok=True)
    escape.case.write(folder)
    (folder / "escape.json").write_text(json.dumps(
        {"kind": escape.kind, "detail": escape.detail, "seed": escape.case.seed,
         "steps": escape.case.steps}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
