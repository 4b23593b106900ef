/* Checkpoints of a sweep: see checkpoint.h. */
/* _GNU_SOURCE for F_OFD_SETLK: open-file-description locks mark an item temporary as live (as
 * commit.c does for the results file's), so that a concurrent ckpt_open never removes it. */
#define _GNU_SOURCE

#include "checkpoint.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "commit.h"
#include "diag.h"
#include "oscbench.h" /* osc_method_count: an address inside the library */
#include "version.h"

enum { CKPT_FORMAT = 2 }; /* 2: the manifest names the build */

#define DIR_SUFFIX ".ckpt"
#define MANIFEST "manifest"
#define ITEM_PREFIX "item-"
#define TMP_INFIX ".tmp."
#define MANIFEST_MAX_HEADER 65536 /* the lines before the config text */

/* The fixed part of an item file, written as is (every field naturally aligned: no padding). */
typedef struct item_header {
    char magic[8];
    uint32_t format, ncolumns;
    uint64_t index, row0, lanes;
    uint32_t manifest_crc; /* of the whole manifest: items of another checkpoint are foreign */
    uint32_t reserved;
    double seconds;        /* the item's thread-seconds (sweep_result.item_seconds) */
} item_header;
_Static_assert(sizeof(item_header) == 56, "item_header must have no padding");

static const char item_magic[8] = "oscitem";

struct ckpt {
    char *dir, *parent;
    int dirfd;
    uint32_t manifest_crc;
    size_t row_bytes; /* one row of every column */
    mode_t file_mode; /* of an item file: what a plain create would give (0666 & ~umask) */
    pthread_mutex_t sync_lock;
    double last_sync; /* CLOCK_MONOTONIC seconds of the last directory fsync */
};

int ckpt_dir_for(const char *results_path, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s" DIR_SUFFIX, results_path);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

bool ckpt_exists(const char *results_path)
{
    char dir[4096];
    struct stat st;
    return ckpt_dir_for(results_path, dir, sizeof dir) == 0 && lstat(dir, &st) == 0;
}

void ckpt_mention(const char *results_path)
{
    if (ckpt_exists(results_path))
        print_line(stderr, "oscbench run: note: %s.ckpt holds finished work of an earlier run of "
                           "this output; left alone (add --resume to continue from it)",
                   results_path);
}

const char *ckpt_dir(const ckpt *c) { return c->dir; }

/* "<a><b><c>", malloc'd; NULL (errno ENOMEM) on no memory. */
static char *concat3(const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *s = malloc(la + lb + lc + 1);
    if (!s) {
        errno = ENOMEM;
        return NULL;
    }
    memcpy(s, a, la), memcpy(s + la, b, lb), memcpy(s + la + lb, c, lc + 1);
    return s;
}

static double monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Writes all of buf, through EINTR and short writes. */
static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n, len -= (size_t)n;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n, len -= (size_t)n;
    }
    return 0;
}

static size_t row_bytes(void)
{
    size_t bytes = 0;
    for (size_t k = 0; k < sweep_points_ncolumns; k++)
        bytes += sweep_column_size(&sweep_points_columns[k]);
    return bytes;
}

/* ---- the manifest -------------------------------------------------------------------------- */

/* The GNU build id (ld --build-id: a hash of the linked file) of one loaded object, as hex. */
typedef struct build_ids {
    char exe[2 * 64 + 1], lib[2 * 64 + 1];
} build_ids;

static void note_build_id(const struct dl_phdr_info *info, char *hex, size_t hexlen)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(const void *)p;
            const char *name = p + sizeof *n;
            const unsigned char *desc =
                (const unsigned char *)name + ((n->n_namesz + 3) & ~(ElfW(Word))3);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
                for (size_t k = 0; k < n->n_descsz && 2 * k + 2 < hexlen; k++)
                    snprintf(hex + 2 * k, 3, "%02x", desc[k]);
                return;
            }
            p = (const char *)desc + ((n->n_descsz + 3) & ~(ElfW(Word))3);
        }
    }
}

static bool holds_address(const struct dl_phdr_info *info, uintptr_t a)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && a >= start && a - start < ph->p_memsz)
            return true;
    }
    return false;
}

