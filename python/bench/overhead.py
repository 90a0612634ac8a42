#!/usr/bin/env python3
"""Overhead of the Python layer against the same loops in C (a benchmark, not a test).

Compiles loop.c (beside this file) with the system cc against the liblatmc the package
loaded, then times, alternating C and Python runs and keeping each side's best:

0. ``sim.sweep(0)`` (a no-op sweep: the cost of the call itself) against the C loop;
1. ``sim.sweep(1)`` in a loop on an L x L Ising lattice (default 16x16) against the C loop
   of ``latmc_sim_sweep(sim, 1)``: the difference is the Python cost per call (goal: < 2 us);
2. a time series of N measurements (default 1e5; each one sweep plus energy, |m|, m^2,
   m^4) by ``sim.series()`` against the C loop (goal: within 1.2x).

    python python/bench/overhead.py [--L 16] [--n 200000] [--series-n 100000] [--threads 1]
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import latmc

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def build(tmp: Path) -> Path:
    cc = os.environ.get("CC") or shutil.which("cc") or "gcc"
    real = Path(latmc.library_path()).resolve()
    (tmp / "liblatmc.so.1").symlink_to(real)
    (tmp / "liblatmc.so").symlink_to(real)
    exe = tmp / "loop"
    subprocess.run([cc, "-std=c11", "-O2", "-I", str(REPO / "include"), str(HERE / "loop.c"),
                    "-o", str(exe), "-L", str(tmp), "-llatmc", "-Wl,-rpath," + str(tmp)],
                   check=True)
    return exe


def c_run(exe: Path, mode: str, L: int, n: int, threads: int) -> float:
    out = subprocess.run([str(exe), mode, str(L), str(n), str(threads)], check=True,
                         capture_output=True, text=True).stdout
    return float(out)


def py_sweep(L: int, n: int, threads: int, k: int = 1) -> float:
    with latmc.Sim("ising", (L, L), beta=0.4406868, algorithm="metropolis", device="cpu",
                   seed=1, threads=threads) as sim:
        sim.sweep(1000)
        sweep = sim.sweep
        t0 = time.perf_counter()
        for _ in range(n):
            sweep(k)
        return (time.perf_counter() - t0) / n * 1e9


def py_series(L: int, n: int, threads: int) -> float:
    with latmc.Sim("ising", (L, L), beta=0.4406868, algorithm="metropolis", device="cpu",
                   seed=1, threads=threads) as sim:
        sim.sweep(1000)
        t0 = time.perf_counter()
        sim.series(n, observables=["energy", "abs_magnetization", "m2", "m4"])
        return time.perf_counter() - t0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--L", type=int, default=16)
    p.add_argument("--n", type=int, default=200000, help="sweep(1) calls per timing")
    p.add_argument("--series-L", type=int, default=16)
    p.add_argument("--series-n", type=int, default=100000)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeat", type=int, default=7)
    a = p.parse_args()
    print("liblatmc %s (%s), Python %s, %s, load %s" % (
        latmc.library_version(), latmc.library_path(), platform.python_version(),
        platform.processor() or platform.machine(), os.getloadavg()))
    with tempfile.TemporaryDirectory() as d:
        exe = build(Path(d))
        cs, ps, cser, pser, c0, p0 = [], [], [], [], [], []
        for _ in range(a.repeat):
            c0.append(c_run(exe, "sweep0", a.L, a.n, a.threads))
            p0.append(py_sweep(a.L, a.n, a.threads, 0))
            cs.append(c_run(exe, "sweep", a.L, a.n, a.threads))
            ps.append(py_sweep(a.L, a.n, a.threads))
            cser.append(c_run(exe, "series", a.series_L, a.series_n, a.threads))
            pser.append(py_series(a.series_L, a.series_n, a.threads))
    c, py = min(c0), min(p0)
    print("sweep(0), the call alone: C %.0f ns/call, Python %.0f ns/call -> Python layer "
          "%.2f us/call" % (c, py, (py - c) / 1e3))
    c, py = min(cs), min(ps)
    print("sweep(1) on %dx%d, %d threads: C %.0f ns/call, Python %.0f ns/call -> Python "
          "overhead %.2f us/call (goal < 2 us)" % (a.L, a.L, a.threads, c, py, (py - c) / 1e3))
    c, py = min(cser), min(pser)
    print("series of %d measurements on %dx%d (sweep + 4 observables each): C %.3f s, "
          "Python %.3f s -> ratio %.3f (goal <= 1.2); %.2f us per measurement in Python"
          % (a.series_n, a.series_L, a.series_L, c, py, py / c, (py - c) / a.series_n * 1e6))
    print("all runs (C, Python): sweep ns %s %s; series s %s %s"
          % ([round(x) for x in cs], [round(x) for x in ps], [round(x, 3) for x in cser],
             [round(x, 3) for x in pser]))


if __name__ == "__main__":
    sys.exit(main())
