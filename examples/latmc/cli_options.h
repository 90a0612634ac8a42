/*
 * latmc front end — the command line: its options, their defaults, parsing and --help.
 *
 * Exit status convention of the program (also in --help and doc/cli.md):
 *   0 success, 1 the library refused or failed (also: a checkpoint failed at the end, or
 *   the run stopped on a failed checkpoint with --checkpoint-failure stop), 2 bad
 *   command line, 3 (--strict only) finished but some result has no error estimate,
 *   128 + N stopped by signal N (130 SIGINT, 143 SIGTERM, 138 SIGUSR1).
 */
#ifndef LATMC_CLI_OPTIONS_H
#define LATMC_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum {
    EXIT_LIBRARY = 1,
    EXIT_USAGE = 2,
    EXIT_DEGENERATE = 3,
    EXIT_SIGNAL_BASE = 128
};

/* The default demo (no simulation option on the command line): 2D Ising at beta_c. */
#define DEMO_L      128
#define DEMO_THERM  10000
#define DEMO_SWEEPS 230000
#define DEMO_EVERY  10
/* Exact energy and specific heat per site of the DEMO_L x DEMO_L periodic lattice at
 * beta_c (Kaufman 1949, computed with tests/support/exact_ising.c); recompute them
 * when DEMO_L changes. */
#define DEMO_EXACT_L 128
#define DEMO_EXACT_E (-1.4190762721)
#define DEMO_EXACT_C 2.5363313351
/* beta_c = ln(1 + sqrt 2) / 2 of the 2D Ising model (Onsager), and T_c = 1/beta_c. */
#define ISING2D_BETA_C 0.44068679350977151262
#define ISING2D_T_C    2.26918531421302196812

/* Defaults once any simulation option is given. The lattice depends on the model:
 * phi^4 extents must be divisible by 8 (or 5 in 2D) and its sweeps cost more; the
 * Heisenberg spin glass is a 3D model. */
#define DEFAULT_L            32  /* Ising, Potts */
#define DEFAULT_L_PHI4       16
#define DEFAULT_L_HEISENBERG 8
#define DEFAULT_DIM_HEISENBERG 3 /* the others: 2 */
#define DEFAULT_THERM  1000
#define DEFAULT_SWEEPS 10000
#define DEFAULT_SEED   1

/* At most this many distinct parameters (there are 10 in contract v1). */
#define CLI_MAX_PARAMS 32

struct cli_param {
    int key;      /* enum latmc_param */
    double value;
};

struct cli_options {
    int model;          /* enum latmc_model */
    int ndim;           /* 2 or 3 */
    int64_t extent[3];  /* the first ndim are set */
    int q;              /* Potts states */
    int algorithm;      /* enum latmc_algorithm */
    int precision;      /* enum latmc_precision (phi^4) */
    int replicas;       /* 1 or 2 */
    int device;         /* enum latmc_device */
    int devices;        /* GPUs, one slab each (desc.n_devices; 0: one) */
    int start;          /* enum latmc_init */
    int couplings;      /* enum latmc_couplings (Heisenberg) */
    uint64_t coupling_seed;
    uint64_t therm;     /* thermalization sweeps, not measured */
    uint64_t sweeps;    /* measured sweeps */
    uint64_t every;     /* measure every `every` sweeps, >= 1 */
    uint64_t seed;
    int threads;        /* 0 = the library's default */
    double tune_target; /* --tune-epsilon: target acceptance, 0 = no tuning */

    /* Model parameters in the order first given; a repeated name keeps its last value.
     * --beta, --J and --h are the same as --param beta=..., J=..., h=... */
    struct cli_param params[CLI_MAX_PARAMS];
    int n_params;

    const char *csv_path;        /* NULL: no CSV; "-": standard output */
    const char *json_path;       /* NULL: no JSON; "-": standard output */
    const char *hdf5_path;       /* NULL: no HDF5 (only when built with HDF5) */
    bool strict;                 /* exit 3 when a result has no error estimate */
    bool checkpoint_stop;        /* --checkpoint-failure stop */
    const char *checkpoint_path; /* NULL: no checkpoints */
    uint64_t checkpoint_every;   /* 0: only at the end (and on Ctrl-C) */
    const char *resume_path;     /* NULL: a fresh start */
    bool quiet;           /* no progress bar, no banner */
    bool verbose;         /* library info messages too */
    bool demo;            /* no simulation option given: run the default demo */

    /* Which settings the command line gave (the demo gives model and size); with
     * --resume, these are compared with the checkpoint. */
    bool model_given, dim_given, size_given, q_given, algo_given, precision_given,
         replicas_given, couplings_given, coupling_seed_given, seed_given, threads_given,
         device_given;
};

enum cli_action {
    CLI_RUN = 0,      /* options parsed: run */
    CLI_EXIT_OK,      /* --help or --version done: exit 0 */
    CLI_EXIT_USAGE    /* bad command line, message printed: exit 2 */
};

/* Parse argv into *opt (fully initialised, defaults filled in). Prints its own messages. */
enum cli_action cli_parse(int argc, char **argv, struct cli_options *opt);

/* The value of parameter `key` if given on the command line. */
bool cli_param_given(const struct cli_options *opt, int key, double *value);

/* Print the full --help text (cli_help.c). */
void cli_print_help(FILE *f);

/* Print the version line(s) (cli_help.c). */
void cli_print_version(void);

/* "latmc: <message>" and the short usage hint, on stderr (for exit status 2). */
void cli_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif
