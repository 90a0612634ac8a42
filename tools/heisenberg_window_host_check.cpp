// Host check (no GPU needed) of the CUDA Heisenberg ensembles' sums reductions
// (backends/cuda/heisenberg/heisenberg_batch_kernels.cu): the kernels' own text, cut out by
// tools/heisenberg-window-host-check.sh into region.inc, runs as host code, one POSIX thread per
// CUDA thread of a block and a pthread barrier for __syncthreads. For each shape:
//  - every kernel's sums (the sequential ens_heisenberg_measure_kernel, the padded fast kernel,
//    the window pipeline where ens_heisenberg_win_of takes the shape) bit for bit against the
//    one-lattice reduction's order (heisenberg_chunk_sums_kernel, heisenberg_planes_total_kernel of
//    backends/cuda/heisenberg/heisenberg_kernels.cu, restated below as in
//    tools/heisenberg_sums_host_check.cu), two members a launch, the sums' other doubles kept;
//  - the window pipeline's round form (ens_heisenberg_round_window_kernel: the bonds and M_z
//    alone; ens_heisenberg_round_rows_kernel where a chunk is a plane and W = L_x) likewise, its
//    bonds and M_z bit for bit and M_x, M_y untouched, and its shape (one magnetisation
//    component in the ring, a third of the chains) consistent;
//  - every thread of a block reaches the same number of barriers;
//  - the shared memory starts as NaNs, so a term read before it was written shows in the sums;
//  - the kernel cuda_ens_heisenberg_measure picks (restated: the window kernel where it applies
//    and its shared memory fits, else the padded one, else the sequential one) fits its
//    limits wherever cuda_ens_heisenberg_measure_fits admits the shape, the pipeline's threads
//    within its launch bounds and its producers within ENS_HEISENBERG_WIN_PRODUCERS.
// Under ThreadSanitizer (SAN=thread) a ring slot written and read (or written twice) by two
// threads with no barrier between is reported as a race; under AddressSanitizer
// (SAN=address) an access outside the shared memory or a member's arrays.
// Run: tools/heisenberg-window-host-check.sh BUILD_DIR [quick | random N]
#include <pthread.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "heisenberg_batch.h"
#include "heisenberg.h" /* latmc_heisenberg_rows_per_chunk */

/* the CUDA qualifiers and built-ins the kernels use, for host threads */
#undef __global__
#undef __device__
#undef __host__
#undef __forceinline__
#undef __launch_bounds__
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(a, b)
#define __maxnreg__(n)
#define __ldg(p) (*(p))
#define __syncthreads() sim_syncthreads()

struct sim_dim {
    unsigned x;
};
static thread_local sim_dim threadIdx, blockIdx;
static thread_local long sim_barriers;
static sim_dim blockDim;       /* the launch's, set before its threads start */
static char *sim_smem;         /* the running block's dynamic shared memory */
static pthread_barrier_t sim_bar;

static void sim_syncthreads()
{
    pthread_barrier_wait(&sim_bar);
    sim_barriers++;
}

/* the programmatic launch's wait (heisenberg_batch_kernels.cu, outside the cut text): one
 * block at a time here, nothing to wait for */
static void ens_heisenberg_wait_prior_launch() {}

#include "region.inc"

/* ---- a launch: blocks one after another, each block's threads at once ---- */

struct sim_launch {
    void (*body)(const void *args); /* one thread's kernel call */
    const void *args;
};

struct sim_thread {
    const sim_launch *l;
    unsigned tid, block;
    long barriers;
};

static void *sim_run(void *p)
{
    sim_thread *t = (sim_thread *)p;
    threadIdx.x = t->tid;
    blockIdx.x = t->block;
    sim_barriers = 0;
    t->l->body(t->l->args);
    t->barriers = sim_barriers;
    return nullptr;
}

/* false where a block's threads passed different numbers of barriers */
static bool sim_launch_blocks(const sim_launch &l, unsigned grid, unsigned threads, size_t smem)
{
    bool same = true;
    blockDim.x = threads;
    std::vector<sim_thread> th(threads);
    std::vector<pthread_t> id(threads);
    for (unsigned b = 0; b < grid; b++) {
        sim_smem = (char *)malloc(smem ? smem : 1);
        memset(sim_smem, 0xff, smem); /* NaNs */
        pthread_barrier_init(&sim_bar, nullptr, threads);
        for (unsigned k = 0; k < threads; k++) {
            th[k] = { &l, k, b, 0 };
            if (pthread_create(&id[k], nullptr, sim_run, &th[k]) != 0) {
                perror("pthread_create");
                exit(2);
            }
        }
        for (unsigned k = 0; k < threads; k++)
            pthread_join(id[k], nullptr);
        for (unsigned k = 1; k < threads; k++)
            same = same && th[k].barriers == th[0].barriers;
        pthread_barrier_destroy(&sim_bar);
        free(sim_smem);
    }
    return same;
}

