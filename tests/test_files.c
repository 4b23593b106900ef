/* Small file helpers the test programs share (test_files.h). */
#define _DEFAULT_SOURCE    /* syscall (tgkill) */
#define _XOPEN_SOURCE 700 /* nftw */
#include "test_files.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "sweep.h"

#define PATHLEN 4096

paused_process wait_paused(const char *err, pid_t run_pid, const char *phase, int seconds)
{
    char want[64];
    fmt(want, sizeof want, "paused at %s (pid ", phase);
    for (int tries = 0;; tries++) {
        char *text = slurp(err, NULL);
        const char *at = text ? strstr(text, want) : NULL;
        const char *thread = at ? strstr(at, ", thread ") : NULL;
        paused_process p = {0};
        char *end = NULL;
        if (thread) { /* the line may still be half written: wait for its ')' */
            p.pid = (pid_t)strtol(at + strlen(want), NULL, 10);
            p.thread = strtol(thread + strlen(", thread "), &end, 10);
        }
        bool whole = end && *end == ')';
        free(text);
        if (whole && p.pid > 0 && p.thread > 0)
            return p;
        int status;
        if (waitpid(run_pid, &status, WNOHANG) == run_pid)
            fail_msg("the run ended (status %d) without pausing at %s", status, phase);
        if (tries > 100 * seconds)
            fail_msg("no '%s' after %d s", want, seconds);
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

void signal_paused(paused_process p, int sig)
{
    if (syscall(SYS_tgkill, (long)p.pid, p.thread, sig) != 0)
        fail_msg("tgkill(%ld, %ld, %d): %s", (long)p.pid, p.thread, sig, strerror(errno));
}

void fmt(char *buf, size_t size, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(buf, size, format, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size)
        fail_msg("a path or string is too long (%d bytes)", n);
}

bool make_temp_dir(char *dir, size_t size, const char *name)
{
    int n = snprintf(dir, size, "/tmp/%s.XXXXXX", name);
    return n > 0 && (size_t)n < size && mkdtemp(dir) != NULL;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

void remove_tree(const char *root)
{
    nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

size_t count_prefixed(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return n;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(a, b);
}

void list_prefixed(const char *dir, const char *prefix, name_list *l)
{
    l->n = 0;
    l->overflow = false;
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("cannot read directory %s: %s", dir, strerror(errno));
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            strncmp(e->d_name, prefix, strlen(prefix)))
            continue;
        if (l->n == sizeof l->names / sizeof *l->names)
            fail_msg("more than %zu entries in %s", l->n, dir);
        fmt(l->names[l->n++], sizeof l->names[0], "%s", e->d_name);
    }
    closedir(d);
    qsort(l->names, l->n, sizeof l->names[0], compare_names);
}

char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n - 1, fp)) > 0;) {
        n += got;
        if (cap - n < 2) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown)
                free(buf);
            buf = grown;
        }
    }
    fclose(fp);
    if (buf)
        buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

char *dir_bytes(const char *dir, size_t *len)
{
    static name_list l;
    list_prefixed(dir, "", &l);
    size_t cap = 1 << 16;
    char *all = malloc(cap);
    assert_non_null(all);
    *len = 0;
    for (size_t i = 0; i < l.n; i++) {
        char path[PATHLEN];
        fmt(path, sizeof path, "%s/%s", dir, l.names[i]);
        size_t flen = 0, nlen = strlen(l.names[i]) + 1;
        char *bytes = slurp(path, &flen);
        if (!bytes) {
            free(all);
            fail_msg("cannot read %s", path);
        }
        while (*len + nlen + flen > cap) {
            char *grown = realloc(all, cap *= 2);
            if (!grown)
                free(all), free(bytes);
            assert_non_null(grown);
            all = grown;
        }
        memcpy(all + *len, l.names[i], nlen);
        memcpy(all + *len + nlen, bytes, flen);
        *len += nlen + flen;
        free(bytes);
    }
    return all;
}

/* The entry of dir (list_prefixed(dir, "")) whose part of dir_bytes holds byte `at`; "" if none. */
static const char *entry_at(const char *dir, size_t at)
{
    static name_list l;
    list_prefixed(dir, "", &l);
    size_t start = 0;
    for (size_t i = 0; i < l.n; i++) {
        char path[PATHLEN];
        fmt(path, sizeof path, "%s/%s", dir, l.names[i]);
        size_t flen = 0;
        free(slurp(path, &flen));
        start += strlen(l.names[i]) + 1 + flen;
        if (at < start)
            return l.names[i];
    }
    return "";
}

