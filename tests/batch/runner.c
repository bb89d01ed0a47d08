/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 *
 * Runs several test programs in one MPI job (tests/run.sh --batch): the
 * list's runs of one rank count and variant share one mpirun, one
 * MPI_Init and one MPI_Finalize, which on a 2-core machine are more than
 * half of a short test's time.  Each program is built a second time as a
 * shared object whose main is mtest_batch_main; this runner loads it fresh
 * for each run, so its static data starts anew, and answers its MPI_Init,
 * MPI_Init_thread and MPI_Finalize itself: the process initializes MPI
 * once, under MPI_THREAD_MULTIPLE when MTEST_THREAD_MULTIPLE=1 as
 * mtest_init would.  A program that needs a process of its own, one that
 * sets an OMPI_MCA_ variable before MPI_Init (only a new process reads it)
 * on any rank or asks for a thread level above the job's, is stopped in
 * its MPI_Init, before it communicates, and reported "own".
 *
 * usage: runner LIST, a line per run: "LIMIT OBJECT NAME [ARG...]" (LIMIT
 * in seconds, OBJECT the shared object, NAME the program's argv[0]).
 * Rank 0 prints "@@batch begin K" before run K and "@@batch end K rc=R
 * SECONDS" after it, R the largest of the ranks' exit statuses or "own";
 * what the program prints comes between.  A program stopped for a process
 * of its own is reported with the MCA variables it set on each rank, and
 * the list may start with such variables for this job (batch_env).  A run
 * past its limit ends the job (exit status 124); run.sh runs what is left
 * one program per job.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BATCH_MAX_ARGS  32
#define BATCH_MAX_RANKS 64
#define BATCH_ENV_BYTES 512

typedef int (*batch_main_fn)(int argc, char **argv);
typedef int (*batch_setenv_fn)(const char *name, const char *value, int overwrite);

/* Set while a program runs and has not called MPI_Init yet: where it
 * returns to when it needs a process of its own, whether it does, and the
 * MCA variables it set ("NAME=VALUE ...", NAME without OMPI_MCA_). */
static int batch_before_init, batch_needs_own;
static char batch_own_env[BATCH_ENV_BYTES];
static jmp_buf batch_own;
static batch_setenv_fn batch_next_setenv;

/* A program's MPI_Init: the ranks agree whether it needs a process of its
 * own (one may have set an MCA variable where another did not) and, if so,
 * rank 0 prints each rank's variables ("@@batch own RANK NAME=VALUE ...",
 * for run.sh to start a job with them) and all leave it here, before it
 * communicates. */
static void batch_init(int needs_own)
{
    static char all[BATCH_MAX_RANKS][BATCH_ENV_BYTES];
    int any = 0, rank, size;

    needs_own |= batch_needs_own;
    batch_before_init = 0;
    PMPI_Allreduce(&needs_own, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any) {
        return;
    }
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size <= BATCH_MAX_RANKS) {
        PMPI_Gather(batch_own_env, BATCH_ENV_BYTES, MPI_CHAR, all, BATCH_ENV_BYTES, MPI_CHAR, 0,
                    MPI_COMM_WORLD);
    }
    for (int r = 0; 0 == rank && size <= BATCH_MAX_RANKS && r < size; ++r) {
        if ('\0' != all[r][0]) {
            printf("@@batch own %d%s\n", r, all[r]);
        }
    }
    longjmp(batch_own, 1);
}

/* The programs' own initialization and finalization: MPI is initialized
 * already and stays so for the next program. */
int MPI_Init(int *argc, char ***argv)
{
    (void) argc;
    (void) argv;
    batch_init(0);
    return MPI_SUCCESS;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Query_thread(provided);

    (void) argc;
    (void) argv;
    batch_init(required > *provided);
    return rc;
}

/* An MCA variable set before MPI_Init, which only a new process reads:
 * none of the program's business if it is already so (a job run.sh started
 * with it), otherwise noted, not set, so the programs after this one run
 * as they would alone.  Only a program's own calls come before its
 * MPI_Init. */
int setenv(const char *name, const char *value, int overwrite)
{
    const char *now = getenv(name);
    size_t used = strlen(batch_own_env);

    if (NULL == batch_next_setenv) {
        *(void **) &batch_next_setenv = dlsym(RTLD_NEXT, "setenv");
    }
    if (!batch_before_init || 0 != strncmp(name, "OMPI_MCA_", 9)) {
        return batch_next_setenv(name, value, overwrite);
    }
    if (NULL != now && (!overwrite || 0 == strcmp(now, value))) {
        return 0;
    }
    batch_needs_own = 1;
    if ((size_t) snprintf(batch_own_env + used, sizeof(batch_own_env) - used, " %s=%s", name + 9,
                          value) >= sizeof(batch_own_env) - used) {
        /* the rest only: a job started with it stops the program again,
         * and run.sh runs it alone */
        batch_own_env[used] = '\0';
    }
    return 0;
}

