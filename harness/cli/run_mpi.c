/* MPI runs of `oscbench run`: see run_mpi.h. */
#define _POSIX_C_SOURCE 200809L
#include "run_mpi.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "sweep.h"
#include "whole.h"

/* ---- the launcher, from the environment -------------------------------------------------------- */

/* A whole number from the first of the variables that is set; -1 if none is, -2 if malformed. */
static int env_int(const char *const *names)
{
    for (; *names; names++) {
        const char *s = getenv(*names);
        long v;
        if (s)
            return whole_in(s, 0, INT_MAX, &v) ? (int)v : -2;
    }
    return -1;
}

run_launch run_mpi_launch(void)
{
    static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", NULL};
    static const char *const ranks[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", NULL};
    int size = env_int(sizes), rank = env_int(ranks);
    return (run_launch){.launched = size != -1 || rank != -1, .rank = rank > 0 ? rank : 0,
                        .size = size > 0 ? size : 0};
}

/* fd to target (/dev/null if -1); the fd it was, or -1 */
static int mute_fd(int fd, FILE *stream, int target)
{
    fflush(stream);
    int saved = dup(fd), devnull = target < 0 ? open("/dev/null", O_WRONLY) : -1;
    int to = target < 0 ? devnull : target;
    if (saved >= 0 && to >= 0)
        dup2(to, fd);
    if (devnull >= 0)
        close(devnull);
    return saved;
}

static void unmute_fd(int fd, FILE *stream, int saved)
{
    if (saved < 0)
        return;
    fflush(stream);
    dup2(saved, fd);
    close(saved);
}

run_muted run_mpi_mute(const run_launch *l)
{
    if (!l->launched || l->rank == 0)
        return (run_muted){-1, -1, NULL};
    FILE *captured = tmpfile();
    return (run_muted){mute_fd(STDOUT_FILENO, stdout, -1),
                       mute_fd(STDERR_FILENO, stderr, captured ? fileno(captured) : -1),
                       captured};
}

void run_mpi_unmute(run_muted saved)
{
    unmute_fd(STDOUT_FILENO, stdout, saved.stdout_saved);
    unmute_fd(STDERR_FILENO, stderr, saved.stderr_saved);
    if (saved.captured)
        fclose(saved.captured);
}

/* ---- the plan: items to ranks ------------------------------------------------------------------ */

static int by_cost_descending(const void *a, const void *b)
{
    const sweep_item *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? 1 : -1;
    return x->index < y->index ? -1 : x->index > y->index;
}

int *run_mpi_assign(const osc_config *cfg, int ranks, const bool *done)
{
    const size_t n = sweep_item_count(cfg);
    int *owner = malloc((n ? n : 1) * sizeof *owner);
    sweep_item *items = malloc((n ? n : 1) * sizeof *items);
    double *load = calloc((size_t)ranks, sizeof *load);
    if (!owner || !items || !load) {
        free(owner), free(items), free(load);
        return NULL;
    }
    size_t todo = 0;
    for (size_t i = 0; i < n; i++) {
        owner[i] = -1;
        if (!done || !done[i])
            items[todo++] = sweep_item_at(cfg, i);
    }
    qsort(items, todo, sizeof *items, by_cost_descending);
    for (size_t i = 0; i < todo; i++) {
        int least = 0;
        for (int r = 1; r < ranks; r++)
            least = load[r] < load[least] ? r : least;
        owner[items[i].index] = least;
        load[least] += items[i].cost;
    }
    free(items), free(load);
    return owner;
}

#if !OSCBENCH_MPI

bool run_mpi_applies(const run_launch *l)
{
    return l->launched && (l->rank > 0 || l->size > 1);
}

/* Nothing to run over: refused here, where a build with MPI agrees, before anything is made
 * (results/ included). */
int run_mpi_agree(const run_launch *l, int rc, const run_muted *muted, const run_setup *setup)
{
    (void)muted, (void)setup;
    if (rc)
        return rc;
    if (l->rank == 0)
        fprintf(stderr, "oscbench run: started as one of %d processes by an MPI launcher, but this "
                        "oscbench was built without MPI (-Dmpi): run it as one process\n", l->size);
    return EXIT_BADINPUT;
}

int run_mpi(const run_launch *l, const osc_config *cfg, const char *out_path, bool quiet,
            bool resume)
{
    (void)l, (void)cfg, (void)out_path, (void)quiet, (void)resume;
    return EXIT_BADINPUT; /* not reached: run_mpi_agree refused the run */
}

#else /* OSCBENCH_MPI */

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>

#include <mpi.h>

#include "checkpoint.h"
#include "commit.h"
#include "h5out.h"
#include "h5par.h"
#include "layout.h"
#include "options.h"
#include "report.h"
#include "results.h"

bool run_mpi_applies(const run_launch *l)
{
    return l->launched;
}

typedef struct rank_run {
    MPI_Comm comm;
    int rank, ranks;
    const osc_config *cfg;
    const char *out_path;
    bool quiet, resume;
    ckpt *ckpt;          /* with --resume: every rank's handle on the one checkpoint */
    bool *done;          /* per item: restored from the checkpoint (the same on every rank) */
    file_commit *commit; /* rank 0: the temporary the file is made in */
    char *tmp_path;      /* every rank */
    int *owner;          /* per item */
    sweep_result res;
    analysis_result ana;
    double t_start, t_swept, t_write, t_parallel; /* wall clock, seconds */
    char err[ERROR_LINE_BYTES];
} rank_run;

/* Whether every rank succeeded (ok on this one): a collective vote. */
static bool all_ok(const rank_run *rr, bool ok)
{
    int mine = ok, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, rr->comm);
    return all;
}