static int find_build_ids(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    build_ids *ids = data;
    if (!ids->exe[0] && (!info->dlpi_name || !info->dlpi_name[0])) /* the first: the program */
        note_build_id(info, ids->exe, sizeof ids->exe);
    if (holds_address(info, (uintptr_t)&osc_method_count))
        note_build_id(info, ids->lib, sizeof ids->lib);
    return 0;
}

/* The build ids of this program and of the library it steps with: a checkpoint written by
 * another build is refused even where the git revision reads the same (every build of a
 * modified tree is "<rev>-dirty", every build outside git "unknown"), so that a resumed file
 * never holds rows of two builds. "none" where the linker wrote no id. */
static const char *build_id_text(void)
{
    static char text[sizeof(build_ids) + 16];
    if (!text[0]) {
        build_ids ids = {{0}, {0}};
        dl_iterate_phdr(find_build_ids, &ids);
        snprintf(text, sizeof text, "exe:%s lib:%s", ids.exe[0] ? ids.exe : "none",
                 ids.lib[0] ? ids.lib : "none");
    }
    return text;
}

static const char *type_name(sweep_column_type t)
{
    return t == SWEEP_F64 ? "f64" : t == SWEEP_I64 ? "i64" : "bool";
}

/* The manifest of cfg's checkpoint: "key value" lines, then config_bytes and the text itself.
 * NULL on no memory. (checkpoint.h: also what MPI ranks compare.) */
char *ckpt_manifest_text(const osc_config *cfg, size_t *len)
{
    char header[MANIFEST_MAX_HEADER];
    size_t n = (size_t)snprintf(header, sizeof header,
                                "oscbench checkpoint\nformat %d\nversion %s\ngit_revision %s\n"
                                "build %s\nitem_lanes %d\nitems %zu\nrows %zu\ncolumns",
                                CKPT_FORMAT, OSC_VERSION, OSC_GIT_REVISION, build_id_text(),
                                SWEEP_ITEM_LANES,
                                sweep_item_count(cfg), config_lane_count(cfg));
    for (size_t k = 0; k < sweep_points_ncolumns && n < sizeof header; k++)
        n += (size_t)snprintf(header + n, sizeof header - n, " %s:%s",
                              sweep_points_columns[k].name,
                              type_name(sweep_points_columns[k].type));
    /* the config's text, then that of every file it includes: a changed include is a
     * different config */
    const char *included = cfg->included_text ? cfg->included_text : "";
    size_t config_len = strlen(cfg->text), text_len = config_len + strlen(included);
    if (n < sizeof header)
        n += (size_t)snprintf(header + n, sizeof header - n, "\nconfig_bytes %zu\n", text_len);
    if (n >= sizeof header)
        return NULL;
    char *m = malloc(n + text_len + 1);
    if (!m)
        return NULL;
    memcpy(m, header, n);
    memcpy(m + n, cfg->text, config_len);
    memcpy(m + n + config_len, included, text_len - config_len + 1);
    *len = n + text_len;
    return m;
}

/* The next line of [*p, end) without its newline; false if there is none. */
static bool next_line(const char **p, const char *end, const char **line, size_t *len)
{
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    if (!nl)
        return false;
    *line = *p, *len = (size_t)(nl - *p);
    *p = nl + 1;
    return true;
}

static size_t key_len(const char *line, size_t len)
{
    const char *sp = memchr(line, ' ', len);
    return sp ? (size_t)(sp - line) : len;
}

/* A manifest value in a message: at most DIFF_SHOWN bytes of it from `from`, with "..." where
 * it is cut, into buf (DIFF_SHOWN + 8 bytes). */
#define DIFF_SHOWN 60
#define DIFF_CONTEXT 20
static const char *diff_window(const char *v, size_t n, size_t from, char *buf)
{
    size_t shown = n - from > DIFF_SHOWN ? DIFF_SHOWN : n - from;
    snprintf(buf, DIFF_SHOWN + 8, "%s%.*s%s", from ? "..." : "", (int)shown, v + from,
             from + shown < n ? "..." : "");
    return buf;
}

/* Compares a manifest found on disk with the one this run would write; "" if they match, else
 * what differs, into why. */
