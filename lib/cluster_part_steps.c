/*
 * Swendsen-Wang's clusters of a device's part joined across the parts of a lattice shared
 * by processes (doc/clusters.md, "Parts"; lib/part.h). A device runs the sweep as steps of
 * the plan (lib/cluster_steps.c), each part on its own slab: after its label step every
 * local piece is named by its smallest site, and only the pieces that reach the slab's
 * first or last plane can belong to a cluster of another part. The backend writes those
 * faces as one record (ops.cluster_faces, its own format); every part's record goes to
 * every part in one gather, and every part joins the same graph (the same union-find,
 * the smallest name winning), keeping its own pieces' joined names for the flip, which
 * draws their decisions at those names. The joins thus agree without another message,
 * and a cluster's name is its smallest global site whatever the cut: the chain is the
 * one-box chain bit for bit.
 *
 * The last sweep of each call (the one the cluster observables describe) sends the larger
 * record with the statistics (LATMC_CLUSTER_FACES_STATS: each part's clusters that reach
 * no face counted, and its face pieces' sizes, which every part joins as it joins the
 * names), so that every part then counts the same clusters with no message more; the
 * sweeps before it send the plain record.
 *
 * Each record is preceded by a status word, so that a part whose step failed still takes
 * part in the gather (no part is left waiting) and the others then skip the join; the
 * sweep's failure is agreed on after the call (lib/part.c, latmc_part_sweep).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "part.h"

/* The status word before each record (8 bytes: the record stays aligned). */
enum { FACE_HEAD = 8 };

int latmc_cluster_part_ready(latmc_sim *sim)
{
    struct latmc_part *part = sim->part;
    if (!LATMC_BACKEND_OP(sim->ops, cluster_faces))
        return latmc_fail(LATMC_EUNSUPPORTED, "latmc_sim_sweep: the %s backend joins no "
                          "clusters across parts", sim->ops->name);
    size_t bytes = 0, stats_bytes = 0;
    int st = sim->ops->cluster_faces(sim, LATMC_CLUSTER_FACES_SIZE, NULL, &bytes);
    if (st == LATMC_OK) /* the last sweep's, with the cluster statistics */
        st = sim->ops->cluster_faces(sim, LATMC_CLUSTER_FACES_SIZE | LATMC_CLUSTER_FACES_STATS,
                                     NULL, &stats_bytes);
    if (st < 0)
        return st;
    const size_t plain = FACE_HEAD + ((bytes + 7) & ~(size_t)7);
    const size_t with_stats = FACE_HEAD + ((stats_bytes + 7) & ~(size_t)7);
    const size_t rec = with_stats > plain ? with_stats : plain;
    /* this part's record, then the gathered ones; made again only for larger records
     * (the size depends on the parameters: a field's sums) */
    if (rec > part->faces_room) {
        unsigned char *faces = malloc(rec * ((size_t)part->n_parts + 1));
        if (!faces)
            return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the cluster "
                              "faces of %d parts (%zu bytes each)", part->n_parts, rec);
        free(part->faces);
        part->faces = faces;
        part->faces_room = rec;
    }
    part->face_bytes = plain;
    part->stats_face_bytes = with_stats;
    return LATMC_OK;
}

int latmc_cluster_part_join(latmc_sim *sim, int status, bool stats)
{
    struct latmc_part *part = sim->part;
    const int n = part->n_parts;
    int st = status;
    if (st >= 0 && !part->faces) /* latmc_sim_sweep readies it on every part */
        st = latmc_fail(LATMC_EBACKEND, "latmc_sim_sweep: the cluster faces were not "
                        "allocated (a bug in the core)");
    /* without the buffers (the bug above) nothing can be gathered: every part is in the
     * same state, since they are allocated together before the sweeps */
    if (!part->faces)
        return st;
    const int flag = stats ? LATMC_CLUSTER_FACES_STATS : 0;
    const size_t rec = stats ? part->stats_face_bytes : part->face_bytes;
    unsigned char *mine = part->faces, *all = mine + rec;
    size_t bytes = rec - FACE_HEAD;
    if (st >= 0)
        st = sim->ops->cluster_faces(sim, LATMC_CLUSTER_FACES_OUT | flag, mine + FACE_HEAD,
                                     &bytes);
    const int64_t failed = st < 0;
    memcpy(mine, &failed, sizeof failed);
    if (failed)
        memset(mine + FACE_HEAD, 0, rec - FACE_HEAD);
    for (int p = 0; p < n; p++)
        part->gather_bytes[p] = rec;
    const int tst = latmc_part_gather(part, "gather (cluster faces)", -1, mine, all,
                                      part->gather_bytes);
    if (tst < 0) /* the transport's: every part's */
        return tst;
    if (st < 0)
        return st;
    /* another part failed: it reports the sweep's failure (agreed on after the call); the
     * flip here runs on stale names, on a sweep that fails anyway */
    for (int p = 0; p < n; p++) {
        int64_t f = 0;
        memcpy(&f, all + (size_t)p * rec, sizeof f);
        if (f)
            return LATMC_OK;
    }
    /* the records side by side, as the backend reads them (each moves down: in order) */
    const size_t body = rec - FACE_HEAD;
    for (int p = 0; p < n; p++)
        memmove(all + (size_t)p * body, all + (size_t)p * rec + FACE_HEAD, body);
    bytes = body;
    return sim->ops->cluster_faces(sim, LATMC_CLUSTER_FACES_JOIN | flag, all, &bytes);
}
