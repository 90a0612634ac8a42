/* Whether the module's kernels can run on the current device (cuda_kernels.h). */
#include "cuda_kernels.h"

/* An empty kernel of the same build as the others: if the fat binary holds no image for
 * the device (SASS for its architecture, or PTX it can compile), asking for its
 * attributes fails with the runtime's reason. */
__global__ void cuda_image_probe_kernel(void) {}

extern "C" cudaError_t cuda_kernels_check_device(void)
{
    struct cudaFuncAttributes attr;
    return cudaFuncGetAttributes(&attr, cuda_image_probe_kernel);
}