static void manifest_diff(const char *found, size_t found_len, const char *want, size_t want_len,
                          const osc_config *cfg, char *why, size_t whylen)
{
    const char *f = found, *fend = found + found_len, *w = want, *wend = want + want_len;
    *why = '\0';
    for (int lineno = 1;; lineno++) {
        const char *wl, *fl;
        size_t wn, fn;
        if (!next_line(&w, wend, &wl, &wn))
            break; /* cannot happen: want ends with config_bytes and the text */
        if (!next_line(&f, fend, &fl, &fn)) {
            snprintf(why, whylen, "its manifest ends at line %d", lineno);
            return;
        }
        size_t wk = key_len(wl, wn), fk = key_len(fl, fn);
        if (wk != fk || memcmp(wl, fl, wk) != 0) {
            snprintf(why, whylen, "its manifest is not one oscbench writes (line %d: expected "
                                  "'%.*s')", lineno, (int)wk, wl);
            return;
        }
        if (!strncmp(wl, "config_bytes", wk)) {
            if (fn != wn || memcmp(wl, fl, wn) != 0 || (size_t)(fend - f) != (size_t)(wend - w) ||
                memcmp(f, w, (size_t)(wend - w)) != 0)
                snprintf(why, whylen, "it was made for a different config (its text is not "
                                      "that of %s%s)", cfg->path,
                         cfg->included_text ? " and the files it includes" : "");
            return;
        }
        if (fn != wn || memcmp(wl, fl, wn) != 0) {
            const char *fv = fl + fk + (fk < fn), *wv = wl + wk + (wk < wn);
            size_t fvn = (size_t)(fl + fn - fv), wvn = (size_t)(wl + wn - wv);
            /* a long value (columns) is shown from a little before where the two part */
            size_t same = 0;
            while (same < fvn && same < wvn && fv[same] == wv[same])
                same++;
            size_t from = same > DIFF_CONTEXT ? same - DIFF_CONTEXT : 0;
            char there[DIFF_SHOWN + 8], here[DIFF_SHOWN + 8];
            snprintf(why, whylen, "%.*s differs (%s there, %s here)", (int)wk, wl,
                     diff_window(fv, fvn, from, there), diff_window(wv, wvn, from, here));
            return;
        }
    }
}

/* The manifest in dir, whole; NULL (why set) if it cannot be read. */
static char *read_manifest(const char *dir, size_t *len, char *why, size_t whylen)
{
    char *path = concat3(dir, "/", MANIFEST);
    int fd = path ? open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
    free(path);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(why, whylen, "its manifest cannot be read: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char *m = NULL;
    if (!S_ISREG(st.st_mode))
        snprintf(why, whylen, "its manifest is not a regular file");
    else if (st.st_size > (off_t)CONFIG_MAX_BYTES + MANIFEST_MAX_HEADER)
        snprintf(why, whylen, "its manifest is larger than any oscbench writes (%jd bytes, at most "
                              "%u)", (intmax_t)st.st_size, CONFIG_MAX_BYTES + MANIFEST_MAX_HEADER);
    else if (!(m = malloc((size_t)st.st_size + 1)))
        snprintf(why, whylen, "out of memory for its manifest");
    else if (read_all(fd, m, (size_t)st.st_size) < 0)
        snprintf(why, whylen, "its manifest cannot be read"), free(m), m = NULL;
    close(fd);
    if (m)
        m[st.st_size] = '\0', *len = (size_t)st.st_size;
    return m;
}

static int refuse(const char *dir, const char *why, char *err, size_t errlen)
{
    error_line(err, errlen, "%s: not a checkpoint of this run: %s; left alone (remove it to "
                            "start afresh)", dir, why);
    return CKPT_EFOREIGN;
}

static int validate(const char *dir, const char *want, size_t want_len, const osc_config *cfg,
                    char *err, size_t errlen)
{
    char why[512];
    size_t len = 0;
    char *found = read_manifest(dir, &len, why, sizeof why);
    if (found)
        manifest_diff(found, len, want, want_len, cfg, why, sizeof why);
    free(found);
    return *why ? refuse(dir, why, err, errlen) : 0;
}

/* ---- creating the directory ---------------------------------------------------------------- */

/* Removes a half-made directory of ours: its manifest, then itself. */
static void remove_new_dir(const char *tmp)
{
    char *path = concat3(tmp, "/", MANIFEST);
    if (path)
        unlink(path);
    free(path);
    rmdir(tmp);
}

/* Makes "<parent>/.<base>.new.XXXXXX" with the manifest in it, synced: 0; -1 if it could not
 * be made, -2 if it was made but not filled (then remove it). */
static int make_new_dir(char *tmp, const char *manifest, size_t len)
{
    if (!mkdtemp(tmp))
        return -1;
    mode_t mask = umask(0); /* mkdtemp made it 0700: give it the mode a plain mkdir would */
    umask(mask);
    char *path = concat3(tmp, "/", MANIFEST);
    int fd = path ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666) : -1;
    free(path);
    int rc = chmod(tmp, 0777 & ~mask) < 0 || fd < 0 || write_all(fd, manifest, len) < 0 ||
                     fsync(fd) < 0
                 ? -2
                 : 0;
    if (fd >= 0 && close(fd) < 0)
        rc = -2;
    if (!rc && commit_sync_dir(tmp) < 0)
        rc = -2;
    return rc;
}

