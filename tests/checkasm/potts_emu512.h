/* The Potts template at the AVX-512 width with plain-C primitives (potts_emu512.c). */
#ifndef LATMC_TEST_POTTS_EMU512_H
#define LATMC_TEST_POTTS_EMU512_H

#include "potts_fast.h"

void potts_emu512_dsp_init(struct cpu_potts_dsp *dsp);

#endif
