// Sandbox stand-in of hccl_test's all_reduce_test (CANN's "HCCL Performance Tester"): started
// with mpirun, one rank per NPU; each rank sets device (rank % -p), makes an HCCL communicator
// from root info broadcast by rank 0, and times HcclAllReduce from -b to -e bytes. Rank 0 prints
// the tester's documented result table: alg_bandwidth in GB/s of 2^30 bytes, check_result
// success or failed.
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "hccl/hccl.h"

namespace {

struct Options {
    long long min_bytes = 64 * 1024 * 1024LL;
    long long max_bytes = 64 * 1024 * 1024LL;
    long long step_factor = 2;
    int iters = 20;
    int warmup = 5;
    int check = 1;
    int npus = 8;
    std::string op = "sum";
    std::string dtype = "fp32";
};

bool ParseOptions(int argc, char **argv, Options *options)
{
    int opt;
    while ((opt = getopt(argc, argv, "b:e:f:n:w:c:p:o:d:r:")) != -1) {
        switch (opt) {
        case 'b': options->min_bytes = std::strtoll(optarg, nullptr, 10); break;
        case 'e': options->max_bytes = std::strtoll(optarg, nullptr, 10); break;
        case 'f': options->step_factor = std::strtoll(optarg, nullptr, 10); break;
        case 'n': options->iters = std::atoi(optarg); break;
        case 'w': options->warmup = std::atoi(optarg); break;
        case 'c': options->check = std::atoi(optarg); break;
        case 'p': options->npus = std::atoi(optarg); break;
        case 'o': options->op = optarg; break;
        case 'd': options->dtype = optarg; break;
        case 'r': break;
        default: return false;
        }
    }
    return options->min_bytes > 0 && options->max_bytes >= options->min_bytes && options->step_factor > 1
        && options->iters > 0 && options->warmup >= 0 && options->npus > 0 && options->op == "sum"
        && options->dtype == "fp32";
}

int Fail(const char *call, int code, int rank)
{
    std::fprintf(stderr, "rank %d: %s failed, ret = %d\n", rank, call, code);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

}  // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    Options options;
    if (!ParseOptions(argc, argv, &options)) {
        if (rank == 0)
            std::fprintf(stderr, "usage: all_reduce_test -b MIN -e MAX -f FACTOR -n ITERS -w WARMUP -c 0|1 -p NPUS -d fp32 -o sum\n");
        MPI_Finalize();
        return 1;
    }
    int ret = aclInit(nullptr);
    if (ret != ACL_SUCCESS)
        return Fail("aclInit", ret, rank);
    ret = aclrtSetDevice(rank % options.npus);
    if (ret != ACL_SUCCESS)
        return Fail("aclrtSetDevice", ret, rank);
    HcclRootInfo root;
    if (rank == 0 && (ret = HcclGetRootInfo(&root)) != HCCL_SUCCESS)
        return Fail("HcclGetRootInfo", ret, rank);
    MPI_Bcast(&root, HCCL_ROOT_INFO_BYTES, MPI_CHAR, 0, MPI_COMM_WORLD);
    HcclComm comm = nullptr;
    if ((ret = HcclCommInitRootInfo(ranks, &root, rank, &comm)) != HCCL_SUCCESS)
        return Fail("HcclCommInitRootInfo", ret, rank);
    aclrtStream stream = nullptr;
    if ((ret = aclrtCreateStream(&stream)) != ACL_SUCCESS)
        return Fail("aclrtCreateStream", ret, rank);
    if (rank == 0) {
        std::printf("the minbytes is %lld, maxbytes is %lld, iters is %d, warmup_iters is %d\n",
                    options.min_bytes, options.max_bytes, options.iters, options.warmup);
        std::printf("data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result:\n");
    }
    for (long long bytes = options.min_bytes; bytes <= options.max_bytes; bytes *= options.step_factor) {
        const size_t count = static_cast<size_t>(bytes) / sizeof(float);
        void *send = nullptr, *recv = nullptr;
        if ((ret = aclrtMalloc(&send, count * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST)) != ACL_SUCCESS
            || (ret = aclrtMalloc(&recv, count * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST)) != ACL_SUCCESS)
            return Fail("aclrtMalloc", ret, rank);
        std::vector<float> host(count, static_cast<float>(rank + 1));
        aclrtMemcpy(send, count * sizeof(float), host.data(), count * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE);
        for (int i = 0; i < options.warmup; i++)
            if ((ret = HcclAllReduce(send, recv, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream)) != HCCL_SUCCESS)
                return Fail("HcclAllReduce", ret, rank);
        aclrtSynchronizeStream(stream);
        MPI_Barrier(MPI_COMM_WORLD);
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < options.iters; i++)
            if ((ret = HcclAllReduce(send, recv, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream)) != HCCL_SUCCESS)
                return Fail("HcclAllReduce", ret, rank);
        aclrtSynchronizeStream(stream);
        const double mine = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
        double slowest = 0;
        MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        int good = 1;
        if (options.check) {
            aclrtMemcpy(host.data(), count * sizeof(float), recv, count * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
            const float expected = static_cast<float>(ranks) * (ranks + 1) / 2;
            for (size_t i = 0; i < count && good; i++)
                good = host[i] == expected;
        }
        int all_good = 0;
        MPI_Reduce(&good, &all_good, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            const double average = slowest / options.iters;
            std::printf("%-18lld|%11.2f    |%15.5f       | %s\n", bytes, average,
                        bytes / (average * 1e-6) / (1024.0 * 1024 * 1024),
                        options.check ? (all_good ? "success" : "failed") : "NULL");
        }
        aclrtFree(send);
        aclrtFree(recv);
    }
    HcclCommDestroy(comm);
    aclrtDestroyStream(stream);
    aclrtResetDevice(rank % options.npus);
    aclFinalize();
    MPI_Finalize();
    return 0;
}
