/**
 * @file latmc/latmc.h
 * @brief liblatmc — Markov-chain Monte Carlo on lattices. The umbrella header.
 *
 * Contract v1: see doc/conventions.md for the physics conventions and doc/ABI.md for
 * what may change between versions. All names are prefixed latmc_ / LATMC_.
 * Includes defs.h, version.h, ctx.h, sim.h, acc.h and ens.h; thread safety is stated in each.
 *
 * @since 0.1
 */
#ifndef LATMC_LATMC_H
#define LATMC_LATMC_H

#include <latmc/defs.h>
#include <latmc/version.h>
#include <latmc/ctx.h>
#include <latmc/sim.h>
#include <latmc/acc.h>
#include <latmc/ens.h>
#include <latmc/part.h>

#endif /* LATMC_LATMC_H */