/* A failure on this rank: one line, naming the rank when there are several. */
static void report_error(const rank_run *rr)
{
    if (rr->ranks > 1)
        print_line(stderr, "oscbench run: rank %d: %s", rr->rank, rr->err);
    else
        print_line(stderr, "oscbench run: %s", rr->err);
}

/* Rank 0 makes the temporary (commit.c: the same name and lock as a serial run's, after
 * removing stale ones) and every rank learns its path. (A directory or device output was
 * refused before MPI began: run_cmd.c's check_output.) */
static bool open_output(rank_run *rr)
{
    bool ok = true;
    int len = 0;
    if (rr->rank == 0) {
        h5_out_cleanup_stale(rr->out_path);
        ok = commit_open(&rr->commit, rr->out_path, rr->err, sizeof rr->err) == 0;
        if (!ok)
            report_error(rr);
        len = ok ? (int)strlen(commit_tmp_path(rr->commit)) + 1 : 0;
    }
    MPI_Bcast(&len, 1, MPI_INT, 0, rr->comm);
    if (!len)
        return false;
    rr->tmp_path = malloc((size_t)len);
    if (rr->rank == 0 && rr->tmp_path)
        memcpy(rr->tmp_path, commit_tmp_path(rr->commit), (size_t)len);
    if (!all_ok(rr, rr->tmp_path != NULL))
        return false;
    MPI_Bcast(rr->tmp_path, len, MPI_CHAR, 0, rr->comm);
    /* Every rank must reach the temporary: one that cannot would fail inside the collective
     * open while the others wait in it for ever (a rank started elsewhere, an output directory
     * not shared by every node). */
    bool reached = true;
    if (rr->rank != 0) {
        int fd = open(rr->tmp_path, O_RDWR | O_CLOEXEC);
        reached = fd >= 0;
        if (reached)
            close(fd);
        else {
            snprintf(rr->err, sizeof rr->err, "%s: cannot open the results temporary %s: %s (the "
                     "output must be on a file system every rank shares)", rr->out_path,
                     rr->tmp_path, strerror(errno));
            report_error(rr);
        }
    }
    return all_ok(rr, reached);
}

/* The output's directory, made by rank 0 if missing (as a serial run makes it). */
static bool make_output_dir(rank_run *rr)
{
    bool ok = rr->rank != 0 || cli_make_parent(rr->out_path, rr->err, sizeof rr->err) == 0;
    if (!ok)
        report_error(rr);
    return all_ok(rr, ok);
}

/* --resume: rank 0 opens (or creates) and validates the checkpoint first, then the other ranks
 * open what it validated. A refused (foreign) checkpoint is bad input: one line, from the rank
 * that refused it; one that a later rank refuses (it sees another) and rank 0 made just now is
 * removed again, so that nothing is left of the refused run. */
