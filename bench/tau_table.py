#!/usr/bin/env python3
"""Autocorrelation times against L from latmc --json files, and the fitted z.

    bench/tau_table.py RUN.json...              the table, the fits, the cross-check
    bench/tau_table.py --markdown RUN.json...   the table as in doc/clusters.md
    bench/tau_table.py --self-test

Each file is one `latmc --json` run (one algorithm, one L). tau_int is the library's
(lib/acc.c: the Madras-Sokal window, the smallest W >= 6 tau_int(W)), in measurements;
times --every that is sweeps, and for Wolff steps, which become sweeps times the mean
cluster size over N (the acceptance counters: accepted sites over steps x N).
The statistical error of tau is the Madras-Sokal one, sqrt(2 (2W + 1) / n) tau with
W = ceil(6 tau) (units cancel: n and W are both in measurements).

z is the slope of log tau against log L by weighted least squares (weights from the
relative error of each tau); its error is statistical only (no corrections to scaling)
and chi^2 per degree of freedom is printed beside it. Then <|m|> and the Binder
cumulant per L for every algorithm, the largest pairwise difference in units of the
combined error, and the chi^2 of the algorithms about their weighted mean summed over L
(the errors are latmc's: binning for <|m|>, 32 jackknife blocks for U4). Python's
standard library only.
"""
import json
import math
import sys

OBSERVABLES = (("absm", "|m|"), ("energy", "e"))


def tau_error(tau, n):
    """Madras-Sokal statistical error of tau_int from n measurements."""
    w = math.ceil(6.0 * tau)
    return tau * math.sqrt(2.0 * (2 * w + 1) / n)


def fit_power(points):
    """Weighted least squares of log y = a + z log L; points (L, y, dy).

    Returns (z, dz, chi2_per_dof) with dz from the fit's covariance (statistical)."""
    sw = sx = sy = sxx = sxy = 0.0
    for L, y, dy in points:
        w = (y / dy) ** 2  # 1 / var(log y)
        x, v = math.log(L), math.log(y)
        sw += w
        sx += w * x
        sy += w * v
        sxx += w * x * x
        sxy += w * x * v
    det = sw * sxx - sx * sx
    z = (sw * sxy - sx * sy) / det
    a = (sxx * sy - sx * sxy) / det
    dz = math.sqrt(sw / det)
    chi2 = sum(((math.log(y) - a - z * math.log(L)) * y / dy) ** 2 for L, y, dy in points)
    dof = len(points) - 2
    return z, dz, (chi2 / dof if dof > 0 else float("nan"))


def load(path):
    with open(path) as f:
        d = json.load(f)
    inp, run, obs = d["inputs"], d["run"], d["observables"]
    n = run["measurements"]
    # measurements -> sweeps (Wolff: steps). Measuring every k sweeps keeps tau in sweeps
    # only while k << tau (the table's runs use k = 1).
    scale = float(inp["every"])
    if inp["algorithm"] == "wolff":
        acc = d["acceptance"]
        scale *= acc["accepted"] / (run["measured_sweeps"] * run["sites"])
    row = {"algo": inp["algorithm"], "L": inp["extent"][0], "n": n, "cluster": scale,
           "binder": (d["derived"]["binder_u4"]["value"], d["derived"]["binder_u4"]["error"]),
           "absm_mean": (obs["absm"]["mean"], obs["absm"]["error"])}
    for key, _ in OBSERVABLES:
        t = obs[key]["tau_int"]
        # the estimator's own flags void tau; latmc's "rough" (n < 100 tau) is shown
        flags = [w for w in obs[key]["warnings"] if w != "rough"]
        if t is None or flags:
            raise SystemExit(f"{path}: tau_int of {key} flagged {flags}")
        row[key] = (t * scale, tau_error(t, n) * scale, n / t)
    return row


def fmt(x, dx):
    digits = max(0, 1 - int(math.floor(math.log10(dx)))) if dx > 0 else 2
    return f"{x:.{digits}f}({dx:.{digits}f})"


def report(rows):
    algos = sorted({r["algo"] for r in rows}, key=("metropolis", "heatbath", "sw", "wolff").index)
    sizes = sorted({r["L"] for r in rows})
    by = {(r["algo"], r["L"]): r for r in rows}
    print("tau_int in sweeps (statistical error); n/tau = measurements per tau")
    for a in algos:
        for key, name in OBSERVABLES:
            pts = []
            for L in sizes:
                r = by.get((a, L))
                if r:
                    t, dt, ratio = r[key]
                    pts.append((L, t, dt))
                    extra = f"  <|C|>/N {r['cluster']:.4f}" if a == "wolff" else ""
                    print(f"  {a:10s} L {L:4d} tau({name}) {fmt(t, dt):>14s}"
                          f"  n/tau {ratio:9.0f}{extra}")
            if len(pts) >= 2:
                z, dz, c = fit_power(pts)
                print(f"  {a:10s} z({name}) = {z:.3f} +- {dz:.3f}  (L = {pts[0][0]}..{pts[-1][0]},"
                      f" chi2/dof {c:.2f})")
    print("cross-check between algorithms: <|m|>, U4; max |difference| / combined error;")
    print("chi^2 of the algorithms about their weighted mean at each L, summed over L")
    total = {"absm_mean": [0.0, 0], "binder": [0.0, 0]}
    for L in sizes:
        rs = [by[(a, L)] for a in algos if (a, L) in by]
        for key in ("absm_mean", "binder"):
            vals = "  ".join(f"{r['algo']} {fmt(*r[key])}" for r in rs)
            worst = max((abs(p[key][0] - q[key][0]) / math.hypot(p[key][1], q[key][1])
                         for i, p in enumerate(rs) for q in rs[i + 1:]), default=0.0)
            c, dof = chi2_about_mean([r[key] for r in rs])
            total[key][0] += c
            total[key][1] += dof
            print(f"  L {L:4d} {key:9s} {vals}  max {worst:.2f} sigma")
    for key, (c, dof) in total.items():
        if dof:
            print(f"  {key}: chi^2 {c:.1f} for {dof} degrees of freedom,"
                  f" P(chi^2 larger) {chi2_survival(c, dof):.2f}")


