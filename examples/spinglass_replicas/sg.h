/*
 * spinglass_replicas — the 3D Heisenberg spin glass with Gaussian couplings, two replicas
 * sharing one disorder realisation, their overlap and its distribution, averaged over
 * disorder samples.
 */
#ifndef SG_H
#define SG_H

#include <stdbool.h>
#include <stdint.h>

enum { SG_MAX_T = 16, SG_MAX_SAMPLES = 256, SG_QBINS = 64 };

/*
 * The q^2 histogram has bins of equal width in log10(q^2), from 10^SG_QLOG_MIN to 1: q^2 is
 * of order 1/N in the paramagnet and of order 1 deep in the frozen phase, so only a
 * logarithmic axis shows every temperature. Smaller values go to the first bin.
 */
#define SG_QLOG_MIN (-4.0)

/* The bin of q^2, and the centre of bin b (as q^2). */
int sg_qbin(double q2);
double sg_qbin_centre(int b);

struct sg_study {
    int ndim, L, nover;
    int nT;
    double T[SG_MAX_T];
    int nsamples;             /* disorder realisations: coupling_seed = 1 .. nsamples */
    uint64_t therm, sweeps, seed;
    int jobs;
};

/* One (sample, T) chain: thermal averages (per site) and its q^2 histogram. */
struct sg_chain {
    double e;                 /* <H>/N of replica 0 */
    double q2, q4;            /* <q^2>, <(q^2)^2>, q^2 = sum_{mu,nu} q_{mu nu}^2 */
    double q2_late;           /* <q^2> over the second half only: an equilibration check */
    double hist[SG_QBINS];    /* fraction of measurements with q^2 in bin k (sg_qbin) */
};

/* Run every chain; res[t * nsamples + sample]. 0 on success. */
int sg_run(const struct sg_study *s, struct sg_chain *res);

#endif