static int open_checkpoint(rank_run *rr)
{
    int rc = 0;
    bool made = false;
    if (rr->rank == 0) {
        made = !ckpt_exists(rr->out_path);
        rc = ckpt_open(&rr->ckpt, rr->out_path, rr->cfg, rr->err, sizeof rr->err);
        if (rc)
            report_error(rr);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, rr->comm);
    if (rc)
        return rc == CKPT_EFOREIGN ? EXIT_BADINPUT : EXIT_RUNTIME;
    int mine = 0, worst = 0;
    if (rr->rank != 0 && (rc = ckpt_open(&rr->ckpt, rr->out_path, rr->cfg, rr->err,
                                         sizeof rr->err)) != 0) {
        report_error(rr);
        mine = rc == CKPT_EFOREIGN ? EXIT_BADINPUT : EXIT_RUNTIME;
    }
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, rr->comm);
    if (!worst)
        return 0;
    if (rr->rank != 0)
        ckpt_close(rr->ckpt), rr->ckpt = NULL;
    MPI_Barrier(rr->comm); /* every other rank has closed it */
    if (rr->rank == 0 && made && ckpt_remove(rr->ckpt, rr->err, sizeof rr->err))
        report_error(rr);
    ckpt_close(rr->ckpt);
    rr->ckpt = NULL;
    return worst;
}

/* Every rank restores the items the checkpoint holds (all of them before any rank writes one);
 * an item counts as done only if every rank restored it, so that the plan is the same on all. */
static bool restore_checkpoint(rank_run *rr)
{
    const size_t n = rr->res.nitems;
    size_t restored = 0, ignored = 0;
    bool ok = ckpt_restore(rr->ckpt, rr->cfg, &rr->res, rr->done, &restored, &ignored, rr->err,
                           sizeof rr->err) == 0;
    if (!ok)
        report_error(rr);
    if (!all_ok(rr, ok))
        return false;
    MPI_Allreduce(MPI_IN_PLACE, rr->done, (int)n, MPI_C_BOOL, MPI_LAND, rr->comm);
    restored = 0;
    for (size_t i = 0; i < n; i++)
        restored += rr->done[i];
    /* The most any rank ignored, not the sum: ranks that share the checkpoint (as they should)
     * read the same files, and each counts every ignored one. Ranks that see different ones
     * count their own; the largest count then never overstates the run's. */
    uint64_t most_ignored = ignored;
    MPI_Allreduce(MPI_IN_PLACE, &most_ignored, 1, MPI_UINT64_T, MPI_MAX, rr->comm);
    ignored = (size_t)most_ignored;
    if (rr->rank == 0 && !rr->quiet) {
        print_shown(stdout, "checkpoint %s: %zu of %zu work items restored, %zu to compute",
                    ckpt_dir(rr->ckpt), restored, n, n - restored);
        if (ignored)
            printf(" (%zu damaged or foreign item files ignored)", ignored);
        printf("\n");
        fflush(stdout);
    }
    return true;
}

/* The items whose rows this rank writes, in row order: those it ran, and on rank 0 those
 * restored from a checkpoint (every rank holds their rows; one writes them). */
static sweep_item *my_items(const rank_run *rr, size_t *n)
{
    size_t count = sweep_item_count(rr->cfg);
    sweep_item *items = malloc((count ? count : 1) * sizeof *items);
    *n = 0;
    for (size_t i = 0; items && i < count; i++)
        if (rr->owner[i] == rr->rank || (rr->owner[i] < 0 && rr->rank == 0))
            items[(*n)++] = sweep_item_at(rr->cfg, i);
    return items;
}

/* A rank whose sweep fails tells every other rank at once, a message each, so that they stop
 * before their next item (peer_failed) instead of stepping the rest of their share first. */
enum { TAG_FAILED = 7301 };

static bool peer_failed(void *ctx)
{
    const rank_run *rr = ctx;
    int told = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, TAG_FAILED, rr->comm, &told, MPI_STATUS_IGNORE);
    return told;
}

static int item_done(void *ctx, const sweep_item *it, const sweep_result *res, char *err,
                     size_t errlen)
{
    const rank_run *rr = ctx;
    if (test_fail("item")) {
        error_line(err, errlen, "%s: work item %zu failed (OSCBENCH_TEST_FAIL=item)",
                   rr->cfg->path, it->index);
        return -1;
    }
    return rr->ckpt ? ckpt_item_done(rr->ckpt, it, res, err, errlen) : 0;
}

/* The failure message to every other rank; NULL (nobody told) without the memory for it. */
static MPI_Request *tell_failed(const rank_run *rr)
{
    MPI_Request *sent = malloc((size_t)rr->ranks * sizeof *sent);
    for (int r = 0, n = 0; sent && r < rr->ranks; r++)
        if (r != rr->rank)
            MPI_Isend(NULL, 0, MPI_BYTE, r, TAG_FAILED, rr->comm, &sent[n++]);
    return sent;
}

