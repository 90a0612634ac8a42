/*
 * liblatmc_mpi: liblatmc's part transport (latmc/part.h) over MPI. Halos in an MPI-3
 * shared-memory window with a handshake where every rank is on one node (link_share_halos:
 * no copy through MPI), else by nonblocking point-to-point; tiles and configurations by
 * gathers that only place bytes (every sum is done by liblatmc, in plane order), so
 * nothing here depends on the order in which ranks answer. Large messages are split into
 * chunks whose counts fit MPI's int.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <latmc/latmc_mpi.h>

#if defined(OPEN_MPI) && defined(__has_include)
#  if __has_include(<mpi-ext.h>)
#    include <mpi-ext.h>
#  endif
#endif

/* Tags of the halo messages: what a rank sends to its lower / upper neighbour; the
 * handshakes of halos in shared memory (link_sync_halos) likewise. */
enum { TAG_DOWN = 1, TAG_UP = 2, TAG_GATHER = 3, TAG_SYNC_DOWN = 4, TAG_SYNC_UP = 5 };

/* The largest piece of one message (MPI counts are int). */
#define CHUNK ((size_t)1 << 30)

struct mpi_link {
    MPI_Comm comm;  /* the sim's own duplicate */
    int rank, size;
    /* halos in shared memory (link_share_halos): the window, on `node` (MPI_COMM_NULL:
     * none) */
    MPI_Comm node;
    MPI_Win win;
};

static int mpi_failed(int rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "error %d", rc);
    char msg[512];
    snprintf(msg, sizeof msg, "liblatmc_mpi: %.60s: %.400s", what, text);
    return latmc_record_failure(LATMC_EBACKEND, msg);
}

