/* Small file helpers the test programs share. */
#ifndef OSCBENCH_TEST_FILES_H
#define OSCBENCH_TEST_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <hdf5.h>

/* The whole file, NUL-terminated (its own NULs kept; *len, if not NULL, is its length), or NULL
 * if it cannot be read or memory runs out. free() it. */
char *slurp(const char *path, size_t *len);

/* A new directory /tmp/<name>.XXXXXX, its path in dir (size bytes); false if none could be made. */
bool make_temp_dir(char *dir, size_t size, const char *name);

/* root and everything below it removed (symbolic links as links, never followed). */
void remove_tree(const char *root);

/* How many entries of dir (".", ".." included) have names starting with prefix. */
size_t count_prefixed(const char *dir, const char *prefix);

/* Names: a directory's entries or the datasets below a group, at most 256 of 127 bytes. */
typedef struct name_list {
    char names[256][128];
    size_t n;
    bool overflow;
} name_list;

/* The entries of dir but "." and ".." whose names start with prefix ("": all of them), sorted
 * (strcmp); fails the running test if dir cannot be read or the names do not fit in l. */
void list_prefixed(const char *dir, const char *prefix, name_list *l);

/* Every entry of dir (list_prefixed(dir, "")), in that order, as its name, a NUL and its bytes,
 * one after another: the directory as one block, to show that something left it alone; *len:
 * the block's length. Fails the running test if an entry cannot be read. free() it. */
char *dir_bytes(const char *dir, size_t *len);

/* assert_dir_unchanged(dir, before, len): fails the running test, at the caller's line, unless
 * dir_bytes(dir) is now `before` (len bytes, not 0), naming the entry where they first differ. */
#define assert_dir_unchanged(dir, before, len) \
    dir_unchanged_at(__FILE__, __LINE__, (dir), (before), (len))
void dir_unchanged_at(const char *file, int line, const char *dir, const char *before,
                      size_t len);

/* The bytes of the file at `from` written to `to` (created, or truncated and written in place:
 * its other links see them too). */
void copy_file(const char *from, const char *to);

/* Flips one byte of a file (a damaged checkpoint item: its CRC no longer matches), at `at` from
 * its end if at < 0. */
void flip_byte(const char *path, long at);

/* Sets `size` bytes at byte `at` of the checkpoint item file at path and makes its CRC32 (its
 * last 4 bytes) right again, as only a deliberate forger would (layout: checkpoint.h). */
void forge_bytes(const char *path, size_t at, const void *value, size_t size);

/* Sets one value (column `name` of the sweep's points, lane `lane` of an item of `lanes` lanes;
 * size: the value's bytes, which must be the column's) of the checkpoint item file at path
 * (forge_bytes). */
void forge_item(const char *path, const char *name, size_t lanes, size_t lane, const void *value,
                size_t size);

/* The status of child pid once it has ended (waitpid through EINTR; fails the running test if
 * the wait does). */
int wait_child(pid_t pid);

/* A process of a run started with OSCBENCH_TEST_PAUSE=PHASE says on its stderr
 * "paused at PHASE (pid N, thread T)" (harness/common/diag.h) and waits there. */
typedef struct paused_process {
    pid_t pid;
    long thread; /* the waiting thread's id */
} paused_process;

/* Waits until the file err (the run's stderr) says a process paused at `phase`; fails the running
 * test if the run `run_pid` (a child of this process) ends first, or after `seconds`. No timing
 * is assumed: the limit only guards against a hang. */
paused_process wait_paused(const char *err, pid_t run_pid, const char *phase, int seconds);

/* Sends sig to the paused thread: a process-wide signal may go to a thread still stepping, and
 * under ThreadSanitizer that thread runs the handler only at its next intercepted call (once 60 s
 * under load). The handler is the process's either way. Fails the running test if it cannot. */
void signal_paused(paused_process p, int sig);

/* snprintf that fails the running cmocka test rather than truncate. */
void fmt(char *buf, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));

/* The HDF5 helpers below fail the running cmocka test on any error. */

/* dir/name opened read-only. */
hid_t open_h5(const char *dir, const char *name);

/* The variable-length UTF-8 string type the results file uses (close it). */
hid_t vlen_str_type(void);

/* The variable-length string attribute `name` of the file, group or dataset f (free() it). */
char *attr_str(hid_t f, const char *name);

/* The datasets anywhere below a group (names relative to it), at most 256. */
void list_datasets(hid_t f, const char *group, name_list *l);

/* The dataset at path identical in both files: shape, type, bytes (strings as strings). */
void compare_dataset(hid_t fa, hid_t fb, const char *path);

/* Every dataset under each table group of two results files in dir identical (shape, type,
 * bytes; strings as strings), except the two work-precision timing columns, and the same
 * config attribute; returns how many datasets were compared. */
size_t compare_files(const char *dir, const char *a, const char *b);

/* compare_files but for the dataset at path `skip` (NULL: none). */
size_t compare_files_except(const char *dir, const char *a, const char *b, const char *skip);

#endif
