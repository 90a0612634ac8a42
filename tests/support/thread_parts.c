/* The in-process transport of thread_parts.h: shared slots and barriers. */
#include "thread_parts.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct hub {
    int n;
    pthread_barrier_t barrier;
    const void *send[THREAD_PARTS_MAX][2]; /* exchange: to_lower, to_upper; gather/bcast: [0] */
    struct thread_parts_opts opts;
    /* halos in shared memory: each part's send buffers of up to 4 sims, freed after the
     * threads end */
    void *owned[THREAD_PARTS_MAX][4][4];
    int n_owned[THREAD_PARTS_MAX];
    int syncs;
    /* sync_halos is a handshake with the two neighbours only (not a barrier): a part may
     * run one exchange ahead of a neighbour, so a buffer rewritten too early is a race
     * that ThreadSanitizer sees */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    unsigned long handshakes[THREAD_PARTS_MAX];
    int released;
};

struct link {
    struct hub *hub;
    int rank;
    int fail_in; /* > 0: the fail_in-th gather from now fails */
    int gathers;
    latmc_transport t;
};

static void wait_all(struct hub *h)
{
    pthread_barrier_wait(&h->barrier);
}

static int lower_of(const struct link *l)
{
    return (l->rank + l->hub->n - 1) % l->hub->n;
}

static int upper_of(const struct link *l)
{
    return (l->rank + 1) % l->hub->n;
}

static int hub_exchange(void *user, const void *to_lower, const void *to_upper,
                        void *from_lower, void *from_upper, size_t bytes)
{
    struct link *l = user;
    struct hub *h = l->hub;
    h->send[l->rank][0] = to_lower;
    h->send[l->rank][1] = to_upper;
    wait_all(h);
    memcpy(from_lower, h->send[lower_of(l)][1], bytes);
    memcpy(from_upper, h->send[upper_of(l)][0], bytes);
    wait_all(h);
    return 0;
}

/* Each part's 4 send buffers; the neighbours' are its receive buffers (threads share all
 * memory). */
static int hub_share_halos(void *user, size_t bytes, void *send[4], void *recv[4])
{
    struct link *l = user;
    struct hub *h = l->hub;
    const int lower = lower_of(l), upper = upper_of(l);
    if (h->n_owned[l->rank] == 4)
        return latmc_record_failure(LATMC_ENOMEM, "test transport: a fifth share_halos");
    void **mine = h->owned[l->rank][h->n_owned[l->rank]++];
    int ok = 1;
    for (int k = 0; k < 4; k++) {
        mine[k] = malloc(bytes);
        ok &= mine[k] != NULL;
        send[k] = mine[k];
    }
    wait_all(h);
    const int at_lower = h->n_owned[lower] - 1, at_upper = h->n_owned[upper] - 1;
    for (int set = 0; set < 2; set++) {
        recv[2 * set] = h->owned[lower][at_lower][2 * set + 1];
        recv[2 * set + 1] = h->owned[upper][at_upper][2 * set];
    }
    wait_all(h);
    if (!ok)
        return latmc_record_failure(LATMC_ENOMEM, "test transport: no memory for halos");
    return l->rank == h->opts.declines_on ? 0 : 1;
}

static int hub_sync_halos(void *user, int set)
{
    struct link *l = user;
    struct hub *h = l->hub;
    if (set != 0 && set != 1)
        return latmc_record_failure(LATMC_EINVAL, "test transport: sync_halos of a bad set");
    pthread_mutex_lock(&h->lock);
    const unsigned long mine = ++h->handshakes[l->rank];
    if (l->rank == 0)
        h->syncs++;
    pthread_cond_broadcast(&h->cond);
    while (h->handshakes[lower_of(l)] < mine || h->handshakes[upper_of(l)] < mine)
        pthread_cond_wait(&h->cond, &h->lock);
    pthread_mutex_unlock(&h->lock);
    return 0;
}

