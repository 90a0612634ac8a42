/*
 * The timing loop of checkasm's --bench rows (checkasm.h), for the check files that share it.
 */
#ifndef LATMC_CHECKASM_BENCH_H
#define LATMC_CHECKASM_BENCH_H

#include "checkasm.h"

/* Best of 5 timings of `calls` executions of stmt (which may use call_), in ns per call. */
#define CHECKASM_BEST_NS(calls, stmt)                                                       \
    ({                                                                                      \
        double best_ = 1e300;                                                               \
        for (int rep_ = 0; rep_ < 5; rep_++) {                                              \
            const double t0_ = checkasm_now_ns();                                           \
            for (int call_ = 0; call_ < (calls); call_++) {                                 \
                stmt;                                                                       \
            }                                                                               \
            const double t_ = (checkasm_now_ns() - t0_) / (calls);                          \
            best_ = t_ < best_ ? t_ : best_;                                                \
        }                                                                                   \
        best_;                                                                              \
    })

#endif
