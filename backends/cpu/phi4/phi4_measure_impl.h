/*
 * Type-generic body of the phi^4 reduction, included by phi4_measure.c once per field
 * type (PHI4_R, PHI4_S as in phi4_sweep_impl.h). Everything is accumulated in double.
 * Each row (fixed y, z) is summed into its own slot of `partials`; a plane's sums (the
 * tile of model.h: a row in 2D, L_y rows in 3D) are its rows added serially in row order
 * from zero. The result is bit-identical for any thread count, and the whole lattice's
 * sums, its planes added in plane order (phi4_kernels.c), for any cut into boxes.
 */
#define PHI4_CAT2_(a, b) a##_##b
#define PHI4_CAT_(a, b) PHI4_CAT2_(a, b)
#define PHI4_FN(name) PHI4_CAT_(name, PHI4_S)

#ifndef PHI4_MEASURE_SITE
#define PHI4_MEASURE_SITE
/* A row's five running sums. */
struct phi4_row_acc {
    double sum, sum2, sum4, grad2, lap2;
};

/* One site's terms of lib/phi4.h, in axis order, added to the row's sums: value v, its x
 * neighbours right and left, its y (and z) neighbours up and down. */
static inline __attribute__((always_inline)) void
phi4_measure_site(struct phi4_row_acc *a, double v, double right, double left, double up_y,
                  double down_y, double up_z, double down_z, const int ndim)
{
    const double v2 = v * v;
    double lap = 0;
    a->grad2 += (right - v) * (right - v);
    lap += right - 2.0 * v + left;
    a->grad2 += (up_y - v) * (up_y - v);
    lap += up_y - 2.0 * v + down_y;
    if (ndim == 3) {
        a->grad2 += (up_z - v) * (up_z - v);
        lap += up_z - 2.0 * v + down_z;
    }
    a->sum += v;
    a->sum2 += v2;
    a->sum4 += v2 * v2;
    a->lap2 += lap * lap;
}

static inline void phi4_row_out(const struct phi4_row_acc *a, double out[PHI4_NPARTIALS])
{
    out[0] = a->sum;
    out[1] = a->sum2;
    out[2] = a->sum4;
    out[3] = a->grad2;
    out[4] = a->lap2;
}
#endif

/*
 * The sums of lib/phi4.h over one row, straight from the definition of H: site by site in
 * x order, each site's terms in axis order. The neighbour rows' offsets (the periodic wrap
 * of g's extents; a slab's local lattice wraps within its storage, whose halo planes are
 * the neighbours of the planes it measures) are the row's, so the loop over x computes no
 * stencil; the x neighbours wrap at the row's two ends only. `nc` 0: the field in natural
 * order; else colour-transposed with nc colours (phi4_dsp.h: x = m nc + r at r n + m of
 * the row, n = L_x / nc), walked in the same x order, the same values in the same
 * operations (the SIMD levels' field, measured in place, with no copy into natural order).
 */
static inline __attribute__((always_inline)) void
PHI4_FN(phi4_row_sums_impl)(const struct phi4_geom *g, const PHI4_R *phi, int64_t row,
                            double out[PHI4_NPARTIALS], const int ndim, int nc)
{
    const int64_t lx = g->lat.lx, ly = g->lat.ly, lz = g->lat.lz;
    const int64_t y = row % ly, z = row / ly;
    const PHI4_R *own = phi + lx * row;
    /* the rows at y + 1, y - 1 (and z + 1, z - 1) of each site, as offsets from it */
    const int64_t up_y = (y + 1 < ly ? 1 : 1 - ly) * lx, down_y = (y >= 1 ? -1 : ly - 1) * lx;
    const int64_t up_z = ndim == 3 ? (z + 1 < lz ? 1 : 1 - lz) * lx * ly : 0;
    const int64_t down_z = ndim == 3 ? (z >= 1 ? -1 : lz - 1) * lx * ly : 0;
    struct phi4_row_acc a = { 0, 0, 0, 0, 0 };
    if (!nc) {
        for (int64_t x = 0; x < lx; x++)
            phi4_measure_site(&a, own[x], own[x + 1 < lx ? x + 1 : 0],
                              own[x >= 1 ? x - 1 : lx - 1], own[x + up_y], own[x + down_y],
                              own[x + up_z], own[x + down_z], ndim);
    } else {
        const int64_t n = lx / nc;
        for (int64_t m = 0; m < n; m++)
            for (int r = 0; r < nc; r++) {
                const int64_t i = r * n + m; /* x = m nc + r */
                const int64_t right = r + 1 < nc ? i + n : (m + 1 < n ? m + 1 : 0);
                const int64_t left = r > 0 ? i - n : (nc - 1) * n + (m > 0 ? m - 1 : n - 1);
                phi4_measure_site(&a, own[i], own[right], own[left], own[i + up_y],
                                  own[i + down_y], own[i + up_z], own[i + down_z], ndim);
            }
    }
    phi4_row_out(&a, out);
}

static void PHI4_FN(phi4_row_sums)(const struct phi4_geom *g, const PHI4_R *phi, int64_t row,
                                   double out[PHI4_NPARTIALS], int nc)
{
    if (g->lat.ndim == 3)
        PHI4_FN(phi4_row_sums_impl)(g, phi, row, out, 3, nc);
    else
        PHI4_FN(phi4_row_sums_impl)(g, phi, row, out, 2, nc);
}