def chi2_about_mean(values):
    """chi^2 of (value, error) pairs about their weighted mean, and its degrees of freedom."""
    w = [1.0 / e ** 2 for _, e in values]
    mean = sum(wi * v for wi, (v, _) in zip(w, values)) / sum(w)
    return sum(wi * (v - mean) ** 2 for wi, (v, _) in zip(w, values)), len(values) - 1


def chi2_survival(c, dof):
    """P(chi^2_dof > c) = 1 - P(dof/2, c/2), the regularised gamma function by its series."""
    a, x = dof / 2.0, c / 2.0
    if x <= 0.0:
        return 1.0
    term = total = 1.0 / a
    k = 0
    while term > 1e-15 * total and k < 10000:
        k += 1
        term *= x / (a + k)
        total += term
    return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - math.lgamma(a)))


def self_test():
    """An exact power law gives its exponent back; noise-free points give chi^2 = 0."""
    pts = [(L, 3.0 * L ** 2.25, 0.1 * 3.0 * L ** 2.25) for L in (8, 16, 32, 64)]
    z, dz, c = fit_power(pts)
    assert abs(z - 2.25) < 1e-12 and c < 1e-20, (z, c)
    # two points at relative error 10 %: dz = sqrt(2) 0.1 / log(2)
    z, dz, _ = fit_power([(8, 1.0, 0.1), (16, 2.0, 0.2)])
    assert abs(z - 1.0) < 1e-12 and abs(dz - math.sqrt(2) * 0.1 / math.log(2)) < 1e-12, dz
    # Madras-Sokal: tau 10 from n = 12100 measurements: W = 60, error 10 * sqrt(242/12100)
    assert abs(tau_error(10.0, 12100) - 10.0 * math.sqrt(242 / 12100)) < 1e-12
    # chi^2 survival: 2 degrees of freedom is exp(-c/2); 1 degree at c = 1 is 0.3173 (1 sigma)
    assert abs(chi2_survival(3.0, 2) - math.exp(-1.5)) < 1e-12
    assert abs(chi2_survival(1.0, 1) - 0.31731050786291404) < 1e-9
    c, dof = chi2_about_mean([(1.0, 1.0), (3.0, 1.0)])
    assert abs(c - 2.0) < 1e-12 and dof == 1, c
    print("tau_table self-test passed")


def markdown(rows):
    """The table of doc/clusters.md: tau in sweeps per algorithm and L, then the fitted z."""
    algos = sorted({r["algo"] for r in rows}, key=("metropolis", "heatbath", "sw", "wolff").index)
    names = {"metropolis": "Metropolis", "heatbath": "heat bath", "sw": "Swendsen-Wang",
             "wolff": "Wolff"}
    sizes = sorted({r["L"] for r in rows})
    by = {(r["algo"], r["L"]): r for r in rows}
    head = [f"{names[a]} tau({n})" for a in algos for _, n in OBSERVABLES]
    wolff = "wolff" in algos
    head = ["L"] + [h.replace("|", "\\|") for h in head] + (["Wolff <\\|C\\|>/N"] if wolff else [])
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for L in sizes:
        cells = [str(L)]
        for a in algos:
            for key, _ in OBSERVABLES:
                r = by.get((a, L))
                cells.append(fmt(*r[key][:2]) if r else "")
        if wolff:
            cells.append(f"{by[('wolff', L)]['cluster']:.4f}" if ("wolff", L) in by else "")
        print("| " + " | ".join(cells) + " |")
    cells = ["z"]
    for a in algos:
        for key, _ in OBSERVABLES:
            pts = [(L, *by[(a, L)][key][:2]) for L in sizes if (a, L) in by]
            z, dz, _ = fit_power(pts)
            cells.append(fmt(z, dz))
    print("| " + " | ".join(cells + ([""] if wolff else [])) + " |")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args == ["--self-test"]:
        self_test()
    elif args[:1] == ["--markdown"] and len(args) > 1:
        markdown([load(p) for p in args[1:]])
    elif not args or args[0].startswith("--"):
        raise SystemExit(__doc__)
    else:
        report([load(p) for p in args])
