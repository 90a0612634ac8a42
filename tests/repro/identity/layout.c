/*
 * Layouts as text: comma-separated tokens (a row lists several layouts, separated by
 * spaces). The placement of the chain:
 *   threads=N     desc.n_threads            simd=c|avx2|avx512  LATMC_CPU_MASK at creation
 *   boxes=K       desc.n_parts (one device) cuda                the CUDA backend (one GPU)
 *   devices=K     K CUDA devices (slab i on GPU i mod GPUs; on one GPU too)
 *   parts=K       K parts (latmc/part.h) over the in-process transport of threads
 *   shared        ... with the halos in shared buffers (share_halos)
 *   mpi           one part per MPI rank (liblatmc_mpi, MPI_COMM_WORLD; run under mpirun)
 *   max_ranks=N   ... skipped on more than N ranks (a lattice that takes no more cuts)
 *   chunk=C       LATMC_CUDA_PHI4_CHUNK=C (CUDA phi^4: chunk extents, none: the site order)
 *   one           nothing: the reference's placement (CPU, one box, one thread; the
 *                 level: LATMC_CPU_MASK as the process found it, the best without it)
 * Between the sweep calls (the middle of the chain):
 *   recut=K       latmc_sim_set_parts(K)
 *   serialize     latmc_sim_serialize, destroy, deserialize (on `then`)
 *   save          latmc_sim_save into a temporary directory, destroy, load (on `then`)
 *   then.TOKEN    a placement token for the continuation (default: the first placement)
 * The script (the reference runs it too):
 *   cold          a cold start (default: hot)
 *   setspins      after sweeps1, the configuration read and set again (resets acceptance)
 *   measured      every sweep a call of its own, then the spins, every observable and a
 *                 checkpoint read (not in the reference: reads leave the chain as it is)
 * And:
 *   ens           the spec's members in an ensemble (2 samples x 2 temperatures),
 *                 each against its standalone one-box CPU chain (latmc_ens_member_desc)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identity.h"

static bool level_ok(const char *v)
{
    return strcmp(v, "c") == 0 || strcmp(v, "avx2") == 0 || strcmp(v, "avx512") == 0;
}

static const char *level_of(const char *v)
{
    return strcmp(v, "c") == 0 ? "c" : strcmp(v, "avx2") == 0 ? "avx2" : "avx512";
}

static bool count_of(const char *v, int *out)
{
    char *end = NULL;
    const long n = strtol(v, &end, 10);
    if (end == v || *end != '\0' || n < 0 || n > 64)
        return false;
    *out = (int)n;
    return true;
}

/* A placement token into p; false when the token is not one. */
static bool place_token(const char *tok, struct place *p)
{
    const char *eq = strchr(tok, '=');
    const size_t klen = eq ? (size_t)(eq - tok) : strlen(tok);
    const char *v = eq ? eq + 1 : NULL;
#define KEY(k) (klen == strlen(k) && strncmp(tok, k, klen) == 0)
    if (KEY("threads") && v)
        return count_of(v, &p->threads) && p->threads > 0;
    if (KEY("simd") && v && level_ok(v)) {
        p->simd = level_of(v);
        return true;
    }
    if (KEY("boxes") && v)
        return count_of(v, &p->boxes) && p->boxes > 0;
    if (KEY("devices") && v) {
        p->cuda = true;
        return count_of(v, &p->devices) && p->devices > 0;
    }
    if (KEY("parts") && v)
        return count_of(v, &p->parts) && p->parts > 0;
    if (KEY("cuda") && !v)
        return p->cuda = true;
    if (KEY("shared") && !v)
        return p->shared_halos = true;
    if (KEY("mpi") && !v)
        return p->mpi = true;
    if (KEY("max_ranks") && v)
        return count_of(v, &p->max_ranks) && p->max_ranks > 0;
    if (KEY("one") && !v) /* one box, one thread, the CPU (at the process's level) */
        return true;
#undef KEY
    return false;
}

bool layout_parse(const char *text, struct layout *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    if (strlen(text) >= sizeof out->text) {
        snprintf(why, why_size, "layout \"%s\" is too long", text);
        return false;
    }
    strcpy(out->text, text);
    char buf[sizeof out->text];
    strcpy(buf, text);
    bool any_then = false;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        bool ok = true;
        if (strncmp(tok, "then.", 5) == 0) {
            ok = place_token(tok + 5, &out->then);
            any_then = true;
        } else if (strncmp(tok, "recut=", 6) == 0) {
            out->mid = MID_RECUT;
            ok = count_of(tok + 6, &out->recut);
        } else if (strcmp(tok, "serialize") == 0) {
            out->mid = MID_SERIALIZE;
        } else if (strcmp(tok, "save") == 0) {
            out->mid = MID_SAVE;
        } else if (strcmp(tok, "cold") == 0) {
            out->cold = true;
        } else if (strcmp(tok, "setspins") == 0) {
            out->setspins = true;
        } else if (strcmp(tok, "measured") == 0) {
            out->measured = true;
        } else if (strcmp(tok, "ens") == 0) {
            out->ens = true;
        } else if (strncmp(tok, "chunk=", 6) == 0 && strlen(tok + 6) > 0 &&
                   strlen(tok + 6) < sizeof out->chunk) {
            strcpy(out->chunk, tok + 6);
        } else {
            ok = place_token(tok, &out->first);
        }
        if (!ok) {
            snprintf(why, why_size, "layout \"%s\": token \"%s\" unknown or out of range",
                     text, tok);
            return false;
        }
    }
    if (any_then && out->mid != MID_SERIALIZE && out->mid != MID_SAVE) {
        snprintf(why, why_size, "layout \"%s\": then.* without serialize or save", text);
        return false;
    }
    if (out->ens && (any_then || out->setspins || out->measured ||
                     (out->mid != MID_NONE && out->mid != MID_SAVE))) {
        snprintf(why, why_size, "layout \"%s\": an ensemble takes cold and save only", text);
        return false;
    }
    if (!any_then)
        out->then = out->first;
    return true;
}
