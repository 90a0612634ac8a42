#!/usr/bin/env python3
"""T_c of the 2D Ising model from crossings of the Binder cumulant and of xi/L (Python
version of examples/ising_critical).

For each lattice size L and temperature T near T_c = 2.269..., run a Metropolis chain,
measure m^2, m^4, |m(0)|^2 and |m(k_min)|^2 every sweep and estimate
U4 = 1 - <m^4> / (3 <m^2>^2) and the second-moment correlation length over L,
xi/L = sqrt(<|m(0)|^2> / <|m(k_min)|^2> - 1) / (2 L sin(pi / L)), with their jackknife
errors (latmc's C accumulators; doc/observables.md). Both are scale-invariant at T_c, so
their curves for different L cross there (xi/L tends to 0.9050488292 at T_c, Salas and
Sokal 2000); the crossing of each pair (L, 2L) is found by linear interpolation of the
difference between the two temperatures where it changes sign, its error by propagating
the errors. With matplotlib installed the U4 curves are plotted (to --out).

    python binder_crossing.py            # L = 8, 16, 32: about a minute or two
    python binder_crossing.py --quick    # a few seconds (the tests run this)
"""
from __future__ import annotations

import argparse
import math
import sys
from typing import Dict, List, Optional, Tuple

import numpy as np

import latmc

T_C = 2.0 / math.log(1.0 + math.sqrt(2.0))  # Onsager


XI_L_STAR = 0.9050488292  # xi/L at T_c for L -> infinity (Salas and Sokal 2000)


def binder_curve(L: int, temps: np.ndarray, therm: int, sweeps: int,
                 seed: int) -> Tuple[Tuple[np.ndarray, np.ndarray],
                                     Tuple[np.ndarray, np.ndarray]]:
    """(U4, error) and (xi/L, error) at each temperature for an L x L lattice (xi/L NaN
    where it is not real: <|m(0)|^2> <= <|m(k_min)|^2>, far above T_c)."""
    u, du = np.empty(len(temps)), np.empty(len(temps))
    x, dx = np.full(len(temps), np.nan), np.full(len(temps), np.nan)
    with latmc.Sim("ising", (L, L), beta=1.0 / temps[0], algorithm="metropolis", device="cpu",
                   seed=seed) as sim:
        for i, T in enumerate(temps):
            sim.params["beta"] = 1.0 / T   # continue the chain: neighbouring T thermalise fast
            ser = sim.series(sweeps, therm=therm, observables=["m2", "m4", "m2_k0", "m2_kmin"])
            u[i], du[i] = ser.binder(nblocks=32)
            try:
                xi, dxi = ser.corr_length(L, nblocks=32)
                x[i], dx[i] = xi / L, dxi / L
            except latmc.InvalidArgument:
                pass
    return (u, du), (x, dx)


def crossing(temps: np.ndarray, ua, dua, ub, dub) -> Optional[Tuple[float, float]]:
    """T where U4_a(T) = U4_b(T), linear between the two grid points around the sign change
    of the difference, with the error from the four U4 errors (first order)."""
    d = ua - ub
    for i in range(len(temps) - 1):
        if not (math.isfinite(d[i]) and math.isfinite(d[i + 1])):
            continue
        if d[i] == 0 or d[i] * d[i + 1] < 0:
            t0, t1, d0, d1 = temps[i], temps[i + 1], d[i], d[i + 1]
            tc = t0 + (t1 - t0) * d0 / (d0 - d1)
            # dtc/dd0 = (t1-t0) * -d1/(d0-d1)^2, dtc/dd1 = (t1-t0) * d0/(d0-d1)^2
            g0 = (t1 - t0) * -d1 / (d0 - d1) ** 2
            g1 = (t1 - t0) * d0 / (d0 - d1) ** 2
            var = (g0 ** 2) * (dua[i] ** 2 + dub[i] ** 2) + (g1 ** 2) * (dua[i + 1] ** 2 + dub[i + 1] ** 2)
            return tc, math.sqrt(var)
    return None


def main(argv: Optional[List[str]] = None) -> Dict[str, object]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="small lattices, short chains")
    p.add_argument("--sizes", default=None, help="comma-separated L (default 8,16,32)")
    p.add_argument("--sweeps", type=int, default=None)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default="binder_crossing.png", help="plot file (needs matplotlib)")
    p.add_argument("--no-plot", action="store_true")
    args = p.parse_args(argv)

    if args.quick:
        sizes, temps, therm, sweeps = [4, 8], np.linspace(2.0, 2.6, 5), 200, 3000
    else:
        sizes, temps, therm, sweeps = [8, 16, 32], np.linspace(2.15, 2.40, 11), 2000, 40000
    if args.sizes:
        sizes = [int(s) for s in args.sizes.split(",")]
    if args.sweeps:
        sweeps = args.sweeps

    curves, xi_curves = {}, {}
    for k, L in enumerate(sizes):
        (u, du), (x, dx) = binder_curve(L, temps, therm, sweeps, args.seed + k)
        curves[L], xi_curves[L] = (u, du), (x, dx)
        print("L = %3d: " % L + "  ".join("U4(%.3f) = %.4f(%d)" % (T, v, round(1e4 * e))
                                          for T, v, e in zip(temps, u, du)))
        print("         " + "  ".join("xi/L(%.3f) = %s" % (T, "%.4f(%d)" % (v, round(1e4 * e))
                                                            if math.isfinite(v) else "--")
                                      for T, v, e in zip(temps, x, dx)))
    crossings, xi_crossings = [], []
    for what, table, found in (("U4", curves, crossings), ("xi/L", xi_curves, xi_crossings)):
        for a, b in zip(sizes, sizes[1:]):
            c = crossing(temps, *table[a], *table[b])
            if c is None:
                print("%s, L = %d, %d: no crossing in [%.3f, %.3f]"
                      % (what, a, b, temps[0], temps[-1]))
            else:
                found.append(c)
                print("%s, L = %d, %d: T* = %.4f +- %.4f   (exact T_c = %.4f, %+.1f sigma)"
                      % (what, a, b, c[0], c[1], T_C,
                         (c[0] - T_C) / c[1] if c[1] > 0 else 0.0))

    plotted = False
    if not args.no_plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("(matplotlib not installed: no plot)", file=sys.stderr)
        else:
            fig, ax = plt.subplots(figsize=(6, 4))
            for L, (u, du) in curves.items():
                ax.errorbar(temps, u, yerr=du, marker="o", capsize=2, label="L = %d" % L)
            ax.axvline(T_C, color="grey", ls="--", label="exact $T_c$")
            ax.set_xlabel("T")
            ax.set_ylabel("$U_4$")
            ax.legend()
            fig.tight_layout()
            fig.savefig(args.out, dpi=120)
            plt.close(fig)
            plotted = True
            print("plot written to", args.out)
    return {"temps": temps, "curves": curves, "crossings": crossings, "xi_curves": xi_curves,
            "xi_crossings": xi_crossings, "plotted": plotted}


if __name__ == "__main__":
    main()