/* Creates dir complete with its manifest: made under a temporary name and renamed into place,
 * so that it exists whole or not at all. 1 if another process made it meanwhile. */
static int create_dir(const char *dir, const char *parent, const char *manifest, size_t len,
                      char *err, size_t errlen)
{
    const char *slash = strrchr(dir, '/');
    char *base = concat3("/.", slash ? slash + 1 : dir, ".new.XXXXXX");
    char *tmp = base ? concat3(parent, base, "") : NULL;
    free(base);
    int made = tmp ? make_new_dir(tmp, manifest, len) : -1;
    if (made < 0) {
        error_line(err, errlen, "%s: cannot create the checkpoint: %s", dir, strerror(errno));
        if (made == -2)
            remove_new_dir(tmp);
        free(tmp);
        return -1;
    }
    int renamed = rename(tmp, dir), e = errno;
    if (renamed < 0)
        remove_new_dir(tmp);
    free(tmp);
    if (renamed < 0) {
        if (e == EEXIST || e == ENOTEMPTY)
            return 1;
        error_line(err, errlen, "%s: cannot create the checkpoint: %s", dir, strerror(e));
        return -1;
    }
    if (commit_sync_dir(parent) < 0) {
        error_line(err, errlen, "%s: created, but syncing %s failed: %s", dir, parent,
                   strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- temporaries ---------------------------------------------------------------------------- */

static int lock_fd(int fd, short type)
{
    struct flock lk = {.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    return fcntl(fd, F_OFD_SETLK, &lk);
}

/* ".item-NNNNNN.tmp.XXXXXX", as write_item names them. */
static bool is_item_temporary(const char *name)
{
    return !strncmp(name, "." ITEM_PREFIX, strlen("." ITEM_PREFIX)) && strstr(name, TMP_INFIX);
}

/* "item-" and digits. */
static bool is_item_file(const char *name)
{
    if (strncmp(name, ITEM_PREFIX, strlen(ITEM_PREFIX)) != 0)
        return false;
    const char *d = name + strlen(ITEM_PREFIX);
    if (!*d)
        return false;
    for (; *d; d++)
        if (*d < '0' || *d > '9')
            return false;
    return true;
}

/* Removes a temporary a killed process left: a regular file of ours that nobody holds locked
 * (a live writer holds a write lock, so our read lock fails; so does it where the file system
 * has no such locks, and the file is then left). */
static bool remove_if_stale(int dirfd, const char *name)
{
    struct stat st, opened;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != geteuid())
        return false;
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool stale = fstat(fd, &opened) == 0 && opened.st_ino == st.st_ino &&
                 opened.st_dev == st.st_dev && lock_fd(fd, F_RDLCK) == 0;
    bool removed = stale && unlinkat(dirfd, name, 0) == 0;
    close(fd);
    return removed;
}

/* A directory stream on name below dirfd, on a descriptor of its own (its own read offset);
 * NULL with errno set if it cannot be opened. */
static DIR *open_listing(int dirfd, const char *name, int flags)
{
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | flags);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d && fd >= 0) {
        int why = errno;
        close(fd);
        errno = why;
    }
    return d;
}

static void cleanup_stale(int dirfd)
{
    DIR *d = open_listing(dirfd, ".", 0);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));)
        if (is_item_temporary(e->d_name))
            remove_if_stale(dirfd, e->d_name);
    closedir(d);
}