static int hub_gather(void *user, int root, const void *mine, void *all, const size_t *bytes)
{
    struct link *l = user;
    struct hub *h = l->hub;
    h->send[l->rank][0] = mine;
    wait_all(h);
    if (root < 0 || root == l->rank) {
        unsigned char *out = all;
        for (int p = 0; p < h->n; p++) {
            memcpy(out, h->send[p][0], bytes[p]);
            out += bytes[p];
        }
    }
    wait_all(h);
    l->gathers++;
    if (l->fail_in > 0 && --l->fail_in == 0)
        return latmc_record_failure(LATMC_EIO, "test transport: an injected gather failure");
    return 0;
}

static int hub_broadcast(void *user, int root, void *buf, size_t bytes)
{
    struct link *l = user;
    struct hub *h = l->hub;
    h->send[l->rank][0] = buf;
    wait_all(h);
    if (l->rank != root)
        memcpy(buf, h->send[root][0], bytes);
    wait_all(h);
    return 0;
}

static void hub_release(void *user)
{
    struct link *l = user;
    pthread_mutex_lock(&l->hub->lock);
    l->hub->released++;
    pthread_mutex_unlock(&l->hub->lock);
}

struct start {
    struct link *link;
    thread_part_fn body;
    void *arg;
};

static void *part_main(void *p)
{
    struct start *s = p;
    s->body(s->link->rank, s->link->hub->n, &s->link->t, s->arg);
    return NULL;
}

int thread_parts_run(int n, const struct thread_parts_opts *opts, thread_part_fn body,
                     void *const *args, struct thread_parts_stats *stats)
{
    if (n < 1 || n > THREAD_PARTS_MAX)
        return -1;
    struct hub *h = calloc(1, sizeof *h);
    struct link links[THREAD_PARTS_MAX];
    struct start starts[THREAD_PARTS_MAX];
    pthread_t th[THREAD_PARTS_MAX];
    if (!h)
        return -1;
    h->n = n;
    h->opts.declines_on = -1;
    if (opts)
        h->opts = *opts;
    if (pthread_barrier_init(&h->barrier, NULL, (unsigned)n) != 0) {
        free(h);
        return -1;
    }
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->cond, NULL);
    int started = 0;
    for (int p = 0; p < n; p++) {
        struct link *l = &links[p];
        memset(l, 0, sizeof *l);
        l->hub = h;
        l->rank = p;
        l->t.struct_size = sizeof l->t;
        l->t.user = l;
        l->t.exchange = hub_exchange;
        l->t.gather = hub_gather;
        l->t.broadcast = hub_broadcast;
        l->t.release = hub_release;
        if (h->opts.shared_halos) {
            l->t.share_halos = hub_share_halos;
            l->t.sync_halos = hub_sync_halos;
        }
        starts[p] = (struct start){ l, body, args ? args[p] : NULL };
    }
    for (int p = 0; p < n; p++) {
        if (pthread_create(&th[p], NULL, part_main, &starts[p]) != 0)
            break;
        started++;
    }
    /* a thread that did not start leaves the others waiting at the barrier forever: only
     * possible when the process is out of threads; fail loudly rather than hang */
    if (started < n)
        abort();
    for (int p = 0; p < n; p++)
        pthread_join(th[p], NULL);
    if (stats) {
        stats->syncs = h->syncs;
        stats->released = h->released;
    }
    pthread_barrier_destroy(&h->barrier);
    pthread_mutex_destroy(&h->lock);
    pthread_cond_destroy(&h->cond);
    for (int p = 0; p < n; p++)
        for (int k = 0; k < h->n_owned[p]; k++)
            for (int b = 0; b < 4; b++)
                free(h->owned[p][k][b]);
    free(h);
    return 0;
}

void thread_parts_fail_gather_in(const latmc_transport *t, int k)
{
    ((struct link *)t->user)->fail_in = k;
}

int thread_parts_gathers(const latmc_transport *t)
{
    return ((struct link *)t->user)->gathers;
}
