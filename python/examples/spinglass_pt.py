"""The 3D Edwards-Anderson (+-J) Ising spin glass with parallel tempering, from Python: the
study of examples/spinglass_pt (C) through latmc.Ensemble, giving the same numbers for the
same seed (python/tests/test_ensemble.py compares the two).

For each L: n_samples disorder samples x n_T temperatures x 2 replicas in one ensemble,
replica exchange after every sweep; measured every 2 sweeps: the overlap q^2 of the two
replicas and the energy. Per L the Binder ratio g(T) = (3 - [<q^4>] / [<q^2>]^2) / 2 with
jackknife errors over samples; the curves of different L cross at the transition
(T_c = 1.120(4), Katzgraber, Koerner and Young, PRB 73, 224432 (2006)). So does xi_SG/L,
the second-moment correlation length of the overlap over L,
xi_SG = sqrt([<q^2>] / [<|q(k_min)|^2>] - 1) / (2 sin(pi / L)) (the overlap "qkmin2" and
latmc.corr_length_sg), the usual estimator of T_c in spin glasses; it is measured on the
CPU only (the ensembles sum it on the host, from the members' configurations).

    python spinglass_pt.py            L = 4,6,8, 64 samples, 12 temperatures in [0.9, 2.0]
    python spinglass_pt.py --quick    L = 4,6, 6 samples, 6 temperatures, 400 + 400 sweeps
"""
from __future__ import annotations

import argparse
import math
import time
from typing import List, Tuple

import numpy as np

import latmc

TC_REF, TC_REF_ERR = 1.120, 0.004
MASK64 = 2**64 - 1


def chain_seed(base: int, index: int) -> int:
    """The C examples' ex_chain_seed: base and index in separate halves of the seed."""
    return ((base << 32) ^ (index & 0xFFFFFFFF)) & MASK64