void dir_unchanged_at(const char *file, int line, const char *dir, const char *before,
                      size_t len)
{
    assert_true(len > 0);
    size_t now_len = 0;
    char *now = dir_bytes(dir, &now_len);
    size_t at = 0;
    while (at < len && at < now_len && now[at] == before[at])
        at++;
    free(now);
    if (at == len && at == now_len)
        return;
    const char *entry = entry_at(dir, at);
    print_error("ERROR: %s changed: %zu bytes of names and contents before, %zu now, the first "
                "difference at byte %zu, %s%s%s\n", dir, len, now_len, at,
                *entry ? "in its entry '" : "after its last entry", entry, *entry ? "'" : "");
    _fail(file, line); /* what fail() expands to, with the caller's place */
}

/* ---- HDF5 results files ---- */

hid_t open_h5(const char *dir, const char *name)
{
    char path[PATHLEN];
    fmt(path, sizeof path, "%s/%s", dir, name);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        fail_msg("cannot open %s as HDF5", path);
    return f;
}

hid_t vlen_str_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

char *attr_str(hid_t f, const char *name)
{
    hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    if (a < 0)
        fail_msg("attribute %s is missing", name);
    hid_t ft = H5Aget_type(a);
    assert_int_equal(H5Tget_class(ft), H5T_STRING);
    assert_true(H5Tis_variable_str(ft) > 0);
    H5Tclose(ft);
    hid_t t = vlen_str_type();
    char *raw = NULL;
    assert_true(H5Aread(a, t, &raw) >= 0);
    char *s = strdup(raw ? raw : "");
    H5free_memory(raw);
    H5Tclose(t);
    H5Aclose(a);
    return s;
}


static herr_t collect_dataset(hid_t g, const char *name, const H5L_info_t *info, void *op)
{
    (void)info;
    name_list *l = op;
    hid_t o = H5Oopen(g, name, H5P_DEFAULT);
    if (o < 0)
        return -1;
    if (H5Iget_type(o) == H5I_DATASET) {
        if (l->n < 256)
            fmt(l->names[l->n++], sizeof l->names[0], "%s", name);
        else
            l->overflow = true;
    }
    H5Oclose(o);
    return 0;
}

void list_datasets(hid_t f, const char *group, name_list *l)
{
    l->n = 0;
    l->overflow = false;
    hid_t g = H5Gopen2(f, group, H5P_DEFAULT);
    if (g < 0)
        fail_msg("group %s is missing", group);
    assert_true(H5Lvisit(g, H5_INDEX_NAME, H5_ITER_INC, collect_dataset, l) >= 0);
    H5Gclose(g);
    assert_false(l->overflow);
}

/* Same shape, same type, same bytes (strings compared as strings). */
void compare_dataset(hid_t fa, hid_t fb, const char *path)
{
    hid_t da = H5Dopen2(fa, path, H5P_DEFAULT), db = H5Dopen2(fb, path, H5P_DEFAULT);
    if (da < 0 || db < 0)
        fail_msg("%s: missing in one file", path);
    hid_t sa = H5Dget_space(da), sb = H5Dget_space(db);
    hsize_t dima[4] = {0}, dimb[4] = {0};
    int ra = H5Sget_simple_extent_dims(sa, dima, NULL);
    int rb = H5Sget_simple_extent_dims(sb, dimb, NULL);
    assert_true(ra >= 1 && ra <= 2);
    assert_int_equal(ra, rb);
    assert_memory_equal(dima, dimb, sizeof dima);
    size_t n = (size_t)H5Sget_simple_extent_npoints(sa);
    hid_t ta = H5Dget_type(da), tb = H5Dget_type(db);
    if (H5Tequal(ta, tb) <= 0)
        fail_msg("%s: types differ", path);
    if (H5Tget_class(ta) == H5T_STRING && H5Tis_variable_str(ta) > 0) {
        hid_t mt = vlen_str_type();
        char **a = calloc(n + 1, sizeof *a), **b = calloc(n + 1, sizeof *b);
        assert_non_null(a);
        assert_non_null(b);
        assert_true(H5Dread(da, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, a) >= 0);
        assert_true(H5Dread(db, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) >= 0);
        size_t bad = n;
        for (size_t i = 0; i < n; i++) {
            if (bad == n && strcmp(a[i] ? a[i] : "", b[i] ? b[i] : "") != 0)
                bad = i;
            H5free_memory(a[i]), H5free_memory(b[i]);
        }
        free(a), free(b);
        H5Tclose(mt);
        if (bad < n)
            fail_msg("%s: string %zu differs", path, bad);
    } else {
        hid_t mt = H5Tget_native_type(ta, H5T_DIR_ASCEND);
        size_t size = H5Tget_size(mt) * n;
        unsigned char *a = calloc(size + 1, 1), *b = calloc(size + 1, 1);
        assert_non_null(a);
        assert_non_null(b);
        assert_true(H5Dread(da, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, a) >= 0);
        assert_true(H5Dread(db, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) >= 0);
        if (memcmp(a, b, size) != 0) {
            size_t i = 0;
            while (a[i] == b[i])
                i++;
            fail_msg("%s: bytes differ from byte %zu (element %zu)", path, i,
                     i / H5Tget_size(mt));
        }
        free(a), free(b);
        H5Tclose(mt);
    }
    H5Tclose(ta), H5Tclose(tb), H5Sclose(sa), H5Sclose(sb), H5Dclose(da), H5Dclose(db);
}

