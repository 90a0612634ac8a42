/*
 * Internal: the models, one line each, in the order of enum latmc_model (include/latmc/
 * sim.h). Adding a model is one line here; what lists the models is made from it (an X
 * macro: the includer defines LATMC_MODEL(m) first), so no list can miss one:
 *   - lib/model.h and lib/models.c: the descriptors `latmc_model_<m>` (lib/model_<m>.c)
 *     behind latmc_model_get(), and the public names: m itself ("ising") is what
 *     latmc_model_name() returns, which the command line, the Python package and the
 *     docs check take as theirs;
 *   - lib/meson.build: the sources lib/model_<m>.c (it reads this file), and
 *     doc/meson.build the pages doc/models/<m>.md that exist;
 *   - backends/cpu/cpu_models.c: the kernel tables `cpu_<m>_kernels`, so every model
 *     runs on the CPU, the reference every other backend is checked against;
 *   - backends/cuda/cuda_models.c: each model's leaf `cuda_<m>_leaf_of` (declared in
 *     backends/cuda/exec/cuda_leaf.h) and its ensembles' batch `cuda_<m>_batch_of`
 *     (backends/cuda/exec/cuda_batch.h), found by the model's number: this list's order;
 *   - backends/cpu/meson.build and backends/cuda/meson.build: the folder <m>/ of each
 *     model (its meson.build appends the model's sources; the model's headers are found by
 *     their names), and tests/layering reads the same folders;
 *   - the tests that go over every model ask the library (latmc_model_name): the identity
 *     matrix wants rows of each on the CPU and with CUDA, the corpus replay a checkpoint
 *     of each, the parameter ranges a case of each.
 */
/* No include guard: each includer expands it with its own LATMC_MODEL. */
LATMC_MODEL(ising)
LATMC_MODEL(potts)
LATMC_MODEL(phi4)
LATMC_MODEL(heisenberg)
