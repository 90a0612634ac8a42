/* The Heisenberg kernel table (heisenberg_dsp.h) and the conversions of the SoA layout. */
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "cpu_features.h"
#include "cpu_omp.h"
#include "error.h"
#include "heisenberg_dsp.h"

/* The C entry: the reference step on the reference layout. */
static uint64_t step_c(const struct latmc_lattice *g, const struct cpu_heisenberg_fields *f,
                       int replicas, const struct latmc_heisenberg_params *p, bool heatbath,
                       int colour, uint64_t seed, struct latmc_rng_name name,
                       const struct latmc_box *boxes, int n_boxes, const struct cpu_team *team)
{
    return cpu_heisenberg_step_boxes_at(g, f->spins, replicas, f->couplings, p, heatbath, colour,
                                        seed, name, boxes, n_boxes, f->j_origin, team);
}

void cpu_heisenberg_dsp_init(struct cpu_heisenberg_dsp *dsp, unsigned simd_flags)
{
    dsp->level = "c";
    dsp->soa = false;
    dsp->step = step_c;
    dsp->pair_soa = NULL;
    dsp->row_lanes = 1;
    dsp->or_passes_soa = NULL;
    CPU_DSP_LEVELS(cpu_heisenberg_dsp_init, dsp, simd_flags);
}

/*
 * The fused passes' window: 2K + 2 planes of both colours' spins (48 bytes a site) and the
 * couplings (12), per member, kept in the last-level cache. Budget: 16 MiB a member and
 * 32 MiB a team (measured on the EPYC Zen 4 of doc/PERFORMANCE.md, 32 MiB of L3 for its 2
 * cores: at 128^3 K = 5 to 8 gave 2.7 ns an update, K = 3 3.1, pairs 4.4; a team that
 * would need more than 32 MiB takes fewer passes, or none). Only a lattice whose replica
 * outgrows a member's budget is fused: one that the cache holds already gains nothing
 * (64^3: 15 MiB, the same 2.4 ns either way) and the seams' extra distance costs.
 */
enum { FUSED_SITE_BYTES = 60 };
static const int64_t fused_member_bytes = INT64_C(16) << 20, fused_team_bytes = INT64_C(32) << 20;

int cpu_heisenberg_fused_passes(const struct latmc_lattice *g, int team_size, int available)
{
    const int64_t planes = cpu_heisenberg_planes(g), members = team_size > 0 ? team_size : 1;
    const int64_t plane_bytes = g->nsites / planes * FUSED_SITE_BYTES;
    if (g->nsites * FUSED_SITE_BYTES <= fused_member_bytes)
        return 0;
    const int64_t budget = fused_member_bytes < fused_team_bytes / members
                               ? fused_member_bytes
                               : fused_team_bytes / members;
    const int64_t by_band = planes / members / 4;
    const int64_t by_cache = (budget / plane_bytes - 2) / 2;
    int64_t k = available;
    if (k > by_band)
        k = by_band;
    if (k > by_cache)
        k = by_cache;
    return k >= 2 ? (int)k : 0;
}

unsigned cpu_heisenberg_dsp_flags(const struct latmc_lattice *g, unsigned simd_flags)
{
    const int64_t n = g->lx / 2;
    if (n % 8 != 0 && n % 4 == 0)
        simd_flags &= ~(unsigned)CPU_FLAG_AVX512;
    return simd_flags;
}

int cpu_heisenberg_soa_alloc(const struct latmc_lattice *g, int replicas,
                             struct cpu_heisenberg_soa *s)
{
    memset(s, 0, sizeof *s);
    s->n = g->lx / 2;
    s->half = g->nsites / 2;
    const size_t stride = 3 * (size_t)s->half + 2 * HEISENBERG_PAD;
    /* the spins' arrays, then the couplings' (floats: two to a double's place) */
    const size_t arrays = (size_t)replicas * 2 + 1;
    /* zeroed: the slack is read (and its values discarded) by vector loads at row ends;
     * 8 more values to start the first array's slack on a 64-byte line */
    s->alloc = calloc(arrays * stride + 8, sizeof(double));
    if (!s->alloc)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %zu bytes of Heisenberg "
                          "SIMD arrays", arrays * stride * sizeof(double));
    double *p = (double *)(((uintptr_t)s->alloc + 63) & ~(uintptr_t)63) + HEISENBERG_PAD;
    for (int r = 0; r < replicas; r++)
        for (int c = 0; c < 2; c++, p += stride)
            s->spin[r][c] = p;
    float *q = (float *)(p - HEISENBERG_PAD); /* the last region, on a 64-byte line */
    for (int c = 0; c < 2; c++, q += stride)
        s->coupling[c] = q + HEISENBERG_PAD;
    return LATMC_OK;
}

void cpu_heisenberg_soa_free(struct cpu_heisenberg_soa *s)
{
    free(s->alloc);
    memset(s, 0, sizeof *s);
}

/* What a row conversion moves. */
enum soa_what { SPINS_IN, SPINS_OUT, COUPLINGS_IN };

