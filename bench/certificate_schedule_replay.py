#!/usr/bin/env python3
"""Replays the dual solvers' certificate schedule (snapml/impl/certificate_schedule.h)
on recorded fits and compares rules for the rate that predicts the epochs left.

A fit's path does not depend on when it certifies (snap-train --history certifies
after every epoch for the record only), so one --history CSV per fit gives the
relative gap after every epoch, and each rule can be replayed on it: where it
certifies, where it stops, and its cost in epochs (a certificate counted as a third
of an epoch, a logistic gap pass's cost):

    snap-train -s 7 -c 1 -B 1 -e 1e-4 -n 2 --max-iter 1000 --history a9a-s7-t2.csv DATA MODEL
    python3 bench/certificate_schedule_replay.py a9a-s7-t2.csv w8a-s3-t1.csv ...

Rules: the rate over the last interval (before 2026-11-27), over the last two (the
schedule's rate), over the last three, and the fastest and mean of those, each
certifying after half the predicted epochs (the hinge's share); and the rate
over two intervals certifying after 3/4 or all of them (all: the smooth losses'
share since 2026-11-28). Each row is stop epoch /
certificates; the last line sums cost over first epoch at the target across the
fits (lower is better). --tol for fits recorded to another target,
--certificate-cost for a gap pass dearer than a third of an epoch.
"""
import argparse
import csv
import math

TOL = 1e-4  # --tol
MAX_SKIP = 8


def gaps(path):
    out = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            out[int(row["epoch"])] = float(row["relative_gap"])
    return out


def rule(choose, window, share=0.5):
    """The next certificate after `share` of the predicted epochs (the hinge's half, the smooth losses' all)."""
    def skip_after(history, epoch, gap, last_skip):
        skip = max(1, last_skip // 2)
        if not history or gap >= history[-1][1] or gap <= 0.0:
            return skip  # a gap that did not fall predicts nothing
        rates = [math.log(gap / g) / (epoch - e) for e, g in history[-window:] if e < epoch and g > gap]
        if not rates:
            return skip
        remaining = math.log(TOL / gap) / choose(rates)
        return int(min(max(math.floor(share * remaining), 1), min(MAX_SKIP, max(1, epoch))))
    return skip_after


RULES = {
    "last interval (before)": rule(lambda r: r[-1], 1),
    "two intervals (the hinge's now)": rule(lambda r: r[0], 2),
    "three intervals": rule(lambda r: r[0], 3),
    "fastest of three": rule(min, 3),
    "mean of three": rule(lambda r: sum(r) / len(r), 3),
    "two intervals, 3/4 of the epochs": rule(lambda r: r[0], 2, 0.75),
    "two intervals, all the epochs (smooth losses' now)": rule(lambda r: r[0], 2, 1.0),
}


def replay(g, skip_after):
    history, next_epoch, last_skip, certificates = [], 0, 1, 0
    for epoch in range(1, max(g) + 1):
        if epoch < next_epoch:
            continue
        certificates += 1
        if g[epoch] <= TOL:
            return epoch, certificates
        last_skip = skip_after(history, epoch, g[epoch], last_skip)
        history.append((epoch, g[epoch]))
        next_epoch = epoch + last_skip
    return max(g), certificates


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("histories", nargs="+")
    parser.add_argument("--tol", type=float, default=1e-4, help="the relative gap the fits stop at (default 1e-4)")
    parser.add_argument("--certificate-cost", type=float, default=1.0 / 3.0,
                        help="a certificate's cost in epochs (default 1/3, a logistic gap pass)")
    args = parser.parse_args()
    global TOL
    TOL = args.tol
    cost = args.certificate_cost
    totals = {name: 0.0 for name in RULES}
    print("| fit | first epoch at 1e-4 | " + " | ".join(RULES) + " |")
    print("|---" * (len(RULES) + 2) + "|")
    for path in args.histories:
        g = gaps(path)
        first = next((e for e in sorted(g) if g[e] <= TOL), None)
        if first is None:
            continue
        cells = []
        for name, skip_after in RULES.items():
            stop, certificates = replay(g, skip_after)
            totals[name] += (stop + cost * certificates) / first
            cells.append(f"{stop} / {certificates}")
        print(f"| {path.rsplit('/', 1)[-1]} | {first} | " + " | ".join(cells) + " |")
    print(f"| sum of (stop + {cost:.2f} x certificates) / first | | " + " | ".join(f"{v:.2f}" for v in totals.values()) + " |")


if __name__ == "__main__":
    main()
