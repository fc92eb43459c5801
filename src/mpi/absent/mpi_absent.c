/* kbv built without MPI: --mpi is refused with this reason. */
#include "mpi/mpi_eval.h"

#include <string.h>

#define WITHOUT_MPI "this kbv was built without MPI (install libopenmpi-dev and rebuild)"

bool kbv_mpi_available(void)
{
    return false;
}

kbv_status kbv_mpi_begin(uint64_t *seed, kbv_mpi_world *w)
{
    (void)seed;
    memset(w, 0, sizeof *w);
    return kbv_fail(KBV_ERR_UNSUPPORTED, WITHOUT_MPI);
}

void kbv_mpi_end(bool abort_all, int exit_code)
{
    (void)abort_all;
    (void)exit_code;
}

kbv_status kbv_mpi_coordinate(const kbv_mpi_world *w, const kbv_mpi_coordinator_ops *ops,
                              kbv_mpi_stats *stats)
{
    (void)w;
    (void)ops;
    memset(stats, 0, sizeof *stats);
    return kbv_fail(KBV_ERR_UNSUPPORTED, WITHOUT_MPI);
}

kbv_status kbv_mpi_serve(const kbv_mpi_world *w, const char *device, const char *size,
                         const kbv_eval_opts *eval, const kbv_mpi_evaluator_ops *ops)
{
    (void)w;
    (void)device;
    (void)size;
    (void)eval;
    (void)ops;
    return kbv_fail(KBV_ERR_UNSUPPORTED, WITHOUT_MPI);
}
