"""``python -m latmc``: the default job of the ``latmc`` program, from Python.

With no arguments: the 2D Ising model at the critical temperature on a 128x128 lattice
(10000 thermalization sweeps, 230000 measured, every 10th measured), printing energy,
magnetisation moments, Binder cumulant, susceptibility and specific heat with errors and
autocorrelation times, and the exact energy and specific heat of that lattice
(``--quick``: the same job with 1000 + 10000 sweeps). Options
choose another job (``python -m latmc --help``); bad arguments exit with status 2, library
failures with 1, as the C program does.
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Dict, List, Optional

# The default demo of examples/latmc (cli_options.h): 2D Ising at beta_c.
DEMO_L, DEMO_THERM, DEMO_SWEEPS, DEMO_EVERY = 128, 10000, 230000, 10
# Exact energy and specific heat per site of the 128x128 periodic lattice at beta_c
# (Kaufman 1949), the values the C program prints next to its results.
DEMO_EXACT_E, DEMO_EXACT_C = -1.4190762721, 2.5363313351
ISING2D_BETA_C = 0.44068679350977151262
# --quick: the default job, shortened (for checks such as tools/ci-python.sh).
QUICK_THERM, QUICK_SWEEPS = 1000, 10000
# -L's default by model (another model: 16)
DEFAULT_L = {"ising": 32, "potts": 32, "phi4": 16, "heisenberg": 8}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m latmc",
        description="Monte Carlo on a lattice with liblatmc. Without options: the 2D Ising "
                    "model at beta_c on 128x128 (the latmc program's default job).")
    # the library's models (latmc.MODELS), checked in main(): --help needs no library
    p.add_argument("--model", default=None, help="the model (default ising)")
    p.add_argument("-L", "--size", default=None,
                   help="extent L (L x L, or L^3 with --dim 3) or LxxLy[xLz]")
    p.add_argument("--dim", type=int, default=None, choices=[2, 3])
    p.add_argument("--beta", type=float, default=None)
    p.add_argument("--q", type=int, default=2, help="Potts states")
    p.add_argument("--algo", default="default",
                   choices=["default", "metropolis", "heatbath", "overrelax", "sw", "wolff"])
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="a model parameter (mu2, g, lambda, epsilon, nhit, nloc, nover, J, h, "
                        "decisions)")
    p.add_argument("--couplings", default="uniform", choices=["uniform", "gaussian", "bimodal"])
    p.add_argument("--replicas", type=int, default=1)
    p.add_argument("--precision", default="double", choices=["double", "float"])
    p.add_argument("--therm", type=int, default=None, help="thermalization sweeps")
    p.add_argument("--sweeps", type=int, default=None, help="measured sweeps")
    p.add_argument("--every", type=int, default=None, help="sweeps between measurements")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--csv", default=None, help="write the time series to this CSV file")
    p.add_argument("--progress", action="store_true", help="show a progress bar")
    p.add_argument("--devices", action="store_true", help="list devices and backends, exit")
    p.add_argument("--quick", action="store_true",
                   help="the default job with %d + %d sweeps (a check that it runs)"
                        % (QUICK_THERM, QUICK_SWEEPS))
    return p


def _shape(size: Optional[str], dim: int, default: int) -> tuple:
    if size is None:
        return (default,) * dim
    parts = [int(s) for s in size.lower().split("x")]
    if len(parts) == 1:
        parts = parts * dim
    return tuple(reversed(parts))  # Lx x Ly [x Lz] on the command line, numpy order here


def _row(name: str, mean: float, err: float, tau: Optional[float]) -> str:
    # NaN: a statistic the series cannot give (latmc.DegenerateWarning said why), printed
    # as the program latmc prints it, never as a confident 0
    t = ("%.2f" % tau if tau == tau else "n/a !") if tau is not None else ""
    e = "%12.2e" % err if err == err else "%12s" % "n/a !"
    return "  %-18s %16.10f %s %9s" % (name, mean, e, t)


def main(argv: Optional[List[str]] = None) -> int:
    args = _parser().parse_args(argv)
    import latmc

    if args.model is not None and args.model not in latmc.MODELS:
        _parser().error("argument --model: invalid choice: %r (choose from %s)"
                        % (args.model, ", ".join(repr(m) for m in latmc.MODELS)))

    if args.devices:
        for d in latmc.devices():
            print("%s %d: %s" % (d.device, d.index, d.name))
        print("cuda backend:", latmc.backend_status("cuda"))
        return 0

    sim_options = [args.model, args.size, args.dim, args.beta, args.therm, args.sweeps,
                   args.every] + args.param
    demo = all(v is None for v in sim_options[:7]) and not args.param
    model = args.model or "ising"
    dim = args.dim or (3 if model == "heisenberg" else 2)
    if demo:
        shape = (DEMO_L, DEMO_L)
        therm, sweeps, every, beta = DEMO_THERM, DEMO_SWEEPS, DEMO_EVERY, ISING2D_BETA_C
        if args.quick:
            therm, sweeps = QUICK_THERM, QUICK_SWEEPS
    else:
        try:
            shape = _shape(args.size, dim, DEFAULT_L.get(model, 16))
        except ValueError:
            _parser().error("-L needs L or LxxLy[xLz] (positive integers), got %r" % args.size)
        therm = args.therm if args.therm is not None else 1000
        sweeps = args.sweeps if args.sweeps is not None else 10000
        every = args.every if args.every is not None else 1
        beta = args.beta
    params: Dict[str, Any] = {}
    for kv in args.param:
        if "=" not in kv:
            _parser().error("--param needs NAME=VALUE, got %r" % kv)
        k, v = kv.split("=", 1)
        params[k] = float(v)
    if beta is not None and model != "phi4":
        params["beta"] = beta
    if every < 1 or sweeps < every:
        _parser().error("need --every >= 1 and --sweeps >= --every")

    if not demo:
        # the temperature rule (doc/cli.md), a usage error as in the program latmc
        from .params import MODELS
        from .sim import check_phase_point
        try:
            check_phase_point(MODELS.get(model, -1), params)
        except latmc.InvalidArgument as e:
            _parser().error(e.message.replace("beta=B", "--beta B")
                            .replace("mu2=M and g=G", "--param mu2=M and --param g=G"))
    try:
        sim = latmc.Sim(model, shape, algorithm=args.algo, device=args.device, seed=args.seed,
                        q=args.q, precision=args.precision, couplings=args.couplings,
                        replicas=args.replicas, threads=args.threads, **params)
        with sim:
            t0 = time.perf_counter()
            observables = ["energy", "abs_magnetization", "m2", "m4"]
            if model == "phi4":
                observables.append("phi2")
            if args.replicas == 2:
                observables.append("overlap2")
            ser = sim.series(sweeps // every, every=every, observables=observables,
                             therm=therm, progress=args.progress)
            acc_counts = sim.acceptance_counts
            wall = time.perf_counter() - t0
            _report(latmc, sim, ser, demo, therm, sweeps, every, wall, acc_counts)
            if args.csv:
                with ser.accumulator() as a:
                    a.write_csv(args.csv)
    except latmc.Error as e:
        print("python -m latmc: %s" % e, file=sys.stderr)
        return 1
    return 0


def _report(latmc, sim, ser, demo, therm, sweeps, every, wall, acc_counts) -> None:
    d = sim.desc
    print("latmc results (Python package %s, liblatmc %s)"
          % (latmc.__version__, latmc.library_version()))
    print("  %-13s %s, %dD, %s = %d sites" % ("model", d["model"], sim.ndim,
                                             " x ".join(map(str, reversed(sim.shape))),
                                             sim.volume))
    print("  %-13s %s" % ("parameters", ", ".join("%s = %.10g" % kv
                                                  for kv in sim.params.items())))
    print("  %-13s %s" % ("algorithm", d["algorithm"]))
    print("  %-13s %s, %d thread(s), seed %d" % ("backend", sim.backend, d["threads"], d["seed"]))
    print("  %-13s %d thermalization + %d measured, measured every %d"
          % ("sweeps", therm, sweeps, every))
    print("  %-13s %.2f s" % ("wall time", wall))
    print()
    print("  %-18s %16s %12s %9s" % ("observable", "mean", "error", "tau_int"))
    summary = ser.summary()
    for name, s in summary.items():
        print(_row(name, s["mean"], s["error"], s["tau_int"]))
    acc, att = acc_counts
    if att:
        print("  %-18s %16.6f %12s %9s   (pooled: %d of %d updates)"
              % ("acceptance", acc / att, "", "", acc, att))
    if "m2" in ser.names and "m4" in ser.names:
        try:
            u, ue = ser.binder()
            print(_row("Binder U4", u, ue, None))
            chi, chie = ser.susceptibility()
            print(_row("susceptibility", chi, chie, None))
        except latmc.Error as e:
            print("  (derived quantities: %s)" % e)
    if sim.model != "phi4":
        try:
            c, ce = ser.specific_heat()
            print(_row("specific heat", c, ce, None))
        except latmc.Error as e:
            print("  (specific heat: %s)" % e)
    if demo:
        e_mean, e_err = summary["energy"]["mean"], summary["energy"]["error"]
        print()
        print("  exact (Kaufman 1949, 128x128): energy %.10f (%+.1f sigma), specific heat %.10f"
              % (DEMO_EXACT_E, (e_mean - DEMO_EXACT_E) / e_err if e_err > 0 else 0.0,
                 DEMO_EXACT_C))


if __name__ == "__main__":
    sys.exit(main())
