/* Whether the module's kernels can run on the current device, and from which PTX version
 * their code there was compiled (cuda_kernels.h). */
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

/* Every kernel of the module is compiled with the same gencode list (meson's gpu_arch), so
 * the image the runtime picks for this probe on a device is the one it picks for all. */
extern "C" cudaError_t cuda_kernels_ptx_version(int *version)
{
    struct cudaFuncAttributes attr;
    const cudaError_t err = cudaFuncGetAttributes(&attr, cuda_image_probe_kernel);
    *version = err == cudaSuccess ? attr.ptxVersion : 0;
    return err;
}
