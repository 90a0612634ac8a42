/*
 * Internal: the checkpoint format's layout (doc/checkpoints.md) and the pieces of
 * lib/checkpoint.c that lib/checkpoint_part.c shares to stream a checkpoint between a
 * file and the parts of a shared lattice in chunks, with the same bytes as an ordinary
 * sim's save and the same checks as an ordinary load.
 *
 * The file: the prefix (CKPT_PREFIX_BYTES: magic, version, byte-order mark, total size,
 * library version, desc, parameters, sweeps, counters, configuration flag, configuration
 * size), the configuration (get_spins' layout: each replica's sites in site order), the
 * couplings' count and the couplings (get_couplings' layout), for version 3 the chain
 * block, for version 2 (and 3 with its flag) the application data's size and bytes, then
 * the FNV-1a checksum of every byte before it.
 */
#ifndef LATMC_LIB_CHECKPOINT_FORMAT_H
#define LATMC_LIB_CHECKPOINT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <latmc/part.h>

#include "checkpoint_io.h"
#include "internal.h"
#include "params.h"

#define CKPT_MAGIC "LATMCCKP"
/* Version 1: the state. Version 2: the same, then an application-data section; written
 * only when there is one, so that files without it still load in older libraries.
 * Version 3: the chain block after the couplings (the parameters after key CKPT_PARAMS:
 * decisions) and an application-data section that may be absent; written only for a sim
 * whose later parameters are off their defaults, so every file of the default chain
 * stays version 1 or 2. */
#define CKPT_VERSION_STATE 1u
#define CKPT_VERSION_APP_DATA 2u
#define CKPT_VERSION_CHAIN 3u
#define CKPT_ENDIAN_MARK 0x01020304u   /* stored in host order: a reader of the other byte
                                          order sees 0x04030201 */
#define CKPT_VERSION_BYTES 16
#define CKPT_HEADER_BYTES (8 + 4 + 4 + 8 + CKPT_VERSION_BYTES)
#define CKPT_MAX_BYTES (UINT64_C(1) << 46)
/* A checkpoint without a configuration holds nothing proportional to the lattice it
 * declares, so only small lattices may be saved and loaded that way (sites x replicas):
 * larger ones would let a few hundred bytes ask for gigabytes. */
#define CKPT_MAX_EMPTY_SITES 65536
/* Acceptance counters beyond this are refused: no run reaches it (29 years at 1e10
 * updates per second), and the counters of a sim loaded with more could wrap around 2^64
 * in its next sweeps (a fuzzer's finding: such a sim saved a file it could not load).
 * latmc_sim_sweep refuses to sweep once a sim holds more than half of it
 * (LATMC_SWEEP_MAX_ATTEMPTED, lib/backend.h), so that what a sim saves it loads again
 * (another finding: loaded just under the bound, one sweep passed it). */
#define CKPT_MAX_ATTEMPTED (UINT64_C(1) << 63)
/* Parameters a checkpoint's prefix stores, keys 1 .. CKPT_PARAMS (beta .. nover): fixed by
 * the format, not by LATMC_PARAM_MAX. The later keys CKPT_PARAMS + 1 .. CKPT_PARAMS_V3
 * (decisions) are in version 3's chain block; a file of version 1 or 2 has them at their
 * defaults. The chain block: u32 CKPT_PARAMS_V3, the later parameters as f64, u32 1 or 0
 * (an application-data section follows or not). */
#define CKPT_PARAMS 10
#define CKPT_PARAMS_V3 11
#define CKPT_CHAIN_BYTES (4 + 8 * (CKPT_PARAMS_V3 - CKPT_PARAMS) + 4)
/* Bytes from the start through the configuration-size field (format versions 1 and 2). */
#define CKPT_PREFIX_BYTES (CKPT_HEADER_BYTES + 4 + 16 * 8 + 4 + CKPT_PARAMS * 8 + 3 * 8 + 4 + 8)

/* The FNV-1a checksum (checkpoint_io.h's ckpt_checksum) of a stream: start with
 * CKPT_CHECKSUM_START, fold in every byte in file order. */
