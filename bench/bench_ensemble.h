/* latmc-bench --ensemble: an ensemble of small lattices against one big lattice. */
#ifndef LATMC_BENCH_ENSEMBLE_H
#define LATMC_BENCH_ENSEMBLE_H

/* argv[0] is "--ensemble"; returns the exit status. */
int bench_ensemble_main(int argc, char **argv);

#endif