/* Every dataset under each group identical in the two files but `skip` (NULL: none); returns
 * how many were compared. */
size_t compare_files_except(const char *dir, const char *a, const char *b, const char *skip)
{
    static const char *const groups[] = {
        "/points",          "/convergence",      "/convergence_local", "/stability",
        "/stability_intervals", "/stability_theory", "/work_precision",    "/traces"};
    /* The only timing-dependent columns: work-precision's cost, the bare stepping rate measured
     * in each run (wall clock). Everything else must be the same bytes. */
    static const char *const timed[] = {"/work_precision/ns_per_osc_step",
                                        "/work_precision/ns_per_lane"};
    hid_t fa = open_h5(dir, a), fb = open_h5(dir, b);
    size_t total = 0;
    static name_list la, lb;
    for (size_t g = 0; g < sizeof groups / sizeof *groups; g++) {
        list_datasets(fa, groups[g], &la);
        list_datasets(fb, groups[g], &lb);
        if (la.n != lb.n)
            fail_msg("%s: %zu datasets in %s, %zu in %s", groups[g], la.n, a, lb.n, b);
        assert_true(la.n >= 2);
        for (size_t i = 0; i < la.n; i++) {
            char path[300];
            fmt(path, sizeof path, "%s/%s", groups[g], la.names[i]);
            bool timing = false;
            for (size_t t = 0; t < sizeof timed / sizeof *timed; t++)
                timing |= strcmp(path, timed[t]) == 0;
            if (timing || (skip && !strcmp(path, skip)))
                continue;
            compare_dataset(fa, fb, path);
            total++;
        }
    }
    char *ca = attr_str(fa, "config"), *cb = attr_str(fb, "config");
    assert_string_equal(ca, cb);
    free(ca), free(cb);
    H5Fclose(fa), H5Fclose(fb);
    return total;
}

size_t compare_files(const char *dir, const char *a, const char *b)
{
    return compare_files_except(dir, a, b, NULL);
}

void copy_file(const char *from, const char *to)
{
    size_t len = 0;
    char *bytes = slurp(from, &len);
    assert_non_null(bytes);
    FILE *fp = fopen(to, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(bytes, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
    free(bytes);
}

/* Flips one byte of a file, at `at` from its end if at < 0. */
void flip_byte(const char *path, long at)
{
    FILE *fp = fopen(path, "r+b");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, at, at < 0 ? SEEK_END : SEEK_SET), 0);
    int ch = fgetc(fp);
    assert_true(ch != EOF);
    assert_int_equal(fseek(fp, -1, SEEK_CUR), 0);
    fputc(ch ^ 0x10, fp);
    assert_int_equal(fclose(fp), 0);
}

void forge_bytes(const char *path, size_t at, const void *value, size_t size)
{
    size_t len = 0;
    unsigned char *bytes = (unsigned char *)slurp(path, &len);
    assert_non_null(bytes);
    assert_true(len >= 4 && at + size <= len - 4); /* never the CRC itself */
    memcpy(bytes + at, value, size);
    uint32_t crc = (uint32_t)crc32(0L, bytes, (uInt)(len - 4));
    memcpy(bytes + len - 4, &crc, 4);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(bytes, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
    free(bytes);
}

void forge_item(const char *path, const char *name, size_t lanes, size_t lane, const void *value,
                size_t size)
{
    size_t at = 56; /* the header */
    const sweep_column *col = NULL;
    for (size_t k = 0; k < sweep_points_ncolumns && !col; k++) {
        if (!strcmp(sweep_points_columns[k].name, name))
            col = &sweep_points_columns[k];
        else
            at += lanes * sweep_column_size(&sweep_points_columns[k]);
    }
    assert_non_null(col);
    assert_int_equal(sweep_column_size(col), size);
    forge_bytes(path, at + lane * size, value, size);
}

int wait_child(pid_t pid)
{
    int status;
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    assert_int_equal(w, pid);
    return status;
}