/* The spins of row `row` (held from site `site0` on) in or out, a colour and component at
 * a time: colour c's site m is x = 2 m + (c ^ the row's parity) (L_x is even: n = L_x / 2),
 * its component k at (3 row + k) n + m of the colour's array; in loops with no branch,
 * division or parity a site (a loop a site and component was most of a measurement's
 * time; at -O3 the compiler vectorises these). */
static void convert_row_spins(const struct latmc_lattice *g, struct cpu_heisenberg_soa *s,
                              int replica, const float *in, float *out, bool spins_in,
                              int64_t row, int64_t site0)
{
    const int64_t y = row % g->ly, z = row / g->ly, n = s->n;
    const int64_t first = g->lx * row - site0; /* the row's first site in in / out */
    for (int c = 0; c < 2; c++) {
        const int64_t x0 = (int64_t)((c ^ (int)((y + z) & 1)));
        for (int k = 0; k < 3; k++) {
            double *restrict a = s->spin[replica][c] + (3 * row + k) * n;
            if (spins_in) {
                const float *restrict v = in + LATMC_HEISENBERG_COMPONENTS * (first + x0) + k;
                for (int64_t m = 0; m < n; m++)
                    a[m] = v[2 * LATMC_HEISENBERG_COMPONENTS * m];
            } else {
                float *restrict v = out + LATMC_HEISENBERG_COMPONENTS * (first + x0) + k;
                for (int64_t m = 0; m < n; m++)
                    v[2 * LATMC_HEISENBERG_COMPONENTS * m] = (float)a[m];
            }
        }
    }
}

/* Row `row`: the spins in or out (held from site `site0` on: in[3 (i - site0) + k]), or
 * the couplings in (of the whole lattice: in[ndim i + k]). */
static void convert_row(const struct latmc_lattice *g, struct cpu_heisenberg_soa *s, int replica,
                        const float *in, float *out, enum soa_what what, int64_t row,
                        int64_t site0)
{
    if (what != COUPLINGS_IN) {
        convert_row_spins(g, s, replica, in, out, what == SPINS_IN, row, site0);
        return;
    }
    const int64_t y = row % g->ly, z = row / g->ly, n = s->n;
    for (int64_t x = 0; x < g->lx; x++) {
        const int64_t i = x + g->lx * row, m = x / 2;
        const int c = (int)((x + y + z) & 1);
        for (int k = 0; k < g->ndim; k++)
            s->coupling[c][(3 * row + k) * n + m] = in[g->ndim * i + k];
    }
}

/* Rows [r0, r1); spins in and out hold the sites from the first of row r0 on. */
static void convert_rows(const struct latmc_lattice *g, struct cpu_heisenberg_soa *s, int replica,
                         const float *in, float *out, enum soa_what what, int64_t r0, int64_t r1,
                         int n_threads)
{
    const int64_t site0 = r0 * g->lx;
    if (!cpu_use_threads(n_threads, (r1 - r0) * g->lx)) {
        for (int64_t row = r0; row < r1; row++)
            convert_row(g, s, replica, in, out, what, row, site0);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t row = r0; row < r1; row++)
        convert_row(g, s, replica, in, out, what, row, site0);
}

static void convert(const struct latmc_lattice *g, struct cpu_heisenberg_soa *s, int replica,
                    const float *in, float *out, enum soa_what what, int n_threads)
{
    convert_rows(g, s, replica, in, out, what, 0, g->ly * g->lz, n_threads);
}

void cpu_heisenberg_soa_import_spins(const struct latmc_lattice *g, const float *spins,
                                     struct cpu_heisenberg_soa *s, int replica, int n_threads)
{
    convert(g, s, replica, spins, NULL, SPINS_IN, n_threads);
}

void cpu_heisenberg_soa_export_spins(const struct latmc_lattice *g,
                                     const struct cpu_heisenberg_soa *s, int replica, float *spins,
                                     int n_threads)
{
    /* the conversion only reads *s */
    convert(g, (struct cpu_heisenberg_soa *)s, replica, NULL, spins, SPINS_OUT, n_threads);
}

void cpu_heisenberg_soa_import_couplings(const struct latmc_lattice *g, const float *couplings,
                                         struct cpu_heisenberg_soa *s, int n_threads)
{
    convert(g, s, 0, couplings, NULL, COUPLINGS_IN, n_threads);
}

void cpu_heisenberg_soa_import_rows(const struct latmc_lattice *g, const float *spins,
                                    struct cpu_heisenberg_soa *s, int replica, int64_t r0,
                                    int64_t r1, int n_threads)
{
    convert_rows(g, s, replica, spins, NULL, SPINS_IN, r0, r1, n_threads);
}

void cpu_heisenberg_soa_export_rows(const struct latmc_lattice *g,
                                    const struct cpu_heisenberg_soa *s, int replica, float *spins,
                                    int64_t r0, int64_t r1, int n_threads)
{
    convert_rows(g, (struct cpu_heisenberg_soa *)s, replica, NULL, spins, SPINS_OUT, r0, r1,
                 n_threads);
}
