/*
 * ising_critical — the study: dimension, algorithm, lattice sizes, temperatures,
 * independent chains, and the per-chain results everything else is computed from.
 */
#ifndef ISING_CRITICAL_STUDY_H
#define ISING_CRITICAL_STUDY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { MAX_L = 8, MAX_T = 32, MAX_R = 64 };

/* Means over one chain's measurements (per site); mk2 = <|m(k_min)|^2> (NaN where the
 * backend has no Fourier reduction: has_k false). */
struct chain_means {
    double m2, m4, absm, e, e2, mk2;
    bool has_k;
};

struct study {
    int dim;                    /* 2 or 3: L^dim sites */
    int algorithm;              /* latmc_algorithm: Metropolis, Swendsen-Wang or Wolff */
    const char *algo_name;
    int nL;
    int L[MAX_L];
    int device[MAX_L];          /* LATMC_DEVICE_CPU or LATMC_DEVICE_CUDA, per size */
    uint64_t therm[MAX_L];      /* thermalisation sweeps, per size */
    int nT;
    double T[MAX_T];            /* temperatures, increasing */
    int R;                      /* independent chains per (L, T) */
    uint64_t sweeps[MAX_L];     /* measured sweeps per chain, per size */
    uint64_t every;             /* measure every `every` sweeps */
    uint64_t seed;              /* base seed: chain k gets ex_chain_seed(seed, k) */
    struct chain_means *res;    /* [(l * nT + t) * R + r] */
};

/* The sites of size l. */
static inline double study_sites(const struct study *s, int l)
{
    double n = 1.0;
    for (int k = 0; k < s->dim; k++)
        n *= s->L[l];
    return n;
}

static inline struct chain_means *study_chain(const struct study *s, int l, int t, int r)
{
    return &s->res[((size_t)l * (size_t)s->nT + (size_t)t) * (size_t)s->R + (size_t)r];
}

/* Run every chain of the study on `jobs` threads; 0 on success. */
int study_run(struct study *s, int jobs);

#endif
