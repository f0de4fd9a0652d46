/*
 * cs_allreduce_bw: MPI_Allreduce (float, sum) bandwidth over all ranks, printed by rank 0 the way
 * nccl-tests defines it: time per operation (the slowest rank's average), algorithm bandwidth
 * size/time, bus bandwidth algbw * 2(n-1)/n, and whether every element came back right.
 *   mpirun --hostfile hostfile -np N ./cs_allreduce_bw -b 1048576 -e 4194304 -f 2 -n 5 -w 1
 * Output: '#' comment lines, then one row per size: size(B) time(us) algbw(GB/s) busbw(GB/s) ok|wrong
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long parse_size(const char *text)
{
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (end && (*end == 'K' || *end == 'k')) value <<= 10;
    if (end && (*end == 'M' || *end == 'm')) value <<= 20;
    if (end && (*end == 'G' || *end == 'g')) value <<= 30;
    return value;
}

int main(int argc, char **argv)
{
    long min_bytes = 1 << 20, max_bytes = 1 << 22, factor = 2;
    int iters = 5, warmup = 1, rank, ranks, i, opt;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    for (opt = 1; opt + 1 < argc; opt += 2) {
        if (!strcmp(argv[opt], "-b")) min_bytes = parse_size(argv[opt + 1]);
        else if (!strcmp(argv[opt], "-e")) max_bytes = parse_size(argv[opt + 1]);
        else if (!strcmp(argv[opt], "-f")) factor = atol(argv[opt + 1]);
        else if (!strcmp(argv[opt], "-n")) iters = atoi(argv[opt + 1]);
        else if (!strcmp(argv[opt], "-w")) warmup = atoi(argv[opt + 1]);
    }
    if (min_bytes < 4 || max_bytes < min_bytes || factor < 2 || iters < 1 || warmup < 0) {
        if (rank == 0) fprintf(stderr, "cs_allreduce_bw: bad arguments\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    float *send = malloc((size_t)max_bytes), *recv = malloc((size_t)max_bytes);
    if (!send || !recv) {
        fprintf(stderr, "cs_allreduce_bw: rank %d cannot allocate %ld bytes\n", rank, max_bytes);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (rank == 0) {
        printf("# cs_allreduce_bw ranks %d iters %d warmup %d\n", ranks, iters, warmup);
        printf("#  size(B)  time(us)  algbw(GB/s)  busbw(GB/s)  check\n");
        fflush(stdout);
    }
    for (long bytes = min_bytes; bytes <= max_bytes; bytes *= factor) {
        int count = (int)(bytes / sizeof(float)), wrong = 0, any_wrong = 0;
        double start, elapsed, slowest;
        for (i = 0; i < count; i++) send[i] = (float)(rank + 1);
        for (i = 0; i < warmup; i++)
            MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        start = MPI_Wtime();
        for (i = 0; i < iters; i++)
            MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        elapsed = (MPI_Wtime() - start) / iters;
        MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        for (i = 0; i < count; i++)
            if (recv[i] != (float)ranks * (ranks + 1) / 2) { wrong = 1; break; }
        MPI_Reduce(&wrong, &any_wrong, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            double algbw = (double)count * sizeof(float) / slowest / 1e9;
            double busbw = ranks > 1 ? algbw * 2.0 * (ranks - 1) / ranks : algbw;
            printf("%10ld %12.1f %12.6f %12.6f  %s\n", (long)count * (long)sizeof(float), slowest * 1e6,
                   algbw, busbw, any_wrong ? "wrong" : "ok");
            fflush(stdout);
        }
    }
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}
