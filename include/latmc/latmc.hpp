/**
 * @file latmc/latmc.hpp
 * @brief liblatmc — a header-only C++11 wrapper over the C API (latmc/latmc.h).
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
 * @since 0.1
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

/** The C++ wrapper of liblatmc. @since 0.1 */
namespace latmc {

/**
 * A failed liblatmc call: status() is the LATMC_E* code, what() says where and why.
 * @since 0.1
 */
class error : public std::runtime_error {
public:
    /**
     * @param[in] status   the LATMC_E* code.
     * @param[in] what_arg the message (copied).
     */
    error(int status, const std::string &what_arg) : std::runtime_error(what_arg), status_(status)
    {
    }
    /** @return the LATMC_E* code of the failed call. */
    int status() const noexcept { return status_; }

private:
    int status_;
};

/** Implementation details of the wrapper; not part of the API. @cond LATMC_DETAIL */
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
/** @endcond */

/**
 * Version of the loaded library ("MAJOR.MINOR.PATCH"), latmc_version_string().
 * @return a copy of the version string.
 * @note Thread-safe.
 * @since 0.1
 */
inline std::string version() { return latmc_version_string(); }

/**
 * A latmc_sim_desc filled by latmc_sim_desc_init(): set the fields you need and pass it on.
 * @since 0.1
 */
struct desc : latmc_sim_desc {
    /** Defaults of latmc_sim_desc_init(). */
    desc() : latmc_sim_desc() { latmc_sim_desc_init(this); }
};

/**
 * Owner of a latmc_ctx (logging, backends, devices). Thread-safe like the ctx itself.
 * @since 0.1
 */
class context {
public:
    /** A new ctx (latmc_ctx_create()). @throws latmc::error LATMC_ENOMEM. */
    context()
    {
        latmc_ctx *p = nullptr;
        detail::check(latmc_ctx_create(&p), "latmc_ctx_create");
        h_.reset(p);
    }
    /**
     * Take ownership of a ctx created with latmc_ctx_create().
     * @param[in] adopt the ctx (may be NULL); destroyed with this owner.
     */
    explicit context(latmc_ctx *adopt) noexcept : h_(adopt) {}

    /** @return the C handle, still owned by this object. */
    latmc_ctx *get() const noexcept { return h_.get(); }
    /** Give up ownership. @return the C handle; the caller must latmc_ctx_destroy() it. */
    latmc_ctx *release() noexcept { return h_.release(); }

    /** latmc_ctx_set_log(). fn and user must stay valid as long as the ctx and any of its
     * sims live (sims keep the ctx alive after this owner is gone).
     * @param[in] fn        the callback, or NULL.
     * @param[in] user      passed to fn.
     * @param[in] min_level enum latmc_log_level. */
    void set_log(latmc_log_fn fn, void *user, int min_level)
    {
        latmc_ctx_set_log(h_.get(), fn, user, min_level);
    }

    /** Devices of a kind (LATMC_DEVICE_CPU or LATMC_DEVICE_CUDA); throws LATMC_EBACKEND
     * when the backend is unavailable (backend_status() says why).
     * @param[in] device enum latmc_device.
     * @return latmc_ctx_device_count().
     * @throws latmc::error with the codes of latmc_ctx_device_count(). */
    int device_count(int device) const
    {
        int n = 0;
        detail::check(latmc_ctx_device_count(h_.get(), device, &n), "latmc_ctx_device_count");
        return n;
    }

    /** latmc_ctx_device_info() with struct_size set.
     * @param[in] device enum latmc_device.
     * @param[in] index  the device's index.
     * @return the description.
     * @throws latmc::error with the codes of latmc_ctx_device_info(). */
    latmc_device_info device_info(int device, int index) const
    {
        latmc_device_info info = latmc_device_info();
        info.struct_size = sizeof info;
        detail::check(latmc_ctx_device_info(h_.get(), device, index, &info),
                      "latmc_ctx_device_info");
        return info;
    }