static int link_exchange(void *user, const void *to_lower, const void *to_upper,
                         void *from_lower, void *from_upper, size_t bytes)
{
    struct mpi_link *l = user;
    if (bytes > (size_t)INT_MAX)
        return latmc_record_failure(LATMC_EUNSUPPORTED, "liblatmc_mpi: a halo of more than "
                                    "2^31 bytes");
    const int lower = (l->rank + l->size - 1) % l->size, upper = (l->rank + 1) % l->size;
    const int n = (int)bytes;
    MPI_Request req[4];
    /* real statuses rather than MPI_STATUSES_IGNORE: GCC takes MPICH's (MPI_Status *)1 for
     * an empty array (-Wstringop-overflow) */
    MPI_Status stat[4];
    int rc = MPI_Irecv(from_lower, n, MPI_BYTE, lower, TAG_UP, l->comm, &req[0]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Irecv(from_upper, n, MPI_BYTE, upper, TAG_DOWN, l->comm, &req[1]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Isend(to_lower, n, MPI_BYTE, lower, TAG_DOWN, l->comm, &req[2]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Isend(to_upper, n, MPI_BYTE, upper, TAG_UP, l->comm, &req[3]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Waitall(4, req, stat);
    return rc == MPI_SUCCESS ? 0 : mpi_failed(rc, "halo exchange");
}

/*
 * Halos in MPI-3 shared memory, where every rank of the communicator is on one node (a
 * GPU rank's device then copies its border planes straight into memory its neighbours'
 * devices read: no MPI copy; doc/mpi.md "GPU ranks"). Each rank's segment holds its 4
 * send buffers (2 sets x lower, upper), each a whole number of pages from a page
 * boundary, so that a backend may page-lock each buffer by itself. LATMC_MPI_SHARED_HALOS=0 (on any rank) keeps the
 * exchange by messages. Collective; every rank gets the same answer.
 */
static int link_share_halos(void *user, size_t bytes, void *send[4], void *recv[4])
{
    struct mpi_link *l = user;
    const char *env = getenv("LATMC_MPI_SHARED_HALOS");
    const int wanted = !(env && strcmp(env, "0") == 0);
    MPI_Comm node = MPI_COMM_NULL;
    int rc = MPI_Comm_split_type(l->comm, MPI_COMM_TYPE_SHARED, l->rank, MPI_INFO_NULL,
                                 &node);
    if (rc != MPI_SUCCESS)
        return mpi_failed(rc, "MPI_Comm_split_type");
    int node_size = 0;
    MPI_Comm_size(node, &node_size);
    /* every rank on one node (then on every rank), and wanted by every rank */
    int go = wanted && node_size == l->size;
    rc = MPI_Allreduce(MPI_IN_PLACE, &go, 1, MPI_INT, MPI_MIN, l->comm);
    const long page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
    const size_t slot = (bytes + (size_t)page - 1) / (size_t)page * (size_t)page;
    unsigned char *base = NULL;
    int made = 0;
    if (rc == MPI_SUCCESS && go) {
        /* a window the node cannot hold (e.g. a small /dev/shm) is no failure: the
         * halos then go by messages, on every rank. One page more than the buffers: a
         * rank's segment need not start at a page (Open MPI 4.1.4's osc/sm puts it 264
         * bytes past one), and its buffers start at the first page boundary in it. */
        MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
        made = MPI_Win_allocate_shared((MPI_Aint)(4 * slot + (size_t)page), 1, MPI_INFO_NULL,
                                       node, &base, &l->win) == MPI_SUCCESS;
        int all = made;
        rc = MPI_Allreduce(&made, &all, 1, MPI_INT, MPI_MIN, l->comm);
        if (made && (rc != MPI_SUCCESS || !all)) {
            MPI_Win_free(&l->win);
            made = 0;
        }
    }
    if (!made) {
        MPI_Comm_free(&node);
        l->win = MPI_WIN_NULL;
        return rc == MPI_SUCCESS ? 0 : mpi_failed(rc, "sharing the halo buffers");
    }
    l->node = node;
    /* a passive-target epoch for the window's life: MPI_Win_sync orders the loads and
     * stores around each handshake */
    rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, l->win);
    /* the node communicator keeps the ranks' order (key = rank): its ranks are ours */
    const int lower = (l->rank + l->size - 1) % l->size, upper = (l->rank + 1) % l->size;
    unsigned char *lb = NULL, *ub = NULL;
    MPI_Aint sz;
    int du;
    if (rc == MPI_SUCCESS)
        rc = MPI_Win_shared_query(l->win, lower, &sz, &du, &lb);
    if (rc == MPI_SUCCESS)
        rc = MPI_Win_shared_query(l->win, upper, &sz, &du, &ub);
    /* Each rank's buffers from the first page boundary of its segment (so that each is a
     * range of whole pages: cudaHostRegister refuses a page already registered, and
     * neighbouring buffers would share one). The offset goes to the neighbours, which may
     * see the segment at another address: not assumed the same in their mappings. On
     * every rank, whatever failed above (no rank left waiting). */
    const uintptr_t at = (uintptr_t)base;
    int pad = (int)((page - (long)(at % (uintptr_t)page)) % page), pad_lower = 0, pad_upper = 0;
    MPI_Request req[4];
    MPI_Status stat[4];
    int prc = MPI_Irecv(&pad_lower, 1, MPI_INT, lower, TAG_UP, l->comm, &req[0]);
    if (prc == MPI_SUCCESS)
        prc = MPI_Irecv(&pad_upper, 1, MPI_INT, upper, TAG_DOWN, l->comm, &req[1]);
    if (prc == MPI_SUCCESS)
        prc = MPI_Isend(&pad, 1, MPI_INT, lower, TAG_DOWN, l->comm, &req[2]);
    if (prc == MPI_SUCCESS)
        prc = MPI_Isend(&pad, 1, MPI_INT, upper, TAG_UP, l->comm, &req[3]);
    if (prc == MPI_SUCCESS)
        prc = MPI_Waitall(4, req, stat);
    if (rc != MPI_SUCCESS)
        return mpi_failed(rc, "MPI_Win_shared_query");
    if (prc != MPI_SUCCESS)
        return mpi_failed(prc, "sharing the halo buffers' offsets");
    for (int k = 0; k < 4; k++)
        send[k] = base + pad + (size_t)k * slot;
    for (int set = 0; set < 2; set++) {
        /* the lower's send upwards, the upper's send downwards */
        recv[2 * set] = lb + pad_lower + (size_t)(2 * set + 1) * slot;
        recv[2 * set + 1] = ub + pad_upper + (size_t)(2 * set) * slot;
    }
    return 1;
}

/* The halos of one set are written on both sides: a handshake with both neighbours. */
static int link_sync_halos(void *user, int set)
{
    (void)set; /* every rank goes through the sets in the same order */
    struct mpi_link *l = user;
    const int lower = (l->rank + l->size - 1) % l->size, upper = (l->rank + 1) % l->size;
    MPI_Request req[4];
    MPI_Status stat[4];
    char none[4];
    int rc = MPI_Win_sync(l->win); /* this rank's writes, before the neighbours read */
    if (rc == MPI_SUCCESS)
        rc = MPI_Irecv(&none[0], 0, MPI_BYTE, lower, TAG_SYNC_UP, l->comm, &req[0]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Irecv(&none[1], 0, MPI_BYTE, upper, TAG_SYNC_DOWN, l->comm, &req[1]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Isend(&none[2], 0, MPI_BYTE, lower, TAG_SYNC_DOWN, l->comm, &req[2]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Isend(&none[3], 0, MPI_BYTE, upper, TAG_SYNC_UP, l->comm, &req[3]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Waitall(4, req, stat);
    if (rc == MPI_SUCCESS)
        rc = MPI_Win_sync(l->win); /* the neighbours' writes, before this rank reads */
    return rc == MPI_SUCCESS ? 0 : mpi_failed(rc, "halo handshake");
}

static int link_broadcast(void *user, int root, void *buf, size_t bytes)
{
    struct mpi_link *l = user;
    unsigned char *p = buf;
    for (size_t done = 0; done < bytes; done += CHUNK) {
        const size_t n = bytes - done < CHUNK ? bytes - done : CHUNK;
        int rc = MPI_Bcast(p + done, (int)n, MPI_BYTE, root, l->comm);
        if (rc != MPI_SUCCESS)
            return mpi_failed(rc, "broadcast");
    }
    return 0;
}

/* Gather to root by point-to-point in chunks, for counts beyond int. */
static int gather_chunked(struct mpi_link *l, int root, const void *mine, void *all,
                          const size_t *bytes)
{
    if (l->rank != root) {
        const unsigned char *p = mine;
        for (size_t done = 0; done < bytes[l->rank]; done += CHUNK) {
            const size_t n = bytes[l->rank] - done < CHUNK ? bytes[l->rank] - done : CHUNK;
            int rc = MPI_Send(p + done, (int)n, MPI_BYTE, root, TAG_GATHER, l->comm);
            if (rc != MPI_SUCCESS)
                return mpi_failed(rc, "gather (send)");
        }
        return 0;
    }
    unsigned char *out = all;
    for (int r = 0; r < l->size; r++) {
        if (r == root) {
            memcpy(out, mine, bytes[r]);
        } else {
            for (size_t done = 0; done < bytes[r]; done += CHUNK) {
                const size_t n = bytes[r] - done < CHUNK ? bytes[r] - done : CHUNK;
                int rc = MPI_Recv(out + done, (int)n, MPI_BYTE, r, TAG_GATHER, l->comm,
                                  MPI_STATUS_IGNORE);
                if (rc != MPI_SUCCESS)
                    return mpi_failed(rc, "gather (receive)");
            }
        }
        out += bytes[r];
    }
    return 0;
}

static int link_gather(void *user, int root, const void *mine, void *all, const size_t *bytes)
{
    struct mpi_link *l = user;
    size_t total = 0;
    for (int r = 0; r < l->size; r++)
        total += bytes[r];
    if (total <= (size_t)INT_MAX) {
        /* counts and displacements fit: one collective (it places bytes, no arithmetic) */
        int *counts = malloc(2 * (size_t)l->size * sizeof *counts);
        if (!counts)
            return latmc_record_failure(LATMC_ENOMEM, "liblatmc_mpi: gather: out of memory");
        int *displs = counts + l->size;
        for (int r = 0, at = 0; r < l->size; r++) {
            counts[r] = (int)bytes[r];
            displs[r] = at;
            at += counts[r];
        }
        int rc = root < 0
                     ? MPI_Allgatherv(mine, counts[l->rank], MPI_BYTE, all, counts, displs,
                                      MPI_BYTE, l->comm)
                     : MPI_Gatherv(mine, counts[l->rank], MPI_BYTE, all, counts, displs,
                                   MPI_BYTE, root, l->comm);
        free(counts);
        return rc == MPI_SUCCESS ? 0 : mpi_failed(rc, "gather");
    }
    int st = gather_chunked(l, root < 0 ? 0 : root, mine, all, bytes);
    if (st == 0 && root < 0)
        st = link_broadcast(l, 0, all, total);
    return st;
}

static void link_release(void *user)
{
    struct mpi_link *l = user;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && l->node != MPI_COMM_NULL) {
        MPI_Win_unlock_all(l->win);
        MPI_Win_free(&l->win);
        MPI_Comm_free(&l->node);
    }
    if (!finalized)
        MPI_Comm_free(&l->comm);
    free(l);
}

/* A link on a duplicate of comm, and the transport over it. */
static int link_open(MPI_Comm comm, struct mpi_link **out, latmc_transport *tr)
{
    struct mpi_link *l = calloc(1, sizeof *l);
    if (!l)
        return latmc_record_failure(LATMC_ENOMEM, "liblatmc_mpi: out of memory");
    int rc = MPI_Comm_dup(comm, &l->comm);
    if (rc != MPI_SUCCESS) {
        free(l);
        return mpi_failed(rc, "MPI_Comm_dup");
    }
    l->node = MPI_COMM_NULL;
    l->win = MPI_WIN_NULL;
    MPI_Comm_rank(l->comm, &l->rank);
    MPI_Comm_size(l->comm, &l->size);
    memset(tr, 0, sizeof *tr);
    tr->struct_size = sizeof *tr;
    tr->user = l;
    tr->exchange = link_exchange;
    tr->gather = link_gather;
    tr->broadcast = link_broadcast;
    tr->release = link_release;
    tr->share_halos = link_share_halos;
    tr->sync_halos = link_sync_halos;
    *out = l;
    return LATMC_OK;
}

static int check_args(latmc_ctx *ctx, MPI_Comm comm, const void *what, const char *what_name,
                      latmc_sim **out, const char *fn)
{
    if (out)
        *out = NULL;
    char msg[256];
    if (!ctx || !what || !out || comm == MPI_COMM_NULL) {
        snprintf(msg, sizeof msg, "%s: %s", fn,
                 !ctx ? "ctx is NULL" : !what ? what_name
                 : !out ? "out is NULL" : "comm is MPI_COMM_NULL");
        return latmc_record_failure(LATMC_EINVAL, msg);
    }
    /* both may be asked at any time, also after MPI_Finalize; anything else then aborts
     * the process (an MPI rule), so a call after it is refused here */
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized) {
        snprintf(msg, sizeof msg, "%s: MPI is %s", fn, finalized
                 ? "finalised (MPI_Finalize was called): no MPI call may follow it"
                 : "not initialised (call MPI_Init first)");
        return latmc_record_failure(LATMC_ESTATE, msg);
    }
    return LATMC_OK;
}

int latmc_mpi_sim_create(latmc_ctx *ctx, MPI_Comm comm, const latmc_sim_desc *desc,
                         latmc_sim **out)
{
    int st = check_args(ctx, comm, desc, "desc is NULL", out, "latmc_mpi_sim_create");
    if (st < 0)
        return st;
    struct mpi_link *l = NULL;
    latmc_transport tr;
    if ((st = link_open(comm, &l, &tr)) < 0)
        return st;
    st = latmc_sim_create_part(ctx, desc, l->rank, l->size, &tr, out);
    if (st < 0)
        link_release(l); /* a failed create leaves the link ours */
    return st;
}

/*
 * Rank 0 reads the file and sends each rank only its planes, in chunks
 * (latmc_sim_load_part): no rank holds the whole lattice.
 */
int latmc_mpi_sim_load(latmc_ctx *ctx, MPI_Comm comm, const char *path, latmc_sim **out)
{
    int st = check_args(ctx, comm, path, "path is NULL", out, "latmc_mpi_sim_load");
    if (st < 0)
        return st;
    struct mpi_link *l = NULL;
    latmc_transport tr;
    if ((st = link_open(comm, &l, &tr)) < 0)
        return st;
    st = latmc_sim_load_part(ctx, path, l->rank, l->size, &tr, out);
    if (st < 0)
        link_release(l); /* a failed load leaves the link ours */
    return st;
}

int latmc_mpi_cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() ? 1 : 0;
#else
    return 0;
#endif
}
