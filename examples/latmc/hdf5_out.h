/*
 * latmc front end — --hdf5 FILE (only when built with -Dhdf5=enabled; the library itself
 * has no HDF5 dependency). Layout (doc/cli.md):
 *   /                 attribute format = "latmc-results 1"
 *   /inputs           attributes: every input of meta.h (strings, integers, reals; extent
 *                     as an integer array); /inputs/parameters: one real attribute each
 *   /run              attributes: first_sweep, last_sweep, measurements, interrupted,
 *                     signal, checkpoint_failures, wall_s, sweep_s, exit_status
 *   /series/index, /series/sweep (uint64), /series/<observable> (double): the time
 *                     series, one entry per measurement; attribute label
 *   /results/<observable>  scalar dataset: the mean; attributes error, tau_int (NaN when
 *                     there is none), label, warnings
 *   /derived/<name>   scalar dataset: the value; attributes error, jackknife_blocks,
 *                     label, warnings (and reason when there is no value)
 * Written to a unique temporary file next to the target and renamed into place.
 */
#ifndef LATMC_CLI_HDF5_OUT_H
#define LATMC_CLI_HDF5_OUT_H

#include "json_out.h"

int hdf5_write(const struct outfile *target, const struct json_run *jr, struct failure *f);

#endif
