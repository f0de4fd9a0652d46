/* Sandbox stand-in of CANN's hccl/hccl.h and hccl_types.h: the root-info communicator and the
 * allreduce of CANN's "HCCL API Reference" (HcclGetRootInfo, HcclCommInitRootInfo,
 * HcclAllReduce, HcclCommDestroy), with its types and return codes. Implemented by the
 * stand-in libhccl.so (sandbox/image/ascend-runtime/hccl.c). */
#ifndef CLUSTER_SUITE_STAND_IN_HCCL_H
#define CLUSTER_SUITE_STAND_IN_HCCL_H
#include <stdint.h>
#include "acl/acl.h"
#ifdef __cplusplus
extern "C" {
#endif

#define HCCL_ROOT_INFO_BYTES 4108
typedef void *HcclComm;
typedef struct HcclRootInfoDef {
    char internal[HCCL_ROOT_INFO_BYTES];
} HcclRootInfo;
typedef enum {
    HCCL_SUCCESS = 0,
    HCCL_E_PARA = 1,
    HCCL_E_PTR = 2,
    HCCL_E_MEMORY = 3,
    HCCL_E_INTERNAL = 4,
    HCCL_E_NOT_SUPPORT = 5,
    HCCL_E_NOT_FOUND = 6,
    HCCL_E_UNAVAIL = 7,
    HCCL_E_SYSCALL = 8,
    HCCL_E_TIMEOUT = 9,
    HCCL_E_OPEN_FILE_FAILURE = 10,
    HCCL_E_TCP_CONNECT = 11,
    HCCL_E_ROCE_CONNECT = 12,
    HCCL_E_TCP_TRANSFER = 13,
    HCCL_E_ROCE_TRANSFER = 14,
    HCCL_E_RUNTIME = 15,
    HCCL_E_DRV = 16,
    HCCL_E_PROFILING = 17,
    HCCL_E_CCE = 18,
    HCCL_E_NETWORK = 19
} HcclResult;
typedef enum {
    HCCL_DATA_TYPE_INT8 = 0,
    HCCL_DATA_TYPE_INT16 = 1,
    HCCL_DATA_TYPE_INT32 = 2,
    HCCL_DATA_TYPE_FP16 = 3,
    HCCL_DATA_TYPE_FP32 = 4,
    HCCL_DATA_TYPE_INT64 = 5,
    HCCL_DATA_TYPE_UINT64 = 6
} HcclDataType;
typedef enum {
    HCCL_REDUCE_SUM = 0,
    HCCL_REDUCE_PROD = 1,
    HCCL_REDUCE_MAX = 2,
    HCCL_REDUCE_MIN = 3
} HcclReduceOp;

HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);
HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank, HcclComm *comm);
HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                         HcclReduceOp op, HcclComm comm, aclrtStream stream);
HcclResult HcclCommDestroy(HcclComm comm);

#ifdef __cplusplus
}
#endif
#endif
