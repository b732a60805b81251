"""How often does the near-copy list flag honest work, and does it find disguised copies?

Both directions, for every exercise, compared the way a class run compares (``reports/near_copies``:
the released notebook's code and the course's worked examples as boilerplate):

* honest: the independently written, correct styles of ``autograder.demo.independent`` (the
  reference and two or more styles per exercise, five for attention), every pair of them. Prints
  the pairs flagged (the false-flag rate) and the most alike honest pair's share.
* planted: each style copied and disguised each way of ``autograder.demo.disguises`` (padded with
  statements that do nothing, locals renamed, independent statements swapped, dead code added,
  all combined), several draws each; the original and its copy compared. Prints how many are found.

With ``--before`` it also prints what the comparison gave without the canonical form (the copies
compared as handed in, copydetect's own normalisation only), for comparison.

    .venv/bin/python benchmarks/near_copies.py [--draws 3] [--before]
"""
from __future__ import annotations

import argparse
import random
import sys
from itertools import combinations

from autograder.core.registry import EXERCISES
from autograder.demo.disguises import KINDS, disguised
from autograder.demo.independent import styles
from autograder.reports import near_copies
from autograder.reports.boilerplate import released_code


def _share(a, b, exercise, released, boilerplate):
    """The smaller share of two hand-ins as a class run computes it, whether listed or not (the
    thresholds lifted for the one comparison)."""
    kept = near_copies.SHARE, near_copies.MIN_TOKENS
    near_copies.SHARE, near_copies.MIN_TOKENS = 0.0, 0
    try:
        found = near_copies.code_pairs({"a": a, "b": b}, exercise.functions, released, boilerplate)
    finally:
        near_copies.SHARE, near_copies.MIN_TOKENS = kept
    return min(found[0]["share"]) if found else 0.0


def measure(draws: int) -> dict:
    """``{"honest": [(exercise, a, b, flagged, share)], "planted": [(exercise, style, kind, flagged)]}``."""
    out = {"honest": [], "planted": []}
    for name, exercise in EXERCISES.items():
        released, boilerplate = released_code(exercise)
        by_style = styles(exercise)
        for a, b in combinations(sorted(by_style), 2):
            found = near_copies.code_pairs({a: by_style[a], b: by_style[b]}, exercise.functions, released, boilerplate)
            out["honest"].append((name, a, b, bool(found), _share(by_style[a], by_style[b], exercise, released, boilerplate)))
        rng = random.Random(f"near-copies {name}")
        for style, regions in sorted(by_style.items()):
            for kind in KINDS:
                for _ in range(draws):
                    copy = disguised(regions, kind, rng)
                    found = near_copies.code_pairs({"original": regions, "copy": copy}, exercise.functions,
                                                   released, boilerplate)
                    out["planted"].append((name, style, kind, bool(found)))
    return out


def report(figures: dict, label: str) -> None:
    honest, planted = figures["honest"], figures["planted"]
    flagged = [h for h in honest if h[3]]
    print(f"{label}\n  honest independent styles: {len(flagged)} of {len(honest)} pairs flagged "
          f"(false-flag rate {len(flagged) / len(honest):.1%}); the most alike honest pair's smaller share "
          f"{max(h[4] for h in honest):.2f}")
    for h in flagged:
        print(f"    flagged: {h[0]} {h[1]} / {h[2]} (share {h[4]:.2f})")
    for name in EXERCISES:
        rows = [h for h in honest if h[0] == name]
        print(f"    {name}: {sum(h[3] for h in rows)} of {len(rows)} honest pairs flagged, "
              f"most alike {max(h[4] for h in rows):.2f}")
    for kind in KINDS:
        rows = [p for p in planted if p[2] == kind]
        print(f"  planted {kind}: {sum(p[3] for p in rows)} of {len(rows)} found")
    missed = [p for p in planted if not p[3]]
    print(f"  planted, all kinds: {len(planted) - len(missed)} of {len(planted)} found "
          f"(detection rate {1 - len(missed) / len(planted):.1%})"
          + "".join(f"\n    missed: {p[0]} {p[1]} {p[2]}" for p in missed[:20]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=3, help="disguised copies per style and kind")
    parser.add_argument("--before", action="store_true", help="also without the canonical form")
    args = parser.parse_args()
    print(f"thresholds: share >= {near_copies.SHARE} of each code, >= {near_copies.MIN_TOKENS} characters "
          f"of normalised code shared")
    report(measure(args.draws), "with the canonical form (as a class run compares):")
    if args.before:
        joined = lambda regions, functions: "\n\n".join(regions.get(f, "") for f in functions)  # noqa: E731
        near_copies.normalise = joined
        import autograder.reports.boilerplate as boilerplate_module
        boilerplate_module._canonical_boilerplate.clear()
        import autograder.reports.normalise as normalise_module
        normalise_module.normalise = joined
        report(measure(args.draws), "without it (the copies compared as handed in):")
    return 0


if __name__ == "__main__":
    sys.exit(main())