def run_size(L: int, n_samples: int, n_temps: int, tmin: float, tmax: float, therm: int,
             sweeps: int, seed: int, threads: int, device: str) -> dict:
    """One L: the ensemble, thermalisation, measurements; g(T) with errors, e(T), the
    exchange acceptance and round trips."""
    scale = max(L * L // 16, 1)
    therm = therm or 2000 * scale
    sweeps = sweeps or 2000 * scale
    # beta increasing = T decreasing; temperatures geometric, denser where it is cold
    T = [tmax * math.pow(tmin / tmax, t / (n_temps - 1)) for t in range(n_temps)]
    betas = [1.0 / x for x in T]
    with latmc.Ensemble("ising", (L, L, L), samples=n_samples, betas=betas, replicas=2,
                        couplings="bimodal", algorithm="metropolis", device=device,
                        seed=chain_seed(seed, L), coupling_seed=chain_seed(seed + 1000, L),
                        threads=threads, exchange_every=1) as ens:
        ens.sweep(therm)
        acc0, att0 = ens.exchange_counts
        every = 2
        nmeas = sweeps // every
        sum2 = np.zeros((n_samples, n_temps))
        sum4 = np.zeros((n_samples, n_temps))
        sumk = np.zeros((n_samples, n_temps))
        with_xi = device == "cpu"
        esum = [0.0] * n_temps
        for _ in range(nmeas):
            ens.sweep(every)
            q2 = ens.overlaps("q2")
            sum2 += q2
            sum4 += q2 * q2          # q^4 = (q^2)^2, as the overlap "q4" is
            if with_xi:
                sumk += ens.overlaps("qkmin2")
            # the energies summed in the C example's order (sample, temperature, replica)
            for k, e in enumerate(ens.observable("energy").ravel()):
                esum[(k // 2) % n_temps] += float(e)
        acc1, att1 = ens.exchange_counts
        trips, trip_mean = ens.round_trips
    g, err = latmc.binder_g(sum2 / nmeas, sum4 / nmeas, components=1)
    xil, xierr = np.full(n_temps, math.nan), np.full(n_temps, math.nan)
    for t in range(n_temps):
        if not with_xi:
            break
        try:  # no real xi_SG where [<q^2>] <= [<|q(k_min)|^2>] (high T, few samples): NaN
            x, dx = latmc.corr_length_sg(sum2[:, t] / nmeas, sumk[:, t] / nmeas, L)
            xil[t], xierr[t] = x / L, dx / L
        except latmc.InvalidArgument:
            pass
    e = [esum[t] / (nmeas * n_samples * 2) for t in range(n_temps)]
    acc = [float(acc1[t] - acc0[t]) / float(att1[t] - att0[t])
           if t + 1 < n_temps and att1[t] > att0[t] else math.nan for t in range(n_temps)]
    return {"L": L, "T": T, "g": g, "err": err, "e": e, "acc": acc, "trips": trips,
            "trip_mean": trip_mean, "xil": xil, "xierr": xierr}


def crossing(a: dict, b: dict, y: str = "g", e: str = "err") -> Tuple[float, float]:
    """Where y_a - y_b (g, or "xil" with errors "xierr") changes sign, by linear
    interpolation in T; NaN if nowhere."""
    best, err = math.nan, math.nan
    for t in range(len(a["T"]) - 1):
        d0 = a[y][t] - b[y][t]
        d1 = a[y][t + 1] - b[y][t + 1]
        if d0 == 0 or d0 * d1 < 0:
            f = d0 / (d0 - d1)
            best = a["T"][t] + f * (a["T"][t + 1] - a["T"][t])
            sd = math.sqrt(a[e][t] * a[e][t] + b[e][t] * b[e][t])
            slope = abs((d1 - d0) / (a["T"][t + 1] - a["T"][t]))
            err = sd / slope if slope > 0 else math.nan
    return best, err


def main(argv: List[str] = None) -> int:
    p = argparse.ArgumentParser(description="3D +-J Ising spin glass with parallel tempering: "
                                "Binder ratio g(T) per L (latmc.Ensemble)")
    p.add_argument("--quick", action="store_true",
                   help="L = 4,6, 6 samples, 6 temperatures, 400 + 400 sweeps")
    p.add_argument("--L", default=None, help="lattice sizes, even (default 4,6,8)")
    p.add_argument("--samples", type=int, default=None)
    p.add_argument("--temps", type=int, default=None)
    p.add_argument("--tmin", type=float, default=0.9)
    p.add_argument("--tmax", type=float, default=2.0)
    p.add_argument("--therm", type=int, default=None)
    p.add_argument("--sweeps", type=int, default=None)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    Ls = [4, 6] if a.quick else [4, 6, 8]
    if a.L:
        Ls = [int(x) for x in a.L.split(",")]
    n_samples = a.samples or (6 if a.quick else 64)
    n_temps = a.temps or (6 if a.quick else 12)
    therm = a.therm if a.therm is not None else (400 if a.quick else 0)
    sweeps = a.sweeps if a.sweeps is not None else (400 if a.quick else 0)
    print("3D +-J Ising spin glass, parallel tempering: %d samples x %d temperatures x "
          "2 replicas per L, T in [%g, %g], on the %s"
          % (n_samples, n_temps, a.tmin, a.tmax, "GPU (CUDA)" if a.device == "cuda" else "CPU"))
    curves = []
    for L in Ls:
        t0 = time.perf_counter()
        c = run_size(L, n_samples, n_temps, a.tmin, a.tmax, therm, sweeps, a.seed, a.threads,
                     a.device)
        curves.append(c)
        print("\nL = %d (%.1f s; %d round trips, mean %.0f sweeps)\n"
              "     T        g        err     e/N     swap acc.   xi_SG/L    err"
              % (L, time.perf_counter() - t0, c["trips"], c["trip_mean"]))
        for t in range(n_temps):
            print("  %6.4f  %7.4f  %7.4f  %7.4f  %6.3f    %7.4f  %7.4f"
                  % (c["T"][t], c["g"][t], c["err"][t], c["e"][t], c["acc"][t], c["xil"][t],
                     c["xierr"][t]))
    print()
    for a_, b_ in zip(curves, curves[1:]):
        x, dx = crossing(a_, b_)
        if math.isnan(x):
            print("crossing L = %d / %d: none in [%g, %g]" % (a_["L"], b_["L"], a.tmin, a.tmax))
        else:
            print("crossing L = %d / %d: T = %.3f +- %.3f" % (a_["L"], b_["L"], x, dx))
        x, dx = crossing(a_, b_, "xil", "xierr")
        if math.isnan(x):
            print("  xi_SG/L: no crossing in [%g, %g]" % (a.tmin, a.tmax))
        else:
            print("  xi_SG/L: T = %.3f +- %.3f" % (x, dx))
    print("reference: T_c = %.3f(%d), Katzgraber, Koerner, Young, PRB 73, 224432 (2006)"
          % (TC_REF, int(TC_REF_ERR * 1000)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
