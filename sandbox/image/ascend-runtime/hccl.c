/* Sandbox stand-in of CANN's libhccl.so: a communicator from root info and an allreduce, as
 * CANN's "HCCL API Reference" documents them. There is no NPU fabric in the sandbox, so the data
 * travels with the calling program's MPI (hccl_test is an MPI program): the stand-in finds
 * OpenMPI's MPI_Allreduce in the process when the communicator is made, and the communicator must
 * span MPI_COMM_WORLD in its rank order (the way hccl_test makes it). Like the real library, it
 * refuses a rank whose thread has no device set (aclrtSetDevice) and root info it did not make. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "hccl/hccl.h"
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int clusterSuiteStandInCurrentDevice(void);

static const char root_magic[] = "cluster-suite-hccl-stand-in root";

typedef int (*allreduce_fn)(const void *, void *, int, void *, void *, void *);
typedef int (*comm_int_fn)(void *, int *);
typedef int (*initialized_fn)(int *);

struct stand_in_comm {
    uint32_t ranks, rank;
    allreduce_fn allreduce;
    void *world;
};

static void *mpi_symbol(const char *name)
{
    return dlsym(RTLD_DEFAULT, name);
}

HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo)
{
    char host[HOST_NAME_MAX + 1] = "";
    if (rootInfo == NULL)
        return HCCL_E_PTR;
    if (clusterSuiteStandInCurrentDevice() < 0) {
        fprintf(stderr, "[ERROR] HCCL: HcclGetRootInfo: no device set in this thread (call aclrtSetDevice first)\n");
        return HCCL_E_RUNTIME;
    }
    gethostname(host, sizeof host - 1);
    memset(rootInfo->internal, 0, sizeof rootInfo->internal);
    snprintf(rootInfo->internal, sizeof rootInfo->internal, "%s %s %ld", root_magic, host, (long)getpid());
    return HCCL_SUCCESS;
}

HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank, HcclComm *comm)
{
    int initialized = 0, size = 0, me = -1;
    if (rootInfo == NULL || comm == NULL)
        return HCCL_E_PTR;
    if (nRanks == 0 || rank >= nRanks || strncmp(rootInfo->internal, root_magic, sizeof root_magic - 1) != 0)
        return HCCL_E_PARA;
    if (clusterSuiteStandInCurrentDevice() < 0) {
        fprintf(stderr, "[ERROR] HCCL: HcclCommInitRootInfo: rank %u has no device set (call aclrtSetDevice first)\n", rank);
        return HCCL_E_RUNTIME;
    }
    initialized_fn mpi_initialized = (initialized_fn)mpi_symbol("MPI_Initialized");
    comm_int_fn comm_size = (comm_int_fn)mpi_symbol("MPI_Comm_size");
    comm_int_fn comm_rank = (comm_int_fn)mpi_symbol("MPI_Comm_rank");
    allreduce_fn allreduce = (allreduce_fn)mpi_symbol("MPI_Allreduce");
    void *world = mpi_symbol("ompi_mpi_comm_world");
    if (!mpi_initialized || !comm_size || !comm_rank || !allreduce || !world
        || mpi_initialized(&initialized) != 0 || !initialized) {
        fprintf(stderr, "[ERROR] HCCL: sandbox stand-in: no initialized OpenMPI in this process to carry the data\n");
        return HCCL_E_NOT_SUPPORT;
    }
    comm_size(world, &size);
    comm_rank(world, &me);
    if ((uint32_t)size != nRanks || (uint32_t)me != rank) {
        fprintf(stderr, "[ERROR] HCCL: sandbox stand-in: rank %u of %u is MPI rank %d of %d\n", rank, nRanks, me, size);
        return HCCL_E_PARA;
    }
    struct stand_in_comm *made = calloc(1, sizeof *made);
    if (made == NULL)
        return HCCL_E_MEMORY;
    made->ranks = nRanks;
    made->rank = rank;
    made->allreduce = allreduce;
    made->world = world;
    *comm = made;
    return HCCL_SUCCESS;
}

HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                         HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    static const char *const types[] = {
        [HCCL_DATA_TYPE_INT8] = "ompi_mpi_int8_t", [HCCL_DATA_TYPE_INT16] = "ompi_mpi_int16_t",
        [HCCL_DATA_TYPE_INT32] = "ompi_mpi_int32_t", [HCCL_DATA_TYPE_FP32] = "ompi_mpi_float",
        [HCCL_DATA_TYPE_INT64] = "ompi_mpi_int64_t", [HCCL_DATA_TYPE_UINT64] = "ompi_mpi_uint64_t",
    };
    static const char *const ops[] = {
        [HCCL_REDUCE_SUM] = "ompi_mpi_op_sum", [HCCL_REDUCE_PROD] = "ompi_mpi_op_prod",
        [HCCL_REDUCE_MAX] = "ompi_mpi_op_max", [HCCL_REDUCE_MIN] = "ompi_mpi_op_min",
    };
    struct stand_in_comm *made = comm;
    if (sendBuf == NULL || recvBuf == NULL || made == NULL || stream == NULL)
        return HCCL_E_PTR;
    if ((unsigned)dataType >= sizeof types / sizeof *types || types[dataType] == NULL
        || (unsigned)op >= sizeof ops / sizeof *ops || count > INT_MAX)
        return HCCL_E_NOT_SUPPORT;
    void *type = mpi_symbol(types[dataType]), *reduce = mpi_symbol(ops[op]);
    if (type == NULL || reduce == NULL)
        return HCCL_E_NOT_SUPPORT;
    return made->allreduce(sendBuf, recvBuf, (int)count, type, reduce, made->world) == 0
        ? HCCL_SUCCESS : HCCL_E_NETWORK;
}

HcclResult HcclCommDestroy(HcclComm comm)
{
    if (comm == NULL)
        return HCCL_E_PTR;
    free(comm);
    return HCCL_SUCCESS;
}