int MPI_Finalize(void)
{
    return MPI_SUCCESS;
}

static void batch_time_limit(int sig)
{
    static const char msg[] = "@@batch time limit reached\n";
    ssize_t rc;

    (void) sig;
    rc = write(STDERR_FILENO, msg, sizeof(msg) - 1);
    (void) rc;
    _exit(124);
}

/* Splits @p line into argv[]; @return argc (a run's line has at least 3:
 * limit, object and name; main skips the others). */
static int batch_split(char *line, char **argv)
{
    int argc = 0;
    char *save = NULL;

    for (char *tok = strtok_r(line, " \t\n", &save); NULL != tok && argc < BATCH_MAX_ARGS - 1;
         tok = strtok_r(NULL, " \t\n", &save)) {
        argv[argc++] = tok;
    }
    argv[argc] = NULL;
    return argc;
}

/* One program, on every rank; @return its exit status, -1 if it needs a
 * process of its own. */
static int batch_run(int rank, char **argv, int argc)
{
    void *handle = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    batch_main_fn fn;
    volatile int rc = -1;

    if (NULL == handle) {
        fprintf(stderr, "[rank %d] %s\n", rank, dlerror());
        return 2;
    }
    *(void **) &fn = dlsym(handle, "mtest_batch_main");
    if (NULL == fn) {
        fprintf(stderr, "[rank %d] %s: no mtest_batch_main\n", rank, argv[1]);
        dlclose(handle);
        return 2;
    }
    alarm((unsigned) atoi(argv[0]));
    batch_before_init = 1;
    batch_needs_own = 0;
    batch_own_env[0] = '\0';
    if (0 == setjmp(batch_own)) {
        rc = fn(argc - 2, argv + 2);
    }
    batch_before_init = 0;
    alarm(0);
    fflush(stdout);
    fflush(stderr);
    /* what a program may have changed for the next one */
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    dlclose(handle);
    return rc;
}

/* The list's first lines "@env RANK NAME=VALUE": MCA variables this rank
 * starts with (NAME without OMPI_MCA_), set before MPI_Init. */
static int batch_env(FILE *list)
{
    const char *me = getenv("OMPI_COMM_WORLD_RANK");
    char line[BATCH_ENV_BYTES + 64], name[BATCH_ENV_BYTES + 16], *eq;
    long pos = ftell(list);
    int rank;

    while (NULL != fgets(line, sizeof(line), list) && 0 == strncmp(line, "@env ", 5)) {
        pos = ftell(list);
        if (2 != sscanf(line + 5, "%d %511s", &rank, name + 9) ||
            NULL == (eq = strchr(name + 9, '='))) {
            fprintf(stderr, "runner: bad line %s", line);
            return -1;
        }
        if (NULL == me || rank != atoi(me)) {
            continue;
        }
        memcpy(name, "OMPI_MCA_", 9);
        *eq = '\0';
        if (0 != setenv(name, eq + 1, 1)) {
            return -1;
        }
    }
    return fseek(list, pos, SEEK_SET);
}

int main(int argc, char **argv)
{
    const char *mt = getenv("MTEST_THREAD_MULTIPLE");
    char line[4096], *args[BATCH_MAX_ARGS];
    int rank, provided, k = 0;
    FILE *list;

    if (2 != argc || NULL == (list = fopen(argv[1], "r"))) {
        fprintf(stderr, "usage: runner LIST\n");
        return 2;
    }
    if (0 != batch_env(list)) {
        return 2;
    }
    if (NULL != mt && 0 == strcmp(mt, "1")) {
        PMPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    } else {
        PMPI_Init(&argc, &argv);
    }
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    signal(SIGALRM, batch_time_limit);
    while (NULL != fgets(line, sizeof(line), list)) {
        int n = batch_split(line, args), rc[2], worst[2] = {0, 0};
        double start;

        if (n < 3) {
            continue;
        }
        PMPI_Barrier(MPI_COMM_WORLD);
        if (0 == rank) {
            printf("@@batch begin %d\n", k);
            fflush(stdout);
        }
        start = PMPI_Wtime();
        rc[0] = batch_run(rank, args, n);
        rc[1] = -1 == rc[0];
        PMPI_Allreduce(rc, worst, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (0 == rank && worst[1]) {
            printf("@@batch end %d rc=own %.2f\n", k, PMPI_Wtime() - start);
        } else if (0 == rank) {
            printf("@@batch end %d rc=%d %.2f\n", k, worst[0], PMPI_Wtime() - start);
        }
        fflush(stdout);
        ++k;
    }
    fclose(list);
    PMPI_Finalize();
    return 0;
}