    /** latmc_ctx_backend_status(). @param[in] device enum latmc_device.
     * @return a copy of the status line. */
    std::string backend_status(int device) const
    {
        return latmc_ctx_backend_status(h_.get(), device);
    }

private:
    std::unique_ptr<latmc_ctx, detail::ctx_deleter> h_;
};

/**
 * Owner of a latmc_sim: one lattice, model and state. Not to be used by two threads at
 * once. Every method throws latmc::error with the codes of the C function it names.
 * @since 0.1
 */
class simulation {
public:
    /** latmc_sim_create(). The sim keeps the ctx alive; ctx may go out of scope first.
     * @param[in] ctx the context.
     * @param[in] d   the desc (copied). */
    simulation(const context &ctx, const latmc_sim_desc &d)
    {
        latmc_sim *p = nullptr;
        detail::check(latmc_sim_create(ctx.get(), &d, &p), "latmc_sim_create");
        h_.reset(p);
    }
    /** Take ownership of a sim from the C API.
     * @param[in] adopt the sim (may be NULL); destroyed with this owner. */
    explicit simulation(latmc_sim *adopt) noexcept : h_(adopt) {}

    /** A simulation from a checkpoint file (latmc_sim_load()).
     * @param[in] ctx  the context.
     * @param[in] path the checkpoint file.
     * @return the new simulation. */
    static simulation load(const context &ctx, const std::string &path)
    {
        latmc_sim *p = nullptr;
        detail::check(latmc_sim_load(ctx.get(), path.c_str(), &p), "latmc_sim_load");
        return simulation(p);
    }

    /** A simulation from serialize() bytes (latmc_sim_deserialize()).
     * @param[in] ctx   the context.
     * @param[in] bytes the checkpoint bytes.
     * @return the new simulation. */
    static simulation deserialize(const context &ctx, const std::vector<unsigned char> &bytes)
    {
        latmc_sim *p = nullptr;
        detail::check(latmc_sim_deserialize(ctx.get(), bytes.data(), bytes.size(), &p),
                      "latmc_sim_deserialize");
        return simulation(p);
    }

    /** @return the C handle, still owned by this object. */
    latmc_sim *get() const noexcept { return h_.get(); }
    /** Give up ownership. @return the C handle; the caller must latmc_sim_destroy() it. */
    latmc_sim *release() noexcept { return h_.release(); }

    /** latmc_sim_get_desc(). @return the resolved desc. */
    latmc_sim_desc get_desc() const
    {
        latmc_sim_desc d;
        latmc_sim_desc_init(&d);
        check(latmc_sim_get_desc(h_.get(), &d), "latmc_sim_get_desc");
        return d;
    }

    /** latmc_sim_backend_name(). @return a copy of the name. */
    std::string backend_name() const { return latmc_sim_backend_name(h_.get()); }

    /** latmc_sim_set_param().
     * @param[in] key   enum latmc_param.
     * @param[in] value the new value. */
    void set_param(int key, double value)
    {
        check(latmc_sim_set_param(h_.get(), key, value), "latmc_sim_set_param");
    }
    /** By name: "beta", "J", "h", "mu2", "g", "lambda", "epsilon", "nhit", "nloc", "nover".
     * @param[in] name  the parameter's name (latmc_param_by_name()).
     * @param[in] value the new value. */
    void set_param(const std::string &name, double value)
    {
        int key = 0;
        detail::check(latmc_param_by_name(name.c_str(), &key), "latmc_param_by_name");
        set_param(key, value);
    }
    /** latmc_sim_get_param(). @param[in] key enum latmc_param. @return the value. */
    double param(int key) const
    {
        double v = 0.0;
        check(latmc_sim_get_param(h_.get(), key, &v), "latmc_sim_get_param");
        return v;
    }

    /** latmc_sim_init_spins(). @param[in] how enum latmc_init. */
    void init_spins(int how)
    {
        check(latmc_sim_init_spins(h_.get(), how), "latmc_sim_init_spins");
    }
    /** latmc_sim_sweep(). @param[in] n number of sweeps. */
    void sweep(std::uint64_t n) { check(latmc_sim_sweep(h_.get(), n), "latmc_sim_sweep"); }
    /** latmc_sim_tune_epsilon().
     * @param[in] target the acceptance to approach, in (0, 1).
     * @param[in] sweeps number of sweeps. */
    void tune_epsilon(double target, std::uint64_t sweeps)
    {
        check(latmc_sim_tune_epsilon(h_.get(), target, sweeps), "latmc_sim_tune_epsilon");
    }
    /** latmc_sim_sweep_count(). @return sweeps performed. */
    std::uint64_t sweep_count() const
    {
        std::uint64_t n = 0;
        check(latmc_sim_sweep_count(h_.get(), &n), "latmc_sim_sweep_count");
        return n;
    }

