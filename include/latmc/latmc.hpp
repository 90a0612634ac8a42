/*
 * liblatmc — a header-only C++11 wrapper over the C API (latmc/latmc.h).
 *
 * RAII owners for the three handles (latmc::context, latmc::simulation,
 * latmc::accumulator): move-only, like std::unique_ptr, which they hold; the C handle is
 * destroyed when its owner goes out of scope. Every failing call throws latmc::error, which
 * carries the LATMC_E* status code and the library's detail (latmc_sim_last_error() for
 * calls on a simulation, latmc_last_error() otherwise).
 *
 * Everything here is inline and calls only the C API: the wrapper adds no symbol to
 * liblatmc and no ABI of its own; the C ABI policy (doc/ABI.md) is the only one. get()
 * gives the C handle for anything the wrapper does not cover; release() gives up ownership.
 *
 * Thread safety is the C API's: a context may be shared between threads, a simulation or an
 * accumulator must not be used by two threads at once.
 *
 * Since 0.1.
 */
#ifndef LATMC_LATMC_HPP
#define LATMC_LATMC_HPP

#include <latmc/latmc.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace latmc {

/** A failed liblatmc call: status() is the LATMC_E* code, what() says where and why. */
class error : public std::runtime_error {
public:
    error(int status, const std::string &what_arg) : std::runtime_error(what_arg), status_(status)
    {
    }
    int status() const noexcept { return status_; }

private:
    int status_;
};

namespace detail {

inline std::string message(int status, const char *where, const char *detail)
{
    std::string m(where);
    m += ": ";
    m += latmc_strerror(status);
    if (detail != nullptr && detail[0] != '\0') {
        m += ": ";
        m += detail;
    }
    return m;
}

/* Calls without a simulation: the detail is the calling thread's latmc_last_error(). */
inline void check(int status, const char *where)
{
    if (status != LATMC_OK)
        throw error(status, message(status, where, latmc_last_error()));
}

/* Calls on a simulation: the detail is that simulation's last error. */
inline void check(int status, const char *where, const latmc_sim *sim)
{
    if (status != LATMC_OK)
        throw error(status, message(status, where, latmc_sim_last_error(sim)));
}

struct ctx_deleter {
    void operator()(latmc_ctx *p) const noexcept { latmc_ctx_destroy(&p); }
};
struct sim_deleter {
    void operator()(latmc_sim *p) const noexcept { latmc_sim_destroy(&p); }
};
struct acc_deleter {
    void operator()(latmc_acc *p) const noexcept { latmc_acc_destroy(&p); }
};

} // namespace detail

/** Version of the loaded library ("MAJOR.MINOR.PATCH"). */
inline std::string version() { return latmc_version_string(); }

/** A latmc_sim_desc filled by latmc_sim_desc_init(): set the fields you need and pass it on. */
struct desc : latmc_sim_desc {
    desc() : latmc_sim_desc() { latmc_sim_desc_init(this); }
};

/** Owner of a latmc_ctx (logging, backends, devices). */
class context {
public:
    context()
    {
        latmc_ctx *p = nullptr;
        detail::check(latmc_ctx_create(&p), "latmc_ctx_create");
        h_.reset(p);
    }
    /** Take ownership of a ctx created with latmc_ctx_create(). */
    explicit context(latmc_ctx *adopt) noexcept : h_(adopt) {}

    latmc_ctx *get() const noexcept { return h_.get(); }
    latmc_ctx *release() noexcept { return h_.release(); }

    /** fn and user must stay valid as long as the ctx and any of its sims live (sims keep
     * the ctx alive after this owner is gone). */
    void set_log(latmc_log_fn fn, void *user, int min_level)
    {
        latmc_ctx_set_log(h_.get(), fn, user, min_level);
    }

    /** Devices of a kind (LATMC_DEVICE_CPU or LATMC_DEVICE_CUDA); throws LATMC_EBACKEND
     * when the backend is unavailable (backend_status() says why). */
    int device_count(int device) const
    {
        int n = 0;
        detail::check(latmc_ctx_device_count(h_.get(), device, &n), "latmc_ctx_device_count");
        return n;
    }

    latmc_device_info device_info(int device, int index) const
    {
        latmc_device_info info = latmc_device_info();
        info.struct_size = sizeof info;
        detail::check(latmc_ctx_device_info(h_.get(), device, index, &info),
                      "latmc_ctx_device_info");
        return info;
    }

    std::string backend_status(int device) const
    {
        return latmc_ctx_backend_status(h_.get(), device);
    }

private:
    std::unique_ptr<latmc_ctx, detail::ctx_deleter> h_;
};

/** Owner of a latmc_sim: one lattice, model and state. */
class simulation {
public:
    simulation(const context &ctx, const latmc_sim_desc &d)
    {
        latmc_sim *p = nullptr;
        detail::check(latmc_sim_create(ctx.get(), &d, &p), "latmc_sim_create");
        h_.reset(p);
    }
    /** Take ownership of a sim from the C API. */
    explicit simulation(latmc_sim *adopt) noexcept : h_(adopt) {}

