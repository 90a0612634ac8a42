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

/*
 * The sums of lib/phi4.h over one row, straight from the definition of H: site by site in
 * x order, each site's terms in axis order. The neighbour rows' offsets (the periodic wrap
 * of g's extents; a slab's local lattice wraps within its storage, whose halo planes are
 * the neighbours of the planes it measures) are the row's, so the loop over x computes no
 * stencil; the x neighbours wrap at the row's two ends only.
 */
static void PHI4_FN(phi4_row_sums)(const struct phi4_geom *g, const PHI4_R *phi, int64_t row,
                                   double out[PHI4_NPARTIALS])
{
    const int ndim = g->lat.ndim;
    const int64_t lx = g->lat.lx, ly = g->lat.ly, lz = g->lat.lz;
    const int64_t y = row % ly, z = row / ly;
    const PHI4_R *own = phi + lx * row;
    /* the rows at y + 1, y - 1 (and z + 1, z - 1) of each site, as offsets from it */
    const int64_t up_y = (y + 1 < ly ? 1 : 1 - ly) * lx, down_y = (y >= 1 ? -1 : ly - 1) * lx;
    const int64_t up_z = ndim == 3 ? (z + 1 < lz ? 1 : 1 - lz) * lx * ly : 0;
    const int64_t down_z = ndim == 3 ? (z >= 1 ? -1 : lz - 1) * lx * ly : 0;
    double sum = 0, sum2 = 0, sum4 = 0, grad2 = 0, lap2 = 0;
    for (int64_t x = 0; x < lx; x++) {
        const double v = own[x], v2 = v * v;
        double lap = 0;
        {
            const double up = own[x + 1 < lx ? x + 1 : 0], down = own[x >= 1 ? x - 1 : lx - 1];
            grad2 += (up - v) * (up - v);
            lap += up - 2.0 * v + down;
        }
        {
            const double up = own[x + up_y], down = own[x + down_y];
            grad2 += (up - v) * (up - v);
            lap += up - 2.0 * v + down;
        }
        if (ndim == 3) {
            const double up = own[x + up_z], down = own[x + down_z];
            grad2 += (up - v) * (up - v);
            lap += up - 2.0 * v + down;
        }
        sum += v;
        sum2 += v2;
        sum4 += v2 * v2;
        lap2 += lap * lap;
    }
    out[0] = sum;
    out[1] = sum2;
    out[2] = sum4;
    out[3] = grad2;
    out[4] = lap2;
}

void PHI4_FN(cpu_phi4_measure_planes)(const struct phi4_geom *g, const PHI4_R *phi,
                                      double *partials, int64_t p0, int64_t p1,
                                      struct latmc_phi4_sums *planes, int n_threads)
{
    const int64_t rows_per_plane = g->lat.ndim == 3 ? g->lat.ly : 1;
    const int64_t r0 = p0 * rows_per_plane, r1 = p1 * rows_per_plane;
    if (!cpu_use_threads(n_threads, (r1 - r0) * g->lat.lx)) {
        for (int64_t row = r0; row < r1; row++)
            PHI4_FN(phi4_row_sums)(g, phi, row, partials + PHI4_NPARTIALS * (row - r0));
    } else {
        LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
        for (int64_t row = r0; row < r1; row++)
            PHI4_FN(phi4_row_sums)(g, phi, row, partials + PHI4_NPARTIALS * (row - r0));
    }
    /* each plane: its rows in order, from zero */
    for (int64_t pl = p0; pl < p1; pl++)
        planes[pl - p0] = phi4_plane_total(partials + PHI4_NPARTIALS * (pl - p0) * rows_per_plane,
                                           rows_per_plane);
}

/* Plane pl's rows' sums (into partials at its rows' places), their total (planes[pl]) and
 * its tile of the Fourier modes (tiles, td doubles a plane; the plane still in the cache). */
static void PHI4_FN(phi4_plane_with_tile)(const latmc_sim *sim, const struct phi4_geom *g,
                                          const PHI4_R *phi, double *partials,
                                          struct latmc_phi4_sums *planes, const double *phases,
                                          double *tiles, int64_t pl)
{
    const int64_t rows_per_plane = g->lat.ndim == 3 ? g->lat.ly : 1;
    double *own = partials + PHI4_NPARTIALS * pl * rows_per_plane;
    for (int64_t k = 0; k < rows_per_plane; k++)
        PHI4_FN(phi4_row_sums)(g, phi, pl * rows_per_plane + k, own + PHI4_NPARTIALS * k);
    planes[pl] = phi4_plane_total(own, rows_per_plane);
    latmc_modes_phi4_tile(sim, phases, phi + pl * rows_per_plane * g->lat.lx, pl,
                          tiles + (size_t)pl * latmc_modes_tile_doubles(&sim->desc));
}

void PHI4_FN(cpu_phi4_measure_tiles)(const latmc_sim *sim, const struct phi4_geom *g,
                                     const PHI4_R *phi, double *partials,
                                     struct latmc_phi4_sums *planes, const double *phases,
                                     double *tiles, int n_threads)
{
    const int64_t np = g->lat.ndim == 3 ? g->lat.lz : g->lat.ly;
    if (!cpu_use_threads(n_threads, g->lat.nsites)) {
        for (int64_t pl = 0; pl < np; pl++)
            PHI4_FN(phi4_plane_with_tile)(sim, g, phi, partials, planes, phases, tiles, pl);
    } else {
        LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
        for (int64_t pl = 0; pl < np; pl++)
            PHI4_FN(phi4_plane_with_tile)(sim, g, phi, partials, planes, phases, tiles, pl);
    }
}

#undef PHI4_FN
#undef PHI4_CAT_
#undef PHI4_CAT2_