    /** One observable (LATMC_OBS_*) of the current configuration (latmc_sim_observable()).
     * @param[in] key enum latmc_observable.
     * @return its value. */
    double observable(int key)
    {
        double v = 0.0;
        check(latmc_sim_observable(h_.get(), key, &v), "latmc_sim_observable");
        return v;
    }

    /** (accepted, attempted) since the last reset (latmc_sim_acceptance_counts()).
     * @return the pair of counters. */
    std::pair<std::uint64_t, std::uint64_t> acceptance_counts() const
    {
        std::uint64_t a = 0, t = 0;
        check(latmc_sim_acceptance_counts(h_.get(), &a, &t), "latmc_sim_acceptance_counts");
        return std::make_pair(a, t);
    }
    /** latmc_sim_reset_acceptance(). */
    void reset_acceptance()
    {
        check(latmc_sim_reset_acceptance(h_.get()), "latmc_sim_reset_acceptance");
    }

    /**
     * The configuration as elements of T in site order (int8_t for Ising, uint8_t for Potts,
     * float or double for phi^4, float x 3 per site for Heisenberg). Throws LATMC_EINVAL if
     * the configuration is not a whole number of T.
     * @tparam T the element type.
     * @return the configuration (latmc_sim_get_spins()).
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
    /** latmc_sim_set_spins() from elements of T, as spins() gives them.
     * @tparam T the element type.
     * @param[in] v the configuration (copied). */
    template <class T> void set_spins(const std::vector<T> &v)
    {
        check(latmc_sim_set_spins(h_.get(), v.data(), v.size() * sizeof(T)),
              "latmc_sim_set_spins");
    }
    /** latmc_sim_spins_size(). @return bytes of the configuration. */
    std::size_t spins_size() const
    {
        std::size_t n = 0;
        check(latmc_sim_spins_size(h_.get(), &n), "latmc_sim_spins_size");
        return n;
    }

    /** Couplings (Heisenberg): ndim per site, index ndim * i + mu
     * (latmc_sim_get_couplings()). @return a copy of the couplings. */
    std::vector<float> couplings()
    {
        std::size_t n = 0;
        check(latmc_sim_couplings_size(h_.get(), &n), "latmc_sim_couplings_size");
        std::vector<float> v(n);
        check(latmc_sim_get_couplings(h_.get(), v.data(), n), "latmc_sim_get_couplings");
        return v;
    }
    /** latmc_sim_set_couplings(). @param[in] v the couplings (copied). */
    void set_couplings(const std::vector<float> &v)
    {
        check(latmc_sim_set_couplings(h_.get(), v.data(), v.size()), "latmc_sim_set_couplings");
    }

    /** Checkpoint to a file (atomic: written aside and renamed; latmc_sim_save()).
     * @param[in] path destination file. */
    void save(const std::string &path)
    {
        check(latmc_sim_save(h_.get(), path.c_str()), "latmc_sim_save");
    }

    /** The checkpoint as bytes, for deserialize() (latmc_sim_serialize()).
     * @return the bytes. */
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

/** An estimate with its error. @since 0.1 */
struct estimate {
    double value; /**< the estimate */
    double error; /**< its error */
};

/**
 * Owner of a latmc_acc: a time series of rows of ncols doubles and its analysis.
 * Thread safety as latmc_acc. Every method throws latmc::error with the codes of the C
 * function it calls.
 * @since 0.1
 */
class accumulator {
public:
    /** latmc_acc_create(). @param[in] ncols number of columns, 1..64. */
    explicit accumulator(int ncols)
    {
        latmc_acc *p = nullptr;
        detail::check(latmc_acc_create(&p, ncols), "latmc_acc_create");
        h_.reset(p);
    }

    /** @return the C handle, still owned by this object. */
    latmc_acc *get() const noexcept { return h_.get(); }
    /** Give up ownership. @return the C handle; the caller must latmc_acc_destroy() it. */
    latmc_acc *release() noexcept { return h_.release(); }

    /** @return number of columns (latmc_acc_ncols()); does not throw. */
    int ncols() const { return latmc_acc_ncols(h_.get()); }
    /** @return rows pushed (latmc_acc_count()). */
    std::uint64_t count() const { return latmc_acc_count(h_.get()); }