#define CKPT_CHECKSUM_START UINT64_C(0xcbf29ce484222325)
static inline uint64_t ckpt_checksum_add(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

/* Application data to append (version 2), or none. */
struct app_section {
    const void *data;
    size_t size;
    bool present;
};

/* Everything after the desc, parsed and checked against the desc before any sim exists,
 * so that a small damaged file can never make the loader allocate a huge lattice. */
struct ckpt_state {
    double param[LATMC_PARAM_MAX + 1];
    uint64_t sweeps, accepted, attempted;
    bool have_config;
    const unsigned char *spins;       /* spin_bytes raw bytes inside the buffer */
    uint64_t spin_bytes;
    const unsigned char *couplings;   /* ncouplings raw floats inside the buffer */
    uint64_t ncouplings;
    bool has_app;                     /* format version 2, or 3 with the section */
    const unsigned char *app;         /* app_size bytes inside the buffer */
    uint64_t app_size;
};

/* A checkpoint in memory, checked through its field sizes (no values yet). */
struct ckpt_parsed {
    latmc_sim_desc desc;       /* as stored: what latmc_sim_create gets */
    latmc_sim_desc valid;      /* validated */
    int64_t nsites;
    struct ckpt_state state;
};

/* The prefix of sim's checkpoint: `total` bytes in all (0: patched later), a
 * configuration of spin_bytes, version 2 where `app`. */
void ckpt_put_prefix(struct ckpt_writer *w, const latmc_sim *sim, uint64_t total,
                     uint64_t spin_bytes, bool app);
/* The format version of sim's checkpoint (with an application-data section or not). */
uint32_t ckpt_version_of(const latmc_sim *sim, bool app);
/* Version 3's chain block of sim (CKPT_CHAIN_BYTES), its flag saying whether an
 * application-data section follows. */
void ckpt_put_chain_block(struct ckpt_writer *w, const latmc_sim *sim, bool app);
/* The configuration's bytes (0 without one) and the couplings' count (0: none). */
void ckpt_state_sizes(const latmc_sim *sim, size_t *spin_bytes, size_t *ncouplings);

/* LATMC_ECORRUPT with `what` alone: the public function that read the bytes names itself
 * and the file in front of it (ckpt_name_file). */
int ckpt_corrupt(const char *what);
/* The envelope's checks but the checksum, on the first CKPT_HEADER_BYTES of `size`. */
int ckpt_check_head(const unsigned char *p, size_t size, uint32_t *version);
int ckpt_read_desc(struct ckpt_reader *r, latmc_sim_desc *d);
/* The fields after the desc through the configuration size, checked against the desc
 * (d validated, nsites its sites). */
int ckpt_parse_head(struct ckpt_reader *r, const latmc_sim_desc *d, int64_t nsites,
                    struct ckpt_state *st);
/* Version 3's chain block at r (checkpoint_format.h): the later parameters into st->param,
 * checked as the prefix's are, and st->has_app from its flag. */
int ckpt_parse_chain_block(struct ckpt_reader *r, const latmc_sim_desc *d,
                           struct ckpt_state *st);
/* A whole checkpoint in memory, every check but the values'. */
int ckpt_parse(const unsigned char *p, size_t size, struct ckpt_parsed *out);
/* Parameters, sweep number, counters and the configuration flag into a fresh sim. */
int ckpt_apply_counters(latmc_sim *sim, const struct ckpt_state *st);

/* A checkpoint file opened for reading (a regular file), its header's size, and where it
 * is long enough, the size its desc implies, checked against the file's: *fd (the
 * caller's to close) and *size. */
int ckpt_open_file(const char *path, const char *fn, int *fd, uint64_t *size);
/* The whole file into memory (*bytes the caller's to free), after those checks. */
int ckpt_read_file(const char *path, const char *fn, unsigned char **bytes, size_t *size);
/* The public function called (and the file, where path is not NULL) named in front of the
 * thread's last failure's message: "FN: 'PATH': why" or "FN: why"; a message that starts
 * with FN already is left alone. Returns status. */
int ckpt_name_file(int status, const char *fn, const char *path);
/* A part of a shared lattice to deserialize into (latmc_sim_deserialize_part). */
struct ckpt_part_args {
    int rank, n_parts;
    const latmc_transport *transport;
};
/* The part loaders' arguments (latmc_sim_load_part, latmc_sim_deserialize_part), checked
 * before any communication: *out NULL first; NULLs (src, the file or the bytes, named
 * src_name), then rank and n_parts as latmc_sim_create_part takes them, then the
 * transport's fields. LATMC_OK or the refusal, named by fn. */
int ckpt_part_check_args(const char *fn, const latmc_ctx *ctx, const void *src,
                         const char *src_name, int rank, int n_parts,
                         const latmc_transport *transport, latmc_sim **out);
/* latmc_sim_deserialize's body, its failures not named (the caller names them: the
 * loaders of files with their path, latmc_ens_load with the member's number): part NULL for
 * an ordinary sim (placed by where, if not NULL); fn the call, for its argument checks. */
int ckpt_deserialize(latmc_ctx *ctx, const void *buf, size_t size,
                     const struct ckpt_part_args *part, const latmc_sim_desc *where,
                     const char *fn, latmc_sim **out);

/* The checkpoint_part.c half: latmc_sim_save(_app_data) of a part of n_parts > 1. */
int ckpt_part_save(latmc_sim *sim, const char *path, const struct app_section *app,
                   const char *fn);
/* latmc_checkpoint_app_data's body: the file checked and read in chunks. */
int ckpt_file_app_data(const char *path, const char *fn, void *buf, size_t capacity,
                       size_t *size);

#endif