    /** A simulation from a checkpoint file (latmc_sim_load). */
    static simulation load(const context &ctx, const std::string &path)
    {
        latmc_sim *p = nullptr;
        detail::check(latmc_sim_load(ctx.get(), path.c_str(), &p), "latmc_sim_load");
        return simulation(p);
    }

    /** A simulation from serialize() bytes (latmc_sim_deserialize). */
    static simulation deserialize(const context &ctx, const std::vector<unsigned char> &bytes)
    {
        latmc_sim *p = nullptr;
        detail::check(latmc_sim_deserialize(ctx.get(), bytes.data(), bytes.size(), &p),
                      "latmc_sim_deserialize");
        return simulation(p);
    }

    latmc_sim *get() const noexcept { return h_.get(); }
    latmc_sim *release() noexcept { return h_.release(); }

    latmc_sim_desc get_desc() const
    {
        latmc_sim_desc d;
        latmc_sim_desc_init(&d);
        check(latmc_sim_get_desc(h_.get(), &d), "latmc_sim_get_desc");
        return d;
    }

    std::string backend_name() const { return latmc_sim_backend_name(h_.get()); }

    void set_param(int key, double value)
    {
        check(latmc_sim_set_param(h_.get(), key, value), "latmc_sim_set_param");
    }
    /** By name: "beta", "J", "h", "mu2", "g", "lambda", "epsilon", "nhit", "nloc", "nover". */
    void set_param(const std::string &name, double value)
    {
        int key = 0;
        detail::check(latmc_param_by_name(name.c_str(), &key), "latmc_param_by_name");
        set_param(key, value);
    }
    double param(int key) const
    {
        double v = 0.0;
        check(latmc_sim_get_param(h_.get(), key, &v), "latmc_sim_get_param");
        return v;
    }

    void init_spins(int how)
    {
        check(latmc_sim_init_spins(h_.get(), how), "latmc_sim_init_spins");
    }
    void sweep(std::uint64_t n) { check(latmc_sim_sweep(h_.get(), n), "latmc_sim_sweep"); }
    void tune_epsilon(double target, std::uint64_t sweeps)
    {
        check(latmc_sim_tune_epsilon(h_.get(), target, sweeps), "latmc_sim_tune_epsilon");
    }
    std::uint64_t sweep_count() const
    {
        std::uint64_t n = 0;
        check(latmc_sim_sweep_count(h_.get(), &n), "latmc_sim_sweep_count");
        return n;
    }

    /** One observable (LATMC_OBS_*) of the current configuration. */
    double observable(int key)
    {
        double v = 0.0;
        check(latmc_sim_observable(h_.get(), key, &v), "latmc_sim_observable");
        return v;
    }

    /** (accepted, attempted) since the last reset. */
    std::pair<std::uint64_t, std::uint64_t> acceptance_counts() const
    {
        std::uint64_t a = 0, t = 0;
        check(latmc_sim_acceptance_counts(h_.get(), &a, &t), "latmc_sim_acceptance_counts");
        return std::make_pair(a, t);
    }
    void reset_acceptance()
    {
        check(latmc_sim_reset_acceptance(h_.get()), "latmc_sim_reset_acceptance");
    }

    /**
     * The configuration as elements of T in site order (int8_t for Ising, uint8_t for Potts,
     * float or double for phi^4, float x 3 per site for Heisenberg). Throws LATMC_EINVAL if
     * the configuration is not a whole number of T.
     */
    template <class T> std::vector<T> spins()
    {
        std::size_t bytes = spins_size();
        if (bytes % sizeof(T) != 0)
            throw error(LATMC_EINVAL, "latmc::simulation::spins: the configuration is not a "
                                      "whole number of elements of this type");
        std::vector<T> v(bytes / sizeof(T));
        check(latmc_sim_get_spins(h_.get(), v.data(), bytes), "latmc_sim_get_spins");
        return v;
    }
    template <class T> void set_spins(const std::vector<T> &v)
    {
        check(latmc_sim_set_spins(h_.get(), v.data(), v.size() * sizeof(T)),
              "latmc_sim_set_spins");
    }
    std::size_t spins_size() const
    {
        std::size_t n = 0;
        check(latmc_sim_spins_size(h_.get(), &n), "latmc_sim_spins_size");
        return n;
    }

    /** Couplings (Heisenberg): ndim per site, index ndim * i + mu. */
    std::vector<float> couplings()
    {
        std::size_t n = 0;
        check(latmc_sim_couplings_size(h_.get(), &n), "latmc_sim_couplings_size");
        std::vector<float> v(n);
        check(latmc_sim_get_couplings(h_.get(), v.data(), n), "latmc_sim_get_couplings");
        return v;
    }
    void set_couplings(const std::vector<float> &v)
    {
        check(latmc_sim_set_couplings(h_.get(), v.data(), v.size()), "latmc_sim_set_couplings");
    }

