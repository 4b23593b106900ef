/* The YAML config loader: file -> bounded node tree with positions -> validated osc_config.
 *
 * Why libyaml's parser here and not a libcyaml schema: a swept key is a number, a list or a
 * mapping {from, to, count, spacing}, and libcyaml 1.3's schema has no union or "any" type to
 * express that; it also reports neither the key nor the line and column of a bad value, which
 * every error here must carry. libcyaml itself parses with libyaml, so this reads the same YAML
 * the same way, one event at a time, with its limits (no aliases, depth, list length, node
 * count) enforced as the events arrive: hostile input fails fast in bounded memory. */
#define _POSIX_C_SOURCE 200809L
#include "composition.h"
#include "config.h"
#include "exact.h"
#include "rkn.h"
#include "tableau.h"

#include <errno.h>
#include <float.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

/* The loader asks the sweep (sweep.h) what a config will need before it expands a single range,
 * its one use of a layer above it, on purpose: a sweep too large for the machine is refused at
 * once, located on its widest key, rather than after expanding ranges of up to 10^7 values and
 * checking the spring of every (mass, stiffness) pair, which for an absurd sweep would not end. */
#ifdef OSC_CONFIG_FUZZ
/* The fuzz target builds the loader alone (no sweep, no OpenMP runtime): stand-ins for the
 * sweep's memory estimate (a /points row and a little more per lane) and its limit. */
static double fuzz_estimate_bytes(const osc_config *cfg, double ndt, double batch_lanes)
{
    return (double)cfg->nmethods * ndt * batch_lanes * 256.0;
}
static double fuzz_memory_limit(const char **source)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    *source = "physical memory";
    return pages > 0 && page > 0 ? (double)pages * (double)page : 0;
}
#define sweep_estimate_bytes(cfg, ndt, lanes, threads) fuzz_estimate_bytes(cfg, ndt, lanes)
#define sweep_memory_limit fuzz_memory_limit
#define omp_get_max_threads() 1
#else
#include <omp.h>

#include "sweep.h"
#endif

#include "layout.h"

enum { CONFIG_BAD = 2 };

/* ---- errors ------------------------------------------------------------------------------- */

/* The errors of one config and the files it includes, past those err could hold. */
typedef struct error_tally {
    const char *config; /* the config's path, which the closing count names */
    size_t unshown;
} error_tally;

typedef struct ctx {
    const char *path;
    char *err;
    size_t errlen;
    long nodes;
    bool collect; /* append each error as a line of its own, not overwrite */
    const char *from; /* an included file's: "CONFIG:LINE:COL" of the include, else NULL */
    error_tally *tally; /* when collecting: counts the lines left out */
} ctx;

