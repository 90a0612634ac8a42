/*
 * The rows of the identity matrix: spec x lattice x layouts (identity.h, layout.c). Each
 * lattice is where a layout's code path has a corner (the comments say which); the layout
 * sets below are the layout tests this matrix replaced, as rows. Every layout of a row is
 * compared with the row's one-box CPU chain (one thread, the C level).
 */
#include "identity.h"

/* Boxes (desc.n_parts) at each level and thread count: 2, 3, 5 boxes (uneven slabs, and
 * the thinnest the colouring allows where the last axis is short). No simd=: the best
 * level the CPU has (or LATMC_CPU_MASK's). */
#define BOXES                                                                              \
    "boxes=2 boxes=3 boxes=5 threads=2,boxes=2 threads=2,boxes=3 threads=2,boxes=5 "       \
    "simd=c,boxes=2 simd=c,threads=2,boxes=3 simd=c,boxes=5 simd=avx2,threads=2,boxes=3 "  \
    "simd=avx512,boxes=3 simd=avx512,threads=2,boxes=5"
#define BOXES_FEW "boxes=2 threads=2,boxes=3 simd=c,threads=2,boxes=2 simd=c,boxes=3"
/* one box: each level, and threads (the threaded paths need >= 32768 sites a colour) */
#define LEVELS "one simd=avx2 simd=avx512"
#define THREADS "threads=2 threads=3 simd=c,threads=2 simd=c,threads=3"
/* boxes with their own memory under thread teams of 2 to 4 members: the bands of the
 * written-through steps start and end anywhere relative to a box */
#define TEAMS(a, b, c)                                                                     \
    "threads=2,boxes=" #a " threads=3,boxes=" #b " threads=4,boxes=" #c                    \
    " threads=2,boxes=" #c " threads=3,boxes=" #a " threads=4,boxes=" #b                   \
    " simd=c,threads=3,boxes=" #c " simd=c,threads=4,boxes=" #a " simd=c,threads=2,boxes=" #b
/* a checkpoint between the sweeps: taken from 3 boxes, continued on 1, 2, 5 boxes (in
 * memory and through a file), at the levels */
#define RESTART                                                                            \
    "boxes=3,serialize,then.one boxes=3,serialize,then.boxes=2 "                           \
    "boxes=3,save,then.boxes=5 simd=c,boxes=3,save,then.simd=c "                           \
    "simd=c,boxes=3,serialize,then.simd=c,threads=2,boxes=5 "                              \
    "simd=avx512,boxes=3,serialize,then.simd=avx512"
/* other scripts (the reference runs them too): a cold start; the configuration set
 * again between the sweep calls (set_spins on boxes, parts; acceptance counts reset) */
#define SCRIPTS                                                                            \
    "cold,boxes=3 cold,simd=c,threads=2,boxes=5 cold,parts=2,shared setspins,boxes=2 "     \
    "setspins,threads=2,boxes=5,save,then.boxes=3 setspins,parts=3 cold,setspins,recut=2"
/* the cut changed between sweeps (latmc_sim_set_parts) */
#define RECUT "boxes=3,recut=2 threads=2,boxes=2,recut=5 boxes=5,recut=0 simd=c,recut=3"
/* parts of one lattice over the in-process transport of threads (latmc/part.h), halos
 * by exchange or in shared buffers, checkpoints saved by parts and loaded as one sim,
 * and a one-sim checkpoint streamed into parts */
#define PARTS                                                                              \
    "parts=1 parts=2 parts=3,shared parts=4 parts=2,shared,simd=c parts=3,simd=c "         \
    "parts=4,shared,simd=avx512"
#define PARTS_CKPT                                                                         \
    "parts=3,save,then.one one,save,then.parts=3 parts=2,serialize,then.parts=4,shared "  \
    "one,serialize,then.parts=2 parts=4,shared,save,then.parts=3,simd=c"
#define PARTS_ALL PARTS " " PARTS_CKPT
/* one part per MPI rank (under mpirun: the mpi suite runs 1 to 4 ranks) */
#define MPI "mpi mpi,save mpi,save,then.one one,save,then.mpi mpi,setspins,save cold,mpi"
/* members of an ensemble against their standalone sims */
#define ENS "ens threads=2,ens ens,save cold,ens"
/* CUDA: one GPU, boxes on it, several devices (slab i on GPU i mod GPUs; one GPU too),
 * checkpoints between the placements */
#define DEVICES                                                                            \
    "cuda cuda,boxes=2 cuda,boxes=3 devices=2 devices=3 cuda,save,then.devices=2 "         \
    "devices=3,save,then.cuda devices=2,serialize,then.one setspins,devices=3 "            \
    "cold,devices=2"
/* ... where CUDA runs its own chain (Heisenberg, phi^4 on chunks): no continuation on
 * the CPU */
#define DEVICES_GPU                                                                        \
    "cuda cuda,boxes=2 devices=2 devices=3 cuda,save,then.devices=2 devices=3,save,then.cuda " \
    "setspins,devices=3 cold,devices=2"
#define CUDA_DEVICES(n) "cuda devices=" #n " cold,devices=" #n
#define CUDA_DEVICES_CHUNK(n, c)                                                           \
    "cuda,chunk=" c " devices=" #n ",chunk=" c " cold,devices=" #n ",chunk=" c

/* the chunk schedule's scripts and checkpoints (one box: the chunks take the whole
 * lattice), and CUDA's chain of the same shape, one GPU, checkpoints to and from it */
#define CHUNK_SCRIPTS                                                                      \
    "serialize,then.threads=2 simd=c,save,then.threads=3 simd=avx2,threads=2,save,then.one " \
    "simd=avx512,threads=3 cold,threads=2 setspins,simd=c,threads=3"
/* the chunk schedule's paired groups: the levels, teams, a checkpoint between teams */
#define PAIRED "simd=avx2 simd=avx512 threads=3 simd=avx2,threads=3 threads=2,save,then.threads=3"
#define CHUNK_CUDA "cuda cuda,save,then.one threads=2,save,then.cuda cold,cuda"
/* the bit-sliced decisions on one GPU, checkpoints (format version 3) to and from the CPU */
#define BITSLICED_CUDA                                                                     \
    "cuda cold,cuda setspins,cuda cuda,save,then.one threads=2,save,then.cuda "           \
    "cuda,serialize,then.one"
/* ... on several CUDA boxes (L_x a multiple of 64: whole groups a row): boxes on one GPU,
 * devices (slab i on GPU i mod GPUs), checkpoints between the placements and the CPU */
#define BITSLICED_DEVICES                                                                  \
    "cuda,boxes=2 cuda,boxes=3 devices=2 devices=3 cuda,save,then.devices=2 "              \
    "devices=3,save,then.cuda devices=2,serialize,then.one threads=2,save,then.devices=3 " \
    "setspins,devices=3 cold,devices=2"

/* the bit-sliced decisions' files (format version 3) streamed by parts: saved on k parts
 * and continued on one sim, on other part counts and levels; one sim's file streamed into
 * parts; the other scripts */
#define BITSLICED_PARTS_SAVE                                                               \
    "parts=3,save,then.one one,save,then.parts=3 parts=2,save,then.parts=4 "              \
    "parts=4,shared,save,then.parts=3,simd=c parts=3,save,then.parts=2,shared "            \
    "cold,parts=2,save,then.one setspins,parts=3,save,then.parts=2"

