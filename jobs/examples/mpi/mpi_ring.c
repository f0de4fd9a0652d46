/* MPI check for mpirun: every rank passes its rank to the next one around a ring, then all
 * ranks sum their ranks with MPI_Allreduce. Prints one line per rank with its host. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, size, len, from, sum;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 0, &from, 1, MPI_INT, (rank + size - 1) % size, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d of %d on %s: ring received %d, allreduce sum %d expected %d\n", rank, size, host, from, sum,
           size * (size - 1) / 2);
    fflush(stdout);
    MPI_Finalize();
    return (from == (rank + size - 1) % size && sum == size * (size - 1) / 2) ? 0 : 1;
}