static size_t lines_in(const char *s)
{
    size_t n = *s != '\0';
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

#define TALLY_FORMAT "%s: %zu more error%s not shown"

/* The bytes the closing count may take, its newline included. */
static size_t tally_line_bytes(const error_tally *t)
{
    return strlen(t->config) + sizeof TALLY_FORMAT + 20;
}

/* "CONFIG: N more errors not shown", after the lines err holds, when some were left out. */
static void append_tally(const ctx *c)
{
    size_t used = strlen(c->err);
    if (c->tally->unshown && used + tally_line_bytes(c->tally) <= c->errlen)
        snprintf(c->err + used, c->errlen - used, "\n" TALLY_FORMAT, c->tally->config,
                 c->tally->unshown, c->tally->unshown == 1 ? "" : "s");
}

/* s as it is when shorter than cap bytes, else its start, "..." and its end in cap - 1 bytes of
 * buf: a path too long for the room a message has keeps where it starts and the file it names,
 * and what the message says after it keeps its place. */
static const char *shortened(const char *s, char *buf, size_t cap)
{
    size_t len = strlen(s);
    if (len < cap || cap < 8)
        return s;
    size_t head = (cap - 4) / 2;
    snprintf(buf, cap, "%.*s...%s", (int)head, s, s + len - (cap - 4 - head));
    return buf;
}

/* One error line into dst (cap bytes); its length, as snprintf's. */
static size_t put_line(char *dst, size_t cap, const char *path, const char *where,
                       const char *key, const char *msg, const char *from)
{
    int n = snprintf(dst, cap, "%s%s: %s%s%s%s%s%s", path, where, key ? key : "", key ? ": " : "",
                     msg, from ? " (included from " : "", from ? from : "", from ? ")" : "");
    return n > 0 ? (size_t)n : 0;
}

/* "FILE:LINE:COL: key: message"; key may be NULL, line 0 drops the position. When collecting,
 * the line is appended to those already in err (up to CONFIG_MAX_ERRORS, and only whole lines:
 * one that does not fit is dropped and counted, keeping room for the count's own line). A first
 * line too long for err has its paths (FILE, and the CONFIG of "(included from CONFIG:LINE:COL)")
 * shortened in the middle, so that the location and the message survive any path. */
static int vfail_at(const ctx *c, int line, int col, const char *key, const char *fmt,
                    va_list ap)
{
    if (!c->err || c->errlen == 0)
        return CONFIG_BAD;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    char where[64] = "";
    if (line > 0)
        snprintf(where, sizeof where, ":%d:%d", line, col);
    size_t len = put_line(NULL, 0, c->path, where, key, msg, c->from);
    size_t used = c->collect ? strlen(c->err) : 0;
    size_t reserve = c->tally ? tally_line_bytes(c->tally) : 0;
    size_t room = c->errlen > reserve ? c->errlen - reserve : 0;
    if (used == 0) {
        /* the bytes both paths may show, shared out so that the shorter shows whole if it can */
        size_t npath = strlen(c->path), nfrom = c->from ? strlen(c->from) : 0;
        size_t rest = len - npath - nfrom, both = c->errlen > rest + 1 ? c->errlen - rest - 1 : 0;
        size_t show_from = nfrom <= both / 2 ? nfrom : npath <= both / 2 ? both - npath : both / 2;
        char *buf = len < c->errlen ? NULL : malloc(2 * c->errlen);
        const char *path = c->path, *from = c->from;
        if (buf) {
            path = shortened(c->path, buf, both - show_from + 1);
            from = from ? shortened(from, buf + c->errlen, show_from + 1) : NULL;
        }
        put_line(c->err, c->errlen, path, where, key, msg, from);
        free(buf);
    } else if (lines_in(c->err) < CONFIG_MAX_ERRORS && used + 1 + len < room) {
        c->err[used] = '\n';
        put_line(c->err + used + 1, c->errlen - used - 1, c->path, where, key, msg, c->from);
    } else if (c->tally) {
        c->tally->unshown++;
    }
    return CONFIG_BAD;
}

static int fail_at(const ctx *c, int line, int col, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail_at(const ctx *c, int line, int col, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_at(c, line, col, key, fmt, ap);
    va_end(ap);
    return CONFIG_BAD;
}

/* ---- the node tree ------------------------------------------------------------------------ */

typedef enum { YN_SCALAR, YN_SEQ, YN_MAP } ykind;

typedef struct ynode {
    ykind kind;
    bool plain; /* an unquoted scalar: only these can be numbers */
    int line, col;
    char *text; /* scalars: NUL-terminated, in the node's own allocation */
    struct ynode **kids; /* sequences: items; mappings: key, value, key, value, ... */
    size_t nkids, cap;
} ynode;

#define fail_node(c, n, key, ...) fail_at((c), (n)->line, (n)->col, (key), __VA_ARGS__)

static void ynode_free(ynode *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->nkids; i++)
        ynode_free(n->kids[i]);
    free(n->kids);
    free(n);
}

static int ynode_append(ynode *parent, ynode *kid)
{
    if (parent->nkids == parent->cap) {
        size_t cap = parent->cap ? 2 * parent->cap : 8;
        ynode **kids = realloc(parent->kids, cap * sizeof *kids);
        if (!kids)
            return -1;
        parent->kids = kids;
        parent->cap = cap;
    }
    parent->kids[parent->nkids++] = kid;
    return 0;
}

static ynode *ynode_new(const yaml_event_t *ev, ykind kind)
{
    size_t len = kind == YN_SCALAR ? ev->data.scalar.length : 0;
    ynode *n = calloc(1, sizeof *n + len + 1);
    if (!n)
        return NULL;
    n->kind = kind;
    n->line = (int)ev->start_mark.line + 1;
    n->col = (int)ev->start_mark.column + 1;
    n->text = (char *)(n + 1);
    if (kind == YN_SCALAR) {
        /* "!!str 0.01" is a string, as a quoted 0.01 is: the tag says so */
        const char *tag = (const char *)ev->data.scalar.tag;
        n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                   !(tag && !strcmp(tag, YAML_STR_TAG));
        memcpy(n->text, ev->data.scalar.value, len);
    }
    return n;
}

/* 1-based line and column of a byte offset. */
static void locate_offset(const char *buf, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (buf[i] == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

static int parser_fail(const ctx *c, const yaml_parser_t *p, const char *buf)
{
    int line = (int)p->problem_mark.line + 1, col = (int)p->problem_mark.column + 1;
    if (p->error == YAML_READER_ERROR)
        locate_offset(buf, p->problem_offset, &line, &col);
    return fail_at(c, line, col, NULL, "malformed YAML: %s%s%s",
                   p->problem ? p->problem : "cannot parse", p->context ? " " : "",
                   p->context ? p->context : "");
}

typedef struct builder {
    ynode *root;
    ynode *stack[CONFIG_MAX_DEPTH];
    int depth;
    bool document_seen;
} builder;

/* Attach a new node under the open container (or as the root). */
static int builder_add(ctx *c, builder *b, const yaml_event_t *ev, ykind kind)
{
    int line = (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;
    if (++c->nodes > CONFIG_MAX_NODES)
        return fail_at(c, line, col, NULL, "too many YAML nodes (more than %d)",
                       CONFIG_MAX_NODES);
    if (kind == YN_SCALAR && memchr(ev->data.scalar.value, 0, ev->data.scalar.length))
        return fail_at(c, line, col, NULL, "NUL character (a \\0 escape) in a string");
    ynode *parent = b->depth ? b->stack[b->depth - 1] : NULL;
    size_t cap = parent && parent->kind == YN_MAP ? 2 * (size_t)CONFIG_MAX_LIST : CONFIG_MAX_LIST;
    if (parent && parent->nkids >= cap)
        return fail_node(c, parent, NULL, "list or mapping longer than %d items",
                         CONFIG_MAX_LIST);
    if (kind != YN_SCALAR && b->depth == CONFIG_MAX_DEPTH)
        return fail_at(c, line, col, NULL, "nested deeper than %d levels", CONFIG_MAX_DEPTH);
    ynode *n = ynode_new(ev, kind);
    if (!n || (parent && ynode_append(parent, n))) {
        ynode_free(n);
        return fail_at(c, line, col, NULL, "out of memory");
    }
    if (!parent)
        b->root = n;
    if (kind != YN_SCALAR)
        b->stack[b->depth++] = n;
    return 0;
}

/* One event into the tree; 1 at the end of the stream, 0 to go on, CONFIG_BAD on error. */
static int builder_event(ctx *c, builder *b, const yaml_event_t *ev)
{
    int line = (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;
    switch (ev->type) {
    case YAML_STREAM_END_EVENT: return 1;
    case YAML_DOCUMENT_START_EVENT:
        if (b->document_seen)
            return fail_at(c, line, col, NULL, "expected one YAML document, found more");
        b->document_seen = true;
        return 0;
    case YAML_ALIAS_EVENT:
        return fail_at(c, line, col, NULL, "YAML aliases (*%s) are not supported",
                       (const char *)ev->data.alias.anchor);
    case YAML_SCALAR_EVENT: return builder_add(c, b, ev, YN_SCALAR);
    case YAML_SEQUENCE_START_EVENT: return builder_add(c, b, ev, YN_SEQ);
    case YAML_MAPPING_START_EVENT: return builder_add(c, b, ev, YN_MAP);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: b->depth--; return 0;
    default: return 0;
    }
}

static int parse_tree(ctx *c, const char *buf, size_t len, ynode **root)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return fail_at(c, 0, 0, NULL, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    builder b = {0};
    int status = 0;
    while (status == 0) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            status = parser_fail(c, &parser, buf);
            break;
        }
        status = builder_event(c, &b, &ev);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    if (status == 1) {
        *root = b.root;
        return 0;
    }
    ynode_free(b.root);
    return status;
}

/* ---- reading the file --------------------------------------------------------------------- */

/* Read up to CONFIG_MAX_BYTES + 1 bytes from fd into a buffer that grows as needed (the file
 * may be a pipe), NUL-terminated. Returns 0, or an errno value. */
static int read_capped(int fd, size_t hint, char **out, size_t *outlen)
{
    size_t limit = (size_t)CONFIG_MAX_BYTES + 1, cap = hint < limit ? hint + 1 : limit, len = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        if (len == cap && cap < limit) {
            cap = 2 * cap < limit ? 2 * cap : limit;
            char *grown = realloc(buf, cap + 1);
            if (!grown)
                break;
            buf = grown;
        }
        ssize_t got = read(fd, buf + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            return e;
        }
        len += (size_t)got;
        if (got == 0 || len == limit) {
            buf[len] = '\0';
            *out = buf;
            *outlen = len;
            return 0;
        }
    }
    free(buf);
    return ENOMEM;
}

static int read_all(ctx *c, char **out, size_t *outlen)
{
    int fd = open(c->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fail_at(c, 0, 0, NULL, "cannot open: %s", strerror(errno));
    struct stat st;
    int stat_error = fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
    if (stat_error) { /* st is not to be read when fstat failed */
        close(fd);
        return fail_at(c, 0, 0, NULL, "cannot read: %s", strerror(stat_error));
    }
    bool regular = S_ISREG(st.st_mode);
    size_t hint = regular && st.st_size >= 0 ? (size_t)st.st_size : 65536;
    int e = regular && st.st_size > (off_t)CONFIG_MAX_BYTES ? EFBIG
                                                             : read_capped(fd, hint, out, outlen);
    close(fd);
    if (e == 0 && *outlen > CONFIG_MAX_BYTES) {
        free(*out);
        *out = NULL;
        e = EFBIG;
    }
    if (e == EFBIG)
        return fail_at(c, 0, 0, NULL, "larger than %u MiB, not a config",
                       CONFIG_MAX_BYTES >> 20);
    return e ? fail_at(c, 0, 0, NULL, "cannot read: %s", strerror(e)) : 0;
}

static int reject_nul(const ctx *c, const char *buf, size_t len)
{
    const char *nul = memchr(buf, '\0', len);
    if (!nul)
        return 0;
    int line, col;
    locate_offset(buf, (size_t)(nul - buf), &line, &col);
    return fail_at(c, line, col, NULL, "NUL byte in the file, not a YAML config");
}

/* ---- scalars ------------------------------------------------------------------------------ */

/* A short printable rendering of a scalar for messages. */
static const char *shown(const ynode *n, char buf[48])
{
    size_t j = 0;
    for (const char *s = n->text; *s && j < 40; s++)
        buf[j++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
    if (strlen(n->text) > 40) {
        memcpy(buf + j, "...", 3);
        j += 3;
    }
    buf[j] = '\0';
    return buf;
}

static const char *kind_name(ykind k) { return k == YN_SEQ ? "a list" : "a mapping"; }

/* YAML 1.1/1.2 and strtod spellings of NaN and Inf: [+-][.](nan|inf...) in any case. */
static bool spells_nonfinite(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    if (*s == '.')
        s++;
    return strncasecmp(s, "nan", 3) == 0 || strncasecmp(s, "inf", 3) == 0;
}

/* [+-] (digits [. digits*] | . digits) [(e|E) [+-] digits], nothing else. */
static bool is_decimal(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    size_t digits = strspn(s, "0123456789");
    s += digits;
    if (*s == '.') {
        size_t frac = strspn(s + 1, "0123456789");
        digits += frac;
        s += 1 + frac;
    }
    if (digits == 0)
        return false;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        size_t exp = strspn(s, "0123456789");
        if (exp == 0)
            return false;
        s += exp;
    }
    return *s == '\0';
}

typedef enum { NUM_ANY, NUM_NONNEG, NUM_POSITIVE } num_rule;

/* A fraction "A/B" of two decimals (dt: 1/60): 1 and its value in *v, -1 if B is zero, -2 if A
 * or B overflows a double (1e400/1e400 would be inf/inf, a NaN), 0 if the text is not a
 * fraction. The quotient is the double nearest A/B when A and B are exact (as 1 and 60 are): one
 * correctly rounded division. */
static int fraction(const char *text, double *v)
{
    const char *slash = strchr(text, '/');
    char num[64];
    if (!slash || (size_t)(slash - text) >= sizeof num)
        return 0;
    memcpy(num, text, (size_t)(slash - text));
    num[slash - text] = '\0';
    if (!is_decimal(num) || !is_decimal(slash + 1))
        return 0;
    double a = strtod(num, NULL), b = strtod(slash + 1, NULL);
    if (isinf(a) || isinf(b))
        return -2;
    if (b == 0)
        return -1;
    *v = a / b;
    return 1;
}

static int number(const ctx *c, const ynode *n, const char *key, num_rule rule, double *out)
{
    char buf[48];
    if (n->kind != YN_SCALAR)
        return fail_node(c, n, key, "expected a number, not %s", kind_name(n->kind));
    if (n->plain && spells_nonfinite(n->text))
        return fail_node(c, n, key, "expected a finite number, got '%s'", shown(n, buf));
    double v = 0;
    int is_fraction = n->plain ? fraction(n->text, &v) : 0;
    if (is_fraction == -2)
        return fail_node(c, n, key, "expected a finite number, '%s' overflows a double",
                         shown(n, buf));
    if (is_fraction < 0)
        return fail_node(c, n, key, "expected a number, '%s' divides by zero (its denominator is "
                                    "0 or underflows to 0)", shown(n, buf));
    if (!n->plain && is_decimal(n->text))
        return fail_node(c, n, key, "expected a number, got the string '%s' (quoted or !!str)",
                         shown(n, buf));
    if (!is_fraction && (!n->plain || !is_decimal(n->text)))
        return fail_node(c, n, key, "expected a number, got '%s'", shown(n, buf));
    errno = 0;
    if (!is_fraction)
        v = strtod(n->text, NULL);
    if ((errno == ERANGE || is_fraction) && isinf(v))
        return fail_node(c, n, key, "expected a finite number, '%s' overflows a double",
                         shown(n, buf));
    if (rule == NUM_POSITIVE && !(v > 0))
        return fail_node(c, n, key, "expected a positive number, got %s", shown(n, buf));
    if (rule == NUM_NONNEG && !(v >= 0))
        return fail_node(c, n, key, "expected a number >= 0, got %s", shown(n, buf));
    *out = v == 0 ? 0.0 : v; /* -0 reads as 0 */
    return 0;
}

/* A whole number in [lo, hi]; 1e6 and 10.0 count as whole. */
static int whole(const ctx *c, const ynode *n, const char *key, double lo, double hi, long *out)
{
    double v;
    if (number(c, n, key, NUM_ANY, &v))
        return CONFIG_BAD;
    if (v != floor(v) || v < lo || v > hi)
        return fail_node(c, n, key, "expected a whole number from %.0f to %.0f", lo, hi);
    *out = (long)v;
    return 0;
}

/* The scalar's text if it is one of `names` (index into them), else an error listing them. */
static int one_of(const ctx *c, const ynode *n, const char *key, const char *what,
                  const char *const *names, size_t nnames, size_t *out)
{
    char buf[48], valid[256] = "";
    for (size_t i = 0; i < nnames; i++) {
        if (n->kind == YN_SCALAR && strcmp(n->text, names[i]) == 0) {
            *out = i;
            return 0;
        }
        size_t used = strlen(valid);
        snprintf(valid + used, sizeof valid - used, "%s%s", i ? ", " : "", names[i]);
    }
    if (n->kind != YN_SCALAR)
        return fail_node(c, n, key, "expected one %s, not %s (valid: %s)", what, kind_name(n->kind),
                         valid);
    return fail_node(c, n, key, "unknown %s '%s' (valid: %s)", what, shown(n, buf), valid);
}

/* ---- mappings of known fields ------------------------------------------------------------- */

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 32 || lb > 32)
        return SIZE_MAX;
    size_t row[33];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static int unknown_key(const ctx *c, const ynode *k, const char *prefix,
                       const char *const *names, size_t nnames)
{
    char full[128], buf[48];
    snprintf(full, sizeof full, "%s%s", prefix, shown(k, buf));
    size_t best = 0, dist = SIZE_MAX;
    for (size_t i = 0; i < nnames; i++) {
        size_t d = edit_distance(k->text, names[i]);
        if (d < dist) {
            dist = d;
            best = i;
        }
    }
    if (dist <= 2)
        return fail_node(c, k, full, "unknown key (did you mean '%s'?)", names[best]);
    char valid[512] = "";
    for (size_t i = 0; i < nnames; i++) {
        size_t used = strlen(valid);
        snprintf(valid + used, sizeof valid - used, "%s%s", i ? ", " : "", names[i]);
    }
    return fail_node(c, k, full, "unknown key (known keys: %s)", valid);
}

/* Match a mapping's keys against `names`: vals[i] is the value of names[i] or NULL; keys[i]
 * the key node. Unknown, duplicate and non-scalar keys are errors. prefix: "dt." etc. */
static int fields(const ctx *c, const ynode *map, const char *prefix, const char *const *names,
                  size_t nnames, const ynode **keys, const ynode **vals)
{
    for (size_t i = 0; i < nnames; i++)
        keys[i] = vals[i] = NULL;
    int status = 0; /* every bad key is reported, the good ones still read */
    for (size_t p = 0; p + 1 < map->nkids; p += 2) {
        const ynode *k = map->kids[p];
        if (k->kind != YN_SCALAR) {
            status = fail_node(c, k, prefix[0] ? prefix : NULL, "expected a key name, not %s",
                               kind_name(k->kind));
            continue;
        }
        size_t i = 0;
        while (i < nnames && strcmp(k->text, names[i]) != 0)
            i++;
        if (i == nnames) {
            status = unknown_key(c, k, prefix, names, nnames);
            continue;
        }
        char full[128];
        snprintf(full, sizeof full, "%s%s", prefix, names[i]);
        if (vals[i]) {
            status = fail_node(c, k, full, "duplicate key (first at line %d)", keys[i]->line);
            continue;
        }
        keys[i] = k;
        vals[i] = map->kids[p + 1];
    }
    return status;
}

static int expect_map(const ctx *c, const ynode *n, const char *key, const char *what)
{
    if (n->kind == YN_MAP)
        return 0;
    char buf[48];
    if (n->kind == YN_SCALAR)
        return fail_node(c, n, key, "expected %s, got '%s'", what, shown(n, buf));
    return fail_node(c, n, key, "expected %s, not a list", what);
}

/* ---- swept values ------------------------------------------------------------------------- */

/* A swept key before expansion: values of a number or list, or an unexpanded range. */
typedef struct sweep_spec {
    const ynode *node;
    bool given, is_range, log;
    double from, to;
    size_t count;
    double *values; /* number or list */
} sweep_spec;

static const char *const range_names[] = {"from", "to", "count", "spacing"};

static int parse_range(const ctx *c, const ynode *map, const char *key, num_rule rule,
                       sweep_spec *s)
{
    char prefix[64], sub[80];
    snprintf(prefix, sizeof prefix, "%s.", key);
    const ynode *keys[4], *v[4];
    if (fields(c, map, prefix, range_names, 4, keys, v))
        return CONFIG_BAD;
    if (!v[0] || !v[1] || !v[2])
        return fail_node(c, map, key, "a range needs from, to and count");
    snprintf(sub, sizeof sub, "%sfrom", prefix);
    if (number(c, v[0], sub, rule, &s->from))
        return CONFIG_BAD;
    snprintf(sub, sizeof sub, "%sto", prefix);
    if (number(c, v[1], sub, rule, &s->to))
        return CONFIG_BAD;
    long count;
    snprintf(sub, sizeof sub, "%scount", prefix);
    if (whole(c, v[2], sub, 1, (double)CONFIG_MAX_RANGE, &count))
        return CONFIG_BAD;
    s->count = (size_t)count;
    size_t spacing = 0;
    static const char *const spacings[] = {"linear", "log"};
    snprintf(sub, sizeof sub, "%sspacing", prefix);
    if (v[3] && one_of(c, v[3], sub, "spacing", spacings, 2, &spacing))
        return CONFIG_BAD;
    s->log = spacing == 1;
    s->is_range = true;
    for (int end = 0; s->log && end < 2; end++) {
        snprintf(sub, sizeof sub, "%s%s", prefix, range_names[end]);
        if (!((end ? s->to : s->from) > 0))
            return fail_node(c, v[end], sub, "log spacing needs a positive number");
    }
    return 0;
}

static int parse_sweep(const ctx *c, const ynode *n, const char *key, num_rule rule,
                       sweep_spec *s)
{
    s->node = n;
    s->given = true;
    if (n->kind == YN_MAP)
        return parse_range(c, n, key, rule, s);
    size_t count = n->kind == YN_SEQ ? n->nkids : 1;
    if (count == 0)
        return fail_node(c, n, key, "expected at least one value");
    s->values = malloc(count * sizeof *s->values);
    if (!s->values)
        return fail_node(c, n, key, "out of memory");
    s->count = count;
    if (n->kind == YN_SCALAR)
        return number(c, n, key, rule, &s->values[0]);
    for (size_t i = 0; i < count; i++)
        if (number(c, n->kids[i], key, rule, &s->values[i]))
            return CONFIG_BAD;
    return 0;
}

/* Endpoints exact; log spacing interpolates the logarithms (lo, hi: the endpoints, or their
 * logarithms, worked out once per range: a range may have 10^8 values). */
static double range_value(const sweep_spec *s, double lo, double hi, size_t i)
{
    if (i == 0)
        return s->from;
    if (i == s->count - 1)
        return s->to;
    double f = (double)i / (double)(s->count - 1), v = lo + f * (hi - lo);
    return s->log ? exp(v) : v;
}

static int expand_sweep(const ctx *c, sweep_spec *s, const char *key, sweep *out)
{
    if (!s->is_range) {
        out->values = s->values;
        out->count = s->count;
        s->values = NULL;
        return 0;
    }
    out->values = malloc(s->count * sizeof *out->values);
    if (!out->values)
        return fail_node(c, s->node, key, "out of memory expanding %zu values", s->count);
    out->count = s->count;
    double lo = s->log ? log(s->from) : s->from, hi = s->log ? log(s->to) : s->to;
    for (size_t i = 0; i < s->count; i++)
        out->values[i] = range_value(s, lo, hi, i);
    return 0;
}

/* ---- the top-level keys ------------------------------------------------------------------- */

enum {
    K_NAME, K_METHODS, K_PRECISION, K_DIM, K_STIFFNESS, K_DRAG, K_DT, K_GRAVITY, K_MASS, K_X0,
    K_V0, K_T_END, K_STEPS, K_TRACE, K_ANALYSES, K_STABILITY, K_AUDIT_EVERY, K_MAXIMA,
    K_UNSTABLE_FACTOR, K_UNSTABLE_DRIFT, K_OMEGA0, K_ZETA, K_RATE_HZ, K_COUNT
};
static const char *const key_names[K_COUNT] = {
    "name", "methods", "precision", "dim", "stiffness", "drag", "dt", "gravity", "mass", "x0",
    "v0", "t_end", "steps", "trace", "analyses", "stability", "audit_every", "maxima",
    "unstable_factor", "unstable_drift", "omega0", "zeta", "rate_hz",
};
_Static_assert(K_COUNT == CONFIG_NKEYS, "config_loc table size");

typedef struct loader {
    ctx c;
    osc_config *cfg;
    const ynode *root;
    const ynode *keys[K_COUNT], *vals[K_COUNT];
    sweep_spec stiffness, drag, dt, zeta; /* stiffness: of stiffness or omega0; drag: of drag
                                           * or zeta; dt: of dt or rate_hz */
    sweep_spec mass;                      /* not given: one mass, 1 */
    bool by_omega0, by_zeta, by_rate; /* which key of each pair gave the axis */
    bool dim_bad;                     /* reported: x0 and v0 lengths are not checked */
    const ynode *trace_points; /* to locate a row beyond the sweep */
    const ynode *trace_where, *trace_methods; /* traces chosen by value, resolved at the end */
    int includes;                             /* {include: PATH} items read */
    char defined_at[CONFIG_MAX_USER_METHODS][160]; /* "FILE:LINE" of each definition */
} loader;

static bool name_char_ok(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '.' || ch == '_' || ch == '-' || ch == '+';
}

/* The file's stem made safe as a name. */
static char *default_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (len > 128)
        len = 128;
    char *name = strndup(len ? base : "config", len ? len : 6);
    for (size_t i = 0; name && name[i]; i++)
        if (!name_char_ok(name[i]) || (i == 0 && name[i] == '.'))
            name[i] = '_';
    return name;
}

static int load_name(loader *L)
{
    const ynode *n = L->vals[K_NAME];
    if (!n) {
        L->cfg->name = default_name(L->c.path);
        return L->cfg->name ? 0 : fail_at(&L->c, 0, 0, NULL, "out of memory");
    }
    char buf[48];
    if (n->kind != YN_SCALAR)
        return fail_node(&L->c, n, "name", "expected a string, not %s", kind_name(n->kind));
    size_t len = strlen(n->text);
    bool ok = len >= 1 && len <= 128 && n->text[0] != '.';
    for (size_t i = 0; ok && i < len; i++)
        ok = name_char_ok(n->text[i]);
    if (!ok)
        return fail_node(&L->c, n, "name",
                         "expected 1 to 128 of A-Z a-z 0-9 . _ - + not starting with '.', "
                         "got '%s'", shown(n, buf));
    L->cfg->name = strdup(n->text);
    return L->cfg->name ? 0 : fail_at(&L->c, 0, 0, NULL, "out of memory");
}

/* The registry name a typo most likely meant: within 2 edits, or the only name it begins. */
static const char *nearest_method(const char *typed)
{
    const char *best = NULL, *prefixed = NULL;
    size_t dist = 3, nprefixed = 0;
    for (size_t i = 0; i < osc_method_count(); i++) {
        const char *name = osc_method_at(i)->name;
        size_t d = edit_distance(typed, name);
        if (d < dist) {
            dist = d;
            best = name;
        }
        if (*typed && strncmp(name, typed, strlen(typed)) == 0) {
            prefixed = name;
            nprefixed++;
        }
    }
    return best ? best : nprefixed == 1 ? prefixed : NULL;
}

static int method_of(const loader *L, const ynode *n, const osc_method **out)
{
    char buf[48], valid[512] = "";
    if (n->kind == YN_SCALAR && (*out = osc_method_find(n->text)))
        return 0;
    for (size_t i = 0; i < osc_method_count(); i++) {
        size_t used = strlen(valid);
        snprintf(valid + used, sizeof valid - used, "%s%s", i ? ", " : "",
                 osc_method_at(i)->name);
    }
    if (n->kind != YN_SCALAR)
        return fail_node(&L->c, n, "methods", "expected a method name, not %s (valid: %s)",
                         kind_name(n->kind), valid);
    const char *near = nearest_method(n->text);
    if (near)
        return fail_node(&L->c, n, "methods", "unknown method '%s' (did you mean '%s'?)",
                         shown(n, buf), near);
    return fail_node(&L->c, n, "methods", "unknown method '%s' (valid: %s)", shown(n, buf),
                     valid);
}

/* ---- methods defined by their coefficients ------------------------------------------------
 *
 * A `methods:` item that is a mapping defines a method: {name, family, order} and the family's
 * own keys. Each family is one entry of `families` below, with its keys and one function that
 * reads them into a config_user_method (a new family, e.g. Runge-Kutta-Nystrom, is one more
 * entry and one more function). {include: PATH} reads a YAML list of such definitions from
 * PATH (relative to the including config's directory); its errors name that file and line. */

_Static_assert(CONFIG_MAX_USER_METHODS <= OSC_TABLEAU_METHOD_SLOTS,
               "a config's tableau methods fit the library's slots");
#define CONFIG_MAX_INCLUDES 16
#define CONFIG_MAX_DECLARED_ORDER 32

/* One definition being read: where it is, its name and declared order, its node. */
typedef struct definition {
    const ctx *c;
    const ynode *map;
    char prefix[48]; /* "methods[2]": the item's place in its file's list */
    const char *name;
    int order;
} definition;

/* "methods[2].b" */
static const char *def_key(const definition *d, const char *sub, char buf[96])
{
    snprintf(buf, 96, "%s%s%s", d->prefix, sub ? "." : "", sub ? sub : "");
    return buf;
}

/* A coefficient: a number or an exact fraction "A/B", quoted or not ("1/6" is the usual way to
 * write one in YAML); never NaN or Inf. */
static int coefficient(const ctx *c, const ynode *n, const char *key, double *out)
{
    if (n->kind != YN_SCALAR)
        return number(c, n, key, NUM_ANY, out);
    ynode plain = *n;
    plain.plain = true; /* quoting a coefficient does not make it a string */
    return number(c, &plain, key, NUM_ANY, out);
}

/* A list of at most `max` coefficients into v (count in *count), each node into at. */
static int coefficient_list(const definition *d, const ynode *n, const char *sub, size_t max,
                            double *v, const ynode **at, size_t *count)
{
    char key[96];
    def_key(d, sub, key);
    if (n->kind != YN_SEQ)
        return fail_node(d->c, n, key, "expected a list of coefficients, not %s",
                         n->kind == YN_MAP ? "a mapping" : "a single value");
    if (n->nkids > max)
        return fail_node(d->c, n, key, "%zu entries, more than the %zu allowed here", n->nkids,
                         max);
    int bad = 0;
    for (size_t i = 0; i < n->nkids; i++) {
        at[i] = n->kids[i];
        bad |= coefficient(d->c, n->kids[i], key, &v[i]);
    }
    *count = n->nkids;
    return bad;
}

/* ---- family rk: explicit Runge-Kutta by its Butcher tableau ---- */

enum { RK_A, RK_B, RK_C, RK_NKEYS };
static const char *const rk_keys[RK_NKEYS] = {"a", "b", "c"};

/* Nodes of a tableau's entries, for locating osc_tableau_validate's errors (NULL: not given,
 * i.e. 0 or, for c, the row sum of a). */
typedef struct rk_nodes {
    const ynode *a[OSC_TABLEAU_MAX_STAGES][OSC_TABLEAU_MAX_STAGES], *a_rows,
        *b[OSC_TABLEAU_MAX_STAGES], *b_list, *c[OSC_TABLEAU_MAX_STAGES];
} rk_nodes;

/* A strictly lower triangular matrix `sub` (a; abar): a list of rows, row i of at most as many
 * entries as rows (missing ones are 0). The row count is the stage count (1 to 8): *stages. */
static int read_matrix(const definition *d, const ynode *n, const char *sub, int *stages,
                       double m[OSC_TABLEAU_MAX_STAGES][OSC_TABLEAU_MAX_STAGES],
                       const ynode *at[OSC_TABLEAU_MAX_STAGES][OSC_TABLEAU_MAX_STAGES],
                       const ynode **rows)
{
    char key[96];
    def_key(d, sub, key);
    if (!n)
        return fail_node(d->c, d->map, key, "missing: a matrix, a list of rows (one per stage)");
    if (n->kind != YN_SEQ || n->nkids == 0)
        return fail_node(d->c, n, key, "expected a list of rows (one per stage), e.g. "
                                       "[[0], [\"1/2\", 0]]");
    if (n->nkids > OSC_TABLEAU_MAX_STAGES)
        return fail_node(d->c, n, key, "%zu stages, at most %d", n->nkids,
                         OSC_TABLEAU_MAX_STAGES);
    *stages = (int)n->nkids;
    *rows = n;
    int bad = 0;
    for (size_t i = 0; i < n->nkids; i++) {
        const ynode *row = n->kids[i];
        size_t count = 0;
        if (row->kind == YN_SEQ && row->nkids > n->nkids) {
            bad |= fail_node(d->c, row, key, "row %zu has %zu entries, more than the %zu stages",
                             i + 1, row->nkids, n->nkids);
            continue;
        }
        bad |= coefficient_list(d, row, sub, n->nkids, m[i], at[i], &count);
    }
    return bad;
}

/* a: a list of s rows (1 <= s <= 8), row i of at most s entries (missing ones are 0). */
static int rk_read_a(const definition *d, const ynode *n, osc_tableau *t, rk_nodes *at)
{
    return read_matrix(d, n, "a", &t->stages, t->a, at->a, &at->a_rows);
}

/* b (exactly s weights) and c (optional, exactly s nodes; default the row sums of a). */
static int rk_read_bc(const definition *d, const ynode *const *v, osc_tableau *t, rk_nodes *at)
{
    char key[96];
    size_t s = (size_t)t->stages, count = 0;
    int bad = 0;
    if (!v[RK_B])
        bad = fail_node(d->c, d->map, def_key(d, "b", key), "missing: the weights, a list of %zu",
                        s);
    else if (coefficient_list(d, v[RK_B], "b", OSC_TABLEAU_MAX_STAGES, t->b, at->b, &count))
        bad = CONFIG_BAD;
    else if (count != s)
        bad = fail_node(d->c, v[RK_B], def_key(d, "b", key),
                        "%zu weights for %zu stages (a has %zu rows)", count, s, s);
    at->b_list = v[RK_B];
    if (!v[RK_C]) {
        for (size_t i = 0; i < s; i++) /* the row sums, as osc_tableau_validate forms them */
            for (size_t j = 0; j < s; j++)
                t->c[i] += t->a[i][j];
        return bad;
    }
    if (coefficient_list(d, v[RK_C], "c", OSC_TABLEAU_MAX_STAGES, t->c, at->c, &count))
        return CONFIG_BAD;
    if (count != s)
        return fail_node(d->c, v[RK_C], def_key(d, "c", key),
                         "%zu nodes for %zu stages (a has %zu rows)", count, s, s);
    return bad;
}

/* Why coefficients are bounded (OSC_TABLEAU_COEF_MAX, tableau.h), after the entry's value. */
#define TOO_LARGE_WHY "(the sum and order checks cannot resolve their conditions beyond it)"
/* A c the definition does not give is a's row sums: the user wrote no such entry. */
#define C_NOT_GIVEN " (not given: the row sum of a)"

/* OSC_TABLEAU_TOO_LARGE at the entry of a, b or c (a default c: the definition) it names. */
static int rk_too_large(const definition *d, const osc_tableau *t, const rk_nodes *at,
                        osc_tableau_where w, const char *why)
{
    char key[96];
    if (w.row >= 0 && w.col >= 0)
        return fail_node(d->c, at->a[w.row][w.col] ? at->a[w.row][w.col] : at->a_rows,
                         def_key(d, "a", key), "%s: row %d, entry %d is %g " TOO_LARGE_WHY, why,
                         w.row + 1, w.col + 1, t->a[w.row][w.col]);
    if (w.row < 0)
        return fail_node(d->c, at->b[w.col] ? at->b[w.col] : at->b_list, def_key(d, "b", key),
                         "%s: entry %d is %g " TOO_LARGE_WHY, why, w.col + 1, t->b[w.col]);
    return fail_node(d->c, at->c[w.row] ? at->c[w.row] : d->map, def_key(d, "c", key),
                     "%s: c of stage %d%s is %g " TOO_LARGE_WHY, why, w.row + 1,
                     at->c[w.row] ? "" : C_NOT_GIVEN, t->c[w.row]);
}

/* osc_tableau_validate's verdict, located at the entry it names. */
static int rk_validate(const definition *d, const osc_tableau *t, const rk_nodes *at)
{
    osc_tableau_where w;
    osc_tableau_error e = osc_tableau_validate(t, &w);
    if (e == OSC_TABLEAU_OK)
        return 0;
    char key[96];
    const char *why = osc_tableau_error_text(e);
    if (e == OSC_TABLEAU_NOT_EXPLICIT) {
        const ynode *n = at->a[w.row][w.col] ? at->a[w.row][w.col] : at->a_rows;
        return fail_node(d->c, n, def_key(d, "a", key),
                         "%s: row %d, entry %d is %g (a stage may read only earlier stages)",
                         why, w.row + 1, w.col + 1, t->a[w.row][w.col]);
    }
    if (e == OSC_TABLEAU_C_NOT_ROW_SUM) {
        double sum = 0;
        for (int j = 0; j < t->stages; j++)
            sum += t->a[w.row][j];
        const ynode *n = at->c[w.row] ? at->c[w.row] : d->map;
        return fail_node(d->c, n, def_key(d, "c", key),
                         "%s: c of stage %d is %.17g, the sum of a's row %d is %.17g", why,
                         w.row + 1, t->c[w.row], w.row + 1, sum);
    }
    if (e == OSC_TABLEAU_B_SUM) {
        double sum = 0;
        for (int i = 0; i < t->stages; i++)
            sum += t->b[i];
        return fail_node(d->c, at->b_list, def_key(d, "b", key), "%s: they sum to %.17g", why,
                         sum);
    }
    if (e == OSC_TABLEAU_TOO_LARGE)
        return rk_too_large(d, t, at, w, why);
    if (e == OSC_TABLEAU_NOT_FINITE && w.col < 0) /* a c not given: a's row sum overflowed */
        return fail_node(d->c, d->map, def_key(d, "c", key), "%s: c of stage %d" C_NOT_GIVEN
                         " is %g", why, w.row + 1, t->c[w.row]);
    return fail_node(d->c, d->map, d->prefix, "%s", why); /* stages and finiteness: read above */
}

static int define_rk(const definition *d, const ynode *const *v, config_user_method *out)
{
    osc_tableau t = {0};
    rk_nodes at = {0};
    if (rk_read_a(d, v[RK_A], &t, &at) | (t.stages ? rk_read_bc(d, v, &t, &at) : 0))
        return CONFIG_BAD;
    if (rk_validate(d, &t, &at))
        return CONFIG_BAD;
    int rc = osc_method_from_tableau(&t, d->name, d->order, &out->method);
    if (rc == OSC_ENOMEM)
        return fail_node(d->c, d->map, d->prefix,
                         "no free method slot: at most %d methods defined by coefficients "
                         "per process", OSC_TABLEAU_METHOD_SLOTS);
    if (rc != OSC_OK)
        return fail_node(d->c, d->map, d->prefix, "cannot make a method of this tableau");
    out->family = "rk";
    out->release = osc_tableau_method_release;
    out->coefficient_order = out->coefficient_order_undamped = osc_tableau_coefficient_order(&t);
    out->linear_order = out->linear_order_undamped = osc_tableau_linear_order(&t);
    return 0;
}

/* ---- family rkn: explicit Runge-Kutta-Nystrom (rkn.h's form) ---- */

enum { RKN_ABAR, RKN_A, RKN_BBAR, RKN_B, RKN_C, RKN_NKEYS };
static const char *const rkn_keys[RKN_NKEYS] = {"abar", "a", "bbar", "b", "c"};

typedef struct rkn_nodes {
    const ynode *abar[OSC_RKN_MAX_STAGES][OSC_RKN_MAX_STAGES], *abar_rows;
    const ynode *a[OSC_RKN_MAX_STAGES][OSC_RKN_MAX_STAGES], *a_rows;
    const ynode *bbar[OSC_RKN_MAX_STAGES], *bbar_list, *b[OSC_RKN_MAX_STAGES], *b_list;
    const ynode *c[OSC_RKN_MAX_STAGES], *c_list;
} rkn_nodes;

_Static_assert(OSC_RKN_MAX_STAGES == OSC_TABLEAU_MAX_STAGES, "one matrix reader for both");

/* A list of exactly s coefficients `sub` (required unless v is NULL and optional). */
static int rkn_read_list(const definition *d, const ynode *n, const char *sub, int s, double *v,
                         const ynode **at, const ynode **list)
{
    char key[96];
    size_t count = 0;
    *list = n;
    if (!n)
        return fail_node(d->c, d->map, def_key(d, sub, key), "missing: a list of %d coefficients",
                         s);
    if (coefficient_list(d, n, sub, OSC_RKN_MAX_STAGES, v, at, &count))
        return CONFIG_BAD;
    if (count != (size_t)s)
        return fail_node(d->c, n, def_key(d, sub, key), "%zu entries for %d stages (abar has %d "
                         "rows)", count, s, s);
    return 0;
}

/* OSC_RKN_TOO_LARGE: the entry w names, and its value. */
static int rkn_too_large(const definition *d, const osc_rkn_tableau *t, osc_rkn_where w,
                         const ynode *n, bool c_given, const char *key, const char *why)
{
    switch (w.field) {
    case OSC_RKN_FIELD_ABAR:
    case OSC_RKN_FIELD_A:
        return fail_node(d->c, n, key, "%s: row %d, entry %d is %g " TOO_LARGE_WHY, why,
                         w.row + 1, w.col + 1,
                         (w.field == OSC_RKN_FIELD_A ? t->a : t->abar)[w.row][w.col]);
    case OSC_RKN_FIELD_BBAR:
    case OSC_RKN_FIELD_B:
        return fail_node(d->c, n, key, "%s: entry %d is %g " TOO_LARGE_WHY, why, w.col + 1,
                         (w.field == OSC_RKN_FIELD_B ? t->b : t->bbar)[w.col]);
    default:
        return fail_node(d->c, n, key, "%s: c of stage %d%s is %g " TOO_LARGE_WHY, why, w.row + 1,
                         c_given ? "" : C_NOT_GIVEN, t->c[w.row]);
    }
}

/* osc_rkn_validate's verdict, located at the entry (or list) it names. */
static int rkn_validate(const definition *d, const osc_rkn_tableau *t, const rkn_nodes *at)
{
    osc_rkn_where w;
    osc_rkn_error e = osc_rkn_validate(t, &w);
    if (e == OSC_RKN_OK)
        return 0;
    char key[96];
    const ynode *n = d->map;
    switch (w.field) {
    case OSC_RKN_FIELD_ABAR:
        n = w.row >= 0 && w.col >= 0 && at->abar[w.row][w.col] ? at->abar[w.row][w.col]
                                                                : at->abar_rows;
        break;
    case OSC_RKN_FIELD_A:
        n = w.row >= 0 && w.col >= 0 && at->a[w.row][w.col] ? at->a[w.row][w.col] : at->a_rows;
        break;
    case OSC_RKN_FIELD_BBAR:
        n = w.col >= 0 && at->bbar[w.col] ? at->bbar[w.col] : at->bbar_list;
        break;
    case OSC_RKN_FIELD_B:
        n = w.col >= 0 && at->b[w.col] ? at->b[w.col] : at->b_list;
        break;
    case OSC_RKN_FIELD_C:
        n = w.row >= 0 && at->c[w.row] ? at->c[w.row] : at->c_list;
        break;
    default:
        break;
    }
    const char *why = osc_rkn_error_text(e);
    def_key(d, osc_rkn_field_name(w.field), key);
    if (e == OSC_RKN_BBAR_SUM || e == OSC_RKN_B_SUM) {
        double sum = 0;
        for (int i = 0; i < t->stages; i++)
            sum += e == OSC_RKN_B_SUM ? t->b[i] : t->bbar[i];
        return fail_node(d->c, n ? n : d->map, key, "%s: they sum to %.17g", why, sum);
    }
    if (e == OSC_RKN_TOO_LARGE)
        return rkn_too_large(d, t, w, n ? n : d->map, at->c_list != NULL, key, why);
    if (e == OSC_RKN_NOT_FINITE && w.field == OSC_RKN_FIELD_C && !at->c_list) /* as in rk */
        return fail_node(d->c, d->map, key, "%s: c of stage %d" C_NOT_GIVEN " is %g", why,
                         w.row + 1, t->c[w.row]);
    if (e == OSC_RKN_NOT_EXPLICIT) { /* the library's text names both matrices; say which */
        const double(*m)[OSC_RKN_MAX_STAGES] = w.field == OSC_RKN_FIELD_A ? t->a : t->abar;
        return fail_node(d->c, n ? n : d->map, key,
                         "%s is not strictly lower triangular (not explicit): row %d, entry %d is "
                         "%g (a stage may read only earlier stages)",
                         osc_rkn_field_name(w.field), w.row + 1, w.col + 1, m[w.row][w.col]);
    }
    if (w.row >= 0 && w.col >= 0)
        return fail_node(d->c, n ? n : d->map, key, "%s: row %d, entry %d", why, w.row + 1,
                         w.col + 1);
    if (w.row >= 0 || w.col >= 0)
        return fail_node(d->c, n ? n : d->map, key, "%s: entry %d", why,
                         (w.row >= 0 ? w.row : w.col) + 1);
    return fail_node(d->c, n ? n : d->map, key, "%s", why);
}

static int define_rkn(const definition *d, const ynode *const *v, config_user_method *out)
{
    osc_rkn_tableau t = {0};
    rkn_nodes at = {0};
    int stages_a = 0;
    int bad = read_matrix(d, v[RKN_ABAR], "abar", &t.stages, t.abar, at.abar, &at.abar_rows);
    if (!t.stages)
        return CONFIG_BAD;
    bad |= read_matrix(d, v[RKN_A], "a", &stages_a, t.a, at.a, &at.a_rows);
    char key[96];
    if (stages_a && stages_a != t.stages)
        bad |= fail_node(d->c, v[RKN_A], def_key(d, "a", key),
                         "%d rows, but abar has %d (one row per stage in each)", stages_a,
                         t.stages);
    bad |= rkn_read_list(d, v[RKN_BBAR], "bbar", t.stages, t.bbar, at.bbar, &at.bbar_list);
    bad |= rkn_read_list(d, v[RKN_B], "b", t.stages, t.b, at.b, &at.b_list);
    if (v[RKN_C])
        bad |= rkn_read_list(d, v[RKN_C], "c", t.stages, t.c, at.c, &at.c_list);
    else /* the row sums of a, as osc_rkn_validate forms them */
        for (int i = 0; i < t.stages; i++)
            for (int j = 0; j < t.stages; j++)
                t.c[i] += t.a[i][j];
    if (bad || rkn_validate(d, &t, &at))
        return CONFIG_BAD;
    int rc = osc_method_from_rkn(&t, d->name, d->order, &out->method);
    if (rc == OSC_ENOMEM)
        return fail_node(d->c, d->map, d->prefix,
                         "no free method slot: at most %d Runge-Kutta-Nystrom methods per "
                         "process", OSC_RKN_METHOD_SLOTS);
    if (rc != OSC_OK)
        return fail_node(d->c, d->map, d->prefix, "cannot make a method of this tableau");
    out->family = "rkn";
    out->release = osc_rkn_method_release;
    /* with drag the force depends on v: the general (velocity-dependent) conditions */
    out->coefficient_order = osc_rkn_coefficient_order(&t, true);
    out->linear_order = osc_rkn_linear_order(&t, true);
    out->coefficient_order_undamped = osc_rkn_coefficient_order(&t, false);
    out->linear_order_undamped = osc_rkn_linear_order(&t, false);
    return 0;
}

/* ---- family composition: substeps of a built-in method (composition.h) ---- */

enum { COMP_BASE, COMP_WEIGHTS, COMP_SYMMETRIC, COMP_NKEYS };
static const char *const comp_keys[COMP_NKEYS] = {"base", "weights", "symmetric"};

/* symmetric: true or false (default false). */
static int comp_symmetric(const definition *d, const ynode *n, bool *out)
{
    char key[96];
    *out = false;
    if (!n)
        return 0;
    if (n->kind == YN_SCALAR && n->plain && (!strcmp(n->text, "true") || !strcmp(n->text, "false"))) {
        *out = n->text[0] == 't';
        return 0;
    }
    return fail_node(d->c, n, def_key(d, "symmetric", key), "expected true or false");
}

/* base: a built-in method whose state is (x, v) (composition.h lists them). */
static int comp_base(const definition *d, const ynode *n, const osc_method **out)
{
    char key[96], buf[48], valid[512] = "";
    def_key(d, "base", key);
    if (!n)
        return fail_node(d->c, d->map, key, "missing: the built-in method to compose");
    for (size_t i = 0, used = 0; i < osc_method_count() && used < sizeof valid; i++)
        if (osc_composition_base_ok(osc_method_at(i)))
            used += (size_t)snprintf(valid + used, sizeof valid - used, "%s%s", used ? ", " : "",
                                     osc_method_at(i)->name);
    if (n->kind != YN_SCALAR)
        return fail_node(d->c, n, key, "expected a method name (valid: %s)", valid);
    *out = osc_method_find(n->text);
    if (!*out)
        return fail_node(d->c, n, key, "unknown built-in method '%s' (valid: %s)", shown(n, buf),
                         valid);
    if (!osc_composition_base_ok(*out))
        return fail_node(d->c, n, key, "'%s' cannot be composed: its state is not (x, v) as "
                         "given (valid: %s)", n->text, valid);
    return 0;
}

static int define_composition(const definition *d, const ynode *const *v, config_user_method *out)
{
    const osc_method *base = NULL;
    double w[OSC_COMPOSITION_MAX_SUBSTEPS];
    const ynode *at[OSC_COMPOSITION_MAX_SUBSTEPS];
    size_t count = 0;
    bool symmetric = false;
    char key[96];
    int bad = comp_base(d, v[COMP_BASE], &base);
    bad |= comp_symmetric(d, v[COMP_SYMMETRIC], &symmetric);
    if (!v[COMP_WEIGHTS])
        bad |= fail_node(d->c, d->map, def_key(d, "weights", key),
                         "missing: the substeps' weights, a list");
    else
        bad |= coefficient_list(d, v[COMP_WEIGHTS], "weights", OSC_COMPOSITION_MAX_SUBSTEPS, w,
                                at, &count);
    if (bad)
        return CONFIG_BAD;
    int where = -1;
    osc_composition_error e =
        osc_composition_validate(base, w, (int)count, symmetric, &where);
    if (e == OSC_COMPOSITION_SUM) {
        double sum = 0;
        for (int k = 0; k < osc_composition_substeps((int)count, symmetric); k++)
            sum += osc_composition_substep_weight(w, (int)count, k);
        return fail_node(d->c, v[COMP_WEIGHTS], def_key(d, "weights", key),
                         "%s: the %d substeps' weights sum to %.17g%s", osc_composition_error_text(e),
                         osc_composition_substeps((int)count, symmetric), sum,
                         symmetric ? " (symmetric: the list mirrored about its last entry)" : "");
    }
    if (e == OSC_COMPOSITION_TOO_LARGE)
        return fail_node(d->c, at[where], def_key(d, "weights", key),
                         "%s: entry %d is %g " TOO_LARGE_WHY, osc_composition_error_text(e),
                         where + 1, w[where]);
    if (e == OSC_COMPOSITION_BAD_COUNT)
        return fail_node(d->c, v[COMP_WEIGHTS], def_key(d, "weights", key), "%s: %d%s",
                         osc_composition_error_text(e),
                         osc_composition_substeps((int)count, symmetric),
                         symmetric ? " (symmetric: the list mirrored about its last entry)" : "");
    if (e != OSC_COMPOSITION_OK) /* the base and finiteness: read above */
        return fail_node(d->c, where >= 0 ? at[where] : v[COMP_WEIGHTS],
                         def_key(d, "weights", key), "%s", osc_composition_error_text(e));
    int rc = osc_method_from_composition(base, w, (int)count, symmetric, d->name, d->order,
                                         &out->method);
    if (rc == OSC_ENOMEM)
        return fail_node(d->c, d->map, d->prefix,
                         "no free method slot: at most %d compositions per process",
                         OSC_COMPOSITION_METHOD_SLOTS);
    if (rc != OSC_OK)
        return fail_node(d->c, d->map, d->prefix, "cannot make a method of this composition");
    out->family = "composition";
    out->release = osc_composition_method_release;
    out->base = base;
    out->substeps = osc_composition_substeps((int)count, symmetric);
    /* With drag the base's damped order and symmetry (verlet: 1, not symmetric), without its
     * own. On the linear problem: measured from the base's reference (composition.h). */
    out->coefficient_order = osc_composition_coefficient_order(
        w, (int)count, symmetric, base->order_damped, base->symmetric_damped);
    out->coefficient_order_undamped =
        base->order == base->order_damped && base->symmetric == base->symmetric_damped
            ? out->coefficient_order
            : osc_composition_coefficient_order(w, (int)count, symmetric, base->order,
                                                base->symmetric);
    out->linear_order = osc_composition_linear_order(base, w, (int)count, symmetric, true);
    out->linear_order_undamped =
        osc_composition_linear_order(base, w, (int)count, symmetric, false);
    return 0;
}

/* ---- the families ---- */

typedef struct family_spec {
    const char *name;
    const char *about; /* for messages */
    const char *const *keys;
    size_t nkeys;
    /* Read the family's keys (v[i]: the value of keys[i] or NULL) into out->method (which
     * then holds a library slot) and out's orders; CONFIG_BAD after reporting. */
    int (*define)(const definition *d, const ynode *const *v, config_user_method *out);
} family_spec;

static const family_spec families[] = {
    {"rk", "explicit Runge-Kutta by its Butcher tableau (a, b, c)", rk_keys, RK_NKEYS, define_rk},
    {"rkn", "explicit Runge-Kutta-Nystrom (abar, a, bbar, b, c)", rkn_keys, RKN_NKEYS,
     define_rkn},
    {"composition", "substeps of a built-in method (base, weights, symmetric)", comp_keys,
     COMP_NKEYS, define_composition},
};
#define NFAMILIES (sizeof families / sizeof families[0])

enum { D_NAME, D_FAMILY, D_ORDER, D_COMMON };
static const char *const def_common_keys[D_COMMON] = {"name", "family", "order"};
#define DEF_MAX_KEYS 16

static const ynode *map_value(const ynode *map, const char *key)
{
    for (size_t p = 0; p + 1 < map->nkids; p += 2)
        if (map->kids[p]->kind == YN_SCALAR && strcmp(map->kids[p]->text, key) == 0)
            return map->kids[p + 1];
    return NULL;
}

static const family_spec *family_of(const definition *d)
{
    char key[96], buf[48], valid[256] = "";
    const ynode *n = map_value(d->map, "family");
    for (size_t i = 0; i < NFAMILIES; i++) {
        if (n && n->kind == YN_SCALAR && strcmp(n->text, families[i].name) == 0)
            return &families[i];
        size_t used = strlen(valid);
        snprintf(valid + used, sizeof valid - used, "%s%s (%s)", i ? ", " : "", families[i].name,
                 families[i].about);
    }
    def_key(d, "family", key);
    if (!n)
        fail_node(d->c, d->map, key, "missing (valid: %s)", valid);
    else if (n->kind != YN_SCALAR)
        fail_node(d->c, n, key, "expected a family name, not %s (valid: %s)", kind_name(n->kind),
                  valid);
    else {
        size_t best = 0, dist = SIZE_MAX;
        for (size_t i = 0; i < NFAMILIES; i++)
            if (edit_distance(n->text, families[i].name) < dist)
                dist = edit_distance(n->text, families[best = i].name);
        if (dist <= 2)
            fail_node(d->c, n, key, "unknown family '%s' (did you mean '%s'?)", shown(n, buf),
                      families[best].name);
        else
            fail_node(d->c, n, key, "unknown family '%s' (valid: %s)", shown(n, buf), valid);
    }
    return NULL;
}

/* The definition's name: like a run name, 1 to OSC_TABLEAU_NAME_MAX - 1 characters, and not
 * the name of a registry method or of another definition. */
static int def_name(loader *L, definition *d, const ynode *n)
{
    char key[96], buf[48];
    def_key(d, "name", key);
    if (!n)
        return fail_node(d->c, d->map, key, "missing: the method's name");
    if (n->kind != YN_SCALAR)
        return fail_node(d->c, n, key, "expected a string, not %s", kind_name(n->kind));
    size_t len = strlen(n->text);
    bool ok = len >= 1 && len < OSC_TABLEAU_NAME_MAX && n->text[0] != '.';
    for (size_t i = 0; ok && i < len; i++)
        ok = name_char_ok(n->text[i]);
    if (!ok && len >= OSC_TABLEAU_NAME_MAX)
        return fail_node(d->c, n, key, "%zu characters, at most %d: '%s'", len,
                         OSC_TABLEAU_NAME_MAX - 1, shown(n, buf));
    if (!ok)
        return fail_node(d->c, n, key,
                         "expected 1 to %d of A-Z a-z 0-9 . _ - + not starting with '.', got "
                         "'%s'", OSC_TABLEAU_NAME_MAX - 1, shown(n, buf));
    if (osc_method_find(n->text))
        return fail_node(d->c, n, key, "'%s' is a built-in method (oscbench methods): choose "
                                       "another name", n->text);
    for (size_t i = 0; i < L->cfg->nuser_methods; i++)
        if (strcmp(L->cfg->user_methods[i].method.name, n->text) == 0)
            return fail_node(d->c, n, key, "'%s' is defined twice (first at %s)", n->text,
                             L->defined_at[i]);
    d->name = n->text;
    return 0;
}

/* Append m to the run's methods; a method listed twice is an error at `at`. */
static int add_method(loader *L, const ctx *c, const osc_method *m, const ynode *at)
{
    osc_config *cfg = L->cfg;
    for (size_t j = 0; j < cfg->nmethods; j++)
        if (cfg->methods[j] == m)
            return fail_node(c, at, "methods", "'%s' listed twice", m->name);
    const osc_method **grown = realloc(cfg->methods, (cfg->nmethods + 1) * sizeof *grown);
    if (!grown)
        return fail_at(c, 0, 0, NULL, "out of memory");
    cfg->methods = grown;
    cfg->methods[cfg->nmethods++] = m;
    return 0;
}

/* One definition (item `index` of its file's method list): define it and add it to the run. */
static int define_method(loader *L, const ctx *c, const ynode *map, size_t index)
{
    definition d = {.c = c, .map = map};
    snprintf(d.prefix, sizeof d.prefix, "methods[%zu]", index);
    const family_spec *fam = family_of(&d);
    if (!fam)
        return CONFIG_BAD;
    const char *names[DEF_MAX_KEYS];
    const ynode *keys[DEF_MAX_KEYS], *v[DEF_MAX_KEYS];
    size_t nnames = D_COMMON + fam->nkeys;
    memcpy(names, def_common_keys, sizeof def_common_keys);
    memcpy(names + D_COMMON, fam->keys, fam->nkeys * sizeof *names);
    char prefix[64], key[96];
    snprintf(prefix, sizeof prefix, "%s.", d.prefix);
    int bad = fields(c, map, prefix, names, nnames, keys, v);
    bad |= def_name(L, &d, v[D_NAME]);
    long order = 0;
    if (!v[D_ORDER])
        bad |= fail_node(c, map, def_key(&d, "order", key),
                         "missing: the declared order (a whole number >= 1)");
    else
        bad |= whole(c, v[D_ORDER], def_key(&d, "order", key), 1, CONFIG_MAX_DECLARED_ORDER,
                     &order);
    d.order = (int)order;
    if (bad) { /* the coefficients' errors too, in the same run: define, then give it back */
        config_user_method scratch = {0};
        d.name = "unnamed", d.order = 1;
        if (!fam->define(&d, v + D_COMMON, &scratch) && scratch.release)
            scratch.release(&scratch.method);
        return CONFIG_BAD;
    }
    if (L->cfg->nuser_methods == CONFIG_MAX_USER_METHODS)
        return fail_node(c, map, d.prefix, "more than %d methods defined by coefficients",
                         CONFIG_MAX_USER_METHODS);
    if (!L->cfg->user_methods &&
        !(L->cfg->user_methods = calloc(CONFIG_MAX_USER_METHODS, sizeof *L->cfg->user_methods)))
        return fail_at(c, 0, 0, NULL, "out of memory");
    config_user_method *um = &L->cfg->user_methods[L->cfg->nuser_methods];
    if (fam->define(&d, v + D_COMMON, um))
        return CONFIG_BAD;
    char buf[sizeof L->defined_at[0] - 12]; /* leaves room for ":LINE" */
    snprintf(L->defined_at[L->cfg->nuser_methods], sizeof L->defined_at[0], "%s:%d",
             shortened(c->path, buf, sizeof buf), map->line);
    L->cfg->nuser_methods++;
    return add_method(L, c, &um->method, map);
}

/* The included file's path: as given if absolute, else relative to the config's directory. */
static char *include_path(const char *config_path, const char *given)
{
    const char *slash = strrchr(config_path, '/');
    size_t dir = given[0] == '/' || !slash ? 0 : (size_t)(slash - config_path) + 1;
    size_t len = dir + strlen(given) + 1;
    char *path = malloc(len);
    if (path)
        snprintf(path, len, "%.*s%s", (int)dir, config_path, given);
    return path;
}

/* A regular file (never a FIFO or a device, which could block or never end), whole. */
static int read_include(const ctx *c, char **out, size_t *len)
{
    int fd = open(c->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fail_at(c, 0, 0, NULL, "cannot open: %s", strerror(errno));
    struct stat st;
    int e = fstat(fd, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : 0;
    if (!e && st.st_size > (off_t)CONFIG_MAX_BYTES)
        e = EFBIG;
    if (!e)
        e = read_capped(fd, (size_t)st.st_size, out, len);
    close(fd);
    if (!e && *len > CONFIG_MAX_BYTES) {
        free(*out);
        e = EFBIG;
    }
    if (e == EINVAL)
        return fail_at(c, 0, 0, NULL, "cannot include: not a regular file");
    if (e == EFBIG)
        return fail_at(c, 0, 0, NULL, "larger than %u MiB", CONFIG_MAX_BYTES >> 20);
    return e ? fail_at(c, 0, 0, NULL, "cannot read: %s", strerror(e)) : 0;
}

/* The provenance line that heads an included file's text: "--- include PATH (N bytes)\n", the
 * path whole, as the config gives it (malloc'd; NULL if out of memory). */
static char *include_header(const char *path, size_t len)
{
    const char *fmt = "--- include %s (%zu bytes)\n";
    int n = snprintf(NULL, 0, fmt, path, len);
    char *head = n > 0 ? malloc((size_t)n + 1) : NULL;
    if (head)
        snprintf(head, (size_t)n + 1, fmt, path, len);
    return head;
}

/* Record what was read, for provenance (results file) and for --resume's manifest: its header
 * line, then the text. */
static int keep_included(loader *L, const char *head, const char *text, size_t len)
{
    size_t old = L->cfg->included_text ? strlen(L->cfg->included_text) : 0, n = strlen(head);
    char *grown = realloc(L->cfg->included_text, old + n + len + 1);
    if (!grown)
        return -1;
    memcpy(grown + old, head, n);
    memcpy(grown + old + n, text, len);
    grown[old + n + len] = '\0';
    L->cfg->included_text = grown;
    return 0;
}

/* The definitions of an included file's list, each defined and added to the run. */
static int define_included(loader *L, const ctx *ic, const ynode *root)
{
    if (!root || root->kind != YN_SEQ || root->nkids == 0)
        return fail_at(ic, root ? root->line : 1, root ? root->col : 1, NULL,
                       "expected a list of method definitions (mappings with name, family, "
                       "order and the family's coefficients)");
    int bad = 0;
    for (size_t i = 0; i < root->nkids; i++) {
        const ynode *item = root->kids[i];
        char key[48];
        snprintf(key, sizeof key, "methods[%zu]", i);
        if (item->kind != YN_MAP)
            bad |= fail_node(ic, item, key, "expected a method definition (a mapping)");
        else if (map_value(item, "include"))
            bad |= fail_node(ic, item, key, "an included file cannot include another");
        else
            bad |= define_method(L, ic, item, i);
    }
    return bad;
}

/* {include: PATH}: every definition of PATH's list. */
static int include_methods(loader *L, const ynode *map, size_t index)
{
    char prefix[64], key[80], from[64], buf[48];
    snprintf(prefix, sizeof prefix, "methods[%zu].", index);
    snprintf(key, sizeof key, "%sinclude", prefix);
    static const char *const include_key[] = {"include"};
    const ynode *k, *v;
    if (fields(&L->c, map, prefix, include_key, 1, &k, &v))
        return CONFIG_BAD;
    if (v->kind != YN_SCALAR || v->text[0] == '\0')
        return fail_node(&L->c, v, key, "expected a file name");
    if (++L->includes > CONFIG_MAX_INCLUDES)
        return fail_node(&L->c, v, key, "more than %d includes", CONFIG_MAX_INCLUDES);
#ifdef OSC_CONFIG_FUZZ
    return fail_node(&L->c, v, key, "'%s' not read: the fuzz target reads no files",
                     shown(v, buf));
#else
    (void)buf;
#endif
    snprintf(from, sizeof from, "%d:%d", v->line, v->col);
    char *path = include_path(L->c.path, v->text), *where = NULL;
    size_t where_len = path ? strlen(L->c.path) + strlen(from) + 2 : 0;
    if (path && (where = malloc(where_len)))
        snprintf(where, where_len, "%s:%s", L->c.path, from);
    if (!path || !where) {
        free(path), free(where);
        return fail_at(&L->c, 0, 0, NULL, "out of memory");
    }
    ctx ic = {.path = path, .err = L->c.err, .errlen = L->c.errlen, .collect = true, .from = where,
              .tally = L->c.tally};
    char *text = NULL;
    size_t len = 0;
    ynode *root = NULL;
    int rc = read_include(&ic, &text, &len);
    if (!rc)
        rc = reject_nul(&ic, text, len) || parse_tree(&ic, text, len, &root);
    char *head = rc ? NULL : include_header(v->text, len); /* as written: the same from any cwd */
    if (!rc && !head)
        rc = fail_at(&L->c, 0, 0, NULL, "out of memory");
    size_t kept = strlen(L->cfg->text) + (L->cfg->included_text ? strlen(L->cfg->included_text)
                                                                    : 0);
    /* all of it, header lines too, goes to the checkpoint's manifest */
    if (!rc && kept + strlen(head) + len > CONFIG_MAX_BYTES)
        rc = fail_node(&L->c, v, key, "the config and the files it includes exceed %u MiB "
                                      "together", CONFIG_MAX_BYTES >> 20);
    if (!rc && keep_included(L, head, text, len))
        rc = fail_at(&L->c, 0, 0, NULL, "out of memory");
    free(head);
    if (!rc)
        rc = define_included(L, &ic, root);
    ynode_free(root);
    free(text), free(path), free(where);
    return rc ? CONFIG_BAD : 0;
}

static int load_methods(loader *L)
{
    const ynode *n = L->vals[K_METHODS];
    bool all = !n || (n->kind == YN_SCALAR && strcmp(n->text, "all") == 0);
    if (n && n->kind == YN_MAP)
        return fail_node(&L->c, n, "methods", "expected a list of method names, not a mapping");
    if (n && n->kind == YN_SEQ && n->nkids == 0)
        return fail_node(&L->c, n, "methods", "expected at least one method");
    if (all) {
        for (size_t i = 0; i < osc_method_count(); i++)
            if (add_method(L, &L->c, osc_method_at(i), n))
                return CONFIG_BAD;
        return 0;
    }
    size_t count = n->kind == YN_SEQ ? n->nkids : 1;
    int bad = 0;
    for (size_t i = 0; i < count; i++) {
        const ynode *item = n->kind == YN_SEQ ? n->kids[i] : n;
        const osc_method *m = NULL;
        if (item->kind == YN_MAP)
            bad |= map_value(item, "include") ? include_methods(L, item, i)
                                              : define_method(L, &L->c, item, i);
        else if (method_of(L, item, &m) || add_method(L, &L->c, m, item))
            return CONFIG_BAD; /* as before definitions: the first bad name ends the list */
    }
    return bad;
}

static int load_precision_dim(loader *L)
{
    static const char *const precisions[] = {"double", "float"};
    size_t p = 0;
    int bad = 0;
    if (L->vals[K_PRECISION])
        bad |= one_of(&L->c, L->vals[K_PRECISION], "precision", "precision", precisions, 2, &p);
    L->cfg->precision = p == 1 ? OSC_FLOAT : OSC_DOUBLE;
    long dim = 1;
    if (L->vals[K_DIM] && whole(&L->c, L->vals[K_DIM], "dim", 1, OSC_MAX_DIM, &dim)) {
        L->dim_bad = true;
        return CONFIG_BAD;
    }
    L->cfg->dim = (int)dim;
    return bad ? CONFIG_BAD : 0;
}

/* x0 or v0: a number for every axis, or a list of exactly dim numbers. */
static int load_vector(loader *L, int k, double def, double out[OSC_MAX_DIM])
{
    const ynode *n = L->vals[k];
    const char *key = key_names[k];
    for (int a = 0; a < OSC_MAX_DIM; a++)
        out[a] = def;
    if (!n)
        return 0;
    if (n->kind != YN_SEQ) {
        if (number(&L->c, n, key, NUM_ANY, &out[0]))
            return CONFIG_BAD;
        for (int a = 1; a < OSC_MAX_DIM; a++)
            out[a] = out[0];
        return 0;
    }
    if (L->dim_bad)
        return 0;
    if (n->nkids != (size_t)L->cfg->dim)
        return fail_node(&L->c, n, key, "expected %d number%s (dim is %d), got %zu",
                         L->cfg->dim, L->cfg->dim > 1 ? "s" : "", L->cfg->dim, n->nkids);
    for (int a = 0; a < L->cfg->dim; a++)
        if (number(&L->c, n->kids[a], key, NUM_ANY, &out[a]))
            return CONFIG_BAD;
    return 0;
}

/* The later of two keys in the file (to blame for giving both). */
static const ynode *later_key(const loader *L, int a, int b)
{
    const ynode *ka = L->keys[a], *kb = L->keys[b];
    bool b_later = kb->line > ka->line || (kb->line == ka->line && kb->col > ka->col);
    return b_later ? kb : ka;
}

/* One swept axis given by either of two keys (stiffness or omega0, drag or zeta, dt or
 * rate_hz): parsed into *spec, *by_second set when the second key gave it. A missing axis is
 * an error when `required`, named after the first key. */
static int load_axis(loader *L, int first, int second, bool required, num_rule rule,
                     sweep_spec *spec, bool *by_second)
{
    const ynode *a = L->vals[first], *b = L->vals[second];
    *by_second = !a && b;
    if (a && b) {
        const ynode *later = later_key(L, first, second);
        return fail_node(&L->c, later, later->text, "give %s or %s, not both",
                         key_names[first], key_names[second]);
    }
    if (!a && !b)
        return required ? fail_node(&L->c, L->root, key_names[first],
                                    "missing, a required key (or give %s instead)",
                                    key_names[second])
                        : 0;
    return parse_sweep(&L->c, a ? a : b, key_names[a ? first : second], rule, spec);
}

/* The mass axis: a number, a list or a range like the other swept keys. omega0 and zeta divide
 * by the mass (omega0 = sqrt(k/m), zeta = c / (2 sqrt(k m))): with them every mass must be > 0,
 * which a range meets when neither end is 0 (its values lie between its ends). */
static int load_mass(loader *L)
{
    const ynode *n = L->vals[K_MASS];
    if (!n)
        return 0;
    if (parse_sweep(&L->c, n, "mass", NUM_NONNEG, &L->mass))
        return CONFIG_BAD;
    if (!L->by_omega0 && !L->by_zeta)
        return 0;
    const char *by = L->by_omega0 ? "omega0" : "zeta";
    if (L->mass.is_range && (L->mass.from == 0 || L->mass.to == 0))
        return fail_node(&L->c, n, "mass", "expected every mass > 0 with %s (mass 0 pins a "
                                           "lane), but the range reaches 0", by);
    for (size_t i = 0; !L->mass.is_range && i < L->mass.count; i++)
        if (L->mass.values[i] == 0)
            return fail_node(&L->c, n->kind == YN_SEQ ? n->kids[i] : n, "mass",
                             "expected a mass > 0 with %s (mass 0 pins a lane)", by);
    return 0;
}

static int load_physics(loader *L)
{
    osc_config *cfg = L->cfg;
    int bad = 0;
    bad |= load_axis(L, K_STIFFNESS, K_OMEGA0, true, NUM_NONNEG, &L->stiffness, &L->by_omega0);
    bad |= load_axis(L, K_DRAG, K_ZETA, false, NUM_NONNEG, &L->drag, &L->by_zeta);
    bad |= load_axis(L, K_DT, K_RATE_HZ, true, NUM_POSITIVE, &L->dt, &L->by_rate);
    cfg->gravity = 0;
    if (L->vals[K_GRAVITY])
        bad |= number(&L->c, L->vals[K_GRAVITY], "gravity", NUM_ANY, &cfg->gravity);
    bad |= load_mass(L);
    bad |= load_vector(L, K_X0, 1.0, cfg->x0);
    bad |= load_vector(L, K_V0, 0.0, cfg->v0);
    return bad ? CONFIG_BAD : 0;
}

static int load_duration(loader *L)
{
    osc_config *cfg = L->cfg;
    const ynode *t_end = L->vals[K_T_END], *steps = L->vals[K_STEPS];
    if (!t_end && !steps)
        return fail_node(&L->c, L->root, "t_end", "missing: give t_end or steps");
    if (t_end && steps) {
        const ynode *later = later_key(L, K_T_END, K_STEPS);
        return fail_node(&L->c, later, later->text, "give t_end or steps, not both");
    }
    cfg->t_end = 0;
    cfg->steps = -1;
    if (t_end)
        return number(&L->c, t_end, "t_end", NUM_POSITIVE, &cfg->t_end);
    return whole(&L->c, steps, "steps", 1, CONFIG_MAX_STEPS, &cfg->steps);
}

static const char *const trace_names[] = {"every", "points", "where", "methods"};

typedef struct listed_row {
    size_t row, index;
} listed_row;

static int by_row_then_index(const void *pa, const void *pb)
{
    const listed_row *a = pa, *b = pb;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* The index of the first entry of rows[0..n) that repeats an earlier one, or n: sorted by (row,
 * index), each repeat follows its first listing (n log n: the list may hold 10^6 rows). */
static size_t first_repeat(const size_t *rows, size_t n)
{
    listed_row *sorted = malloc(n * sizeof *sorted);
    size_t first = n;
    for (size_t i = 0; sorted && i < n; i++)
        sorted[i] = (listed_row){rows[i], i};
    if (sorted && n > 1)
        qsort(sorted, n, sizeof *sorted, by_row_then_index);
    for (size_t i = 1; sorted && i < n; i++)
        if (sorted[i].row == sorted[i - 1].row && sorted[i].index < first)
            first = sorted[i].index;
    free(sorted);
    return first;
}

static int load_trace_points(loader *L, const ynode *n)
{
    osc_config *cfg = L->cfg;
    size_t count = n->kind == YN_SEQ ? n->nkids : 1;
    if (n->kind == YN_MAP)
        return fail_node(&L->c, n, "trace.points", "expected a list of rows, not a mapping");
    cfg->trace_points = calloc(count ? count : 1, sizeof *cfg->trace_points);
    if (!cfg->trace_points)
        return fail_at(&L->c, 0, 0, NULL, "out of memory");
    for (size_t i = 0; i < count; i++) {
        long row = 0;
        if (whole(&L->c, n->kind == YN_SEQ ? n->kids[i] : n, "trace.points", 0,
                  CONFIG_MAX_STEPS, &row))
            return CONFIG_BAD;
        cfg->trace_points[i] = (size_t)row;
        cfg->ntrace_points = i + 1;
    }
    /* each row is one /traces group: a repeat would fail the results file after the whole run */
    size_t again = count > 1 ? first_repeat(cfg->trace_points, count) : count;
    if (again < count)
        return fail_node(&L->c, n->kids[again], "trace.points", "row %zu listed twice",
                         cfg->trace_points[again]);
    return 0;
}

static int load_trace(loader *L)
{
    const ynode *n = L->vals[K_TRACE];
    L->cfg->trace = n != NULL;
    L->cfg->trace_every = 1;
    if (!n)
        return 0;
    const ynode *keys[4], *v[4];
    if (expect_map(&L->c, n, "trace", "a mapping {every: N, points: [row, ...]}") ||
        fields(&L->c, n, "trace.", trace_names, 4, keys, v))
        return CONFIG_BAD;
    if (v[0] && whole(&L->c, v[0], "trace.every", 1, CONFIG_MAX_STEPS, &L->cfg->trace_every))
        return CONFIG_BAD;
    L->trace_points = v[1];
    L->trace_where = v[2];
    L->trace_methods = v[3];
    if (v[3] && !v[2])
        return fail_node(&L->c, keys[3], "trace.methods", "chooses the methods of trace.where, "
                                                          "which is missing");
    if (v[2] && ((v[2]->kind != YN_MAP && v[2]->kind != YN_SEQ) ||
                 (v[2]->kind == YN_SEQ && v[2]->nkids == 0)))
        return fail_node(&L->c, v[2], "trace.where",
                         "expected a mapping {stiffness: k, drag: c, dt: h} or a list of them");
    return v[1] ? load_trace_points(L, v[1]) : 0;
}

static int load_analyses(loader *L)
{
    static const char *const analyses[] = {"convergence", "stability"};
    const ynode *n = L->vals[K_ANALYSES];
    if (!n)
        return 0;
    if (n->kind == YN_MAP)
        return fail_node(&L->c, n, "analyses", "expected a list of analyses, not a mapping");
    size_t count = n->kind == YN_SEQ ? n->nkids : 1;
    for (size_t i = 0; i < count; i++) {
        size_t which = 0;
        if (one_of(&L->c, n->kind == YN_SEQ ? n->kids[i] : n, "analyses", "analysis", analyses,
                   2, &which))
            return CONFIG_BAD;
        if (which == 0)
            L->cfg->convergence = true;
        else
            L->cfg->stability = true;
    }
    return 0;
}

/* How maxima are taken and what counts as unstable (see config.h). */
static int load_instability(loader *L)
{
    osc_config *cfg = L->cfg;
    static const char *const modes[] = {"every_step", "audits"};
    size_t mode = 0;
    int bad = 0;
    if (L->vals[K_MAXIMA])
        bad |= one_of(&L->c, L->vals[K_MAXIMA], "maxima", "maxima mode", modes, 2, &mode);
    cfg->maxima_sampled = mode == 1;
    cfg->unstable_factor = CONFIG_DEFAULT_UNSTABLE_FACTOR;
    const ynode *n = L->vals[K_UNSTABLE_FACTOR];
    /* Any finite number, then the one rule: 0 or -1 gets the same ">= 1" as 0.5 does, not a
     * "positive" that 0.5 would satisfy. */
    if (n && number(&L->c, n, "unstable_factor", NUM_ANY, &cfg->unstable_factor))
        bad = CONFIG_BAD;
    else if (n && !(cfg->unstable_factor >= 1))
        bad = fail_node(&L->c, n, "unstable_factor",
                        "expected a number >= 1 (a multiple of the motion's own scale), got %g",
                        cfg->unstable_factor);
    cfg->unstable_drift = INFINITY;
    n = L->vals[K_UNSTABLE_DRIFT];
    if (n)
        bad |= number(&L->c, n, "unstable_drift", NUM_POSITIVE, &cfg->unstable_drift);
    return bad ? CONFIG_BAD : 0;
}

static int load_stability_zeta(loader *L)
{
    const ynode *n = L->vals[K_STABILITY];
    if (!n)
        return 0;
    static const char *const names[] = {"zeta"};
    const ynode *keys[1], *v[1];
    if (expect_map(&L->c, n, "stability", "a mapping {zeta: ...}") ||
        fields(&L->c, n, "stability.", names, 1, keys, v))
        return CONFIG_BAD;
    if (v[0] && parse_sweep(&L->c, v[0], "stability.zeta", NUM_NONNEG, &L->zeta))
        return CONFIG_BAD;
    if (v[0] && L->zeta.count > CONFIG_MAX_ZETA)
        return fail_node(&L->c, v[0], "stability.zeta", "at most %d damping ratios, got %zu",
                         CONFIG_MAX_ZETA, L->zeta.count);
    return 0;
}

static int load_extras(loader *L)
{
    int bad = load_stability_zeta(L);
    L->cfg->audit_every = 0;
    const ynode *n = L->vals[K_AUDIT_EVERY];
    if (n)
        bad |= whole(&L->c, n, "audit_every", 1, CONFIG_MAX_STEPS, &L->cfg->audit_every);
    bad |= load_instability(L);
    return bad ? CONFIG_BAD : 0;
}

/* ---- the sweep's size --------------------------------------------------------------------- */

static size_t spec_count(const sweep_spec *s) { return s->given ? s->count : 1; }

/* A sweep's estimated memory (traces included once dt is expanded) and the machine's limit, in
 * GiB, and where the limit came from (physical memory or the cgroup's limit). */
typedef struct memory_need {
    double need_gib, limit_gib;
    const char *limit_source;
} memory_need;

/* True when the sweep does not fit; an unknown limit (0) never refuses. */
static bool memory_shortfall(const osc_config *cfg, double ndt, double batch_lanes,
                             memory_need *m)
{
    const double gib = 1024.0 * 1024.0 * 1024.0;
    double need = sweep_estimate_bytes(cfg, ndt, batch_lanes, omp_get_max_threads());
    double limit = sweep_memory_limit(&m->limit_source);
    m->need_gib = need / gib;
    m->limit_gib = limit / gib;
    return limit > 0 && need > limit;
}

/* Reject a sweep too large for this machine before expanding a single range; the error sits
 * on the swept key with the most values. */
static int check_size(loader *L)
{
    const sweep_spec *specs[] = {&L->dt, &L->stiffness, &L->drag, &L->mass};
    const char *names[] = {L->by_rate ? "rate_hz" : "dt", L->by_omega0 ? "omega0" : "stiffness",
                           L->by_zeta ? "zeta" : "drag", "mass"};
    double lanes = (double)L->cfg->nmethods;
    size_t widest = 0;
    for (size_t i = 0; i < 4; i++) {
        lanes *= (double)spec_count(specs[i]);
        if (spec_count(specs[i]) > spec_count(specs[widest]))
            widest = i;
    }
    double batch_lanes = (double)spec_count(&L->stiffness) * (double)spec_count(&L->drag) *
                         (double)spec_count(&L->mass);
    memory_need m;
    if (memory_shortfall(L->cfg, (double)spec_count(&L->dt), batch_lanes, &m))
        return fail_node(&L->c, specs[widest]->node, names[widest],
                         "sweep of %.4g lanes needs ~%.3g GiB, more than the %.3g GiB of %s",
                         lanes, m.need_gib, m.limit_gib, m.limit_source);
    return 0;
}

/* The traces' samples are known once dt is expanded: a trace of every step of a long run can
 * outgrow the machine on its own (check_size could not count them yet). */
static int check_trace_size(loader *L)
{
    if (!L->cfg->trace)
        return 0;
    const osc_config *c = L->cfg;
    double batch_lanes = (double)c->mass.count * (double)c->stiffness.count * (double)c->drag.count;
    memory_need m;
    if (memory_shortfall(c, (double)c->dt.count, batch_lanes, &m))
        return fail_node(&L->c, L->vals[K_TRACE], "trace",
                         "with every %ld the traces and the sweep need ~%.3g GiB, more than the "
                         "%.3g GiB of %s (raise every, or trace fewer points)",
                         c->trace_every, m.need_gib, m.limit_gib, m.limit_source);
    return 0;
}

static int check_trace_rows(loader *L)
{
    size_t lanes = config_lane_count(L->cfg);
    const ynode *n = L->trace_points;
    for (size_t i = 0; i < L->cfg->ntrace_points; i++)
        if (L->cfg->trace_points[i] >= lanes) {
            const ynode *at = n->kind == YN_SEQ ? n->kids[i] : n;
            return fail_node(&L->c, at, "trace.points",
                             "row %zu is beyond the sweep's %zu lanes (rows 0 to %zu)",
                             L->cfg->trace_points[i], lanes, lanes - 1);
        }
    return 0;
}

/* A copy of `from` into `to` (the user's values), `from` then holding what the lanes need. */
static int keep_copy(loader *L, const sweep *from, sweep *to)
{
    to->values = malloc(from->count * sizeof *to->values);
    if (!to->values)
        return fail_at(&L->c, 0, 0, NULL, "out of memory");
    memcpy(to->values, from->values, from->count * sizeof *to->values);
    to->count = from->count;
    return 0;
}

/* The index of the largest zeta (0 without zeta): c = 2 zeta sqrt(k m) grows with zeta. */
static size_t largest_zeta(const osc_config *cfg)
{
    size_t widest = 0;
    for (size_t d = 1; d < cfg->zeta_axis.count; d++)
        if (cfg->zeta_axis.values[d] > cfg->zeta_axis.values[widest])
            widest = d;
    return widest;
}

/* The spring of (stiffness index i, mass index j) given by omega0 or zeta: k finite (m omega0^2
 * can overflow), k > 0 for zeta, and c = 2 zeta sqrt(k m) finite at the largest zeta (drag index
 * `widest`). */
static int check_spring(loader *L, size_t i, size_t j, size_t widest)
{
    const osc_config *cfg = L->cfg;
    const double k = config_stiffness(cfg, i, j), m = cfg->mass.values[j];
    const char *spring = L->by_omega0 ? "omega0" : "stiffness";
    const double given = L->by_omega0 ? cfg->omega0_axis.values[i] : cfg->stiffness.values[i];
    if (!isfinite(k))
        return fail_node(&L->c, L->vals[K_OMEGA0], "omega0",
                         "k = m omega0^2 overflows a double (omega0 %g, mass %g)", given, m);
    if (!L->by_zeta)
        return 0;
    if (!(k > 0))
        return fail_node(&L->c, L->vals[K_ZETA], "zeta",
                         "zeta = c / (2 sqrt(k m)) needs every stiffness > 0 (%s %g with mass %g "
                         "is a free particle); give drag instead", spring, given, m);
    if (!isfinite(config_drag(cfg, i, widest, j)))
        return fail_node(&L->c, L->vals[K_ZETA], "zeta",
                         "c = 2 zeta sqrt(k m) overflows a double (zeta %g, %s %g, mass %g)",
                         cfg->zeta_axis.values[widest], spring, given, m);
    return 0;
}

/* omega0 -> k = m omega0^2, rate_hz -> dt = 1/rate_hz (each one rounding); zeta stays zeta,
 * read per lane by config_drag, and drag.values becomes NaN (no single c per drag index). With
 * omega0 and several masses there is no single k per stiffness index either: config_stiffness
 * gives it per lane, and stiffness.values becomes NaN. */
static int convert_axes(loader *L)
{
    osc_config *cfg = L->cfg;
    if ((L->by_omega0 && keep_copy(L, &cfg->stiffness, &cfg->omega0_axis)) ||
        (L->by_zeta && keep_copy(L, &cfg->drag, &cfg->zeta_axis)) ||
        (L->by_rate && keep_copy(L, &cfg->dt, &cfg->rate_hz)))
        return CONFIG_BAD;
    for (size_t i = 0; L->by_omega0 && i < cfg->stiffness.count; i++)
        cfg->stiffness.values[i] = cfg->mass.count == 1 ? config_stiffness(cfg, i, 0) : NAN;
    for (size_t i = 0; L->by_rate && i < cfg->dt.count; i++) {
        cfg->dt.values[i] = 1.0 / cfg->dt.values[i];
        /* a subnormal rate (1e-321) is positive and finite, but its dt is not */
        if (!isfinite(cfg->dt.values[i]))
            return fail_node(&L->c, L->vals[K_RATE_HZ], "rate_hz",
                             "dt = 1/rate_hz overflows a double (rate_hz %g)",
                             cfg->rate_hz.values[i]);
    }
    for (size_t i = 0; L->by_zeta && i < cfg->drag.count; i++)
        cfg->drag.values[i] = NAN;
    const size_t widest = largest_zeta(cfg);
    for (size_t j = 0; (L->by_omega0 || L->by_zeta) && j < cfg->mass.count; j++)
        for (size_t i = 0; i < cfg->stiffness.count; i++)
            if (check_spring(L, i, j, widest))
                return CONFIG_BAD;
    return 0;
}

/* A subnormal dt in the run's precision has lost significant bits (below DBL_MIN a double keeps
 * fewer than 53), and the methods' dt-scaled coefficients and 1/dt (stormer reads its velocity
 * through it: 1/dt overflows below 1/DBL_MAX ~ 5.6e-309) turn to nonsense: every dt, after
 * rate_hz and ranges are resolved, must be at least the smallest normal number of that
 * precision. The error sits on the list item when the key is a list of numbers. */
static int check_dt_normal(loader *L)
{
    const osc_config *cfg = L->cfg;
    const bool single = cfg->precision == OSC_FLOAT;
    const double smallest = single ? FLT_MIN : DBL_MIN;
    const ynode *n = L->vals[L->by_rate ? K_RATE_HZ : K_DT];
    for (size_t i = 0; i < cfg->dt.count; i++) {
        const double dt = cfg->dt.values[i];
        if (dt >= smallest)
            continue;
        const ynode *at = n->kind == YN_SEQ && n->nkids == cfg->dt.count ? n->kids[i] : n;
        return fail_node(&L->c, at, L->by_rate ? "rate_hz" : "dt",
                         "expected %s >= %g, the smallest normal %s (the run's precision), "
                         "got %g", L->by_rate ? "dt = 1/rate_hz" : "a dt", smallest,
                         single ? "float" : "double", dt);
    }
    return 0;
}

static int expand_all(loader *L)
{
    osc_config *cfg = L->cfg;
    if (!L->drag.given) {
        static const double zero = 0.0;
        L->drag = (sweep_spec){.values = malloc(sizeof zero), .count = 1, .given = true};
        if (!L->drag.values)
            return fail_at(&L->c, 0, 0, NULL, "out of memory");
        L->drag.values[0] = zero;
    }
    if (!L->mass.given) {
        L->mass = (sweep_spec){.values = malloc(sizeof(double)), .count = 1, .given = true};
        if (!L->mass.values)
            return fail_at(&L->c, 0, 0, NULL, "out of memory");
        L->mass.values[0] = 1.0;
    }
    if (expand_sweep(&L->c, &L->stiffness, "stiffness", &cfg->stiffness) ||
        expand_sweep(&L->c, &L->drag, "drag", &cfg->drag) ||
        expand_sweep(&L->c, &L->dt, "dt", &cfg->dt) ||
        expand_sweep(&L->c, &L->mass, "mass", &cfg->mass) || convert_axes(L))
        return CONFIG_BAD;
    cfg->has_stability_zeta = L->zeta.given;
    return L->zeta.given ? expand_sweep(&L->c, &L->zeta, "stability.zeta", &cfg->stability_zeta)
                         : 0;
}

/* t_end / dt becomes a whole number of steps: it must stay an exact integer (2^53). */
static int check_step_counts(loader *L)
{
    const osc_config *cfg = L->cfg;
    for (size_t d = 0; cfg->steps < 0 && d < cfg->dt.count; d++)
        if (cfg->t_end / cfg->dt.values[d] > CONFIG_MAX_STEPS)
            return fail_node(&L->c, L->vals[K_T_END], "t_end",
                             "t_end / dt = %.3g steps for dt = %g, more than 2^53",
                             cfg->t_end / cfg->dt.values[d], cfg->dt.values[d]);
    return 0;
}

/* ---- traces chosen by value --------------------------------------------------------------- */

/* The keys of a trace.where mapping: an axis in the unit the user names. */
enum { W_STIFFNESS, W_OMEGA0, W_DRAG, W_ZETA, W_DT, W_RATE_HZ, W_MASS, W_COUNT };
static const char *const where_names[W_COUNT] = {"stiffness", "omega0",  "drag", "zeta",
                                                 "dt",        "rate_hz", "mass"};

/* The axes of a where mapping, in sweep_index order after the method: the key or keys that may
 * name each (second -1: one key only), and the axis's name in messages. */
enum { WA_DT, WA_STIFFNESS, WA_DRAG, WA_MASS, WA_COUNT };
static const struct where_axis {
    int first, second;
    const char *name;
} where_axes[WA_COUNT] = {{W_DT, W_RATE_HZ, "dt"},
                          {W_STIFFNESS, W_OMEGA0, "stiffness"},
                          {W_DRAG, W_ZETA, "drag"},
                          {W_MASS, -1, "mass"}};

static size_t where_axis_count(const osc_config *cfg, int axis)
{
    const size_t counts[WA_COUNT] = {cfg->dt.count, cfg->stiffness.count, cfg->drag.count,
                                     cfg->mass.count};
    return counts[axis];
}

/* Axis value i in the unit of where key w (stiffness and omega0 of a sweep of one mass). */
static double axis_value(const osc_config *cfg, int w, size_t i)
{
    switch (w) {
    case W_STIFFNESS: return config_stiffness(cfg, i, 0);
    case W_OMEGA0:
        return cfg->omega0_axis.count ? cfg->omega0_axis.values[i]
                                      : sqrt(cfg->stiffness.values[i] / cfg->mass.values[0]);
    case W_DRAG: return cfg->drag.values[i];
    case W_ZETA: return cfg->zeta_axis.values[i];
    case W_DT: return cfg->dt.values[i];
    case W_MASS: return cfg->mass.values[i];
    default: return cfg->rate_hz.count ? cfg->rate_hz.values[i] : 1.0 / cfg->dt.values[i];
    }
}

/* The index of the grid value nearest `want` along where key w's axis (the first of a tie). */
static size_t nearest_index(const osc_config *cfg, int w, size_t count, double want)
{
    size_t best = 0;
    for (size_t i = 1; i < count; i++)
        if (fabs(axis_value(cfg, w, i) - want) < fabs(axis_value(cfg, w, best) - want))
            best = i;
    return best;
}

/* Whether where key w names one value per index of its axis: drag or zeta only as the sweep
 * gives the damping; with several masses, stiffness or omega0 only as the sweep gives the spring
 * (k = m omega0^2 then differs from mass to mass). Otherwise an error on the key. */
static int where_key_fits(loader *L, const ynode *key, int w, const char *full)
{
    const osc_config *cfg = L->cfg;
    bool zeta_sweep = cfg->zeta_axis.count > 0, omega0_sweep = cfg->omega0_axis.count > 0;
    if ((w == W_DRAG && zeta_sweep) || (w == W_ZETA && !zeta_sweep))
        return fail_node(&L->c, key, full, "the sweep gives the damping as %s: use %s",
                         zeta_sweep ? "zeta" : "drag", zeta_sweep ? "zeta" : "drag");
    if (cfg->mass.count > 1 && ((w == W_STIFFNESS && omega0_sweep) ||
                                (w == W_OMEGA0 && !omega0_sweep)))
        return fail_node(&L->c, key, full,
                         "with several masses the sweep gives the spring as %s: use %s",
                         omega0_sweep ? "omega0" : "stiffness",
                         omega0_sweep ? "omega0" : "stiffness");
    return 0;
}

/* One where mapping: the (dt, stiffness, drag, mass) indices nearest its values. An axis of one
 * value may be left out. */
static int where_indices(loader *L, const ynode *map, size_t idx[WA_COUNT])
{
    const osc_config *cfg = L->cfg;
    const ynode *keys[W_COUNT], *v[W_COUNT];
    if (expect_map(&L->c, map, "trace.where", "a mapping {stiffness: k, drag: c, dt: h}") ||
        fields(&L->c, map, "trace.where.", where_names, W_COUNT, keys, v))
        return CONFIG_BAD;
    for (int a = 0; a < WA_COUNT; a++) {
        const struct where_axis *ax = &where_axes[a];
        const size_t count = where_axis_count(cfg, a);
        const bool has_second = ax->second >= 0 && v[ax->second];
        if (v[ax->first] && has_second)
            return fail_node(&L->c, keys[ax->second], "trace.where", "give %s or %s, not both",
                             where_names[ax->first], where_names[ax->second]);
        int w = has_second ? ax->second : ax->first;
        idx[a] = 0;
        if (!v[w]) {
            if (count > 1)
                return fail_node(&L->c, map, "trace.where",
                                 "missing %s (the sweep has %zu values of it)", ax->name, count);
            continue;
        }
        char key[64];
        snprintf(key, sizeof key, "trace.where.%s", where_names[w]);
        double want;
        if (number(&L->c, v[w], key, NUM_NONNEG, &want) || where_key_fits(L, keys[w], w, key))
            return CONFIG_BAD;
        idx[a] = nearest_index(cfg, w, count, want);
    }
    return 0;
}

/* The methods trace.where applies to: those listed (each in the config's methods), or all. */
static int where_methods(loader *L, bool *chosen)
{
    const osc_config *cfg = L->cfg;
    const ynode *n = L->trace_methods;
    for (size_t m = 0; m < cfg->nmethods; m++)
        chosen[m] = !n;
    size_t count = !n ? 0 : n->kind == YN_SEQ ? n->nkids : 1;
    for (size_t i = 0; i < count; i++) {
        const ynode *item = n->kind == YN_SEQ ? n->kids[i] : n;
        size_t m = 0;
        while (m < cfg->nmethods && !(item->kind == YN_SCALAR &&
                                      strcmp(item->text, cfg->methods[m]->name) == 0))
            m++;
        if (m == cfg->nmethods) {
            char buf[48];
            return fail_node(&L->c, item, "trace.methods", "'%s' is not one of the run's methods",
                             item->kind == YN_SCALAR ? shown(item, buf) : "a list or mapping");
        }
        chosen[m] = true;
    }
    return 0;
}

static int add_trace_row(osc_config *cfg, size_t row)
{
    for (size_t i = 0; i < cfg->ntrace_points; i++)
        if (cfg->trace_points[i] == row)
            return 0; /* once each: a row is one /traces group */
    size_t *grown = realloc(cfg->trace_points, (cfg->ntrace_points + 1) * sizeof *grown);
    if (!grown)
        return -1;
    cfg->trace_points = grown;
    cfg->trace_points[cfg->ntrace_points++] = row;
    return 0;
}

/* trace.where: for each mapping, the nearest grid point, traced for each chosen method; added
 * after the rows of trace.points. */
static int resolve_trace_where(loader *L)
{
    osc_config *cfg = L->cfg;
    const ynode *n = L->trace_where;
    if (!n)
        return 0;
    size_t count = n->kind == YN_SEQ ? n->nkids : 1,
           values = cfg->dt.count + cfg->stiffness.count + cfg->drag.count + cfg->mass.count;
    /* each mapping scans every axis for its nearest value: 240 mappings over a range of 5e6
     * stiffnesses took the fuzz target past its 10 s timeout */
    if ((double)count * (double)values > CONFIG_MAX_WHERE_SCAN)
        return fail_node(&L->c, n, "trace.where",
                         "%zu mappings over a grid of %zu values: more than %.0e comparisons "
                         "(give fewer, or the rows as trace.points)",
                         count, values, CONFIG_MAX_WHERE_SCAN);
    bool *chosen = calloc(cfg->nmethods, sizeof *chosen);
    if (!chosen)
        return fail_at(&L->c, 0, 0, NULL, "out of memory");
    int rc = where_methods(L, chosen);
    sweep_layout lay = layout_of(cfg);
    for (size_t i = 0; !rc && i < count; i++) {
        size_t idx[WA_COUNT];
        rc = where_indices(L, n->kind == YN_SEQ ? n->kids[i] : n, idx);
        for (size_t m = 0; !rc && m < cfg->nmethods; m++) {
            sweep_index at = {.method = m, .dt = idx[WA_DT], .stiffness = idx[WA_STIFFNESS],
                              .drag = idx[WA_DRAG], .mass = idx[WA_MASS]};
            if (chosen[m] && add_trace_row(cfg, layout_row(lay, at)))
                rc = fail_at(&L->c, 0, 0, NULL, "out of memory");
        }
    }
    free(chosen);
    return rc ? CONFIG_BAD : 0;
}

/* ---- the whole -------------------------------------------------------------------------- */

static void record_locations(loader *L)
{
    for (int k = 0; k < K_COUNT; k++) {
        config_loc *loc = &L->cfg->loc[k];
        loc->key = key_names[k];
        loc->line = L->vals[k] ? L->vals[k]->line : 0;
        loc->col = L->vals[k] ? L->vals[k]->col : 0;
    }
}

static int load_tree(loader *L)
{
    if (!L->root || (L->root->kind == YN_SCALAR && L->root->text[0] == '\0' && L->root->plain))
        return fail_at(&L->c, 1, 1, NULL, "empty config, expected a mapping of config keys");
    if (L->root->kind != YN_MAP)
        return fail_node(&L->c, L->root, NULL, "expected a mapping of config keys at the top, "
                                               "not %s",
                         L->root->kind == YN_SEQ ? "a list" : "a scalar");
    /* Every key is checked even after a bad one, so that one run reports every mistake whose
     * check does not depend on another key's value. */
    int bad = fields(&L->c, L->root, "", key_names, K_COUNT, L->keys, L->vals);
    record_locations(L);
    L->cfg->dim = 1;
    int (*const loaders[])(loader *) = {load_name,     load_methods, load_precision_dim,
                                        load_physics,  load_duration, load_trace,
                                        load_analyses, load_extras};
    for (size_t i = 0; i < sizeof loaders / sizeof loaders[0]; i++)
        bad |= loaders[i](L);
    if (bad)
        return CONFIG_BAD;
    if (check_size(L) || expand_all(L) || check_dt_normal(L) || check_step_counts(L) ||
        check_trace_size(L))
        return CONFIG_BAD;
    return check_trace_rows(L) || resolve_trace_where(L) ? CONFIG_BAD : 0;
}

static void free_spec(sweep_spec *s) { free(s->values); }

/* Parse and validate `len` bytes of YAML; takes ownership of `text` (malloc'd, len + 1 bytes
 * with a terminating NUL). */
static int load_owned_text(const char *path, char *text, size_t len, osc_config *cfg, char *err,
                           size_t errlen)
{
    error_tally tally = {.config = path};
    loader L = {.c = {.path = path, .err = err, .errlen = errlen, .collect = true, .tally = &tally},
                .cfg = cfg};
    ynode *root = NULL;
    int status = len > CONFIG_MAX_BYTES
                     ? fail_at(&L.c, 0, 0, NULL, "larger than %u MiB, not a config",
                               CONFIG_MAX_BYTES >> 20)
                     : reject_nul(&L.c, text, len);
    if (!status)
        status = parse_tree(&L.c, text, len, &root);
    if (!status) {
        L.root = root;
        cfg->text = text;
        text = NULL;
        cfg->path = strdup(path);
        status = cfg->path ? load_tree(&L) : fail_at(&L.c, 0, 0, NULL, "out of memory");
    }
    free_spec(&L.stiffness);
    free_spec(&L.drag);
    free_spec(&L.dt);
    free_spec(&L.zeta);
    free_spec(&L.mass);
    ynode_free(root);
    free(text);
    if (status && err && errlen)
        append_tally(&L.c);
    if (status)
        config_free(cfg);
    return status ? CONFIG_BAD : 0;
}

int config_load(const char *path, osc_config *cfg, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    if (err && errlen)
        err[0] = '\0';
    ctx c = {.path = path, .err = err, .errlen = errlen};
    char *text = NULL;
    size_t len = 0;
    if (read_all(&c, &text, &len))
        return CONFIG_BAD;
    return load_owned_text(path, text, len, cfg, err, errlen);
}

int config_load_text(const char *path, const char *text, size_t len, osc_config *cfg, char *err,
                     size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    if (err && errlen)
        err[0] = '\0';
    char *copy = len < SIZE_MAX ? malloc(len + 1) : NULL;
    if (!copy) {
        ctx c = {.path = path, .err = err, .errlen = errlen};
        return fail_at(&c, 0, 0, NULL, "out of memory for %zu bytes", len);
    }
    if (len)
        memcpy(copy, text, len);
    copy[len] = '\0';
    return load_owned_text(path, copy, len, cfg, err, errlen);
}

void config_free(osc_config *cfg)
{
    if (!cfg)
        return;
    free(cfg->path);
    free(cfg->name);
    free(cfg->text);
    free(cfg->methods);
    free(cfg->stiffness.values);
    free(cfg->drag.values);
    free(cfg->dt.values);
    free(cfg->omega0_axis.values);
    free(cfg->zeta_axis.values);
    free(cfg->rate_hz.values);
    free(cfg->mass.values);
    free(cfg->trace_points);
    free(cfg->stability_zeta.values);
    for (size_t i = 0; i < cfg->nuser_methods; i++)
        if (cfg->user_methods[i].release)
            cfg->user_methods[i].release(&cfg->user_methods[i].method);
    free(cfg->user_methods);
    free(cfg->included_text);
    memset(cfg, 0, sizeof *cfg);
}

const config_user_method *config_user_method_of(const osc_config *cfg, const osc_method *m)
{
    for (size_t i = 0; cfg && m && i < cfg->nuser_methods; i++)
        if (&cfg->user_methods[i].method == m)
            return &cfg->user_methods[i];
    return NULL;
}

double config_stiffness(const osc_config *cfg, size_t stiffness, size_t mass)
{
    if (!cfg->omega0_axis.count)
        return cfg->stiffness.values[stiffness];
    const double m = cfg->mass.values[mass], omega0 = cfg->omega0_axis.values[stiffness];
    return m * omega0 * omega0;
}

double config_drag(const osc_config *cfg, size_t stiffness, size_t drag, size_t mass)
{
    if (!cfg->zeta_axis.count)
        return cfg->drag.values[drag];
    return 2.0 * cfg->zeta_axis.values[drag] *
           osc_sqrt_km(config_stiffness(cfg, stiffness, mass), cfg->mass.values[mass]);
}

size_t config_lane_count(const osc_config *cfg)
{
    return cfg->nmethods * cfg->dt.count * cfg->mass.count * cfg->stiffness.count *
           cfg->drag.count;
}

int config_error(const osc_config *cfg, const char *key, char *err, size_t errlen,
                 const char *fmt, ...)
{
    int line = 0, col = 0;
    for (int k = 0; k < CONFIG_NKEYS; k++)
        if (cfg->loc[k].key && strcmp(cfg->loc[k].key, key) == 0) {
            line = cfg->loc[k].line;
            col = cfg->loc[k].col;
        }
    ctx c = {.path = cfg->path ? cfg->path : "config", .err = err, .errlen = errlen};
    va_list ap;
    va_start(ap, fmt);
    vfail_at(&c, line, col, key, fmt, ap);
    va_end(ap);
    return CONFIG_BAD;
}