/* all_ok's vote, which also receives every failure message sent to this rank (each rank that
 * told sent one here) and completes this rank's own, so that none is left in flight. */
static bool all_ok_told(const rank_run *rr, bool ok, MPI_Request *sent)
{
    int mine[2] = {!ok, sent != NULL}, sum[2] = {0, 0};
    MPI_Allreduce(mine, sum, 2, MPI_INT, MPI_SUM, rr->comm);
    for (int i = 0; i < sum[1] - mine[1]; i++)
        MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, TAG_FAILED, rr->comm, MPI_STATUS_IGNORE);
    if (sent)
        MPI_Waitall(rr->ranks - 1, sent, MPI_STATUSES_IGNORE);
    free(sent);
    return sum[0] == 0;
}

/* The plan (from the items not restored) and this rank's share of the sweep, cut short when
 * another rank tells of its failure; with --resume each item is saved to the checkpoint as it
 * finishes. */
static bool run_sweep(rank_run *rr)
{
    const size_t n = sweep_item_count(rr->cfg);
    bool *skip = calloc(n ? n : 1, sizeof *skip);
    rr->done = calloc(n ? n : 1, sizeof *rr->done);
    bool ok = skip && rr->done && sweep_alloc(rr->cfg, &rr->res, rr->err, sizeof rr->err) == 0;
    if (!ok && !rr->err[0])
        error_line(rr->err, sizeof rr->err, "%s: out of memory for the plan", rr->cfg->path);
    if (!ok)
        report_error(rr);
    if (!all_ok(rr, ok) || (rr->ckpt && !restore_checkpoint(rr))) {
        free(skip);
        return false;
    }
    rr->owner = run_mpi_assign(rr->cfg, rr->ranks, rr->done);
    ok = rr->owner != NULL;
    if (!ok)
        error_line(rr->err, sizeof rr->err, "%s: out of memory for the plan", rr->cfg->path);
    for (size_t i = 0; ok && i < n; i++)
        skip[i] = rr->owner[i] != rr->rank;
    sweep_plan plan = {.skip = skip, .item_done = item_done, .stop = peer_failed, .ctx = rr};
    int rc = ok ? sweep_run_items(rr->cfg, &plan, !rr->quiet && rr->rank == 0, &rr->res,
                                  rr->err, sizeof rr->err)
                : -1;
    ok = rc == 0;
    if (ok && rr->ckpt)
        ok = ckpt_sync(rr->ckpt, rr->err, sizeof rr->err) == 0;
    free(skip);
    MPI_Request *told = NULL;
    if (!ok && rc != SWEEP_STOPPED) { /* a stopped rank was told: the teller says why */
        report_error(rr);
        told = tell_failed(rr);
    }
    if (!all_ok_told(rr, ok, told))
        return false;
    /* The sweep's wall clock is the slowest rank's stepping (each rank times its own share;
     * rank 0's alone would leave out a slower rank's, which the run waited for). */
    MPI_Allreduce(MPI_IN_PLACE, &rr->res.seconds, 1, MPI_DOUBLE, MPI_MAX, rr->comm);
    return true;
}

/* /points' numeric columns, every rank its own rows, collectively. */
static bool write_parallel(rank_run *rr)
{
    size_t n;
    sweep_item *mine = my_items(rr, &n);
    bool ok = mine != NULL;
    if (!all_ok(rr, ok)) {
        free(mine);
        return false;
    }
    ok = h5par_write_points(rr->comm, rr->tmp_path, &rr->res.points, mine, n, rr->err,
                            sizeof rr->err) == 0;
    free(mine);
    if (!ok && rr->err[0])
        report_error(rr);
    return ok;
}

/* OR of every rank's copy into rank 0's: a row is nonzero only on the rank that ran it (the rest
 * stay as calloc left them), so this moves the bits unchanged, -0.0 and NaN payloads included. */
static void or_to_root(const rank_run *rr, void *data, size_t count, MPI_Datatype type,
                       size_t size)
{
    for (size_t done = 0; done < count;) {
        int part = count - done > INT_MAX / 2 ? INT_MAX / 2 : (int)(count - done);
        char *at = (char *)data + done * size;
        MPI_Reduce(rr->rank == 0 ? MPI_IN_PLACE : at, at, part, type, MPI_BOR, 0, rr->comm);
        done += (size_t)part;
    }
}