/* ---- open and close -------------------------------------------------------------------------- */

void ckpt_close(ckpt *c)
{
    if (!c)
        return;
    if (c->dirfd >= 0)
        close(c->dirfd);
    pthread_mutex_destroy(&c->sync_lock);
    free(c->dir);
    free(c->parent);
    free(c);
}

static ckpt *new_ckpt(const char *results_path)
{
    ckpt *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->dirfd = -1;
    pthread_mutex_init(&c->sync_lock, NULL);
    size_t len = strlen(results_path) + sizeof DIR_SUFFIX;
    const char *slash = strrchr(results_path, '/');
    size_t plen = slash ? (size_t)(slash - results_path) : 0;
    c->dir = malloc(len);
    c->parent = slash ? strndup(results_path, plen ? plen : 1) : strdup(".");
    if (!c->dir || !c->parent) {
        ckpt_close(c);
        return NULL;
    }
    ckpt_dir_for(results_path, c->dir, len);
    c->row_bytes = row_bytes();
    mode_t mask = umask(0); /* read once here: umask is process-wide, items are written by
                             * several threads */
    umask(mask);
    c->file_mode = 0666 & ~mask;
    c->last_sync = monotonic_seconds();
    return c;
}

/* Whether name (relative to dirfd) is a directory, not a symlink to one, with no entry at all. */
static bool is_empty_dir_at(int dirfd, const char *name)
{
    DIR *d = open_listing(dirfd, name, O_NOFOLLOW);
    bool empty = d != NULL;
    for (struct dirent *e; empty && (e = readdir(d));)
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return empty;
}

/* Whether dir is a directory (not a symlink to one) with no entry at all: what a run killed
 * between ckpt_remove's last two steps leaves (manifest gone, directory not yet), and no
 * checkpoint of anything. */
static bool is_empty_dir(const char *dir)
{
    return is_empty_dir_at(AT_FDCWD, dir);
}

/* Validates dir if it exists, else creates it; 0 when it is this run's. */
static int find_or_create(ckpt *c, const osc_config *cfg, const char *manifest, size_t len,
                          char *err, size_t errlen)
{
    struct stat st, link;
    int found = stat(c->dir, &st), e = errno;
    if (found < 0 && lstat(c->dir, &link) == 0 && S_ISLNK(link.st_mode)) {
        /* a symlink that leads nowhere (or in a loop): someone's, and no place to create ours */
        char why[256];
        snprintf(why, sizeof why, "a symbolic link that leads nowhere (%s)", strerror(e));
        return refuse(c->dir, why, err, errlen);
    }
    if (found < 0 && e != ENOENT) {
        error_line(err, errlen, "%s: %s", c->dir, strerror(e));
        return CKPT_ERUNTIME;
    }
    if (found == 0 && is_empty_dir(c->dir))
        found = -1; /* create_dir's rename replaces an empty directory (or finds it filled) */
    if (found < 0) {
        int made = create_dir(c->dir, c->parent, manifest, len, err, errlen);
        if (made < 0)
            return CKPT_ERUNTIME;
        if (made == 0)
            return 0;
        if (stat(c->dir, &st) < 0) { /* made by another process, then gone again */
            error_line(err, errlen, "%s: %s", c->dir, strerror(errno));
            return CKPT_ERUNTIME;
        }
    }
    if (!S_ISDIR(st.st_mode))
        return refuse(c->dir, "not a directory", err, errlen);
    return validate(c->dir, manifest, len, cfg, err, errlen);
}

/* A directory where an item file belongs (item-NNNNNN) would make the item's rename fail after
 * the sweep. An empty one holds no one's work: it is removed, and the item counts as missing.
 * One with entries is someone's: the checkpoint is refused, with nothing touched (all are
 * checked before any is removed). */
