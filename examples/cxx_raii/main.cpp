// cxx_raii — liblatmc from C++ through the header-only wrapper <latmc/latmc.hpp>:
// owners that clean up by themselves, exceptions that carry the status code and the
// library's explanation, standard containers for spins and checkpoints.
//
// A 2D Ising run near the critical point with the accumulators, a checkpoint round trip
// in memory, and two deliberate mistakes caught as latmc::error.
//
//   cxx_raii            L = 64, 20000 measured sweeps
//   cxx_raii --quick    L = 16, 2000 sweeps (the test)
#include <latmc/latmc.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>

namespace {

int run(bool quick)
{
    const int L = quick ? 16 : 64;
    const std::uint64_t sweeps = quick ? 2000 : 20000;
    const double beta = 0.4406868;  // ln(1 + sqrt 2) / 2

    latmc::context ctx;
    latmc::desc d;  // latmc_sim_desc_init() already done
    d.model = LATMC_MODEL_ISING;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = L;
    d.seed = 7;
    latmc::simulation sim(ctx, d);
    sim.set_param("beta", beta);
    sim.init_spins(LATMC_INIT_HOT);
    sim.sweep(quick ? 500 : 5000);

    enum { E, ABSM, M2, M4, NCOL };
    latmc::accumulator acc(NCOL);
    for (std::uint64_t i = 0; i < sweeps; i++) {
        sim.sweep(1);
        acc.push({ sim.observable(LATMC_OBS_ENERGY),
                   sim.observable(LATMC_OBS_ABS_MAGNETIZATION),
                   sim.observable(LATMC_OBS_M2), sim.observable(LATMC_OBS_M4) });
    }
    const double N = double(L) * L;
    latmc::estimate u4 = acc.binder(M2, M4, 32);
    latmc::estimate chi = acc.susceptibility(ABSM, M2, beta * N, 32);
    // Any function of the means, by jackknife: here <|m|>^2 / <m^2>.
    latmc::estimate ratio = acc.jackknife(32, [](const double *m, const double *) {
        return m[ABSM] * m[ABSM] / m[M2];
    });
    std::printf("liblatmc %s from C++: 2D Ising %dx%d at beta_c, %llu sweeps on backend %s\n",
                latmc::version().c_str(), L, L, static_cast<unsigned long long>(sweeps),
                sim.backend_name().c_str());
    std::printf("  E/N   = %.5f +- %.5f (tau_int %.1f)\n", acc.mean(E), acc.error(E),
                acc.tau_int(E));
    std::printf("  U4    = %.4f +- %.4f\n", u4.value, u4.error);
    std::printf("  chi   = %.3f +- %.3f\n", chi.value, chi.error);
    std::printf("  <|m|>^2/<m^2> = %.4f +- %.4f\n", ratio.value, ratio.error);

    // A checkpoint through memory: the copy continues exactly like the original.
    std::vector<unsigned char> bytes = sim.serialize();
    latmc::simulation copy = latmc::simulation::deserialize(ctx, bytes);
    sim.sweep(10);
    copy.sweep(10);
    bool same = sim.spins<std::int8_t>() == copy.spins<std::int8_t>();
    std::printf("  checkpoint of %zu bytes restored; 10 more sweeps on both: %s\n",
                bytes.size(), same ? "identical" : "DIFFERENT");

    // Mistakes become exceptions with the status code and the reason.
    try {
        sim.set_param("mu2", -1.0);  // a phi^4 parameter on an Ising simulation
        std::printf("  no exception for a foreign parameter\n");
        return 1;
    } catch (const latmc::error &e) {
        std::printf("  caught (status %d, %s): %s\n", e.status(),
                    e.status() == LATMC_EUNSUPPORTED ? "LATMC_EUNSUPPORTED" : "?", e.what());
        if (e.status() != LATMC_EUNSUPPORTED)
            return 1;
    }
    try {
        latmc::desc bad;
        bad.model = LATMC_MODEL_ISING;
        bad.ndim = 2;
        bad.extent[0] = bad.extent[1] = 7;  // odd: the checkerboard needs even extents
        latmc::simulation never(ctx, bad);
        std::printf("  no exception for an odd lattice\n");
        return 1;
    } catch (const latmc::error &e) {
        std::printf("  caught (status %d, %s): %s\n", e.status(),
                    e.status() == LATMC_EINVAL ? "LATMC_EINVAL" : "?", e.what());
        if (e.status() != LATMC_EINVAL)
            return 1;
    }
    return same && std::isfinite(u4.value) ? 0 : 1;
}  // every handle is released here, in reverse order of creation

}  // namespace

int main(int argc, char **argv)
{
    bool quick = false;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            std::printf("Usage: %s [--quick]\n"
                        "A 2D Ising run near T_c through the C++ wrapper <latmc/latmc.hpp>:\n"
                        "accumulators, a checkpoint round trip in memory, and two mistakes\n"
                        "caught as latmc::error.\n"
                        "  --quick   L = 16, 2000 sweeps (the test) instead of L = 64, 20000\n",
                        argv[0]);
            return 0;
        } else {
            std::fprintf(stderr, "cxx_raii: unknown argument '%s' (try --help)\n", argv[i]);
            return 2;
        }
    }
    try {
        return run(quick);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "cxx_raii: %s\n", e.what());
        return 1;
    }
}
