/*
 * The member lanes' exchange round on the device (ising_lanes.h, cuda_ens_lanes_round;
 * doc/ensembles.md "Exchange rounds and measurements"): exec/cuda_temper_round.cuh's round
 * over the lanes' sums and tables, the host's rule and draws (lib/ens_exchange_rule.h), so
 * the same map as lib/ens_exchange.c's round on the CPU's lanes.
 */
#include "cuda_temper_round.cuh"
#include "ising_lanes.h"

/* Member m is lane m % 32 of group m / 32: its energy per site from the sums the sweeps'
 * launch left (sums[64 g + l] bonds, sums[64 g + 32 + l] spins) with member 0's J and h, as
 * the host's round takes them (the members alike but beta); its move, its lane's tables
 * those of its new temperature (the state's param_of_t: each temperature's tables). */
struct ens_lanes_round_model {
    const long long *sums;
    struct latmc_ising_tables *tables;
    __device__ double value(const struct cuda_ens_temper_dev &d, const struct cuda_ens_round &r,
                            int m) const
    {
        (void)d;
        const long long *g = sums + (size_t)(m / 32) * 64;
        return latmc_ising_energy_per_site(r.J, r.h, g[m % 32], g[32 + m % 32], r.nsites);
    }
    __device__ void move(const struct cuda_ens_temper_dev &d, int m, int t) const
    {
        tables[m] = ((const struct latmc_ising_tables *)d.param_of_t)[t];
    }
};

extern "C" cudaError_t cuda_ens_lanes_round(cudaStream_t stream,
                                            const struct cuda_ens_temper_dev *d,
                                            const struct cuda_ens_round *r,
                                            const long long *sums,
                                            struct latmc_ising_tables *tables)
{
    /* programmatic: its blocks may start while the sweeps' launch before it ends, and wait
     * for it in the kernel (griddepcontrol.wait) */
    return cuda_temper_exchange_round(stream, d, r, ens_lanes_round_model{ sums, tables }, true);
}