/* Rank 0 gets every row and item time, as if it had run them all; and the method names. */
static void gather_rows(rank_run *rr)
{
    sweep_points *p = &rr->res.points;
    for (size_t i = 0; i < sweep_points_ncolumns; i++) {
        const sweep_column *c = &sweep_points_columns[i];
        or_to_root(rr, sweep_column_data(p, c), p->rows,
                   c->type == SWEEP_BOOL ? MPI_UINT8_T : MPI_UINT64_T, sweep_column_size(c));
    }
    /* NaN (not run here) would spoil the OR; restored items' seconds count once, rank 0's.
     * Restored rows are the same bits on every rank, which the OR keeps. */
    for (size_t i = 0; i < rr->res.nitems; i++)
        if (rr->owner[i] < 0 ? rr->rank != 0 : rr->owner[i] != rr->rank)
            rr->res.item_seconds[i] = 0;
    or_to_root(rr, rr->res.item_seconds, rr->res.nitems, MPI_UINT64_T, sizeof(double));
    const sweep_layout lay = layout_of(rr->cfg);
    for (size_t r = 0; rr->rank == 0 && r < p->rows; r++)
        p->method[r] = rr->cfg->methods[layout_index(lay, r).method]->name;
}

/* Rank 0: traces, analyses, the rest of the file (h5_out_reopen), the commit. */
static int finish_on_root(rank_run *rr, const int64_t *threads)
{
    int rc = sweep_finish(rr->cfg, &rr->res, rr->err, sizeof rr->err);
    if (!rc)
        rc = analyses_run(rr->cfg, &rr->res, !rr->quiet, &rr->ana, rr->err, sizeof rr->err);
    double t0 = MPI_Wtime();
    h5_out *out = NULL;
    file_commit *commit = rr->commit;
    rr->commit = NULL;
    if (rc)
        commit_abort(commit);
    else if (h5_out_reopen(&out, commit, rr->err, sizeof rr->err))
        rc = EXIT_RUNTIME;
    const results_ranks ranks = {rr->ranks, threads};
    if (!rc)
        rc = results_write_ranks(out, rr->cfg, &rr->res, &rr->ana, &ranks, true, rr->err,
                                 sizeof rr->err);
    if (rc)
        h5_out_abort(out);
    else if (h5_out_commit(out, rr->err, sizeof rr->err))
        rc = EXIT_RUNTIME;
    rr->t_write += MPI_Wtime() - t0;
    if (rc)
        report_error(rr);
    return rc ? EXIT_RUNTIME : 0;
}

/* After the commit (rank 0): the checkpoint has done its work; every rank has closed it. */
static void remove_checkpoint(rank_run *rr, int rc)
{
    if (!rr->ckpt)
        return;
    if (rr->rank != 0)
        ckpt_close(rr->ckpt), rr->ckpt = NULL;
    MPI_Barrier(rr->comm);
    if (rr->rank == 0 && !rc && ckpt_remove(rr->ckpt, rr->err, sizeof rr->err))
        print_line(stderr, "oscbench run: note: %s (the results file is complete)", rr->err);
    ckpt_close(rr->ckpt);
    rr->ckpt = NULL;
}

static void print_timing(const rank_run *rr, const int64_t *threads)
{
    double wall = MPI_Wtime() - rr->t_start;
    printf("mpi: %d ranks x %lld threads (rank 0); wall %.2f s: sweep %.2f s, write %.2f s "
           "(%.0f%% of the wall; parallel part %.2f s)\n",
           rr->ranks, (long long)threads[0], wall, rr->t_swept - rr->t_start, rr->t_write,
           wall > 0 ? 100 * rr->t_write / wall : 0.0, rr->t_parallel);
}

