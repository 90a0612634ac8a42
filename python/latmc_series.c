/*
 * latmc_series: the inner loop of latmc.series() in C, so that a long time series costs one
 * call from Python per block of measurements instead of one per sweep and observable
 * (python/bench/overhead.py measured the per-call loop at 2.7x the C program's time on a
 * 16x16 lattice; the goal is 1.2x).
 *
 * Not a Python extension: no Python headers, loaded with ctypes like liblatmc. It does not
 * link liblatmc either: Python passes the addresses of latmc_sim_sweep and
 * latmc_sim_observable from the library it loaded, so there is one liblatmc in the process
 * and this helper can never pick up another. It calls the public API only, in exactly the
 * order the Python loop would, so the measurements are the same numbers bit for bit.
 */
#include <latmc/sim.h>

typedef int (*latmc_py_sweep_fn)(latmc_sim *sim, uint64_t n);
typedef int (*latmc_py_observable_fn)(latmc_sim *sim, int key, double *value);

/* n times: sweep(sim, every), then observable(sim, keys[k], ...) for k < nkeys into
 * out[i * nkeys + k]. *done receives the measurements completed; returns LATMC_OK or the
 * first failing call's status (the sim's last error has the message). */
__attribute__((visibility("default")))
int latmc_py_series(latmc_py_sweep_fn sweep, latmc_py_observable_fn observable,
                    latmc_sim *sim, uint64_t every, uint64_t n, const int *keys, int nkeys,
                    double *out, uint64_t *done);

int latmc_py_series(latmc_py_sweep_fn sweep, latmc_py_observable_fn observable,
                    latmc_sim *sim, uint64_t every, uint64_t n, const int *keys, int nkeys,
                    double *out, uint64_t *done)
{
    *done = 0;
    for (uint64_t i = 0; i < n; i++) {
        int st = sweep(sim, every);
        if (st != LATMC_OK)
            return st;
        for (int k = 0; k < nkeys; k++) {
            st = observable(sim, keys[k], &out[i * (uint64_t)nkeys + (uint64_t)k]);
            if (st != LATMC_OK)
                return st;
        }
        *done = i + 1;
    }
    return LATMC_OK;
}