/* ---- the kernels' calls ---- */

struct measure_args {
    ens_heisenberg_shape g;
    const cuda_ens_heisenberg_member *members;
    ens_heisenberg_chunks ch;
    ens_heisenberg_win win;
    double *sums;
};

static void call_sequential(const void *p)
{
    const measure_args *a = (const measure_args *)p;
    ens_heisenberg_measure_kernel(a->g, a->members, a->ch.rows_per_chunk, a->ch.nchunks,
                            a->ch.chunks_per_plane, a->sums);
}

static void call_fast(const void *p)
{
    const measure_args *a = (const measure_args *)p;
    ens_heisenberg_measure_fast_kernel(a->g, a->members, a->ch.rows_per_chunk, a->ch.nchunks,
                                 a->ch.chunks_per_plane, a->sums);
}

static void call_window(const void *p)
{
    const measure_args *a = (const measure_args *)p;
    if (a->g.ndim == 3)
        ens_heisenberg_measure_window_kernel<3>(a->g, a->members, a->ch, a->win, a->sums);
    else
        ens_heisenberg_measure_window_kernel<2>(a->g, a->members, a->ch, a->win, a->sums);
}

/* the round's form: the bonds and M_z alone */
static void call_window_round(const void *p)
{
    const measure_args *a = (const measure_args *)p;
    if (a->win.rows)
        ens_heisenberg_round_rows_kernel(a->g, a->members, a->ch, a->win, a->sums);
    else if (a->g.ndim == 3)
        ens_heisenberg_round_window_kernel<3>(a->g, a->members, a->ch, a->win, a->sums);
    else
        ens_heisenberg_round_window_kernel<2>(a->g, a->members, a->ch, a->win, a->sums);
}

/* ---- the reference: the one-lattice reduction's order ---- */

#include "heisenberg_sums_reference.h"

static uint64_t rs = 88172645463325252ull;
static float rf()
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (float)((double)(rs >> 11) * 0x1p-53 * 2.0 - 1.0);
}

#define OPTIN (227 * 1024) /* H100's and H200's shared memory a block, opted in */
#define MEMBERS 2