static int run_ranks(rank_run *rr)
{
    int64_t my_threads = results_team_threads();
    int64_t *threads = calloc((size_t)rr->ranks, sizeof *threads);
    if (!all_ok(rr, threads != NULL)) {
        free(threads);
        return EXIT_RUNTIME;
    }
    MPI_Gather(&my_threads, 1, MPI_INT64_T, threads, 1, MPI_INT64_T, 0, rr->comm);
    if (!make_output_dir(rr)) {
        free(threads);
        return EXIT_RUNTIME;
    }
    if (!rr->resume && rr->rank == 0)
        ckpt_mention(rr->out_path);
    int rc = rr->resume ? open_checkpoint(rr) : 0;
    if (rc) {
        free(threads);
        return rc;
    }
    rc = EXIT_RUNTIME;
    if (open_output(rr) && run_sweep(rr)) {
        rr->t_swept = MPI_Wtime();
        bool written = write_parallel(rr);
        rr->t_parallel = MPI_Wtime() - rr->t_swept;
        if (written)
            gather_rows(rr);
        rr->t_write = MPI_Wtime() - rr->t_swept;
        if (rr->rank == 0) {
            test_pause("write");
            rc = written ? finish_on_root(rr, threads) : EXIT_RUNTIME;
        }
    }
    if (rr->rank == 0)
        commit_abort(rr->commit); /* if not handed on */
    MPI_Bcast(&rc, 1, MPI_INT, 0, rr->comm);
    remove_checkpoint(rr, rc);
    if (rr->rank == 0 && !rc && !rr->quiet) {
        report_print(stdout, rr->cfg, &rr->res, &rr->ana, rr->out_path);
        print_timing(rr, threads);
    }
    free(threads);
    return rc;
}

/* ---- agreeing to run ------------------------------------------------------------------------ */

/* This rank's own error line, from what it wrote to its muted stderr while reading the flags and
 * the config (run_mpi_mute): the first line that is not a warning or a note, without the
 * "oscbench run: " that rank 0 puts back; "" if none was kept. Read with pread, so that stderr's
 * offset in the file stays where it was. */
static void own_error(const run_muted *muted, char *line, size_t len)
{
    static const char prefix[] = "oscbench run: ";
    char buf[4 * ERROR_LINE_BYTES];
    *line = '\0';
    fflush(stderr);
    ssize_t n = muted->captured ? pread(fileno(muted->captured), buf, sizeof buf - 1, 0) : -1;
    if (n <= 0)
        return;
    buf[n] = '\0';
    for (char *at = buf, *end; *at; at = end + (*end == '\n')) {
        end = at + strcspn(at, "\n");
        char *text = strncmp(at, prefix, sizeof prefix - 1) ? at : at + sizeof prefix - 1;
        if (end == text || !strncmp(text, "warning: ", 9) || !strncmp(text, "note: ", 6))
            continue;
        snprintf(line, len, "%.*s", (int)(end - text), text);
        return;
    }
}

/* Every rank's rc (0, an exit code, or -1: help or version printed): the largest, or bad input
 * if some ranks printed help and others did not (they would run without them). When some rank
 * failed, rank 0 prints the lowest failing rank's line (made on that rank: "rank N ...")
 * unless it failed itself, having said why already. Collective. */
static int agree_on(int rank, int rc, const char *line)
{
    int mine[2] = {rc, -rc}, most[2];
    MPI_Allreduce(mine, most, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    const int hi = most[0], lo = -most[1];
    if (hi == lo)
        return hi; /* all ran, all printed help, or all failed alike (rank 0 said why) */
    const bool failed = hi > 0 ? rc > 0 : rc < 0;
    int me = failed ? rank : INT_MAX, first = INT_MAX;
    MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first != 0) {
        char buf[ERROR_LINE_BYTES] = "";
        if (rank == first)
            snprintf(buf, sizeof buf, "%s", line);
        MPI_Bcast(buf, (int)sizeof buf, MPI_CHAR, first, MPI_COMM_WORLD);
        if (rank == 0)
            print_line(stderr, "oscbench run: %s", buf);
    }
    return hi > 0 ? hi : EXIT_BADINPUT;
}

enum { SAME, DIFFERENT, NO_MEMORY };

/* Whether len bytes are rank 0's bytes (broadcast from it; SAME on rank 0); NO_MEMORY on the
 * rank that had no room for rank 0's (SAME on the others then). *at: where they first differ.
 * Collective. */
static int same_as_root(int rank, const char *bytes, size_t len, size_t *at)
{
    uint64_t n = len;
    MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    char *root = rank == 0 ? (char *)bytes : malloc(n ? (size_t)n : 1);
    int room = root != NULL, all_room = 0;
    MPI_Allreduce(&room, &all_room, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all_room) {
        if (rank != 0)
            free(root);
        return room ? SAME : NO_MEMORY;
    }
    for (uint64_t done = 0; done < n;) {
        int part = n - done > INT_MAX ? INT_MAX : (int)(n - done);
        MPI_Bcast(root + done, part, MPI_CHAR, 0, MPI_COMM_WORLD);
        done += (uint64_t)part;
    }
    if (rank == 0)
        return SAME;
    size_t i = 0;
    while (i < len && i < n && bytes[i] == root[i])
        i++;
    free(root);
    *at = i;
    return i == len && i == n ? SAME : DIFFERENT;
}

