/*
 * liblatmc_mpi's halo buffers in MPI-3 shared memory (mpi/latmc_mpi.c, link_share_halos
 * and link_sync_halos), under mpirun on one node: every buffer a range of whole pages
 * from a page boundary in this process, its own and its neighbours' (a GPU rank
 * page-locks each by itself: cudaHostRegister refuses a page already locked, so two
 * buffers sharing one would send the second through the slow staged path), for a halo of
 * a whole number of pages (the case where a segment that starts past a page boundary
 * makes neighbouring buffers share a page) and of a few bytes; what a rank writes into
 * its send buffers of a set is what its neighbours read in their receive buffers of that
 * set after the handshake, over several exchanges alternating the sets; with
 * LATMC_MPI_SHARED_HALOS=0 no buffers are offered. The transport's static functions are
 * tested directly: the file is included.
 */
#include "../../mpi/latmc_mpi.c"

static int failures;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "rank %d: ", rank);                                            \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

/* The byte rank `r` writes at exchange `round` into its buffer to the lower (dir 0) or
 * upper (dir 1) neighbour. */
static unsigned char value(int r, int round, int dir)
{
    return (unsigned char)(1 + 37 * r + 5 * round + 2 * dir);
}

static void one_size(int rank, size_t bytes, bool want)
{
    struct mpi_link *l = NULL;
    latmc_transport tr;
    if (link_open(MPI_COMM_WORLD, &l, &tr) != LATMC_OK) {
        CHECK(false, "link_open: %s", latmc_last_error());
        return;
    }
    const long page = sysconf(_SC_PAGESIZE);
    void *send[4] = { NULL }, *recv[4] = { NULL };
    const int shared = tr.share_halos(tr.user, bytes, send, recv);
    CHECK(shared == (want ? 1 : 0), "share_halos of %zu bytes answered %d (%s)", bytes, shared,
          shared < 0 ? latmc_last_error() : "");
    if (shared == 1) {
        for (int k = 0; k < 4; k++) {
            CHECK((uintptr_t)send[k] % (uintptr_t)page == 0,
                  "send[%d] of %zu bytes at %lu past a page boundary", k, bytes,
                  (unsigned long)((uintptr_t)send[k] % (uintptr_t)page));
            CHECK((uintptr_t)recv[k] % (uintptr_t)page == 0,
                  "recv[%d] of %zu bytes at %lu past a page boundary", k, bytes,
                  (unsigned long)((uintptr_t)recv[k] % (uintptr_t)page));
        }
        const int n = l->size, lower = (rank + n - 1) % n, upper = (rank + 1) % n;
        for (int round = 0; round < 6; round++) {
            const int set = round % 2;
            memset(send[2 * set], value(rank, round, 0), bytes);
            memset(send[2 * set + 1], value(rank, round, 1), bytes);
            CHECK(tr.sync_halos(tr.user, set) == 0, "sync_halos: %s", latmc_last_error());
            const unsigned char *from_lower = recv[2 * set], *from_upper = recv[2 * set + 1];
            int bad = 0;
            for (size_t i = 0; i < bytes; i++)
                bad += from_lower[i] != value(lower, round, 1) ||
                       from_upper[i] != value(upper, round, 0);
            CHECK(bad == 0, "exchange %d (set %d, %zu bytes): %d bytes other than the "
                  "neighbours wrote", round, set, bytes, bad);
        }
    }
    tr.release(tr.user);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *env = getenv("LATMC_MPI_SHARED_HALOS");
    const bool want = !(env && strcmp(env, "0") == 0);
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    one_size(rank, 3 * page, want);
    one_size(rank, 40, want);
    int all = failures;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %d failure(s)\n", all ? "FAIL" : "PASS", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
