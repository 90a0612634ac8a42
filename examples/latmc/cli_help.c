/* latmc front end — the --help and --version texts. */
#include <stdio.h>
#include <string.h>

#include <latmc/latmc.h>

#include "cli_options.h"
#include "names.h"

#define STR_(x) #x
#define STR(x) STR_(x)

void cli_print_help(FILE *f)
{
    fprintf(f,
"Usage: latmc [OPTION]...\n"
"Markov-chain Monte Carlo of a lattice model with liblatmc: thermalize, measure,\n"
"print means, errors and autocorrelation times.\n"
"\n"
"Without simulation options (only --seed, --threads, --device, --start, --csv,\n"
"--json, --checkpoint, --resume, --quiet, --verbose), latmc runs the default\n"
"demo: the 2D Ising model at the critical point beta_c = ln(1+sqrt 2)/2\n"
"on a " STR(DEMO_L) "x" STR(DEMO_L) " lattice, " STR(DEMO_THERM) " + " STR(DEMO_SWEEPS)
" sweeps, measured every " STR(DEMO_EVERY) ".\n"
"\n"
"Model:\n");
    /* the library's models (latmc_model_name), so that a new one is listed */
    fprintf(f, "  --model M          %s (default ising)\n", names_list(names_models()));
    fprintf(f,
"  --dim D            2 or 3 (default 2, heisenberg " STR(DEFAULT_DIM_HEISENBERG) "; or the "
"number of\n"
"                     extents in --size)\n"
"  -L, --size SIZE    L (an L^D lattice) or LxL or LxLxL (default " STR(DEFAULT_L) ", phi4 "
STR(DEFAULT_L_PHI4) ",\n"
"                     heisenberg " STR(DEFAULT_L_HEISENBERG) "); phi4 extents must all be "
"divisible by 8,\n"
"                     or in 2D all by 5\n"
"  --q Q              potts: number of states, 2..255 (default 2)\n"
"  --precision P      phi4: float or double field (default double)\n"
"  --couplings C      ising: uniform or bimodal (+-J); heisenberg: uniform\n"
"                     (ferromagnet), gaussian or bimodal (default uniform)\n"
"  --coupling-seed S  ising, heisenberg: seed of the disorder realisation\n"
"                     (default 0)\n"
"  --replicas R       1, or 2 (heisenberg) to measure the overlap q^2 (default 1)\n"
"Parameters. The temperature has no default: ising, potts and heisenberg need\n"
"--beta; phi4 (no beta: its weight is exp(-H)) needs mu2 and g, with g > 0 or\n"
"mu2 > 0. The others default to the library's: J 1, h 0; phi4 lambda inf,\n"
"epsilon 0.5, nhit 1, nloc 1; heisenberg nover 0; ising decisions 0.\n"
"  --beta B           inverse temperature, >= 0 (required; 0 is infinite\n"
"                     temperature, where Ising Metropolis is degenerate: it flips\n"
"                     every spin every sweep, a periodic chain; use heatbath)\n"
"  --J J              coupling (ising, potts)\n"
"  --h H              external field (heisenberg: along z)\n"
"  --param NAME=VAL   any parameter by name: beta, J, h, mu2, g, lambda,\n"
"                     epsilon, nhit, nloc, nover, decisions (ising: 1 takes\n"
"                     bit-sliced decisions, doc/models/ising-decisions.md;\n"
"                     repeatable; the last value\n"
"                     given for a name wins)\n"
"Run:\n"
"  --algo A           default, metropolis, heatbath, overrelax, sw (Swendsen-Wang)\n"
"                     or wolff (default: the model's default)\n"
"  --therm N          thermalization sweeps, not measured (default " STR(DEFAULT_THERM) ")\n"
"  --sweeps N         measured sweeps (default " STR(DEFAULT_SWEEPS) ")\n"
"  --every K          measure every K sweeps, K >= 1 (default 1)\n"
"  --tune-epsilon A   phi4: during thermalization, scale epsilon every 10 sweeps\n"
"                     towards the acceptance A, 0 < A < 1\n"
"  --start S          hot (random) or cold (ordered) start (default hot)\n"
"  --seed S           Monte Carlo seed, 0..2^64-1 (default " STR(DEFAULT_SEED) ")\n"
"  --threads T        CPU threads, 0 = the library's default (default 0)\n"
"  --device D         auto, cpu or cuda (default auto)\n"
"  --devices N        run on N GPUs (CUDA devices 0 .. N-1), one slab each along\n"
"                     the last axis; the same chain as on one (default 1)\n"
"Checkpoints:\n"
"  --checkpoint FILE  save the simulation and the measurements so far to FILE\n"
"                     (liblatmc's checksummed checkpoint format): at the end,\n"
"                     when stopped by a signal, and every N sweeps with\n"
"                     --checkpoint-every\n"
"  --checkpoint-every N  also save every N sweeps, N >= 1, counted from the first\n"
"                     sweep (with --tune-epsilon, during thermalization at the\n"
"                     next multiple of 10 sweeps)\n"
"  --checkpoint-failure P  retry (default): a failed periodic checkpoint is\n"
"                     reported, the previous one stays, the run goes on and tries\n"
"                     again at the next interval; stop: the run stops there with\n"
"                     its results so far (exit status 1)\n"
"  --resume FILE      continue the run saved in FILE, with its lattice, model,\n"
"                     parameters, seed, sweep count and measurements.\n"
"                     Give the command line of the run that wrote it\n"
"                     (--therm, --sweeps and --every say where the run ends and\n"
"                     when it measures; other settings given must agree with the\n"
"                     checkpoint; --start is ignored): the run then ends with the\n"
"                     same configuration and the same measurements as one never\n"
"                     interrupted. Add --checkpoint FILE to keep saving.\n"
"Output:\n"
"  --csv FILE|-       stream the time series to FILE (- : stdout) as the run\n"
"                     goes: the column line (index, sweep, energy, m, absm, m2,\n"
"                     m4; phi2 or overlap2, the Fourier modes m2_k0, m2_kmin,\n"
"                     overlap2_kmin and the clusters' columns where the run has\n"
"                     them), then '# key = value' lines with every input, one\n"
"                     row per measurement (numpy: genfromtxt(names=True,\n"
"                     comments='#'))\n"
"  --json FILE|-      write every input and result (means, errors, tau_int,\n"
"                     derived quantities, warnings, timing) as JSON to FILE (- :\n"
"                     stdout). With - for --csv or --json the report goes to\n"
"                     stderr (with --quiet: nowhere)\n"
#if LATMC_CLI_HDF5
"  --hdf5 FILE        write inputs, series and results to an HDF5 file\n"
#else
"  --hdf5 FILE        (not in this build: configure with -Dhdf5=enabled)\n"
#endif
"                     Output files: symlinks are followed; a FIFO, device or\n"
"                     directory is refused; files appear complete (written aside)\n"
"  --strict           exit with status 3 when a result has no error estimate\n"
"  -q, --quiet        no progress bar and no notes: only the results\n"
"  -v, --verbose      also print the library's informational messages\n"
"  -h, --help         print this help and exit\n"
"  -V, --version      print the version and exit\n"
"\n"
"The progress bar goes to stderr, and only when stderr is a terminal. Errors of\n"
"the means come from logarithmic binning; tau_int is in units of measurements.\n"
"The acceptance is pooled over the measured sweeps (exact counts of updates\n"
"accepted and attempted). Derived quantities come with jackknife errors:\n"
"chi = beta N (<m^2> - <|m|>^2), C = beta^2 N (<e^2> - <e>^2) (phi4: beta = 1);\n"
"for the scalar models (ising, phi4) the Binder cumulant\n"
"U4 = 1 - <m^4>/(3 <m^2>^2), for potts and heisenberg the plain ratio\n"
"<m^4>/<m^2>^2, and with two replicas <q^4>/<q^2>^2 (q^4 = (q^2)^2) and\n"
"chi_SG = N <q^2>. With --algo sw or wolff the columns clusters (sw only),\n"
"largest C/N and cluster m^2 (sum |C|^2 / N^2; wolff |C| / N) describe the last\n"
"cluster sweep, and chi (clusters) = beta N <cluster m^2> is the improved\n"
"estimator (ising, h = 0).\n"
"A series that does not fluctuate or is periodic gets no error\n"
"(\"n/a !\", a note, and a warning on stderr), never a confident 0; tau_int is at\n"
"least 1/2. SIGINT (Ctrl-C), SIGTERM and SIGUSR1 stop the run early: it prints\n"
"the results of what was done (and saves a checkpoint with --checkpoint); a\n"
"second signal kills.\n"
"\n"
"Exit status: 0 success, 1 the library refused or failed (also a failed final\n"
"checkpoint, or --checkpoint-failure stop), 2 bad command line, 3 --strict and a\n"
"result without an error estimate, 128+N stopped by signal N (130 SIGINT,\n"
"143 SIGTERM, 138 SIGUSR1).\n");
}

void cli_print_version(void)
{
    printf("latmc (liblatmc) %s\n", latmc_version_string());
    if (strcmp(latmc_version_string(), LATMC_VERSION_STRING) != 0)
        printf("built against liblatmc headers %s\n", LATMC_VERSION_STRING);
}
