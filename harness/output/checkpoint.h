/* Checkpoints of a sweep: the work items a run has finished, kept durably beside the results file
 * so that a killed or preempted run can be resumed (`oscbench run ... --resume`) and recompute
 * only what is missing. The resumed run's file is the same bytes as an uninterrupted run's: a
 * row's bits do not depend on which run, thread or rank computed it (sweep.h, work items).
 *
 * Layout: the directory "<results file>.ckpt/" holds
 *   manifest        what the items belong to: checkpoint format, oscbench version and git
 *                   revision, item size (lanes), item and row counts, the /points columns, and
 *                   the config's text byte for byte (text, see checkpoint.c);
 *   item-NNNNNN     one finished item (binary, native byte order): a header (magic, format,
 *                   index, row0, lanes, the manifest's CRC32, the item's thread-seconds), the
 *                   item's rows of every sweep_points_columns column in that order, and a CRC32
 *                   (zlib) of everything before it.
 * Every file is written to a temporary, fsynced and renamed into place; the directory itself is
 * created under a temporary name with its manifest inside and renamed into place, so it exists
 * complete or not at all, and several processes (ranks) may open it at once: one creates it,
 * the others find it and validate it.
 *
 * Usage (per process; under MPI every rank, each writing the items it runs):
 *     ckpt_open(&c, out_path, cfg, err, sizeof err);      // 2: a foreign checkpoint, refused
 *     ckpt_restore(c, cfg, &res, done, &restored, &ignored, err, sizeof err);
 *     plan = (sweep_plan){.skip = done, .item_done = ckpt_item_done, .ctx = c};
 *     sweep_run_items(cfg, &plan, ...);  ckpt_sync(c, ...);
 *     ... write and commit the results file ...
 *     ckpt_remove(c, err, sizeof err);                    // one process, after the commit
 *     ckpt_close(c);
 * Error returns: 0, CKPT_ERUNTIME (1) or CKPT_EFOREIGN (2), the oscbench exit codes of a
 * runtime failure and of bad input; err then holds one line naming the directory. */
#ifndef OSCBENCH_CHECKPOINT_H
#define OSCBENCH_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "sweep.h"

enum { CKPT_ERUNTIME = 1, CKPT_EFOREIGN = 2 };

typedef struct ckpt ckpt;

/* "<results_path>.ckpt" into buf; -1 if it does not fit. */
int ckpt_dir_for(const char *results_path, char *buf, size_t len);

/* Whether something (a checkpoint, presumably) exists at results_path's checkpoint path. */
bool ckpt_exists(const char *results_path);
/* Without --resume: if results_path's checkpoint exists, a note on stderr that it is left alone
 * (add --resume to continue from it). */
void ckpt_mention(const char *results_path);

/* Opens the checkpoint of results_path for cfg. If its directory exists, the manifest must
 * match this run exactly (config text, version, git revision, item size and count, columns,
 * format); otherwise (or if the manifest is missing or unreadable) returns CKPT_EFOREIGN with
 * err naming the directory and what differs, and touches nothing. If it does not exist, creates
 * it. Removes item temporaries a killed run left (never those a live process holds), and an
 * empty directory in place of an item file (the item is then missing, to be computed); one
 * with entries in it is refused (CKPT_EFOREIGN, nothing touched). */
int ckpt_open(ckpt **out, const char *results_path, const osc_config *cfg, char *err,
              size_t errlen);

/* The checkpoint's directory. */
const char *ckpt_dir(const ckpt *c);

/* Reads every item file into res (sized by sweep_alloc for cfg): a valid one fills the item's
 * rows of every /points column (method from the config) and res->item_seconds, and sets
 * done[i]; done[] (sweep_item_count entries) is false for the others. A damaged, truncated or
 * foreign item file is left out (the item is recomputed and its file overwritten) and counted
 * in *ignored (so is one that cannot be read). Fails only when out of memory (or when a test
 * says so: OSCBENCH_TEST_FAIL=restore, diag.h). Under MPI every rank must have restored before
 * any rank writes a new item, or their done[] may differ. */
int ckpt_restore(ckpt *c, const osc_config *cfg, sweep_result *res, bool *done,
                 size_t *restored, size_t *ignored, char *err, size_t errlen);

/* The sweep_plan.item_done hook (ctx: the ckpt): writes the item's rows and seconds to its item
 * file (temporary, fsync, rename). Thread-safe. The directory is fsynced at most once a second
 * here (see checkpoint.c) and by ckpt_sync. */
int ckpt_item_done(void *ctx, const sweep_item *it, const sweep_result *res, char *err,
                   size_t errlen);

/* fsyncs the directory: every item file renamed so far survives a crash of the machine. */
int ckpt_sync(ckpt *c, char *err, size_t errlen);

/* After the results file is committed: removes the item files, then the manifest, then the
 * directory (a kill in between leaves a valid checkpoint with fewer items). Files it does not
 * know are left, and so is the directory then (err says so). */
int ckpt_remove(ckpt *c, char *err, size_t errlen);

/* Frees c (NULL allowed); the directory stays unless ckpt_remove removed it. */
void ckpt_close(ckpt *c);

/* The manifest a checkpoint of cfg holds: everything that defines the run's results (the
 * checkpoint format, oscbench version and git revision, item size, item and row counts, the
 * /points columns, then from the line "config_bytes N" on the config's text and that of every
 * file it includes, byte for byte). Equal manifests: the same rows, bit for bit. Under MPI the
 * ranks compare theirs with rank 0's (run_mpi.c). *len bytes, NUL-terminated; free() it. NULL
 * when out of memory. */
char *ckpt_manifest_text(const osc_config *cfg, size_t *len);

#endif