static int check(int ndim, int lx, int ly, int lz, bool all)
{
    ens_heisenberg_shape g;
    ens_heisenberg_chunks ch;
    heisenberg_shape_and_chunks(ndim, lx, ly, lz, &g, &ch);
    /* each member's arrays an allocation of its own (AddressSanitizer sees overruns) */
    std::vector<std::vector<float>> s(MEMBERS), J(MEMBERS);
    std::vector<cuda_ens_heisenberg_member> members(MEMBERS);
    double want[MEMBERS][4];
    for (int m = 0; m < MEMBERS; m++) {
        s[m].resize(3 * (size_t)g.n);
        J[m].resize((size_t)ndim * g.n);
        for (auto &v : s[m])
            v = rf();
        for (auto &v : J[m])
            v = rf();
        members[m] = {};
        members[m].spins = s[m].data();
        members[m].J = J[m].data();
        heisenberg_sums_reference(g, ch, s[m].data(), J[m].data(), want[m]);
    }
    int bad = 0;
    char what[160] = "";
    /* the launch's choice (cuda_ens_heisenberg_measure, restated) against
     * cuda_ens_heisenberg_measure_fits */
    ens_heisenberg_win win = {}, rwin = {};
    const bool windowed = ens_heisenberg_win_of(&g, &ch, false, &win);
    const bool rwindowed = ens_heisenberg_win_of(&g, &ch, true, &rwin);
    const char *chosen = "sequential";
    if (windowed && ens_heisenberg_win_smem(&ch, &win) <= OPTIN)
        chosen = "window";
    else if (ens_heisenberg_fast_smem(&g, ch.nchunks) <= OPTIN)
        chosen = "fast";
    const bool fits = cuda_ens_heisenberg_measure_fits(&g, ch.nchunks, OPTIN) != 0;
    if (fits && !strcmp(chosen, "sequential") && 4 * (size_t)ch.nchunks * 8 > 48 * 1024) {
        printf("  admitted, but the sequential kernel's shared memory exceeds 48 KiB\n");
        bad++;
    }
    if (windowed != rwindowed) {
        printf("  the round's form takes the shape where the full one does not, or back\n");
        bad++;
    }
    if (windowed) {
        const int chunk_sites = ch.rows_per_chunk * g.lx;
        for (const ens_heisenberg_win *w : { &win, &rwin }) {
            const int threads = w->bond + w->mag + ENS_HEISENBERG_WIN_PRODUCERS;
            const int mag_chains = (w == &rwin ? 1 : 3) * ch.nchunks;
            if (threads > ENS_HEISENBERG_WIN_MAX_THREADS || w->bond % 32 || w->mag % 32 ||
                ch.nchunks * w->W > ENS_HEISENBERG_WIN_PRODUCERS || w->W * w->nw < chunk_sites ||
                (w->nw - 1) * w->W >= chunk_sites || !(w->bs & 1) || !(w->ms & 1) ||
                w->bs < w->W * ndim || w->ms < w->W || w->mc != (w == &rwin ? 1 : 3) ||
                (w->mag < mag_chains && w->mag != ENS_HEISENBERG_WIN_MAG_THREADS)) {
                printf("  the window's shape is inconsistent%s\n", w == &rwin ? " (round)" : "");
                bad++;
            }
        }
        /* the rows form: its two slots of spins beyond the ring */
        const size_t rows_smem = rwin.rows ? 2 * 3 * (size_t)ch.nchunks * rwin.W * 8 : 0;
        if (win.W != rwin.W || win.nw != rwin.nw || win.rows ||
            (rwin.rows && (ndim != 3 || rwin.W != lx || ch.rows_per_chunk != ly)) ||
            ens_heisenberg_win_smem(&ch, &rwin) > ens_heisenberg_win_smem(&ch, &win) + rows_smem) {
            printf("  the round's window differs from the full one's\n");
            bad++;
        }
        snprintf(what, sizeof what, "W %d, %d windows, %d+%d consumers (round %d+%d%s), %d B",
                 win.W, win.nw, win.bond, win.mag, rwin.bond, rwin.mag,
                 rwin.rows ? ", by rows" : "", (int)ens_heisenberg_win_smem(&ch, &win));
    }
    struct {
        const char *name;
        void (*body)(const void *);
        const ens_heisenberg_win *w;
        unsigned threads;
        size_t smem;
        bool run, round;
    } kernels[] = {
        { "sequential", call_sequential, &win, 64, 4 * (size_t)ch.nchunks * sizeof(double), all,
          false },
        { "fast", call_fast, &win, 256, ens_heisenberg_fast_smem(&g, ch.nchunks), all, false },
        { "window", call_window, &win,
          (unsigned)(win.bond + win.mag + ENS_HEISENBERG_WIN_PRODUCERS),
          windowed ? ens_heisenberg_win_smem(&ch, &win) : 0, windowed, false },
        { "window round", call_window_round, &rwin,
          (unsigned)(rwin.bond + rwin.mag + ENS_HEISENBERG_WIN_PRODUCERS),
          rwindowed ? ens_heisenberg_win_smem(&ch, &rwin) : 0, rwindowed, true },
    };
    for (auto &k : kernels) {
        if (!k.run && strcmp(k.name, chosen) != 0)
            continue;
        std::vector<double> sums(13 * (size_t)MEMBERS, -7.0); /* the caller's, kept */
        measure_args a = { g, members.data(), ch, *k.w, sums.data() };
        const sim_launch l = { k.body, &a };
        if (!sim_launch_blocks(l, MEMBERS, k.threads, k.smem)) {
            printf("  %s: the threads of a block passed different numbers of barriers\n",
                   k.name);
            bad++;
        }
        for (int m = 0; m < MEMBERS; m++) {
            for (int q = 0; q < 4; q++) {
                const bool written = !k.round || q == 0 || q == 3;
                if (written && memcmp(&sums[13 * m + q], &want[m][q], sizeof(double)) != 0 &&
                    bad++ < 8)
                    printf("  %s member %d sum %d: %.17g, the sequential order %.17g\n",
                           k.name, m, q, sums[13 * m + q], want[m][q]);
                if (!written && sums[13 * m + q] != -7.0 && bad++ < 8)
                    printf("  %s member %d: sum %d written (a round's form)\n", k.name, m, q);
            }
            for (int q = 4; q < 13; q++)
                if (sums[13 * m + q] != -7.0 && bad++ < 8)
                    printf("  %s member %d: double %d of the sums overwritten\n", k.name, m, q);
        }
    }
    printf("%dD %dx%dx%d: %d rows a chunk, %d chunks (%d a plane), %s%s%s: %s\n", ndim, lx, ly,
           g.lz, ch.rows_per_chunk, ch.nchunks, ch.chunks_per_plane, chosen,
           what[0] ? ", " : "", what, bad ? "FAILED" : "same bits");
    return bad != 0;
}

