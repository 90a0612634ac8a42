/*
 * Test support: exact results for classical Heisenberg (unit 3-vector) spins.
 *
 * A periodic ring of n spins with couplings J_0 .. J_{n-1} (J_k between spins k and
 * k + 1 mod n), H = -sum_k J_k s_k . s_{k+1}, h = 0, weight exp(-beta H), has
 *
 *     Z = (4 pi)^n sum_{l >= 0} (2l + 1) prod_k i_l(beta J_k),
 *
 * from the expansion exp(x cos g) = sum_l (2l + 1) i_l(x) P_l(cos g) and the addition
 * theorem of the Legendre polynomials (each spin integral joins two neighbouring bonds'
 * spherical harmonics). i_l are the modified spherical Bessel functions of the first kind,
 * i_l(x) = sqrt(pi / (2x)) I_{l+1/2}(x), i_0(x) = sinh(x) / x. The energy is
 * <H> = -d ln Z / d beta.
 *
 * A ring of n = 2 couples the same pair twice (the library's bond convention on an extent
 * of 2), and the formula still holds.
 *
 * Everything is reentrant: no global or static mutable state.
 */
#ifndef LATMC_TESTS_EXACT_HEISENBERG_H
#define LATMC_TESTS_EXACT_HEISENBERG_H

/* Largest order l the functions below compute, and the largest |x| they accept: at
 * |x| <= 200 the terms of order l ~ 400 are below e^-400 of the leading one. */
#define EXACT_HEISENBERG_LMAX 400
#define EXACT_HEISENBERG_XMAX 200.0

/* Largest ring. */
#define EXACT_HEISENBERG_MAX_RING 64

#define EXACT_HEISENBERG_EINVAL (-1)

/*
 * r[l] = i_l(x) / i_0(x) for l = 0 .. lmax (lmax <= EXACT_HEISENBERG_LMAX,
 * |x| <= EXACT_HEISENBERG_XMAX), by the downward recurrence of the ratios
 * i_l / i_{l-1} = 1 / ((2l + 1) / x + i_{l+1} / i_l) started far above lmax (Miller's
 * method: the recurrence is stable downwards, where i_l is the minimal solution), then
 * r[l] = product of the ratios. Returns 0 or EXACT_HEISENBERG_EINVAL.
 */
int exact_heisenberg_bessel_ratios(double x, int lmax, double *r);

/* i_0(x) = sinh(x) / x (1 at x = 0). */
double exact_heisenberg_i0(double x);

/* i_l(x); NaN for arguments out of range. */
double exact_heisenberg_il(int l, double x);

/*
 * Exact <H> of the ring (n <= EXACT_HEISENBERG_MAX_RING spins, |beta J_k| <=
 * EXACT_HEISENBERG_XMAX, beta >= 0) into *energy (the whole ring, not per site).
 * Returns 0 or EXACT_HEISENBERG_EINVAL.
 */
int exact_heisenberg_ring_energy(int n, const double *J, double beta, double *energy);

#endif