    /** Checkpoint to a file (atomic: written aside and renamed). */
    void save(const std::string &path)
    {
        check(latmc_sim_save(h_.get(), path.c_str()), "latmc_sim_save");
    }

    /** The checkpoint as bytes, for deserialize(). */
    std::vector<unsigned char> serialize()
    {
        std::size_t n = 0;
        check(latmc_sim_serialize(h_.get(), nullptr, 0, &n), "latmc_sim_serialize");
        std::vector<unsigned char> v(n);
        check(latmc_sim_serialize(h_.get(), v.data(), v.size(), &n), "latmc_sim_serialize");
        v.resize(n);
        return v;
    }

private:
    void check(int status, const char *where) const { detail::check(status, where, h_.get()); }

    std::unique_ptr<latmc_sim, detail::sim_deleter> h_;
};

/** An estimate with its error. */
struct estimate {
    double value;
    double error;
};

/** Owner of a latmc_acc: a time series of rows of ncols doubles and its analysis. */
class accumulator {
public:
    explicit accumulator(int ncols)
    {
        latmc_acc *p = nullptr;
        detail::check(latmc_acc_create(&p, ncols), "latmc_acc_create");
        h_.reset(p);
    }

    latmc_acc *get() const noexcept { return h_.get(); }
    latmc_acc *release() noexcept { return h_.release(); }

    int ncols() const { return latmc_acc_ncols(h_.get()); }
    std::uint64_t count() const { return latmc_acc_count(h_.get()); }

    void push(const std::vector<double> &row)
    {
        detail::check(latmc_acc_push(h_.get(), row.data(), static_cast<int>(row.size())),
                      "latmc_acc_push");
    }
    void clear() { latmc_acc_clear(h_.get()); }

    double mean(int col) const
    {
        double v = 0.0;
        detail::check(latmc_acc_mean(h_.get(), col, &v), "latmc_acc_mean");
        return v;
    }
    /** Logarithmic-binning error of the mean. */
    double error(int col) const
    {
        double v = 0.0;
        detail::check(latmc_acc_error(h_.get(), col, &v), "latmc_acc_error");
        return v;
    }
    double tau_int(int col) const
    {
        double v = 0.0;
        detail::check(latmc_acc_tau_int(h_.get(), col, &v), "latmc_acc_tau_int");
        return v;
    }

    estimate binder(int col_m2, int col_m4, int nblocks) const
    {
        estimate e = { 0.0, 0.0 };
        detail::check(latmc_acc_binder(h_.get(), col_m2, col_m4, nblocks, &e.value, &e.error),
                      "latmc_acc_binder");
        return e;
    }
    estimate susceptibility(int col_absm, int col_m2, double factor, int nblocks) const
    {
        estimate e = { 0.0, 0.0 };
        detail::check(latmc_acc_susceptibility(h_.get(), col_absm, col_m2, factor, nblocks,
                                               &e.value, &e.error),
                      "latmc_acc_susceptibility");
        return e;
    }
    estimate specific_heat(int col_e, double factor, int nblocks) const
    {
        estimate e = { 0.0, 0.0 };
        detail::check(latmc_acc_specific_heat(h_.get(), col_e, factor, nblocks, &e.value,
                                              &e.error),
                      "latmc_acc_specific_heat");
        return e;
    }

    /**
     * Jackknife of any function of the column means, f(means, sq_means) -> double, called
     * through the C API: f must not throw (an exception cannot cross the C library).
     */
    template <class F> estimate jackknife(int nblocks, F f) const
    {
        estimate e = { 0.0, 0.0 };
        detail::check(latmc_acc_jackknife(h_.get(), nblocks, &trampoline<F>, &f, &e.value,
                                          &e.error),
                      "latmc_acc_jackknife");
        return e;
    }

    /** The series as CSV; names: one per column, or none for "c0, c1, ...". */
    void write_csv(const std::string &path, const std::vector<std::string> &names) const
    {
        if (!names.empty() && names.size() != static_cast<std::size_t>(ncols()))
            throw latmc::error(LATMC_EINVAL, "latmc::accumulator::write_csv: one name per "
                                             "column");
        std::vector<const char *> p;
        for (std::size_t i = 0; i < names.size(); i++)
            p.push_back(names[i].c_str());
        detail::check(latmc_acc_write_csv(h_.get(), path.c_str(),
                                          p.empty() ? nullptr : p.data()),
                      "latmc_acc_write_csv");
    }

private:
    template <class F> static double trampoline(const double *means, const double *sq, void *u)
    {
        return (*static_cast<F *>(u))(means, sq);
    }

    std::unique_ptr<latmc_acc, detail::acc_deleter> h_;
};

} // namespace latmc

#endif /* LATMC_LATMC_HPP */