    /** latmc_acc_push(). @param[in] row ncols finite values (copied). */
    void push(const std::vector<double> &row)
    {
        detail::check(latmc_acc_push(h_.get(), row.data(), static_cast<int>(row.size())),
                      "latmc_acc_push");
    }
    /** latmc_acc_clear(). */
    void clear() { latmc_acc_clear(h_.get()); }

    /** latmc_acc_mean(). @param[in] col column. @return the mean. */
    double mean(int col) const
    {
        double v = 0.0;
        detail::check(latmc_acc_mean(h_.get(), col, &v), "latmc_acc_mean");
        return v;
    }
    /** Logarithmic-binning error of the mean (latmc_acc_error()).
     * @param[in] col column. @return the error. */
    double error(int col) const
    {
        double v = 0.0;
        detail::check(latmc_acc_error(h_.get(), col, &v), "latmc_acc_error");
        return v;
    }
    /** latmc_acc_tau_int(). @param[in] col column. @return tau_int. */
    double tau_int(int col) const
    {
        double v = 0.0;
        detail::check(latmc_acc_tau_int(h_.get(), col, &v), "latmc_acc_tau_int");
        return v;
    }

    /** latmc_acc_binder().
     * @param[in] col_m2  column of m^2.
     * @param[in] col_m4  column of m^4.
     * @param[in] nblocks jackknife blocks.
     * @return U4 and its error. */
    estimate binder(int col_m2, int col_m4, int nblocks) const
    {
        estimate e = { 0.0, 0.0 };
        detail::check(latmc_acc_binder(h_.get(), col_m2, col_m4, nblocks, &e.value, &e.error),
                      "latmc_acc_binder");
        return e;
    }
    /** latmc_acc_corr_length(): the second-moment correlation length (divide by L for xi/L).
     * @param[in] col_k0   column of |m(0)|^2 (LATMC_OBS_M2_K0).
     * @param[in] col_kmin column of |m(k_min)|^2 (LATMC_OBS_M2_KMIN).
     * @param[in] L        the lattice's extent.
     * @param[in] nblocks  jackknife blocks.
     * @return xi and its error.
     * @since 0.2 */
    estimate corr_length(int col_k0, int col_kmin, int64_t L, int nblocks) const
    {
        estimate e = { 0.0, 0.0 };
        detail::check(latmc_acc_corr_length(h_.get(), col_k0, col_kmin, L, nblocks, &e.value,
                                            &e.error),
                      "latmc_acc_corr_length");
        return e;
    }
    /** latmc_acc_susceptibility().
     * @param[in] col_absm column of |m|.
     * @param[in] col_m2   column of m^2.
     * @param[in] factor   prefactor (beta * N).
     * @param[in] nblocks  jackknife blocks.
     * @return chi and its error. */
    estimate susceptibility(int col_absm, int col_m2, double factor, int nblocks) const
    {
        estimate e = { 0.0, 0.0 };
        detail::check(latmc_acc_susceptibility(h_.get(), col_absm, col_m2, factor, nblocks,
                                               &e.value, &e.error),
                      "latmc_acc_susceptibility");
        return e;
    }
    /** latmc_acc_specific_heat().
     * @param[in] col_e   column of e.
     * @param[in] factor  prefactor (beta^2 * N).
     * @param[in] nblocks jackknife blocks.
     * @return C and its error. */
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
     * @tparam F callable as double(const double *means, const double *sq_means).
     * @param[in] nblocks jackknife blocks.
     * @param[in] f       the derived quantity (latmc_acc_jackknife()).
     * @return the estimate and its error.
     */
    template <class F> estimate jackknife(int nblocks, F f) const
    {
        estimate e = { 0.0, 0.0 };
        detail::check(latmc_acc_jackknife(h_.get(), nblocks, &trampoline<F>, &f, &e.value,
                                          &e.error),
                      "latmc_acc_jackknife");
        return e;
    }

    /** The series as CSV (latmc_acc_write_csv()); names: one per column, or none for
     * "c0, c1, ...".
     * @param[in] path  destination file.
     * @param[in] names column names; throws LATMC_EINVAL when neither empty nor ncols. */
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
    /** @cond LATMC_DETAIL */
    template <class F> static double trampoline(const double *means, const double *sq, void *u)
    {
        return (*static_cast<F *>(u))(means, sq);
    }
    /** @endcond */

    std::unique_ptr<latmc_acc, detail::acc_deleter> h_;
};

} // namespace latmc

#endif /* LATMC_LATMC_HPP */