static void PHI4_FN(measure_planes_of)(const struct phi4_geom *g, const PHI4_R *phi, int nc,
                                       double *partials, int64_t p0, int64_t p1,
                                       struct latmc_phi4_sums *planes, int n_threads)
{
    const int64_t rows_per_plane = g->lat.ndim == 3 ? g->lat.ly : 1;
    const int64_t r0 = p0 * rows_per_plane, r1 = p1 * rows_per_plane;
    if (!cpu_use_threads(n_threads, (r1 - r0) * g->lat.lx)) {
        for (int64_t row = r0; row < r1; row++)
            PHI4_FN(phi4_row_sums)(g, phi, row, partials + PHI4_NPARTIALS * (row - r0), nc);
    } else {
        LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
        for (int64_t row = r0; row < r1; row++)
            PHI4_FN(phi4_row_sums)(g, phi, row, partials + PHI4_NPARTIALS * (row - r0), nc);
    }
    /* each plane: its rows in order, from zero */
    for (int64_t pl = p0; pl < p1; pl++)
        planes[pl - p0] = phi4_plane_total(partials + PHI4_NPARTIALS * (pl - p0) * rows_per_plane,
                                           rows_per_plane);
}

void PHI4_FN(cpu_phi4_measure_planes)(const struct phi4_geom *g, const PHI4_R *phi,
                                      double *partials, int64_t p0, int64_t p1,
                                      struct latmc_phi4_sums *planes, int n_threads)
{
    PHI4_FN(measure_planes_of)(g, phi, 0, partials, p0, p1, planes, n_threads);
}

void PHI4_FN(cpu_phi4_measure_planes_transposed)(const struct phi4_geom *g, const PHI4_R *phi,
                                                 double *partials, int64_t p0, int64_t p1,
                                                 struct latmc_phi4_sums *planes, int n_threads)
{
    PHI4_FN(measure_planes_of)(g, phi, g->colouring.ncolours, partials, p0, p1, planes,
                               n_threads);
}

/* What phi4_plane_with_projections needs (cpu_count_planes' context). */
struct PHI4_FN(phi4_projections_ctx) {
    const latmc_sim_desc *d;
    const struct phi4_geom *g;
    const PHI4_R *phi;
    int nc;
    double *partials;
    struct latmc_phi4_sums *planes;
};

/* Plane pl's rows' sums (into partials at its rows' places), their total (planes[pl]) and
 * its fixed-point projections of the Fourier modes added into proj (the plane still in the
 * cache), from the field as stored: nc 0 natural order, else colour-transposed with nc
 * colours, whose P_x then comes in the rows' stored order (an integer count of each place:
 * the caller puts it in x order once). */
static void PHI4_FN(phi4_plane_with_projections)(void *ctx, int64_t pl, int64_t *proj)
{
    const struct PHI4_FN(phi4_projections_ctx) *c = ctx;
    const struct phi4_geom *g = c->g;
    const int64_t rows_per_plane = g->lat.ndim == 3 ? g->lat.ly : 1;
    double *own = c->partials + PHI4_NPARTIALS * pl * rows_per_plane;
    for (int64_t k = 0; k < rows_per_plane; k++)
        PHI4_FN(phi4_row_sums)(g, c->phi, pl * rows_per_plane + k, own + PHI4_NPARTIALS * k,
                               c->nc);
    c->planes[pl] = phi4_plane_total(own, rows_per_plane);
    latmc_modes_phi4_project(c->d, c->phi + pl * rows_per_plane * g->lat.lx, pl, proj);
}

int PHI4_FN(cpu_phi4_measure_projections)(const latmc_sim_desc *d, const struct phi4_geom *g,
                                          const PHI4_R *phi, int nc, double *partials,
                                          struct latmc_phi4_sums *planes, int64_t *proj,
                                          int n_threads)
{
    const int64_t np = g->lat.ndim == 3 ? g->lat.lz : g->lat.ly;
    int64_t *stored = nc ? malloc((size_t)g->lat.lx * sizeof *stored) : NULL;
    if (nc && !stored)
        return LATMC_ENOMEM;
    struct PHI4_FN(phi4_projections_ctx) ctx = { d, g, phi, nc, partials, planes };
    const int st = cpu_count_planes(np, latmc_modes_projection_entries(d),
                                    cpu_use_threads(n_threads, g->lat.nsites) ? n_threads : 1,
                                    PHI4_FN(phi4_plane_with_projections), &ctx, proj);
    if (st == LATMC_OK && nc) { /* place r n + m of a transposed row is x = m nc + r */
        const int64_t n = g->lat.lx / nc;
        memcpy(stored, proj, (size_t)g->lat.lx * sizeof *stored);
        for (int r = 0; r < nc; r++)
            for (int64_t m = 0; m < n; m++)
                proj[m * nc + r] = stored[r * n + m];
    }
    free(stored);
    return st;
}

#undef PHI4_FN
#undef PHI4_CAT_
#undef PHI4_CAT2_