const struct row rows[] = {
    /* bit-sliced decisions: checkpoints of format version 3 in memory and through files,
     * on boxes, parts (their files streamed in chunks) and MPI ranks; rows of 128 sites per
     * colour: the AVX2 kernel's runs of whole groups */
    { "ising2d_bitsliced_metropolis",
      2,
      { 96, 22, 0 },
      BOXES " " LEVELS " " THREADS " " PARTS_ALL " " BITSLICED_PARTS_SAVE " " MPI
            " ens threads=2,ens ens,save" },
    { "ising2d_bitsliced_metropolis",
      2,
      { 256, 22, 0 },
      BOXES " " LEVELS " " THREADS " " RESTART " parts=3 parts=2,serialize,then.parts=4,shared "
            "one,serialize,then.parts=2 parts=3,save,then.one one,save,then.parts=2" },
    { "ising2d_bitsliced_heatbath",
      2,
      { 40, 70, 0 },
      BOXES " " LEVELS " " THREADS " " PARTS " " BITSLICED_PARTS_SAVE " " MPI },
    { "ising3d_bitsliced_pmj",
      3,
      { 10, 6, 22 },
      BOXES " " LEVELS " " THREADS " " PARTS " " BITSLICED_PARTS_SAVE " " MPI },
    /* ... on CUDA (one box, the packed layout: L_x a multiple of 16, uniform couplings):
     * groups across rows (L_x / 16 words a row, not a multiple of 4), a partial last
     * group (48 x 22), checkpoints to and from the CPU, ensemble members */
    { "ising2d_bitsliced_metropolis", 2, { 96, 22, 0 }, BITSLICED_CUDA " cuda,ens" },
    { "ising2d_bitsliced_metropolis", 2, { 48, 22, 0 }, BITSLICED_CUDA },
    { "ising2d_bitsliced_metropolis", 2, { 256, 128, 0 }, "cuda" },
    { "ising2d_bitsliced_heatbath", 2, { 64, 70, 0 }, BITSLICED_CUDA " cuda,ens" },
    { "ising2d_bitsliced_heatbath", 2, { 48, 30, 0 }, "cuda" },
    { "ising3d_bitsliced_metropolis", 3, { 32, 6, 10 }, BITSLICED_CUDA },
    { "ising3d_bitsliced_heatbath", 3, { 16, 10, 6 }, BITSLICED_CUDA " cuda,ens" },
    { "ising3d_bitsliced_metropolis", 3, { 10, 6, 22 }, "threads=2 boxes=2" },
    { "ising_bitsliced_metropolis_h0", 2, { 64, 40, 0 }, "threads=2 boxes=2 " BITSLICED_CUDA },
    { "ising_bitsliced_metropolis_h0", 2, { 80, 22, 0 }, "cuda" },
    { "ising_bitsliced_metropolis_h0", 3, { 32, 8, 6 }, "boxes=2 cuda" },
    /* more groups than one resident wave of CUDA's kernel: its threads walk the groups
     * with a stride of whole rows and a remainder (5 groups of 32 sites a row) */
    { "ising_bitsliced_metropolis_h0", 2, { 320, 40000, 0 }, "cuda" },
    { "ising_bitsliced_metropolis_h0", 3, { 320, 10, 4000 }, "cuda" },
    { "ising2d_bitsliced_heatbath", 2, { 320, 40000, 0 }, "cuda" },
    /* ... on several boxes and devices: slabs of uneven rows (70 rows in 3 boxes), 3D slabs
     * of 2 planes, the field switched off between the calls, and more groups than a wave
     * on each of 2 boxes (640 x 40000) */
    { "ising2d_bitsliced_metropolis", 2, { 128, 24, 0 }, BITSLICED_DEVICES },
    { "ising2d_bitsliced_heatbath", 2, { 64, 70, 0 }, BITSLICED_DEVICES },
    { "ising3d_bitsliced_metropolis", 3, { 64, 6, 10 }, BITSLICED_DEVICES },
    { "ising3d_bitsliced_heatbath", 3, { 64, 10, 6 }, "cuda,boxes=3 devices=2 devices=3" },
    { "ising_bitsliced_metropolis_h0", 2, { 192, 40, 0 }, BITSLICED_DEVICES },
    { "ising_bitsliced_metropolis_h0", 3, { 64, 8, 12 }, "cuda,boxes=2 devices=3" },
    { "ising_bitsliced_metropolis_h0", 2, { 640, 40000, 0 }, "cuda cuda,boxes=2 devices=2" },
    /* ... two groups a thread (1 bit per spin, an even number of words a row, Metropolis at
     * h = 0 after the field is switched off): rows of 2 and 4 words, 3D, and more pairs
     * than a wave (640 x 40000 above; 3D 256 x 40 x 2000) */
    { "ising_bitsliced_metropolis_h0", 2, { 128, 40, 0 }, "cuda setspins,cuda" },
    { "ising_bitsliced_metropolis_h0", 2, { 256, 30, 0 }, "cuda cold,cuda" },
    { "ising_bitsliced_metropolis_h0", 3, { 128, 6, 8 }, "cuda" },
    { "ising_bitsliced_metropolis_h0", 3, { 256, 40, 2000 }, "cuda" },
    { "ising_bitsliced_metropolis_h0_cold", 2, { 128, 40, 0 }, "cuda cuda,boxes=2" },
    { "ising_bitsliced_metropolis_h0_cold", 2, { 640, 40000, 0 }, "cuda" },
    { "ising_bitsliced_metropolis_h0_cold", 3, { 128, 6, 8 }, "cuda" },
    { "ising_bitsliced_metropolis_h0_cold", 3, { 256, 40, 2000 }, "cuda devices=2" },
    /* ... +-J (L_x a multiple of 64): one box (an odd and an even number of words a row:
     * one group or two a thread, then the march at h = 0; 3D: 8-byte and 16-byte loads of
     * the coupling bits), checkpoints to and from the CPU, members; boxes with halos and
     * devices (the coupling bits of the local planes); more groups than a wave */
    { "ising_bitsliced_pmj_h0", 2, { 128, 40, 0 }, BITSLICED_CUDA " cuda,ens" },
    { "ising_bitsliced_pmj_h0", 2, { 192, 30, 0 }, "cuda threads=2 boxes=2" },
    { "ising_bitsliced_pmj_h0", 3, { 128, 6, 8 }, "cuda cuda,boxes=2 devices=2" },
    { "ising3d_bitsliced_pmj", 3, { 64, 6, 10 }, BITSLICED_CUDA " cuda,boxes=2 devices=2" },
    /* ... every sweep followed by reads of everything (spins, every observable, a
     * checkpoint; layout `measured`): CUDA's box alone keeps its 1-bit form across reads
     * and must drop it at every write (set_spins, a start, a change of the field); cubic,
     * so that the Fourier modes are read too (with the sums after the first: the leaf's
     * measure_projections), L_x a multiple of 64 (the 1-bit form); boxes with halos fold
     * it back instead */
    { "ising3d_bitsliced_metropolis",
      3,
      { 64, 64, 64 },
      "measured cuda,measured cuda,measured,setspins cuda,measured,cold cuda,measured,boxes=2" },
    { "ising3d_bitsliced_pmj", 3, { 64, 64, 64 }, "cuda,measured cuda,measured,setspins" },
    { "ising_bitsliced_metropolis_h0", 3, { 64, 64, 64 }, "cuda,measured" },
    { "ising2d_bitsliced_heatbath", 2, { 128, 128, 0 }, "cuda,measured cuda,measured,boxes=2" },
    { "ising2d_bitsliced_pmj_heatbath",
      2,
      { 64, 70, 0 },
      BITSLICED_CUDA " cuda,ens " BITSLICED_DEVICES },
    { "ising2d_bitsliced_pmj_heatbath", 2, { 40, 22, 0 }, BOXES " " LEVELS " " PARTS },
    { "ising_bitsliced_pmj_h0", 2, { 128, 24, 0 }, BITSLICED_DEVICES },
    { "ising_bitsliced_pmj_h0", 2, { 640, 40000, 0 }, "cuda cuda,boxes=2 devices=2" },
    /* ... heat bath at h = 0 (the field switched off between the calls): the classes folded
     * (KEY_SYM), two groups a thread marching down bands of rows (2D: rows of 2 and 5
     * pairs, more bands than a wave, row ranges of boxes and devices), one group a thread
     * (an odd number of words a row), 3D's pairs; +-J */
    { "ising_bitsliced_heatbath_h0",
      2,
      { 128, 40, 0 },
      BITSLICED_CUDA " cuda,ens cuda,boxes=2 devices=2" },
    { "ising_bitsliced_heatbath_h0", 2, { 192, 30, 0 }, "cuda cuda,boxes=3" },
    { "ising_bitsliced_heatbath_h0", 2, { 640, 40000, 0 }, "cuda cuda,boxes=2 devices=3" },
    { "ising_bitsliced_heatbath_h0", 3, { 128, 6, 8 }, "cuda cold,cuda cuda,boxes=2 devices=2" },
    { "ising_bitsliced_heatbath_h0", 3, { 256, 40, 2000 }, "cuda" },
    { "ising_bitsliced_pmj_heatbath_h0",
      2,
      { 128, 40, 0 },
      "cuda setspins,cuda cuda,boxes=2 devices=2" },
    { "ising_bitsliced_pmj_heatbath_h0", 3, { 128, 6, 8 }, "cuda cuda,boxes=2" },
    /* ---- Ising ---- */
    /* 22 planes: 11 two-plane units, cut 3,4,4 and 2,2,2,2,3; 10 planes: 5 slabs of 2 */
    { "ising2d_metropolis",
      2,
      { 40, 22, 0 },
      BOXES " " LEVELS " " RECUT " " RESTART " " ENS " " SCRIPTS },
    { "ising2d_metropolis", 2, { 64, 24, 0 }, DEVICES " cuda,ens" },
    /* CUDA boxes on the byte layout (L_x not a multiple of 16) and +-J on the packed one */
    { "ising2d_heatbath", 2, { 24, 20, 0 }, CUDA_DEVICES(3) " cuda,boxes=2" },
    { "ising_pmj_metropolis",
      2,
      { 64, 24, 0 },
      CUDA_DEVICES(3) " cuda,boxes=2 cuda,parts=3 setspins,cuda,parts=2" },
    { "ising_pmj_heatbath", 3, { 20, 6, 12 }, CUDA_DEVICES(3) },
    /* one GPU's chunk walk (ising_bytes_walk.cuh): uniform where L_x is not a multiple of
     * 8 and +-J, 2D and 3D; past one resident wave's chunks (an H200: about 1.08 M sites a
     * colour) its warps step to further chunks */
    { "ising2d_metropolis", 2, { 30, 14, 0 }, "cuda cuda,measured" },
    { "ising3d_heatbath", 3, { 12, 10, 6 }, "cuda" },
    { "ising_pmj_metropolis", 2, { 36, 22, 0 }, "cuda cuda,measured" },
    { "ising_long_pmj_heatbath", 3, { 20, 8, 6 }, "cuda" },
    { "ising2d_metropolis", 2, { 1002, 2400, 0 }, "cuda" },
    { "ising_pmj_heatbath", 2, { 1500, 1600, 0 }, "cuda" },
    { "ising3d_heatbath", 3, { 32, 6, 12 }, CUDA_DEVICES(2) },
    /* the default chain on one GPU with L_x a multiple of 64: the 1-bit leaf under
     * LATMC_CUDA_ISING_FORM=bits (test 'identity matrix cuda ising bits'), else packed;
     * L_x a multiple of 128: its kernel of two groups a thread, also on boxes' rows */
    { "ising2d_heatbath",
      2,
      { 128, 40, 0 },
      BITSLICED_CUDA " cuda,measured cuda,boxes=2 devices=3 cuda,boxes=2,measured" },
    { "ising3d_metropolis",
      3,
      { 64, 6, 10 },
      BITSLICED_CUDA " cuda,measured cuda,boxes=2,measured" },
    { "ising3d_heatbath", 3, { 64, 8, 6 }, "cuda cuda,measured" },
    { "ising_pmj_heatbath",
      3,
      { 64, 6, 8 },
      "cuda cold,cuda cuda,measured cuda,boxes=2 devices=3 cuda,parts=2" },
    { "ising_pmj_metropolis", 2, { 128, 40, 0 }, "cuda setspins,cuda cuda,measured cuda,boxes=2" },
    { "ising2d_metropolis", 2, { 256, 20, 0 }, "cuda" },
    { "ising3d_heatbath", 3, { 128, 6, 4 }, "cuda cuda,boxes=2 cuda,parts=2" },
    /* a box alone's steps as chains (tasks of 2 words where a step has fewer than 2,560 of
     * them, L_x of 32; else of 8, L_x of 128: ising_packed_chain.cu; every lattice here is
     * small enough for them), +-J among them, and calls longer than a chain */
    { "ising_pmj_metropolis", 3, { 128, 8, 6 }, "cuda cuda,measured" },
    { "ising_pmj_heatbath", 3, { 128, 6, 10 }, "cuda setspins,cuda" },
    { "ising_pmj_heatbath", 2, { 256, 34, 0 }, "cuda" },
    { "ising_long_metropolis", 3, { 128, 10, 6 }, "cuda" },
    { "ising_long_metropolis", 2, { 384, 30, 0 }, "cuda" },
    { "ising_long_pmj_heatbath", 3, { 128, 6, 8 }, "cuda" },
    { "ising_long_pmj_heatbath", 2, { 128, 66, 0 }, "cuda" },
    /* +-J chains where L_x is a multiple of 64, not of 128 (tasks of 2 words) */
    { "ising_pmj_metropolis", 3, { 64, 8, 6 }, "cuda" },
    { "ising_long_pmj_heatbath", 3, { 64, 16, 8 }, "cuda" },
    { "ising_pmj_heatbath", 2, { 192, 66, 0 }, "cuda" },
    /* the packed kernels' +-J where L_x is a multiple of 16, not of 64 (1 or 2 words a
     * thread; the byte layout before), on one box, boxes and parts */
    { "ising_pmj_heatbath", 3, { 48, 8, 12 },
      "cuda cuda,measured cuda,boxes=2 cuda,parts=2 mpi,cuda" },
    { "ising_pmj_metropolis", 2, { 96, 40, 0 }, "cuda cuda,measured cuda,boxes=2 setspins,cuda" },
    { "ising_long_pmj_heatbath", 3, { 32, 16, 8 }, "cuda cuda,boxes=3" },
    { "ising_pmj_metropolis", 3, { 16, 16, 16 }, "cuda cuda,measured" },
    /* chains of 1-word tasks (a row's words odd: L_x an odd multiple of 16) */
    { "ising_long_metropolis", 3, { 48, 16, 10 }, "cuda" },
    { "ising2d_heatbath", 2, { 80, 34, 0 }, "cuda" },
    { "ising_long_pmj_heatbath", 2, { 144, 30, 0 }, "cuda" },
    /* tasks of 8 words: at least 2,560 tasks of 2 words a step (the 3D +-J Metropolis one
     * is 128 x 480 x 480 below) */
    { "ising3d_metropolis", 3, { 128, 240, 240 }, "cuda" },
    { "ising_pmj_heatbath", 2, { 2048, 2560, 0 }, "cuda" },
    { "ising_pmj_heatbath", 3, { 128, 160, 128 }, "cuda" }, /* 2,560 tasks of 2 words */
    /* chains of 128 to 512 tasks a step, many warps waiting on each other's stamps */
    { "ising2d_metropolis", 2, { 1024, 512, 0 }, "cuda" },
    { "ising_pmj_heatbath", 3, { 128, 64, 64 }, "cuda" },
    { "ising_long_metropolis", 3, { 256, 32, 32 }, "cuda" },
    { "ising_long_pmj_heatbath", 2, { 2048, 256, 0 }, "cuda" },
    /* three groups a row (the one-group kernel, a row's end inside the walk) on boxes of
     * 2, 4, 4 planes and parts */
    { "ising3d_metropolis", 3, { 192, 6, 10 }, "cuda cuda,boxes=3 cuda,parts=2" },
    { "ising2d_metropolis", 2, { 138, 10, 0 }, BOXES },
    { "ising2d_metropolis", 2, { 300, 250, 0 }, BOXES }, /* threaded: >= 32768 a colour */
    { "ising2d_metropolis", 2, { 300, 220, 0 }, THREADS },
    { "ising2d_metropolis", 2, { 256, 256, 0 }, THREADS },
    /* 2 threads cut 22 rows into bands of 11: with 5 boxes a band starts on a box's last
     * row; 12000 x 6: too few rows for the wavefront, the two-pass order */
    { "ising2d_metropolis", 2, { 3000, 22, 0 }, BOXES },
    { "ising2d_heatbath", 2, { 12000, 6, 0 }, BOXES_FEW },
    { "ising2d_heatbath", 2, { 40, 22, 0 }, BOXES " " LEVELS " " ENS },
    { "ising2d_heatbath", 2, { 300, 250, 0 }, BOXES },
    { "ising2d_heatbath", 2, { 300, 220, 0 }, THREADS },
    { "ising2d_heatbath", 2, { 6, 11000, 0 }, THREADS },
    { "ising3d_metropolis", 3, { 10, 6, 22 }, BOXES " " LEVELS " " RESTART " " RECUT " " SCRIPTS },
    { "ising3d_metropolis", 3, { 66, 40, 30 }, BOXES },
    { "ising3d_metropolis", 3, { 42, 40, 40 }, THREADS },
    { "ising3d_metropolis", 3, { 48, 32, 44 }, THREADS },
    { "ising3d_metropolis", 3, { 32, 32, 64 }, TEAMS(3, 5, 7) },
    /* 8 planes: fewer than 4 units a member of 3 or 4 (the pair without its wavefront) */
    { "ising3d_metropolis", 3, { 128, 64, 8 }, TEAMS(2, 3, 4) },
    { "ising3d_heatbath", 3, { 14, 6, 10 }, BOXES },
    { "ising3d_heatbath", 3, { 66, 40, 30 }, BOXES },
    { "ising3d_heatbath", 3, { 120, 40, 14 }, BOXES }, /* 3 boxes: planes 4, 4, 6 */
    { "ising3d_heatbath", 3, { 42, 40, 40 }, THREADS },
    { "ising3d_heatbath", 3, { 2, 180, 190 }, THREADS },
    { "ising_pmj_metropolis", 2, { 40, 22, 0 }, BOXES " " ENS },
    { "ising_pmj_metropolis", 3, { 66, 40, 30 }, BOXES },
    { "ising_pmj_metropolis", 3, { 160, 100, 6 }, BOXES_FEW },
    { "ising_pmj_heatbath", 2, { 300, 250, 0 }, BOXES },
    { "ising_pmj_heatbath", 3, { 10, 6, 22 }, BOXES },
    { "ising_pmj_heatbath", 2, { 256, 256, 0 }, TEAMS(3, 5, 7) },
    /* parts: 8 planes on 4 parts, 2 each (every updated plane next to a halo) */
    { "ising2d_metropolis", 2, { 32, 24, 0 }, PARTS_ALL },
    { "ising2d_metropolis", 2, { 64, 8, 0 }, PARTS },
    { "ising_pmj_heatbath", 2, { 64, 16, 0 }, PARTS_ALL },
    { "ising_pmj_heatbath", 2, { 6, 8, 0 }, PARTS },
    { "ising_pmj_heatbath", 3, { 16, 8, 8 }, PARTS },
    { "ising3d_metropolis", 3, { 8, 6, 8 }, PARTS_ALL },
    /* ensembles: the CPU's narrow-row kernels (L_x = 16), two words a row (32) */
    { "ising3d_metropolis", 3, { 8, 8, 8 }, ENS " cuda,ens" },
    { "ising3d_heatbath", 3, { 16, 16, 16 }, ENS },
    { "ising3d_metropolis", 3, { 16, 16, 16 }, ENS },
    { "ising2d_metropolis", 2, { 8, 8, 0 }, ENS },
    { "ising_pmj_heatbath", 3, { 16, 16, 16 }, ENS " cuda,ens" },
    { "ising_pmj_metropolis", 2, { 16, 16, 0 }, ENS " cuda,ens" },
    { "ising_pmj_heatbath", 3, { 4, 4, 4 }, ENS },
    { "ising_pmj_metropolis", 2, { 64, 64, 0 }, ENS },
    { "ising_pmj_metropolis", 3, { 32, 32, 32 }, ENS " cuda,ens" },
    { "ising3d_heatbath", 3, { 16, 16, 16 }, "cuda,ens" },
    { "ising2d_metropolis", 2, { 16, 16, 0 }, "cuda,ens" },
    /* CUDA on cubic lattices: the Fourier modes at k_min (M2_KMIN) compared too, counted
     * on the devices (the packed layout in 2D and 3D, with +-J, and the byte layout) */
    { "ising2d_metropolis", 2, { 64, 64, 0 }, DEVICES " cuda,parts=2" },
    { "ising2d_heatbath", 2, { 24, 24, 0 }, CUDA_DEVICES(3) " cuda,boxes=2" },
    { "ising_pmj_metropolis", 2, { 64, 64, 0 }, CUDA_DEVICES(2) },
    { "ising_pmj_heatbath", 2, { 32, 32, 0 }, "cuda devices=2" },
    { "ising3d_heatbath", 3, { 32, 32, 32 }, CUDA_DEVICES(2) },
    { "ising3d_metropolis", 3, { 12, 12, 12 }, "cuda devices=3" },
    /* MPI ranks */
    { "ising2d_metropolis", 2, { 16, 16, 0 }, MPI },
    { "ising_pmj_heatbath", 2, { 64, 24, 0 }, MPI },
    { "ising3d_metropolis", 3, { 8, 6, 8 }, MPI },

    /* ---- Potts ---- */
    /* two colours: 14 x 22 (a slab of 2 rows is 14 sites: box ends cut Philox blocks and
     * SIMD chunks), 14 x 10 with 5 boxes (the thinnest); 3D 10 x 6 x 22 */
    { "potts2_metropolis", 2, { 14, 22, 0 }, BOXES },
    { "potts2_heatbath", 2, { 14, 22, 0 }, BOXES },
    { "potts3_metropolis", 2, { 14, 22, 0 }, BOXES " " LEVELS " " RECUT " " SCRIPTS },
    { "potts3_heatbath", 2, { 14, 22, 0 }, BOXES },
    { "potts5_metropolis", 2, { 14, 22, 0 }, BOXES },
    { "potts5_heatbath", 2, { 14, 22, 0 }, BOXES },
    { "potts3_metropolis", 2, { 14, 10, 0 }, "boxes=5 simd=c,threads=2,boxes=5" },
    { "potts5_heatbath", 2, { 14, 10, 0 }, "boxes=5 simd=c,threads=2,boxes=5" },
    { "potts2_metropolis", 3, { 10, 6, 22 }, BOXES },
    { "potts2_heatbath", 3, { 10, 6, 22 }, BOXES },
    { "potts3_metropolis", 3, { 10, 6, 22 }, BOXES " " RESTART },
    { "potts3_heatbath", 3, { 10, 6, 22 }, BOXES },
    { "potts5_metropolis", 3, { 10, 6, 22 }, BOXES },
    { "potts5_heatbath", 3, { 10, 6, 22 }, BOXES },
    { "potts3_heatbath", 3, { 4, 6, 10 }, "boxes=5 simd=c,threads=2,boxes=5" },
    /* three colours (extents multiples of 3, one odd): 3-plane units */
    { "potts2_metropolis", 2, { 9, 30, 0 }, BOXES },
    { "potts2_heatbath", 2, { 9, 30, 0 }, BOXES },
    { "potts3_metropolis", 2, { 9, 30, 0 }, BOXES },
    { "potts3_heatbath", 2, { 9, 30, 0 }, BOXES },
    { "potts5_metropolis", 2, { 9, 30, 0 }, BOXES },
    { "potts5_heatbath", 2, { 9, 30, 0 }, BOXES " " RESTART " " RECUT },
    { "potts3_metropolis", 3, { 9, 6, 21 }, BOXES },
    { "potts5_heatbath", 3, { 9, 6, 21 }, BOXES },
    { "potts3_heatbath", 2, { 9, 15, 0 }, "boxes=5 simd=c,threads=2,boxes=5" },
    /* threaded: whole chunks shared among the threads, chunks cut by a box's ends on one;
     * q = 5 heat bath in 2D takes the neighbour-tuple table */
    { "potts3_metropolis", 2, { 300, 250, 0 }, BOXES_FEW },
    { "potts5_heatbath", 2, { 300, 250, 0 }, BOXES_FEW },
    { "potts2_heatbath", 3, { 66, 40, 30 }, BOXES_FEW },
    { "potts3_heatbath", 2, { 333, 300, 0 }, BOXES_FEW " " THREADS },
    /* every plane a whole number of SIMD chunks: the steps write the boxes' halos through */
    { "potts3_metropolis", 2, { 256, 300, 0 }, BOXES_FEW },
    { "potts3_heatbath", 3, { 32, 4, 40 }, BOXES },
    { "potts3_metropolis", 3, { 64, 64, 16 }, TEAMS(3, 5, 8) },
    { "potts5_heatbath", 3, { 40, 40, 48 }, TEAMS(3, 5, 7) }, /* not written through */
    /* threads (q = 200: the large-q kernels) */
    { "potts3_metropolis", 2, { 300, 220, 0 }, THREADS },
    { "potts3_metropolis", 2, { 333, 300, 0 }, THREADS },
    { "potts200_metropolis", 2, { 6, 11000, 0 }, THREADS },
    { "potts3_heatbath", 2, { 300, 220, 0 }, THREADS },
    { "potts200_heatbath", 2, { 333, 300, 0 }, THREADS },
    { "potts3_metropolis", 3, { 42, 40, 40 }, THREADS },
    { "potts200_metropolis", 3, { 48, 48, 45 }, THREADS },
    { "potts3_heatbath", 3, { 48, 48, 45 }, THREADS },
    { "potts200_heatbath", 3, { 2, 180, 190 }, THREADS },
    /* parts: 3 colours in slabs of 3 planes, 2 colours in 3D in slabs of 2 */
    { "potts3_metropolis", 2, { 24, 24, 0 }, PARTS_ALL " " MPI },
    { "potts3_metropolis", 2, { 15, 12, 0 }, PARTS },
    { "potts4_heatbath", 3, { 32, 4, 8 }, PARTS },
    { "potts3_metropolis_rebeta", 2, { 14, 22, 0 }, BOXES_FEW " " PARTS " " RESTART },
    { "potts3_metropolis_rebeta", 3, { 12, 9, 15 }, "boxes=5 " CUDA_DEVICES(3) },
    { "potts3_metropolis_rebeta", 2, { 32, 16, 0 }, CUDA_DEVICES(2) },
    /* CUDA on cubic lattices: M2_KMIN (each state's projections) compared too */
    { "potts3_metropolis", 2, { 24, 24, 0 }, CUDA_DEVICES(2) " cuda,boxes=2 cuda,parts=2" },
    { "potts5_heatbath", 2, { 30, 30, 0 }, "cuda devices=3" },
    /* the multiset heat bath's 32-byte segments (L_x % 32 == 0), one GPU, boxes, parts */
    { "potts5_heatbath", 2, { 64, 30, 0 }, "cuda cuda,boxes=2 cuda,parts=2" },
    { "potts3_heatbath", 3, { 12, 12, 12 }, "cuda devices=2" },
    /* q <= 4, the bit planes' kernel (potts_planes.cu): 16 sites a thread, a row of 65
     * (one partial block of 4 warps across) and 128 thread columns, q = 2, 3, 4; 3D */
    { "potts3_metropolis", 2, { 1040, 1040, 0 }, "cuda" },
    { "potts2_heatbath", 2, { 1024, 1024, 0 }, "cuda" },
    { "potts4_heatbath", 2, { 2048, 2048, 0 }, "cuda" },
    { "potts4_heatbath", 3, { 40, 40, 40 }, "cuda" },
    { "potts3_metropolis", 2, { 6, 6, 0 }, ENS " cuda,ens" },
    /* CUDA ensembles' Potts batch on the row kernels' code, whole sweeps a launch (2D) and
     * 3D q = 4 (its one-copy table) */
    { "potts3_heatbath", 2, { 16, 16, 0 }, ENS " cuda,ens" },
    { "potts4_heatbath", 3, { 16, 16, 16 }, "ens cuda,ens" },
    { "potts3_metropolis", 2, { 24, 24, 0 }, DEVICES },

/* ---- phi^4 (halo 2 with a finite Lambda) ---- */
/* 3D: 4-plane units along z (24 planes, 5 boxes: 4,4,4,4,8); L_x = 8 and 24: boxes
 * start inside Philox blocks and SIMD groups; 2D: 8 colours (56 rows), 5 colours
 * (35 rows, 15 columns) */
#define PHI4_BOXES                                                                         \
    "boxes=2 boxes=3 boxes=5 threads=2 threads=2,boxes=3 simd=c,boxes=2 "                  \
    "simd=c,threads=2,boxes=5 simd=c,threads=2"
    { "phi4_double_lambda",
      3,
      { 8, 16, 24 },
      PHI4_BOXES " " RESTART " " RECUT " " ENS " " SCRIPTS },
    { "phi4_float_lambda", 3, { 8, 16, 24 }, PHI4_BOXES " " RESTART },
    { "phi4_double", 3, { 8, 16, 24 }, PHI4_BOXES },
    { "phi4_float", 3, { 8, 16, 24 }, PHI4_BOXES },
    { "phi4_double_lambda", 3, { 24, 8, 40 }, PHI4_BOXES },
    { "phi4_float", 3, { 24, 8, 40 }, PHI4_BOXES },
    { "phi4_double_lambda", 2, { 16, 56, 0 }, PHI4_BOXES " " LEVELS },
    { "phi4_float_lambda", 2, { 16, 56, 0 }, PHI4_BOXES " " LEVELS },
    { "phi4_double", 2, { 16, 56, 0 }, PHI4_BOXES },
    { "phi4_float", 2, { 15, 35, 0 }, PHI4_BOXES },
    { "phi4_double_lambda", 2, { 15, 35, 0 }, PHI4_BOXES " " RECUT },
    /* threaded (>= 32768 sites a colour and step) */
    { "phi4_double_lambda", 3, { 64, 64, 64 }, "threads=2,boxes=3 simd=c,threads=2,boxes=5" },
    { "phi4_float_lambda", 2, { 520, 520, 0 }, "threads=2,boxes=5 simd=c,threads=2,boxes=3" },
    { "phi4_double_lambda", 2, { 410, 410, 0 }, THREADS },
    { "phi4_float_lambda", 2, { 410, 410, 0 }, "threads=3" },
    { "phi4_float_lambda", 3, { 72, 64, 64 }, "threads=2 simd=c,threads=3" },
    { "phi4_float_lambda", 3, { 32, 32, 64 }, TEAMS(3, 5, 7) },
    { "phi4_double_lambda", 2, { 256, 256, 0 }, TEAMS(3, 5, 7) },
    /* parts (the thinnest slabs: 8 planes, 2D with 8 colours; 4 planes, 3D; 5 planes) */
    /* the chunk schedule (doc/models/phi4.md): one box; threads share a sub-grid's chunks
     * (>= 65536 sites), every level, checkpoints between placements, CUDA's chain of the
     * same shape (and from or to it); rows of 8 numbers per colour and chunk (whole AVX2
     * groups) and of 4 (parts of groups) */
    { "phi4_chunks_float_lambda",
      3,
      { 128, 32, 16 },
      LEVELS " " THREADS " " CHUNK_SCRIPTS " " CHUNK_CUDA },
    { "phi4_chunks_double",
      3,
      { 128, 32, 16 },
      LEVELS " " THREADS " " CHUNK_SCRIPTS " " CHUNK_CUDA },
    { "phi4_chunks_cuda_float", 3, { 64, 32, 32 }, LEVELS " " THREADS " " CHUNK_CUDA },
    { "phi4_chunks2d_double_lambda",
      2,
      { 256, 256, 0 },
      LEVELS " " THREADS " " CHUNK_SCRIPTS " " CHUNK_CUDA },
    /* paired groups (specs.c), on 1 and 3 threads (>= 65536 sites), a checkpoint between */
    { "phi4_chunks2d_c5_float_lambda", 2, { 480, 300, 0 }, PAIRED },
    { "phi4_chunks2d_c5_double", 2, { 480, 300, 0 }, PAIRED },
    { "phi4_chunks_rows3_double", 3, { 128, 24, 32 }, PAIRED },
    { "phi4_chunks_rows3_float", 3, { 64, 48, 32 }, PAIRED },
    { "phi4_double", 2, { 40, 40, 0 }, PARTS_ALL " " MPI },
    { "phi4_double_lambda", 2, { 16, 32, 0 }, PARTS },
    { "phi4_double", 3, { 8, 8, 16 }, PARTS },
    { "phi4_double_lambda", 2, { 10, 20, 0 }, PARTS },
    { "phi4_float_lambda", 3, { 8, 8, 16 }, PARTS_ALL },
    { "phi4_double", 2, { 8, 8, 0 }, ENS " cuda,ens" },
    { "phi4_float_relambda", 3, { 8, 16, 24 }, PHI4_BOXES " " PARTS " " RESTART },
    { "phi4_float_relambda", 2, { 15, 35, 0 }, BOXES_FEW " " CUDA_DEVICES(5) },
    { "phi4_float_relambda", 3, { 64, 8, 48 }, CUDA_DEVICES_CHUNK(5, "32x4x4") },
    { "phi4_double_lambda", 3, { 16, 8, 16 }, DEVICES_GPU },
    { "phi4_double_lambda", 3, { 16, 8, 16 }, "cuda,chunk=none,devices=2,serialize,then.one" },
    /* CUDA on cubic lattices: M2_KMIN (the Fourier modes' tiles made on the devices)
     * compared too, against the CPU's (the site order in double is the CPU's chain) */
    { "phi4_double_lambda", 3, { 32, 32, 32 }, CUDA_DEVICES(2) " cuda,boxes=2" },
    { "phi4_double", 2, { 40, 40, 0 }, CUDA_DEVICES(3) },

    /* ---- Heisenberg ---- */
    /* L_x / 2 a multiple of 4: the AVX2 kernel's row walk; otherwise its flat walk (a
     * Philox block and a vector group across two boxes) */
#define HEISENBERG_BOXES                                                                         \
    "boxes=2 boxes=3 boxes=5 threads=2,boxes=3 simd=c,boxes=2 simd=c,threads=2,boxes=5"
    { "heisenberg_gauss_r1", 3, { 8, 6, 10 }, HEISENBERG_BOXES },
    { "heisenberg_gauss_r2", 3, { 8, 6, 10 }, HEISENBERG_BOXES " " LEVELS " " RECUT " " SCRIPTS },
    { "heisenberg_uniform_r2", 3, { 8, 6, 10 }, HEISENBERG_BOXES },
    { "heisenberg_uniform_r1", 3, { 8, 6, 10 }, HEISENBERG_BOXES },
    { "heisenberg_gauss_r2", 3, { 10, 6, 14 }, HEISENBERG_BOXES " " RESTART },
    { "heisenberg_uniform_r1", 3, { 10, 6, 14 }, HEISENBERG_BOXES },
    { "heisenberg_gauss_r2", 2, { 6, 22, 0 }, HEISENBERG_BOXES },
    { "heisenberg_gauss_r1", 2, { 10, 10, 0 }, HEISENBERG_BOXES },
    { "heisenberg_uniform_r2", 2, { 16, 10, 0 }, HEISENBERG_BOXES },
    { "heisenberg_overrelax_r2", 3, { 8, 6, 10 }, HEISENBERG_BOXES " " RESTART },
    { "heisenberg_overrelax_r1", 3, { 10, 6, 14 }, HEISENBERG_BOXES },
    { "heisenberg_uniform_r1", 2, { 6, 22, 0 }, HEISENBERG_BOXES },
    /* threaded */
    { "heisenberg_gauss_r2", 3, { 40, 40, 42 }, "threads=2,boxes=2 simd=c,threads=2,boxes=3" },
    { "heisenberg_gauss_r1", 3, { 42, 40, 40 }, "threads=2,boxes=3 simd=c,threads=2,boxes=2" },
    { "heisenberg_gauss_r2", 3, { 42, 40, 40 }, "threads=2 simd=c,threads=3" },
    { "heisenberg_gauss_r2", 2, { 300, 220, 0 }, "threads=3 simd=c,threads=2" },
    { "heisenberg_gauss_r2", 2, { 6, 11000, 0 }, "threads=2" },
    { "heisenberg_overrelax_r2", 3, { 2, 180, 190 }, "threads=3" },
    { "heisenberg_gauss_r2", 3, { 32, 32, 64 }, TEAMS(3, 5, 7) },
    { "heisenberg_uniform_r1", 3, { 18, 38, 96 }, TEAMS(3, 5, 7) },
    /* a replica past a member's cache budget (heisenberg_dsp.c): the overrelaxation passes
     * fused, across sweeps and between heat-bath passes, on 1 to 3 threads */
    { "heisenberg_overrelax_r2",
      3,
      { 16, 8, 2400 },
      "simd=avx512 simd=avx2 simd=avx512,threads=2 simd=avx512,threads=3 simd=avx2,threads=2" },
    { "heisenberg_gauss_r2", 3, { 16, 8, 2400 }, "simd=avx512 simd=avx2,threads=2" },
    { "heisenberg_pmj_overrelax", 2, { 16, 20000, 0 }, "simd=avx512,threads=3 simd=avx2" },
    /* ... bands of exactly 4K planes (24 planes: K = 2 on 3 threads, K = 3 on 2), a set of
     * the spins, a checkpoint and a recut between the calls; 70 planes on 3 threads (bands
     * of 23 and 24); a replica just past the budget (16 x 8 x 2200: 16.1 MiB) */
    { "heisenberg_overrelax_r2",
      3,
      { 128, 96, 24 },
      "threads=3 threads=2 threads=3,setspins one,then.threads=3,serialize recut=2,threads=3" },
    { "heisenberg_overrelax_r1_float", 3, { 128, 96, 24 }, "threads=3" },
    { "heisenberg_overrelax_r2", 3, { 64, 64, 70 }, "threads=3" },
    { "heisenberg_gauss_r2", 3, { 16, 8, 2200 }, "threads=1 threads=3" },
    /* parts: two replicas, Gaussian couplings; rows of 3 sites of a colour */
    { "heisenberg_gauss_r2", 3, { 4, 4, 8 }, PARTS_ALL " " MPI },
    { "heisenberg_gauss_r2", 3, { 6, 2, 8 }, PARTS },
    /* ensembles: members of one and two replicas, +-J overrelaxation alone */
    { "heisenberg_gauss_r1", 3, { 4, 4, 4 }, ENS " cuda,ens" },
    { "heisenberg_gauss_r2", 3, { 8, 6, 10 }, DEVICES_GPU },
    { "heisenberg_gauss_r2", 3, { 16, 16, 16 }, "ens" },
    { "heisenberg_overrelax_r1", 2, { 8, 8, 0 }, ENS },
    { "heisenberg_pmj_overrelax", 2, { 12, 10, 0 }, ENS },
    { "heisenberg_pmj_r2", 3, { 16, 16, 16 }, "ens cuda,ens" },
    { "heisenberg_gauss_r2_float", 3, { 16, 16, 16 }, "cuda,ens" },
    /* one box, L_x a multiple of 32: with one replica the modes' projections in the
     * measurement's kernel (heisenberg_sums.cu, heisenberg_chunk_sums_kernel<1, 2, I>); two
     * replicas their own kernel (mode_fixed.cu) beside the sums */
    { "heisenberg_gauss_r1", 3, { 32, 32, 32 }, "cuda" },
    { "heisenberg_gauss_r2", 3, { 32, 32, 32 }, "cuda" },
    { "heisenberg_uniform_r1", 3, { 64, 64, 64 }, "cuda" },
    { "heisenberg_overrelax_r1", 2, { 96, 96, 0 }, "cuda" },
    /* two replicas in float, L_x a multiple of 32 and L_y of 16: the default tiles whole,
     * the pass kernels with the tile's constants (heisenberg_kernels.cu,
     * heisenberg_fixed_tile), one box and two */
    { "heisenberg_gauss_r2_float", 3, { 64, 32, 24 }, "cuda cuda,boxes=2" },
    { "heisenberg_overrelax_r2_float", 3, { 32, 48, 20 }, "cuda cuda,boxes=2" },
    /* ... in double, 32 x 8 tiles whole (the heat bath: heisenberg_gauss_r2 32^3 above) */
    { "heisenberg_overrelax_r2", 3, { 32, 16, 12 }, "cuda cuda,boxes=2" },
    /* ... one replica in float: overrelaxation 64 x 8 tiles, heat bath 32 x 8 */
    { "heisenberg_overrelax_r1_float", 3, { 64, 16, 12 }, "cuda cuda,boxes=2" },
    { "heisenberg_gauss_r1_float", 3, { 32, 24, 12 }, "cuda cuda,boxes=2" },

    /* ---- cluster updates (doc/clusters.md) ---- */
    /* Every CPU layout on small lattices: the same call split in two ("one"), boxes and
     * threads (one labelling unit per box and thread below 65536 sites: the boxes' faces
     * merged), cuts changed between the calls, checkpoints continued on other cuts and on
     * parts, parts over threads and MPI ranks (the labels joined across the parts' faces),
     * other scripts, ensemble members; CUDA on one GPU for Swendsen-Wang and Wolff of Ising
     * (uniform and +-J, J of either sign) and Potts, with and without a field, on one box,
     * boxes and devices and parts over threads and MPI ranks (its other placements and
     * specs skipped, saying why). */
#define CLUSTER_BOXES                                                                      \
    "one threads=2 boxes=2 boxes=3 threads=2,boxes=3 simd=c,boxes=5 boxes=3,recut=2 "      \
    "threads=2,boxes=2,recut=5 boxes=3,serialize,then.one boxes=3,save,then.boxes=5 "      \
    "cold,boxes=3 setspins,boxes=2"
#define CLUSTER_PARTS PARTS_ALL " setspins,parts=3 cold,parts=2,shared"
/* one GPU, a checkpoint to and from the CPU, a cold start, the configuration set again;
 * boxes on one GPU and devices (the labels joined across the boxes' faces: 2, 3 and 5
 * boxes, uneven slabs where the planes do not divide), checkpoints between those and one
 * box (CLUSTER_CUDA adds parts on CUDA and ensemble members) */
#define CLUSTER_CUDA_BOXES                                                                 \
    "cuda,boxes=2 cuda,boxes=3 cuda,boxes=5 devices=2 devices=3 "                          \
    "cuda,boxes=3,save,then.devices=2 devices=2,serialize,then.one "                       \
    "one,serialize,then.cuda,boxes=5 cold,devices=3 setspins,cuda,boxes=2"
/* parts of one lattice on CUDA, over threads (one process) and MPI ranks (the labels
 * joined across the parts: every part joins every part's faces), checkpoints between
 * those and one box */
#define CLUSTER_CUDA_PARTS                                                                 \
    "cuda,parts=2 cuda,parts=3 cold,cuda,parts=4 cuda,parts=3,save,then.one "             \
    "one,save,then.cuda,parts=2 setspins,cuda,parts=3 mpi,cuda mpi,cuda,save"
#define CLUSTER_CUDA                                                                       \
    "cuda cuda,save,then.one one,serialize,then.cuda cold,cuda setspins,cuda "             \
    CLUSTER_CUDA_BOXES " " CLUSTER_CUDA_PARTS " cuda,ens cuda,ens,save"
/* MPI ranks: every script and checkpoint on three rows (CLUSTER_ALL_MPI), the plain
 * chain on the others (the mpi suite runs each row on 1 to 4 ranks, 4 ranks on 2
 * oversubscribed cores in CI, where each collective costs milliseconds) */
#define CLUSTER_MPI "mpi"
#define CLUSTER_ALL CLUSTER_BOXES " " CLUSTER_PARTS " " CLUSTER_MPI " " ENS " " CLUSTER_CUDA
#define CLUSTER_ALL_MPI CLUSTER_BOXES " " CLUSTER_PARTS " " MPI " " ENS " " CLUSTER_CUDA
    /* 24 planes: 2 to 8 planes a part, 2D; 12 planes of 48 sites, 3D */
    { "ising2d_sw", 2, { 32, 24, 0 }, CLUSTER_ALL },
    { "ising2d_sw_field", 2, { 32, 24, 0 }, CLUSTER_ALL_MPI },
    { "ising3d_sw", 3, { 8, 6, 12 }, CLUSTER_ALL },
    { "ising_pmj_sw_field", 2, { 32, 24, 0 }, CLUSTER_ALL },
    { "ising_pmj_sw_field", 3, { 8, 6, 12 }, CLUSTER_BOXES " " CLUSTER_PARTS " " CLUSTER_MPI },
    { "ising_sw_afm", 2, { 32, 24, 0 }, CLUSTER_ALL },
    { "ising_sw_afm", 3, { 8, 6, 12 }, CLUSTER_BOXES " " CLUSTER_CUDA },
    { "ising_pmj_sw_afm", 2, { 32, 24, 0 }, CLUSTER_BOXES " " CLUSTER_PARTS " " CLUSTER_CUDA },
    { "ising_pmj_sw_afm", 3, { 8, 6, 12 }, CLUSTER_BOXES " " CLUSTER_CUDA },
    { "ising_pmj_sw_h0", 2, { 32, 24, 0 }, CLUSTER_ALL },
    /* 3D without a field: the row passes plane by plane (lib/cluster_sw_planes.c) on one
     * process, the four passes on parts: every layout compares the two */
    { "ising_pmj_sw_h0",
      3,
      { 8, 6, 12 },
      CLUSTER_BOXES " " CLUSTER_PARTS " " CLUSTER_MPI " " CLUSTER_CUDA },
    { "potts3_sw", 3, { 6, 6, 12 }, CLUSTER_ALL },
    { "ising2d_wolff", 2, { 32, 24, 0 }, CLUSTER_ALL },
    { "ising3d_wolff_field", 3, { 8, 6, 12 }, CLUSTER_ALL },
    { "ising_pmj_wolff",
      2,
      { 32, 24, 0 },
      CLUSTER_BOXES " " CLUSTER_PARTS " " CLUSTER_MPI " " ENS " " CLUSTER_CUDA },
    { "potts3_sw", 2, { 24, 24, 0 }, CLUSTER_ALL_MPI },
    { "potts3_sw_field", 3, { 6, 6, 12 }, CLUSTER_ALL },
    { "potts3_wolff", 2, { 24, 24, 0 }, CLUSTER_ALL },
    { "potts3_wolff_field",
      2,
      { 24, 24, 0 },
      CLUSTER_BOXES " " CLUSTER_PARTS " " CLUSTER_MPI " " CLUSTER_CUDA },
    { "potts255_sw", 2, { 24, 24, 0 }, CLUSTER_BOXES " " CLUSTER_PARTS " " CLUSTER_CUDA },
    { "potts255_wolff_field", 3, { 6, 6, 12 }, CLUSTER_BOXES " " CLUSTER_PARTS " " CLUSTER_CUDA },
    /* the threaded labelling (>= 65536 sites; a part's slab too) */
    { "ising2d_sw",
      2,
      { 256, 512, 0 },
      "threads=2 threads=3,boxes=2 parts=2,threads=2 cuda devices=2 cuda,boxes=7" },
    { "ising3d_sw",
      3,
      { 44, 40, 42 },
      "threads=2 threads=3,boxes=2 cuda cold,cuda devices=2 cuda,boxes=4 cold,devices=3" },
    /* cubic in 3D, so that M2_KMIN is compared too (the xi/L of ising_critical --dim 3
     * --algo sw --device cuda): one box transforms its projections on the device, boxes
     * and devices on the host */
    { "ising3d_sw", 3, { 48, 48, 48 }, "threads=2 cuda cold,cuda cuda,boxes=3 devices=2" },
    /* CUDA: many threads joining one spanning cluster concurrently; x extent 2 (the x
     * wrap doubles a pair's bond); rows that are not a multiple of a warp */
    { "ising2d_sw", 2, { 1024, 1024, 0 }, "cuda cold,cuda devices=2 cold,cuda,boxes=3" },
    { "ising3d_sw", 3, { 2, 6, 12 }, "one cuda cuda,boxes=6 devices=5" },
    { "ising3d_sw", 3, { 34, 18, 22 }, "cuda devices=3" },
    { "ising2d_sw", 2, { 30, 94, 0 }, "cuda cuda,boxes=2 devices=3 cold,cuda,boxes=5" },
    /* the 2D tiles of 32 x 32: a second column of tiles cut short in x, rows of tiles cut
     * short in y */
    { "ising2d_sw", 2, { 48, 70, 0 }, "threads=2 cuda cuda,boxes=3 cold,cuda" },
    { "ising_pmj_sw_h0",
      3,
      { 40, 42, 44 },
      "threads=2 threads=3,boxes=3 parts=2,threads=2 cuda devices=3" },
    { "potts3_sw",
      3,
      { 42, 42, 42 },
      "threads=2 threads=3,boxes=2 cuda cold,cuda devices=2 cuda,boxes=5" },
    { "ising_pmj_sw_h0",
      2,
      { 256, 260, 0 },
      "threads=2 threads=3,boxes=2 parts=2,threads=2 cuda cuda,boxes=5" },
    /* CUDA: Potts and +-J across many tiles, wraps through partial tiles */
    { "potts3_sw", 2, { 1024, 1024, 0 }, "cuda devices=3" },
    { "potts3_sw", 2, { 30, 94, 0 }, "cuda devices=2 cuda,boxes=4" },
    { "ising_pmj_sw_afm", 3, { 34, 18, 22 }, "cuda devices=2" },
    { "ising_sw_afm", 2, { 512, 256, 0 }, "cuda cuda,boxes=3" },
    { "ising_pmj_sw_field", 3, { 40, 42, 44 }, "threads=2 threads=3,boxes=3 cuda" },
    { "potts3_sw_field", 2, { 270, 252, 0 }, "threads=2 threads=3,boxes=5 cuda" },
    { "ising2d_wolff",
      2,
      { 256, 256, 0 },
      "threads=2 threads=3,boxes=2 cuda cuda,boxes=3 devices=2" },
    { "potts3_wolff", 2, { 256, 260, 0 }, "threads=2 threads=3,boxes=2 cuda cuda,boxes=4" },
    /* CUDA in a field: the clusters' sums by label (a warp's sites of one cluster added
     * once), many clusters and one spanning one; Wolff's one cluster from a cold start
     * (most of the lattice), in 3D across partial tiles, and in a field */
    { "ising2d_sw_field", 2, { 1024, 1024, 0 }, "cuda cold,cuda" },
    { "ising2d_wolff", 2, { 1024, 1024, 0 }, "cuda cold,cuda cold,cuda,boxes=3 devices=2" },
    { "ising3d_wolff_field", 3, { 34, 18, 22 }, "cuda cold,cuda" },
    /* CUDA in a field on k boxes, devices and parts: the pieces' sums joined across the
     * faces with their names (many pieces and spanning clusters; Wolff's cluster inside
     * one box or across the faces, from hot and cold starts) */
    { "ising2d_sw_field",
      2,
      { 1024, 1024, 0 },
      "cuda,boxes=2 cuda,boxes=3 devices=2 cold,cuda,boxes=3" },
    { "ising_pmj_sw_field", 3, { 40, 42, 44 }, "cuda,boxes=3 devices=2" },
    { "potts3_sw_field", 2, { 270, 252, 0 }, "cuda,boxes=2 cuda,boxes=3 devices=2" },
    { "ising3d_wolff_field",
      3,
      { 34, 18, 22 },
      "cuda,boxes=2 cuda,boxes=3 devices=2 cold,cuda,boxes=3 cuda,parts=3" },
    { "potts3_wolff_field",
      2,
      { 256, 260, 0 },
      "cuda,boxes=2 cuda,boxes=3 devices=2 cold,devices=2 cuda,parts=2" },
    /* embedded clusters (on parts each part's own planes, the clusters joined across the
     * parts: lib/cluster_embed_part.c); 5 units of the colouring along the last axis
     * (phi^4 with a finite Lambda: 8 planes 2D). On CUDA the GPU's local passes and the
     * core's step on a host copy, against the GPU's one box (phi^4 on CUDA parts: the
     * site order) */
    { "phi4_sw_double_lambda", 2, { 16, 40, 0 }, CLUSTER_ALL },
    { "phi4_sw_double_lambda",
      2,
      { 16, 40, 0 },
      "cuda,chunk=none cuda,chunk=none,parts=2 cuda,chunk=none,parts=3 mpi,cuda,chunk=none" },
    { "phi4_wolff_float", 3, { 8, 8, 40 }, CLUSTER_ALL },
    { "phi4_sw_double_lambda", 2, { 128, 128, 0 }, "threads=3 threads=2,boxes=2" },
    { "heisenberg_sw_gauss_r2", 3, { 4, 4, 10 }, CLUSTER_ALL_MPI },
    /* parts on their own planes (lib/cluster_embed_part.c: nearest-neighbour pairs, the
     * clusters joined across the parts, the statistics' exact sums), against one box */
    { "heisenberg_sw_h0_r2", 3, { 4, 4, 10 }, "parts=2 parts=3 parts=4,shared mpi" },
    { "heisenberg_sw_h0_r2", 2, { 16, 16, 0 }, "parts=2 parts=3,shared,simd=c" },
    { "heisenberg_wolff_h0_r2", 3, { 8, 8, 10 }, "parts=2 parts=3 cold,parts=2 mpi" },
    { "phi4_sw_double_inf", 2, { 16, 40, 0 }, "parts=2 parts=3 parts=2,save,then.one mpi" },
    { "phi4_wolff_float", 2, { 16, 40, 0 }, "parts=2 parts=3 parts=4 setspins,parts=3" },
    /* a finite Lambda: pairs two planes up and, along the diagonals, one plane down, so
     * each part's two planes on either side are in the boundary (the thinnest slabs phi^4
     * allows: 4 planes in 3D) */
    { "phi4_wolff_double_lambda", 2, { 16, 40, 0 }, "parts=2 parts=3 parts=4,shared mpi" },
    { "phi4_sw_double_lambda", 2, { 10, 10, 0 }, "parts=2 cold,parts=2" },
    { "phi4_sw_float_lambda", 3, { 8, 8, 16 }, "parts=2 parts=4 mpi" },
    { "phi4_wolff_float_lambda", 3, { 8, 8, 16 }, "parts=2 parts=4,shared" },
    /* Wolff in a field on parts: the seed's part broadcasts its joined cluster's Q_C */
    { "heisenberg_wolff_gauss_r2", 3, { 8, 8, 10 }, "parts=2 parts=3 parts=4,shared mpi" },
    { "heisenberg_wolff_gauss_r2", 2, { 16, 16, 0 }, "parts=2 parts=3 cold,parts=2" },
    { "heisenberg_wolff_uniform_r1", 2, { 16, 16, 0 }, CLUSTER_ALL },
    /* without a field the step of one GPU, of boxes and of devices is the device's, of
     * parts the core's on each part's planes: many tiles, clusters across them */
    { "heisenberg_sw_h0_r2", 3, { 4, 4, 10 }, CLUSTER_BOXES " " CLUSTER_CUDA },
    { "phi4_sw_float_inf", 2, { 16, 40, 0 }, CLUSTER_BOXES " " CLUSTER_CUDA },
    { "phi4_sw_double_inf",
      3,
      { 16, 16, 16 },
      "threads=2 cuda cold,cuda cuda,boxes=2 devices=2 "
      "cuda,chunk=none cuda,chunk=none,parts=2" },
    /* (96 planes: the chunk schedule's two layers, so two boxes) */
    { "phi4_sw_float_inf", 2, { 128, 96, 0 }, "cuda cold,cuda setspins,cuda cuda,boxes=2" },
    { "heisenberg_sw_h0_r2",
      3,
      { 32, 32, 32 },
      "threads=2 cuda cold,cuda cuda,boxes=3 devices=2 "
      "cuda,parts=2" },
    { "heisenberg_sw_h0_r2", 2, { 96, 64, 0 }, "cuda cold,cuda setspins,cuda cuda,boxes=2" },
    /* in a field (h = 0.15): Swendsen-Wang and Wolff on the device (the clusters' sums
     * of a by atomics, integers; on boxes joined across the faces) against the host
     * copy's of parts */
    { "heisenberg_sw_gauss_r2", 3, { 32, 32, 32 }, "cuda cold,cuda cuda,boxes=3 devices=2" },
    { "heisenberg_sw_gauss_r2", 2, { 96, 64, 0 }, "cuda cold,cuda setspins,cuda cuda,boxes=2" },
    { "heisenberg_wolff_gauss_r2", 3, { 4, 4, 10 }, CLUSTER_BOXES " " CLUSTER_CUDA },
    { "heisenberg_wolff_gauss_r2",
      3,
      { 32, 32, 32 },
      "threads=2 cuda cold,cuda cuda,boxes=3 "
      "devices=2 cuda,parts=2" },
    { "heisenberg_wolff_gauss_r2", 2, { 96, 64, 0 }, "cuda cold,cuda setspins,cuda cuda,boxes=2" },
    /* Wolff on the device (one GPU, boxes, devices) against the core's (parts) and the
     * CPU's */
    { "heisenberg_wolff_h0_r2", 3, { 4, 4, 10 }, CLUSTER_BOXES " " CLUSTER_CUDA },
    { "heisenberg_wolff_h0_r2",
      3,
      { 32, 32, 32 },
      "threads=2 cuda cold,cuda cuda,boxes=3 devices=2 "
      "cuda,parts=2" },
    { "heisenberg_wolff_h0_r2", 2, { 96, 64, 0 }, "cuda cold,cuda setspins,cuda cuda,boxes=2" },
    { "phi4_wolff_float", 2, { 128, 96, 0 }, "cuda cold,cuda setspins,cuda cuda,boxes=2" },
    { "phi4_wolff_double_inf",
      3,
      { 16, 16, 16 },
      "threads=2 cuda cold,cuda cuda,boxes=2 "
      "devices=2 cuda,chunk=none cuda,chunk=none,parts=2" },
    /* a finite Lambda: one GPU's step the device's (the further pairs united after the
     * labelling; Wolff's statistics regrown by the core drawing the bonds), boxes' the
     * host copy's, parts' the core's on each part's planes */
    { "phi4_wolff_double_lambda", 2, { 16, 40, 0 }, CLUSTER_BOXES " " CLUSTER_CUDA },
    { "phi4_sw_float_lambda", 2, { 128, 96, 0 }, "cuda cold,cuda setspins,cuda cuda,boxes=2" },
    { "phi4_wolff_float_lambda", 2, { 128, 96, 0 }, "cuda cold,cuda setspins,cuda cuda,boxes=2" },
    { "phi4_sw_double_lambda",
      3,
      { 16, 16, 16 },
      "threads=2 cuda cold,cuda cuda,boxes=2 "
      "devices=2 cuda,chunk=none cuda,chunk=none,parts=2" },
    { "phi4_wolff_double_lambda",
      3,
      { 16, 16, 24 },
      "threads=2 cuda cold,cuda cuda,boxes=2 "
      "devices=2 cuda,chunk=none cuda,chunk=none,parts=2" },
    { "phi4_sw_float_lambda", 3, { 24, 16, 32 }, "cuda cold,cuda setspins,cuda" },
    /* the device's step on k boxes of one GPU and on devices (cuda_embed_boxes.c):
     * the pieces joined across the faces, their sums too in a field (Wolff's cluster's
     * name and sum from the join), uneven slabs, hot and cold starts, against the one
     * GPU's device step */
    { "heisenberg_sw_gauss_r2",
      3,
      { 36, 34, 30 },
      "cuda,boxes=2 cuda,boxes=4 "
      "cold,cuda,boxes=3" },
    { "heisenberg_wolff_gauss_r2",
      3,
      { 36, 34, 30 },
      "cuda,boxes=2 cuda,boxes=4 "
      "cold,cuda,boxes=3" },
    { "heisenberg_sw_h0_r2", 3, { 34, 30, 26 }, "cuda,boxes=3 cold,cuda,boxes=2" },
    { "heisenberg_wolff_h0_r2", 3, { 34, 30, 26 }, "cuda,boxes=3 cold,cuda,boxes=2" },
    { "heisenberg_wolff_uniform_r1", 2, { 96, 80, 0 }, "cuda,boxes=2 cold,cuda,boxes=3" },
    { "phi4_sw_double_inf", 3, { 16, 16, 32 }, "cuda,boxes=2 cold,cuda,boxes=2" },
    { "phi4_wolff_float", 2, { 64, 96, 0 }, "cuda,boxes=2 cold,cuda,boxes=2" },

    /* ---- CUDA: one GPU, boxes on it, several devices (tests/cuda, "Several GPUs") ---- */
    /* Ising: the packed kernels (L_x a multiple of 16, uniform and +-J) and
     * the byte layout; two slabs, uneven slabs, the thinnest (2 planes); Potts: 2 and 3
     * colours, the reference kernel (L_x = 10, 15, 6: blocks across rows and planes);
     * Heisenberg: float and double, overrelaxation alone, L_x and L_y over one tile
     * (against one GPU: CUDA's own arithmetic); phi^4: the chunk schedule with the
     * chunks LATMC_CUDA_PHI4_CHUNK names (slabs of whole chunk layers, against one GPU)
     * and the site order (in double also against the CPU) */
    { "ising2d_metropolis", 2, { 64, 32, 0 }, CUDA_DEVICES(2) },
    { "ising_pmj_metropolis", 2, { 64, 32, 0 }, CUDA_DEVICES(2) },
    { "ising2d_heatbath", 2, { 64, 32, 0 }, CUDA_DEVICES(2) },
    { "ising_pmj_heatbath", 2, { 64, 32, 0 }, CUDA_DEVICES(2) },
    { "ising2d_metropolis", 2, { 32, 16, 0 }, CUDA_DEVICES(8) },
    { "ising2d_heatbath", 2, { 32, 16, 0 }, CUDA_DEVICES(8) },
    { "ising2d_metropolis", 2, { 48, 20, 0 }, CUDA_DEVICES(3) },
    { "ising2d_heatbath", 2, { 48, 20, 0 }, CUDA_DEVICES(3) },
    { "ising2d_metropolis", 2, { 16, 64, 0 }, CUDA_DEVICES(2) },
    { "ising2d_heatbath", 2, { 16, 64, 0 }, CUDA_DEVICES(2) },
    { "ising3d_metropolis", 3, { 32, 8, 12 }, CUDA_DEVICES(2) },
    { "ising3d_heatbath", 3, { 32, 8, 12 }, CUDA_DEVICES(2) },
    { "ising3d_metropolis", 3, { 16, 6, 10 }, CUDA_DEVICES(5) },
    { "ising3d_heatbath", 3, { 16, 6, 10 }, CUDA_DEVICES(5) },
    { "ising3d_metropolis", 3, { 64, 4, 14 }, CUDA_DEVICES(3) },
    { "ising_pmj_metropolis", 3, { 64, 4, 14 }, CUDA_DEVICES(3) },
    { "ising3d_heatbath", 3, { 64, 4, 14 }, CUDA_DEVICES(3) },
    { "ising_pmj_heatbath", 3, { 64, 4, 14 }, CUDA_DEVICES(3) },
    /* 3D +-J in groups of 8 words (L_x a multiple of 128): one group a thread (fewer groups
     * than two waves' threads) and the wave's walk (230,400 groups) */
    { "ising_pmj_metropolis", 3, { 128, 6, 10 }, "cuda cold,cuda" },
    { "ising_pmj_heatbath", 3, { 128, 6, 10 }, "cuda" },
    { "ising_pmj_metropolis", 3, { 128, 480, 480 }, "cuda" },
    { "potts2_metropolis", 2, { 32, 16, 0 }, CUDA_DEVICES(2) },
    { "potts3_heatbath", 2, { 32, 16, 0 }, CUDA_DEVICES(2) },
    { "potts5_metropolis", 2, { 32, 16, 0 }, CUDA_DEVICES(2) },
    { "potts5_heatbath", 2, { 32, 16, 0 }, CUDA_DEVICES(2) },
    { "potts2_metropolis", 2, { 16, 22, 0 }, CUDA_DEVICES(3) },
    { "potts3_heatbath", 2, { 16, 22, 0 }, CUDA_DEVICES(3) },
    { "potts5_metropolis", 2, { 16, 22, 0 }, CUDA_DEVICES(3) },
    { "potts5_heatbath", 2, { 16, 22, 0 }, CUDA_DEVICES(3) },
    { "potts3_metropolis", 2, { 8, 16, 0 }, CUDA_DEVICES(8) },
    { "potts5_heatbath", 2, { 8, 16, 0 }, CUDA_DEVICES(8) },
    { "potts2_metropolis", 2, { 10, 12, 0 }, CUDA_DEVICES(3) },
    { "potts3_heatbath", 2, { 10, 12, 0 }, CUDA_DEVICES(3) },
    { "potts5_metropolis", 2, { 10, 12, 0 }, CUDA_DEVICES(3) },
    { "potts5_heatbath", 2, { 10, 12, 0 }, CUDA_DEVICES(3) },
    { "potts2_metropolis", 2, { 24, 27, 0 }, CUDA_DEVICES(3) },
    { "potts3_heatbath", 2, { 24, 27, 0 }, CUDA_DEVICES(3) },
    { "potts5_metropolis", 2, { 24, 27, 0 }, CUDA_DEVICES(3) },
    { "potts5_heatbath", 2, { 24, 27, 0 }, CUDA_DEVICES(3) },
    { "potts3_metropolis", 2, { 15, 21, 0 }, CUDA_DEVICES(7) },
    { "potts5_heatbath", 2, { 15, 21, 0 }, CUDA_DEVICES(7) },
    { "potts2_metropolis", 3, { 16, 8, 12 }, CUDA_DEVICES(2) },
    { "potts3_heatbath", 3, { 16, 8, 12 }, CUDA_DEVICES(2) },
    { "potts5_metropolis", 3, { 16, 8, 12 }, CUDA_DEVICES(2) },
    { "potts5_heatbath", 3, { 16, 8, 12 }, CUDA_DEVICES(2) },
    { "potts2_metropolis", 3, { 24, 6, 8 }, CUDA_DEVICES(3) },
    { "potts3_heatbath", 3, { 24, 6, 8 }, CUDA_DEVICES(3) },
    { "potts5_metropolis", 3, { 24, 6, 8 }, CUDA_DEVICES(3) },
    { "potts5_heatbath", 3, { 24, 6, 8 }, CUDA_DEVICES(3) },
    { "potts3_metropolis", 3, { 6, 6, 10 }, CUDA_DEVICES(5) },
    { "potts5_heatbath", 3, { 6, 6, 10 }, CUDA_DEVICES(5) },
    { "potts2_metropolis", 3, { 12, 9, 15 }, CUDA_DEVICES(3) },
    { "potts3_heatbath", 3, { 12, 9, 15 }, CUDA_DEVICES(3) },
    { "potts5_metropolis", 3, { 12, 9, 15 }, CUDA_DEVICES(3) },
    { "potts5_heatbath", 3, { 12, 9, 15 }, CUDA_DEVICES(3) },
    { "heisenberg_gauss_r2_float", 2, { 32, 16, 0 }, CUDA_DEVICES(2) },
    { "heisenberg_uniform_r1", 2, { 32, 16, 0 }, CUDA_DEVICES(2) },
    { "heisenberg_overrelax_r2", 2, { 32, 16, 0 }, CUDA_DEVICES(2) },
    { "heisenberg_pmj_r2", 2, { 32, 16, 0 }, CUDA_DEVICES(2) },
    { "heisenberg_overrelax_r1_float", 2, { 32, 16, 0 }, CUDA_DEVICES(2) },
    { "heisenberg_gauss_r2_float", 2, { 16, 20, 0 }, CUDA_DEVICES(3) },
    { "heisenberg_uniform_r1", 2, { 16, 20, 0 }, CUDA_DEVICES(3) },
    { "heisenberg_overrelax_r2", 2, { 16, 20, 0 }, CUDA_DEVICES(3) },
    { "heisenberg_pmj_r2", 2, { 16, 20, 0 }, CUDA_DEVICES(3) },
    { "heisenberg_overrelax_r1_float", 2, { 16, 20, 0 }, CUDA_DEVICES(3) },
    { "heisenberg_gauss_r2_float", 2, { 12, 16, 0 }, CUDA_DEVICES(8) },
    { "heisenberg_uniform_r1", 2, { 12, 16, 0 }, CUDA_DEVICES(8) },
    { "heisenberg_overrelax_r2", 2, { 12, 16, 0 }, CUDA_DEVICES(8) },
    { "heisenberg_pmj_r2", 2, { 12, 16, 0 }, CUDA_DEVICES(8) },
    { "heisenberg_overrelax_r1_float", 2, { 12, 16, 0 }, CUDA_DEVICES(8) },
    { "heisenberg_gauss_r2_float", 3, { 16, 8, 12 }, CUDA_DEVICES(2) },
    { "heisenberg_uniform_r1", 3, { 16, 8, 12 }, CUDA_DEVICES(2) },
    { "heisenberg_overrelax_r2", 3, { 16, 8, 12 }, CUDA_DEVICES(2) },
    { "heisenberg_pmj_r2", 3, { 16, 8, 12 }, CUDA_DEVICES(2) },
    { "heisenberg_overrelax_r1_float", 3, { 16, 8, 12 }, CUDA_DEVICES(2) },
    { "heisenberg_gauss_r2_float", 3, { 8, 6, 14 }, CUDA_DEVICES(3) },
    { "heisenberg_uniform_r1", 3, { 8, 6, 14 }, CUDA_DEVICES(3) },
    { "heisenberg_overrelax_r2", 3, { 8, 6, 14 }, CUDA_DEVICES(3) },
    { "heisenberg_pmj_r2", 3, { 8, 6, 14 }, CUDA_DEVICES(3) },
    { "heisenberg_overrelax_r1_float", 3, { 8, 6, 14 }, CUDA_DEVICES(3) },
    { "heisenberg_gauss_r2_float", 3, { 12, 4, 10 }, CUDA_DEVICES(5) },
    { "heisenberg_uniform_r1", 3, { 12, 4, 10 }, CUDA_DEVICES(5) },
    { "heisenberg_overrelax_r2", 3, { 12, 4, 10 }, CUDA_DEVICES(5) },
    { "heisenberg_pmj_r2", 3, { 12, 4, 10 }, CUDA_DEVICES(5) },
    { "heisenberg_overrelax_r1_float", 3, { 12, 4, 10 }, CUDA_DEVICES(5) },
    { "heisenberg_gauss_r2_float", 3, { 72, 10, 8 }, CUDA_DEVICES(2) },
    { "heisenberg_uniform_r1", 3, { 72, 10, 8 }, CUDA_DEVICES(2) },
    { "heisenberg_overrelax_r2", 3, { 72, 10, 8 }, CUDA_DEVICES(2) },
    { "heisenberg_pmj_r2", 3, { 72, 10, 8 }, CUDA_DEVICES(2) },
    { "heisenberg_overrelax_r1_float", 3, { 72, 10, 8 }, CUDA_DEVICES(2) },
    /* CUDA on cubic lattices: Heisenberg's M2_KMIN and OVERLAP2_KMIN compared too, the
     * tiles reduced on the devices (one GPU, boxes, devices, parts, checkpoints; 2D and 3D,
     * one and two replicas, rows of L_x mod 4 = 0 and 2) */
    { "heisenberg_gauss_r2", 3, { 12, 12, 12 }, DEVICES_GPU " cuda,parts=2" },
    { "heisenberg_uniform_r1", 3, { 16, 16, 16 }, CUDA_DEVICES(3) " cuda,boxes=2" },
    { "heisenberg_overrelax_r2", 2, { 32, 32, 0 }, CUDA_DEVICES(2) " cuda,parts=2" },
    { "heisenberg_pmj_r2", 2, { 24, 24, 0 }, "cuda devices=3" },
    { "heisenberg_gauss_r2_float", 3, { 10, 10, 10 }, CUDA_DEVICES(2) " cuda,boxes=2" },
    { "heisenberg_overrelax_r1_float", 2, { 30, 30, 0 }, "cuda devices=2 cuda,parts=3" },
    { "phi4_double_lambda", 3, { 64, 16, 32 }, CUDA_DEVICES(2) },
    { "phi4_float", 3, { 64, 16, 32 }, CUDA_DEVICES(2) },
    { "phi4_float_lambda", 3, { 64, 16, 32 }, CUDA_DEVICES(2) },
    { "phi4_double_lambda", 3, { 64, 8, 48 }, CUDA_DEVICES_CHUNK(5, "32x4x4") },
    { "phi4_float", 3, { 64, 8, 48 }, CUDA_DEVICES_CHUNK(5, "32x4x4") },
    { "phi4_float_lambda", 3, { 64, 8, 48 }, CUDA_DEVICES_CHUNK(5, "32x4x4") },
    { "phi4_double_lambda", 3, { 64, 8, 16 }, CUDA_DEVICES_CHUNK(4, "32x4x2") },
    { "phi4_float", 3, { 64, 8, 16 }, CUDA_DEVICES_CHUNK(4, "32x4x2") },
    { "phi4_float_lambda", 3, { 64, 8, 16 }, CUDA_DEVICES_CHUNK(4, "32x4x2") },
    { "phi4_double_lambda", 3, { 64, 8, 24 }, CUDA_DEVICES_CHUNK(3, "32x4x4") },
    { "phi4_float", 3, { 64, 8, 24 }, CUDA_DEVICES_CHUNK(3, "32x4x4") },
    { "phi4_float_lambda", 3, { 64, 8, 24 }, CUDA_DEVICES_CHUNK(3, "32x4x4") },
    { "phi4_double_lambda", 2, { 64, 48, 0 }, CUDA_DEVICES(2) },
    { "phi4_float", 2, { 64, 48, 0 }, CUDA_DEVICES(2) },
    { "phi4_float_lambda", 2, { 64, 48, 0 }, CUDA_DEVICES(2) },
    { "phi4_double_lambda", 2, { 64, 64, 0 }, CUDA_DEVICES_CHUNK(3, "32x4") },
    { "phi4_float", 2, { 64, 64, 0 }, CUDA_DEVICES_CHUNK(3, "32x4") },
    { "phi4_float_lambda", 2, { 64, 64, 0 }, CUDA_DEVICES_CHUNK(3, "32x4") },
    { "phi4_double_lambda", 2, { 40, 30, 0 }, CUDA_DEVICES_CHUNK(4, "20x3") },
    { "phi4_float", 2, { 40, 30, 0 }, CUDA_DEVICES_CHUNK(4, "20x3") },
    { "phi4_float_lambda", 2, { 40, 30, 0 }, CUDA_DEVICES_CHUNK(4, "20x3") },
    { "phi4_double_lambda", 2, { 40, 30, 0 }, CUDA_DEVICES(2) },
    { "phi4_float", 2, { 40, 30, 0 }, CUDA_DEVICES(2) },
    { "phi4_float_lambda", 2, { 40, 30, 0 }, CUDA_DEVICES(2) },
    { "phi4_double_lambda", 3, { 16, 8, 16 }, CUDA_DEVICES(4) },
    { "phi4_float", 3, { 16, 8, 16 }, CUDA_DEVICES(4) },
    { "phi4_float_lambda", 3, { 16, 8, 16 }, CUDA_DEVICES(4) },
    { "phi4_double_lambda", 3, { 16, 8, 32 }, CUDA_DEVICES(3) },
    { "phi4_float", 3, { 16, 8, 32 }, CUDA_DEVICES(3) },
    { "phi4_float_lambda", 3, { 16, 8, 32 }, CUDA_DEVICES(3) },
    { "phi4_double_lambda", 2, { 15, 25, 0 }, CUDA_DEVICES(5) },
    { "phi4_float", 2, { 15, 25, 0 }, CUDA_DEVICES(5) },
    { "phi4_float_lambda", 2, { 15, 25, 0 }, CUDA_DEVICES(5) },
    { "phi4_double_lambda", 2, { 8, 32, 0 }, CUDA_DEVICES(4) },
    { "phi4_float", 2, { 8, 32, 0 }, CUDA_DEVICES(4) },
    { "phi4_float_lambda", 2, { 8, 32, 0 }, CUDA_DEVICES(4) },
    { "phi4_double_lambda", 2, { 16, 40, 0 }, CUDA_DEVICES(2) },
    { "phi4_float", 2, { 16, 40, 0 }, CUDA_DEVICES(2) },
    { "phi4_float_lambda", 2, { 16, 40, 0 }, CUDA_DEVICES(2) },
    { "phi4_double_lambda", 3, { 64, 8, 16 }, CUDA_DEVICES_CHUNK(3, "none") },
    { "phi4_float", 3, { 64, 8, 16 }, CUDA_DEVICES_CHUNK(3, "none") },
    { "phi4_float_lambda", 3, { 64, 8, 16 }, CUDA_DEVICES_CHUNK(3, "none") },
    { "phi4_double_lambda", 3, { 16, 8, 16 }, CUDA_DEVICES_CHUNK(4, "none") },
    { "phi4_double_lambda", 2, { 15, 25, 0 }, CUDA_DEVICES_CHUNK(5, "none") },
    { "phi4_double_lambda", 2, { 8, 32, 0 }, CUDA_DEVICES_CHUNK(4, "none") },

    /* checkpoints of slabs continued on one GPU, on other slabs, on the CPU (Ising,
     * Potts); boxes on one GPU */
    { "ising3d_heatbath",
      3,
      { 32, 8, 8 },
      "devices=2,serialize,then.cuda "
      "devices=2,serialize,then.cuda,then.boxes=2 devices=2,serialize,then.threads=2 "
      "devices=2,save,then.devices=3" },
    { "potts3_metropolis",
      3,
      { 24, 6, 9 },
      "devices=3,serialize,then.cuda "
      "devices=3,serialize,then.cuda,then.boxes=2 devices=3,serialize,then.threads=2" },
    { "potts3_heatbath", 2, { 48, 30, 0 }, "cuda,boxes=3" },
    { "heisenberg_pmj_r2",
      3,
      { 16, 4, 8 },
      "devices=2,serialize,then.cuda "
      "devices=2,serialize,then.cuda,then.boxes=2" },
    { "heisenberg_gauss_r2", 3, { 16, 4, 12 }, "cuda,boxes=3" },
    { "phi4_float_lambda",
      2,
      { 64, 64, 0 },
      "devices=3,chunk=32x8,serialize,then.cuda "
      "devices=3,chunk=32x8,serialize,then.cuda,then.boxes=2" },
    { "phi4_float_lambda", 3, { 64, 16, 48 }, "cuda,boxes=3" },

    /* ---- GPU ranks (MPI, each rank's part on a GPU; ranks share GPUs round-robin) ---- */
    /* Ising: the packed kernels' lattices (L_x a multiple of 16), slabs
     * of 2 to 12 planes; slabs of 340 to 1024 planes of 4096 sites (the halo copies
     * overlap a long interior update; planes of more than 2^20 sites through the pack
     * kernels); 4 planes of 2^21 sites on 2 ranks (a slab holds a halo plane twice) */
#define GPU_RANKS "mpi,cuda mpi,cuda,save"
    { "ising2d_metropolis", 2, { 32, 24, 0 }, GPU_RANKS },
    { "ising_pmj_heatbath", 2, { 64, 24, 0 }, GPU_RANKS },
    { "ising3d_metropolis", 3, { 16, 6, 12 }, GPU_RANKS },
    { "ising2d_metropolis", 2, { 4096, 1024, 0 }, "mpi,cuda" },
    { "ising3d_metropolis", 3, { 2048, 1024, 4 }, "mpi,cuda,max_ranks=2" },
    /* Ising on the byte layout (L_x not a multiple of 16; +-J: of 64) */
    { "ising2d_heatbath", 2, { 24, 20, 0 }, GPU_RANKS },
    { "ising_pmj_metropolis", 3, { 32, 6, 12 }, GPU_RANKS },
    /* Potts: 2 colours on the row kernels; the per-block reference kernel (q = 10, L_x =
     * 10) on slabs of 2 to 4 planes (all border); 3 colours in 3D on the heat-bath table */
    { "potts3_metropolis", 2, { 32, 20, 0 }, GPU_RANKS },
    { "potts10_heatbath", 2, { 10, 10, 0 }, GPU_RANKS },
    { "potts4_heatbath", 3, { 12, 9, 15 }, GPU_RANKS },
    /* Heisenberg: slabs with and without an interior; 2D +-J overrelaxation alone, slabs
     * of 2; slabs thicker than two border ranges (borders and an interior on two streams) */
    { "heisenberg_gauss_r2", 3, { 8, 6, 16 }, GPU_RANKS },
    { "heisenberg_pmj_overrelax", 2, { 12, 10, 0 }, GPU_RANKS },
    { "heisenberg_gauss_r2", 3, { 8, 4, 200 }, "mpi,cuda" },
    { "heisenberg_pmj_overrelax", 2, { 12, 60, 0 }, "mpi,cuda" },
    /* phi^4 on the site-order schedule (extents that take no chunks), the 1/Lambda term;
     * 3D, 8 colours; extents that take chunks, on the site order the environment selects */
    { "phi4_double_lambda", 2, { 20, 30, 0 }, GPU_RANKS },
    { "phi4_double", 3, { 32, 8, 16 }, GPU_RANKS },
    { "phi4_double", 2, { 40, 30, 0 }, "mpi,cuda,chunk=none mpi,cuda,chunk=none,save" },
    /* Swendsen-Wang (every part joins every part's faces): Ising uniform and +-J, 2D and
     * 3D, J of either sign, Potts q = 3; lattices of many tiles, slabs of 1 to 12 planes
     * (3D 44 x 40 x 42 on 4 ranks: slabs of 10 and 11), one spanning cluster from a cold
     * start, checkpoints saved by the ranks */
    { "ising2d_sw", 2, { 256, 512, 0 }, "mpi,cuda cold,mpi,cuda mpi,cuda,save" },
    { "ising3d_sw", 3, { 44, 40, 42 }, "mpi,cuda cold,mpi,cuda" },
    { "ising_pmj_sw_h0", 3, { 40, 42, 44 }, "mpi,cuda mpi,cuda,save" },
    { "ising_pmj_sw_h0", 2, { 256, 260, 0 }, "mpi,cuda" },
    { "ising_sw_afm", 2, { 512, 256, 0 }, "mpi,cuda" },
    { "potts3_sw", 3, { 42, 42, 42 }, "mpi,cuda cold,mpi,cuda" },
    { "potts3_sw", 2, { 30, 94, 0 }, "mpi,cuda" },
    { "ising3d_sw", 3, { 2, 6, 8 }, "mpi,cuda" },
    /* Wolff (the seed's cluster named at the join: inside one part or across the faces):
     * from hot and cold starts (a cold start's cluster spans the lattice) */
    { "ising2d_wolff", 2, { 256, 512, 0 }, "mpi,cuda cold,mpi,cuda mpi,cuda,save" },
    { "potts3_wolff", 2, { 256, 260, 0 }, "mpi,cuda cold,mpi,cuda" },
    { "ising_pmj_wolff", 3, { 16, 12, 20 }, "mpi,cuda" },
    /* in a field (the pieces' sums in the faces' records, joined on every part) */
    { "ising2d_sw_field", 2, { 256, 512, 0 }, "mpi,cuda cold,mpi,cuda" },
    { "potts3_sw_field", 3, { 42, 42, 42 }, "mpi,cuda" },
    { "ising3d_wolff_field", 3, { 16, 12, 20 }, "mpi,cuda cold,mpi,cuda" },
    { "potts3_wolff_field", 2, { 256, 260, 0 }, "mpi,cuda" },
};
const size_t n_rows = sizeof rows / sizeof rows[0];