int main(int argc, char **argv)
{
    const bool quick = argc > 1 && !strcmp(argv[1], "quick");
    /* ndim, lx, ly, lz */
    static const int shapes[][4] = {
        { 3, 16, 16, 16 },  /* the benchmark's: 16 chunks, W 16 (the round by rows) */
        { 3, 16, 5, 16 },   /* the round by rows, 5 rows a plane */
        { 3, 4, 3, 32 },    /* the round by rows, W 4, 32 planes */
        { 3, 2, 2, 64 },    /* the round by rows, W 2, 64 planes */
        { 3, 16, 1, 16 },   /* the round by rows, one row a plane (its own y neighbour) */
        { 3, 2, 3, 65 },    /* 65 chunks: the round's 96 magnetisation threads */
        { 3, 10, 12, 6 },   /* test_ens_identity: W 32 over 120-site chunks, last window 24 */
        { 2, 64, 48, 1 },   /* test_ens_identity: W 4, 144 magnetisation chains on 128 */
        { 3, 8, 8, 8 },     /* one chunk of 512 sites: W 128 */
        { 3, 6, 10, 14 },   /* 60-site chunks, W 64 > a chunk */
        { 3, 2, 3, 5 },     /* one 30-site chunk: W 32 */
        { 3, 4, 6, 2 },     /* n = 48: cp.async-sized but a single small chunk */
        { 3, 32, 64, 4 },   /* two chunks a plane */
        { 3, 64, 24, 5 },   /* 8 rows a chunk, 15 chunks */
        { 3, 34, 7, 9 },    /* odd extents, 7 rows a chunk of 238 sites: W 16 */
        { 3, 6, 5, 41 },    /* 41 chunks: 64 bond threads, W 4 */
        { 2, 16, 16, 1 },   /* 2D: a chunk a row */
        { 2, 30, 66, 1 },   /* test_ens_identity: 66 chunks, two bond chains for two consumers, W 2 */
        { 2, 30, 65, 1 },   /* 65 chunks (odd: no Heisenberg lattice, the kernels' arithmetic alone) */
        { 2, 18, 129, 1 },  /* 129 chunks: W 1, 387 magnetisation chains on 128 threads */
        { 2, 6, 256, 1 },   /* 256 chunks: all producers, W 1 */
        { 2, 14, 257, 1 },  /* 257 chunks: past the producers, the padded kernel */
        { 2, 16, 600, 1 },  /* test_ens_identity's fallback */
        { 2, 2048, 3, 1 },  /* a row longer than a chunk of 1024: W 64, 32 windows */
        { 3, 1026, 2, 2 },  /* 3D rows of 1026 sites a chunk */
        { 2, 4, 4097, 1 },  /* 4097 chunks: no kernel fits (measure_fits refuses) */
    };
    int fail = 0;
    for (const auto &sh : shapes) {
        const long n = (long)sh[1] * sh[2] * sh[3];
        if (quick && n > 8192)
            continue;
        /* every kernel where the member is small; else the one the launch picks */
        fail |= check(sh[0], sh[1], sh[2], sh[3], n <= 70000);
    }
    /* "random N": N more shapes, L_x even, at most 20000 sites */
    const int extra = argc > 2 && !strcmp(argv[1], "random") ? atoi(argv[2]) : 0;
    for (int k = 0; k < extra; k++) {
        const int ndim = 2 + (int)(rs % 2);
        rf();
        const int lx = 2 * (1 + (int)(rs % 40));
        rf();
        const int ly = 1 + (int)(rs % (ndim == 3 ? 40 : 300));
        rf();
        const int lz = ndim == 3 ? 1 + (int)(rs % 24) : 1;
        rf();
        if ((long)lx * ly * lz <= 20000)
            fail |= check(ndim, lx, ly, lz, true);
    }
    printf(fail ? "heisenberg window host check: FAILED\n"
                : "heisenberg window host check: passed\n");
    return fail;
}