static int clear_directory_items(ckpt *c, char *err, size_t errlen)
{
    for (int removing = 0; removing < 2; removing++) {
        DIR *d = open_listing(c->dirfd, ".", 0);
        if (!d) {
            error_line(err, errlen, "%s: cannot read the directory: %s", c->dir, strerror(errno));
            return CKPT_ERUNTIME;
        }
        int rc = 0;
        for (struct dirent *e; !rc && (e = readdir(d));) {
            struct stat st;
            const char *name = e->d_name;
            if (!is_item_file(name) || fstatat(c->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                !S_ISDIR(st.st_mode))
                continue;
            if (!removing && !is_empty_dir_at(c->dirfd, name)) {
                error_line(err, errlen, "%s: %s is a directory with entries, not an item file "
                                        "oscbench writes; left alone (remove it, and its item "
                                        "is computed again)", c->dir, name);
                rc = CKPT_EFOREIGN;
            } else if (removing && unlinkat(c->dirfd, name, AT_REMOVEDIR) < 0 &&
                       errno != ENOENT) {
                int why = errno; /* ENOTEMPTY: filled since the check, so someone's after all */
                error_line(err, errlen, "%s: cannot remove the empty directory %s in place of "
                                        "an item file: %s", c->dir, name, strerror(why));
                rc = why == ENOTEMPTY || why == EEXIST ? CKPT_EFOREIGN : CKPT_ERUNTIME;
            }
        }
        closedir(d);
        if (rc)
            return rc;
    }
    return 0;
}

int ckpt_open(ckpt **out, const char *results_path, const osc_config *cfg, char *err,
              size_t errlen)
{
    *out = NULL;
    size_t len = 0;
    char *manifest = ckpt_manifest_text(cfg, &len);
    ckpt *c = manifest ? new_ckpt(results_path) : NULL;
    if (!c) {
        error_line(err, errlen, "%s" DIR_SUFFIX ": out of memory", results_path);
        free(manifest);
        return CKPT_ERUNTIME;
    }
    int rc = find_or_create(c, cfg, manifest, len, err, errlen);
    c->manifest_crc = (uint32_t)crc32(0L, (const Bytef *)manifest, (uInt)len);
    free(manifest);
    if (!rc && (c->dirfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        error_line(err, errlen, "%s: %s", c->dir, strerror(errno));
        rc = CKPT_ERUNTIME;
    }
    if (!rc)
        rc = clear_directory_items(c, err, errlen);
    if (rc) {
        ckpt_close(c);
        return rc;
    }
    cleanup_stale(c->dirfd);
    *out = c;
    return 0;
}

/* ---- items ------------------------------------------------------------------------------------- */

static void item_name(char *buf, size_t len, size_t index)
{
    snprintf(buf, len, ITEM_PREFIX "%06zu", index);
}

static size_t item_file_size(const ckpt *c, size_t lanes)
{
    return sizeof(item_header) + lanes * c->row_bytes + sizeof(uint32_t);
}

/* The item's file image: header, its rows of every column, CRC32 of all that. */
static void pack_item(const ckpt *c, const sweep_item *it, const sweep_result *res,
                      unsigned char *buf)
{
    item_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, item_magic, sizeof h.magic);
    h.format = CKPT_FORMAT, h.ncolumns = (uint32_t)sweep_points_ncolumns;
    h.index = it->index, h.row0 = it->row0, h.lanes = it->lanes;
    h.manifest_crc = c->manifest_crc;
    h.seconds = res->item_seconds[it->index];
    memcpy(buf, &h, sizeof h);
    size_t at = sizeof h;
    for (size_t k = 0; k < sweep_points_ncolumns; k++) {
        const sweep_column *col = &sweep_points_columns[k];
        size_t bytes = sweep_column_size(col);
        memcpy(buf + at, (const char *)sweep_column_data(&res->points, col) + it->row0 * bytes,
               it->lanes * bytes);
        at += it->lanes * bytes;
    }
    uint32_t crc = (uint32_t)crc32(0L, buf, (uInt)at);
    memcpy(buf + at, &crc, sizeof crc);
}

/* The directory entries of renamed items become durable with a directory fsync. A SIGKILL or a
 * preemption loses none of them without it (the kernel keeps them); only a crash of the machine
 * can. One fsync per item would cost as much again as the item's own fsync, so it is made at
 * most once a second: what a machine crash can lose is then the items finished in the last
 * second or so (plus the items in flight, which any kill loses), recomputed on resume; an item
 * file renamed without the directory synced is whole or absent either way (its data was synced
 * before the rename, and its CRC is checked). ckpt_sync covers the end of the sweep. */
static int maybe_sync_dir(ckpt *c)
{
    double now = monotonic_seconds();
    bool due = false;
    pthread_mutex_lock(&c->sync_lock);
    if (now - c->last_sync >= 1.0)
        due = true, c->last_sync = now;
    pthread_mutex_unlock(&c->sync_lock);
    return due ? fsync(c->dirfd) : 0;
}

/* buf into <dir>/name: a locked temporary, fsync, rename. */
static int write_file(ckpt *c, const char *name, const void *buf, size_t len, char *err,
                      size_t errlen)
{
    char *base = concat3("/.", name, TMP_INFIX "XXXXXX");
    char *tmp = base ? concat3(c->dir, base, "") : NULL, *final = concat3(c->dir, "/", name);
    free(base);
    int fd = tmp && final ? mkstemp(tmp) : -1;
    if (fd < 0) {
        error_line(err, errlen, "%s: cannot create a temporary for %s: %s", c->dir, name,
                   strerror(errno));
        free(tmp), free(final);
        return CKPT_ERUNTIME;
    }
    (void)lock_fd(fd, F_WRLCK); /* best effort: see remove_if_stale */
    const char *failed = fchmod(fd, c->file_mode) < 0 ? "cannot set the mode of"
                         : write_all(fd, buf, len) < 0  ? "cannot write"
                         : fsync(fd) < 0                ? "cannot sync"
                         : rename(tmp, final) < 0       ? "cannot rename"
                                                        : NULL;
    int e = errno;
    if (failed)
        unlink(tmp);
    close(fd);
    free(tmp), free(final);
    if (failed) {
        error_line(err, errlen, "%s: %s %s: %s", c->dir, failed, name, strerror(e));
        return CKPT_ERUNTIME;
    }
    return 0;
}

int ckpt_item_done(void *ctx, const sweep_item *it, const sweep_result *res, char *err,
                   size_t errlen)
{
    ckpt *c = ctx;
    size_t size = item_file_size(c, it->lanes);
    unsigned char *buf = malloc(size);
    if (!buf) {
        error_line(err, errlen, "%s: out of memory for item %zu", c->dir, it->index);
        return CKPT_ERUNTIME;
    }
    pack_item(c, it, res, buf);
    char name[64];
    item_name(name, sizeof name, it->index);
    int rc = write_file(c, name, buf, size, err, errlen);
    free(buf);
    if (!rc && maybe_sync_dir(c) < 0) {
        error_line(err, errlen, "%s: cannot sync the directory: %s", c->dir, strerror(errno));
        rc = CKPT_ERUNTIME;
    }
    return rc;
}

int ckpt_sync(ckpt *c, char *err, size_t errlen)
{
    if (fsync(c->dirfd) < 0) {
        error_line(err, errlen, "%s: cannot sync the directory: %s", c->dir, strerror(errno));
        return CKPT_ERUNTIME;
    }
    return 0;
}

/* Whether buf (size bytes, the file of item `it`) is whole, ours and this item's. */
static bool item_valid(const ckpt *c, const sweep_item *it, const unsigned char *buf, size_t size)
{
    item_header h;
    memcpy(&h, buf, sizeof h);
    uint32_t crc;
    memcpy(&crc, buf + size - sizeof crc, sizeof crc);
    if (memcmp(h.magic, item_magic, sizeof h.magic) != 0 || h.format != CKPT_FORMAT ||
        h.ncolumns != sweep_points_ncolumns || h.index != it->index || h.row0 != it->row0 ||
        h.lanes != it->lanes || h.manifest_crc != c->manifest_crc ||
        crc != (uint32_t)crc32(0L, buf, (uInt)(size - sizeof crc)))
        return false;
    /* A bool must hold 0 or 1 (anything else is undefined behaviour once read as bool). */
    size_t at = sizeof h;
    for (size_t k = 0; k < sweep_points_ncolumns; k++) {
        const sweep_column *col = &sweep_points_columns[k];
        for (size_t r = 0; col->type == SWEEP_BOOL && r < it->lanes; r++)
            if (buf[at + r] > 1)
                return false;
        at += it->lanes * sweep_column_size(col);
    }
    return true;
}

static void unpack_item(const osc_config *cfg, const sweep_item *it, const unsigned char *buf,
                        sweep_result *res)
{
    item_header h;
    memcpy(&h, buf, sizeof h);
    size_t at = sizeof h;
    for (size_t k = 0; k < sweep_points_ncolumns; k++) {
        const sweep_column *col = &sweep_points_columns[k];
        size_t bytes = sweep_column_size(col);
        memcpy((char *)sweep_column_data(&res->points, col) + it->row0 * bytes, buf + at,
               it->lanes * bytes);
        at += it->lanes * bytes;
    }
    for (size_t r = it->row0; r < it->row0 + it->lanes; r++)
        res->points.method[r] = cfg->methods[it->method]->name;
    res->item_seconds[it->index] = h.seconds;
}

/* Reads item `it` into buf (room for a whole item): 1 if its file is valid, 0 if it is absent,
 * -1 if it is there but damaged, truncated, foreign or unreadable. */
static int read_item(const ckpt *c, const sweep_item *it, unsigned char *buf)
{
    char name[64];
    item_name(name, sizeof name, it->index);
    int fd = openat(c->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    const size_t size = item_file_size(c, it->lanes);
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == size &&
              read_all(fd, buf, size) == 0 && item_valid(c, it, buf, size);
    close(fd);
    return ok ? 1 : -1;
}

int ckpt_restore(ckpt *c, const osc_config *cfg, sweep_result *res, bool *done,
                 size_t *restored, size_t *ignored, char *err, size_t errlen)
{
    const size_t n = sweep_item_count(cfg);
    unsigned char *buf = malloc(item_file_size(c, SWEEP_ITEM_LANES));
    *restored = *ignored = 0;
    if (!buf || test_fail("restore")) {
        error_line(err, errlen, "%s: %s", c->dir,
                   buf ? "cannot restore (OSCBENCH_TEST_FAIL=restore)" : "out of memory");
        free(buf);
        return CKPT_ERUNTIME;
    }
    for (size_t i = 0; i < n; i++) {
        const sweep_item it = sweep_item_at(cfg, i);
        int got = read_item(c, &it, buf);
        done[i] = got == 1;
        if (got == 1)
            unpack_item(cfg, &it, buf, res), (*restored)++;
        else if (got < 0)
            (*ignored)++;
    }
    free(buf);
    return 0;
}

/* ---- removal ----------------------------------------------------------------------------------- */

int ckpt_remove(ckpt *c, char *err, size_t errlen)
{
    DIR *d = open_listing(c->dirfd, ".", 0);
    if (!d) {
        error_line(err, errlen, "%s: cannot read the directory: %s", c->dir, strerror(errno));
        return CKPT_ERUNTIME;
    }
    size_t others = 0;
    int failed = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const char *name = e->d_name;
        if (!strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, MANIFEST))
            continue;
        if (is_item_file(name)) {
            if (unlinkat(c->dirfd, name, 0) < 0 && !failed)
                failed = errno;
        } else if (!is_item_temporary(name) || !remove_if_stale(c->dirfd, name)) {
            others++; /* not ours, or a temporary some live process still writes */
        }
    }
    closedir(d);
    /* The manifest last: a kill before this point leaves a valid checkpoint with fewer items. */
    if (others || failed || unlinkat(c->dirfd, MANIFEST, 0) < 0 || rmdir(c->dir) < 0) {
        if (others)
            error_line(err, errlen, "%s: not removed: it holds %zu file(s) oscbench did not "
                                    "write", c->dir, others);
        else
            error_line(err, errlen, "%s: not removed: %s", c->dir,
                       strerror(failed ? failed : errno));
        return CKPT_ERUNTIME;
    }
    if (commit_sync_dir(c->parent) < 0) {
        error_line(err, errlen, "%s: removed, but syncing %s failed: %s", c->dir, c->parent,
                   strerror(errno));
        return CKPT_ERUNTIME;
    }
    return 0;
}