/* This rank's setup against rank 0's: 0, or the exit code with this rank's line made. First
 * checkpoint.h's manifest (the build and the config's text, includes and all: the rows), then
 * the output and --resume (the ranks' shares of one file and one checkpoint). Collective: every
 * rank takes part in both comparisons whatever the first found. */
static int compare_setup(int rank, const run_setup *s, char *line, size_t len)
{
    size_t n = 0, at = 0, flags_at = 0;
    char *manifest = ckpt_manifest_text(s->cfg, &n);
    int same = same_as_root(rank, manifest ? manifest : "", manifest ? n : 0, &at);
    char flags[ERROR_LINE_BYTES];
    int flags_len = snprintf(flags, sizeof flags, "resume %d\noutput %s\n", s->resume,
                             s->out_path);
    int same_flags = same_as_root(rank, flags, flags_len < 0 ? 0 : (size_t)flags_len, &flags_at);
    int rc = 0;
    if (!manifest || same == NO_MEMORY || same_flags == NO_MEMORY) {
        snprintf(line, len, "rank %d: out of memory comparing its config with rank 0's", rank);
        rc = EXIT_RUNTIME;
    } else if (same == DIFFERENT) {
        /* the lines before "items" say which oscbench wrote them: the build, not the config */
        const char *items = strstr(manifest, "\nitems ");
        if (items && at < (size_t)(items - manifest))
            snprintf(line, len, "rank %d runs another oscbench build than rank 0 (its version, git "
                     "revision or build ids differ: install the same oscbench on every node)", rank);
        else
            snprintf(line, len, "rank %d read a different config from %s%s than rank 0 (is it "
                     "the same file on every node?)", rank, s->cfg->path,
                     s->cfg->included_text ? " or a file it includes" : "");
        rc = EXIT_BADINPUT;
    } else if (same_flags == DIFFERENT) {
        snprintf(line, len, "rank %d was given another -o or --resume than rank 0 (-o %s%s): "
                 "every rank must be given the same", rank, s->out_path,
                 s->resume ? " --resume" : "");
        rc = EXIT_BADINPUT;
    }
    free(manifest);
    return rc;
}

int run_mpi_agree(const run_launch *l, int rc, const run_muted *muted, const run_setup *setup)
{
    (void)l;
    int provided, rank = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "oscbench run: MPI_Init failed\n");
        return EXIT_RUNTIME;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char line[ERROR_LINE_BYTES] = "";
    if (rc > 0) {
        char own[ERROR_LINE_BYTES];
        own_error(muted, own, sizeof own);
        if (*own)
            snprintf(line, sizeof line, "rank %d: %.*s", rank, (int)sizeof own - 64, own);
        else
            snprintf(line, sizeof line, "rank %d could not read the flags or the config (is the "
                     "config the same file on every node?)", rank);
    } else if (rc < 0) {
        snprintf(line, sizeof line, "rank %d was given --help or --version, and not every other "
                 "rank: nothing run", rank);
    }
    int all = agree_on(rank, rc, line);
    if (!all)
        all = agree_on(rank, compare_setup(rank, setup, line, sizeof line), line);
    if (all)
        MPI_Finalize();
    return all;
}

int run_mpi(const run_launch *l, const osc_config *cfg, const char *out_path, bool quiet,
            bool resume)
{
    (void)l;
    rank_run rr = {.comm = MPI_COMM_WORLD, .cfg = cfg, .out_path = out_path, .quiet = quiet,
                   .resume = resume};
    MPI_Comm_rank(rr.comm, &rr.rank);
    MPI_Comm_size(rr.comm, &rr.ranks);
    rr.t_start = MPI_Wtime();
    int rc = run_ranks(&rr);
    analyses_free(&rr.ana);
    sweep_result_free(&rr.res);
    ckpt_close(rr.ckpt); /* a failed run keeps its checkpoint */
    free(rr.owner);
    free(rr.done);
    free(rr.tmp_path);
    MPI_Finalize();
    return rc;
}

#endif /* OSCBENCH_MPI */
