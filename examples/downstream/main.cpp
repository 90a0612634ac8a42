// A downstream C++ program: the installed header-only wrapper over the installed library.
#include <latmc/latmc.hpp>

#include <cstdio>

int main()
{
    try {
        latmc::context ctx;
        latmc::desc d;
        d.model = LATMC_MODEL_POTTS;
        d.q = 3;
        d.ndim = 2;
        d.extent[0] = d.extent[1] = 12;
        d.device = LATMC_DEVICE_CPU;
        latmc::simulation sim(ctx, d);
        sim.set_param(LATMC_PARAM_BETA, 2.0);
        sim.init_spins(LATMC_INIT_COLD);
        sim.sweep(100);
        double m = sim.observable(LATMC_OBS_MAGNETIZATION);
        std::printf("downstream (C++): liblatmc %s, 12x12 3-state Potts at beta 2: m = %.4f\n",
                    latmc::version().c_str(), m);
        return m > 0.9 ? 0 : 1;
    } catch (const latmc::error &e) {
        std::fprintf(stderr, "downstream: %s (status %d)\n", e.what(), e.status());
        return 1;
    }
}
