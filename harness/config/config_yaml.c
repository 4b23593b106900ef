/* The YAML layer of the config loader: file -> bounded node tree with positions, errors located
 * at FILE:LINE:COL and key, and the readers of scalars and mappings (config_yaml.h).
 *
 * Why libyaml's parser here and not a libcyaml schema: a swept key is a number, a list or a
 * mapping {from, to, count, spacing}, and libcyaml 1.3's schema has no union or "any" type to
 * express that; it also reports neither the key nor the line and column of a bad value, which
 * every error here must carry. libcyaml itself parses with libyaml, so this reads the same YAML
 * the same way, one event at a time, with its limits (no aliases, depth, list length, node
 * count) enforced as the events arrive: hostile input fails fast in bounded memory. */
#define _POSIX_C_SOURCE 200809L
#include "config_yaml.h"

#include "config.h"
#include "diag.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

/* ---- errors ------------------------------------------------------------------------------- */

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
void cfg_append_tally(const ctx *c)
{
    size_t used = strlen(c->err);
    if (c->tally->unshown && used + tally_line_bytes(c->tally) <= c->errlen) {
        snprintf(c->err + used, c->errlen - used, "\n" TALLY_FORMAT, c->tally->config,
                 c->tally->unshown, c->tally->unshown == 1 ? "" : "s");
        shown_text(c->err + used + 1);
    }
}

/* s as it is when shorter than cap bytes, else its start, "..." and its end in cap - 1 bytes of
 * buf: a path too long for the room a message has keeps where it starts and the file it names,
 * and what the message says after it keeps its place. */
const char *cfg_shortened(const char *s, char *buf, size_t cap)
{
    size_t len = strlen(s);
    if (len < cap || cap < 8)
        return s;
    size_t head = (cap - 4) / 2;
    snprintf(buf, cap, "%.*s...%s", (int)head, s, s + len - (cap - 4 - head));
    return buf;
}

/* One error line into dst (cap bytes); its length, as snprintf's. The paths are the user's:
 * shown_text keeps a newline or an ESC in them from splitting the line or reaching a terminal. */
static size_t put_line(char *dst, size_t cap, const char *path, const char *where,
                       const char *key, const char *msg, const char *from)
{
    int n = snprintf(dst, cap, "%s%s: %s%s%s%s%s%s", path, where, key ? key : "", key ? ": " : "",
                     msg, from ? " (included from " : "", from ? from : "", from ? ")" : "");
    if (dst && cap)
        shown_text(dst);
    return n > 0 ? (size_t)n : 0;
}

/* "FILE:LINE:COL: key: message"; key may be NULL, line 0 drops the position. When collecting,
 * the line is appended to those already in err (up to CONFIG_MAX_ERRORS, and only whole lines:
 * one that does not fit is dropped and counted, keeping room for the count's own line). A first
 * line too long for err has its paths (FILE, and the CONFIG of "(included from CONFIG:LINE:COL)")
 * shortened in the middle, so that the location and the message survive any path. */
int cfg_vfail_at(const ctx *c, int line, int col, const char *key, const char *fmt,
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
            path = cfg_shortened(c->path, buf, both - show_from + 1);
            from = from ? cfg_shortened(from, buf + c->errlen, show_from + 1) : NULL;
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

int cfg_fail_at(const ctx *c, int line, int col, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cfg_vfail_at(c, line, col, key, fmt, ap);
    va_end(ap);
    return CONFIG_BAD;
}

/* ---- the node tree ------------------------------------------------------------------------ */

void cfg_ynode_free(ynode *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->nkids; i++)
        cfg_ynode_free(n->kids[i]);
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
    return cfg_fail_at(c, line, col, NULL, "malformed YAML: %s%s%s",
                       p->problem ? p->problem : "cannot parse", p->context ? " " : "",
                       p->context ? p->context : "");
}

typedef struct builder {
    ynode *root;
    ynode *stack[CONFIG_MAX_DEPTH];
    int depth;
    bool document_seen;
} builder;

/* A node's explicit tag if the config cannot honour it, else NULL. !!str makes a scalar text (as
 * quotes do); !!int (on a whole number's digits), !!float, !!seq and !!map say what the node is
 * read as anyway. Any other (!!null 0.1, !!bool, !custom, the non-specific !) would be dropped
 * silently and the value read as if untagged. */
static const char *unhonoured_tag(const yaml_event_t *ev, ykind kind)
{
    const char *tag = (const char *)(kind == YN_SCALAR ? ev->data.scalar.tag
                                     : kind == YN_SEQ  ? ev->data.sequence_start.tag
                                                       : ev->data.mapping_start.tag);
    if (!tag)
        return NULL;
    if (kind == YN_SEQ || kind == YN_MAP)
        return strcmp(tag, kind == YN_SEQ ? YAML_SEQ_TAG : YAML_MAP_TAG) ? tag : NULL;
    if (!strcmp(tag, YAML_STR_TAG) || !strcmp(tag, YAML_FLOAT_TAG))
        return NULL;
    const char *text = (const char *)ev->data.scalar.value;
    size_t sign = text[0] == '-' || text[0] == '+', digits = strspn(text + sign, "0123456789");
    bool whole = digits > 0 && sign + digits == ev->data.scalar.length;
    return !strcmp(tag, YAML_INT_TAG) && whole ? NULL : tag;
}

/* The dotted key ("stability.zeta") of the mapping entry the next node goes under, as the
 * loader's other errors name it, into buf; NULL at the top level or where the node is a key. */
static const char *next_node_key(const builder *b, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int d = 0; d < b->depth; d++) {
        const ynode *p = b->stack[d];
        size_t at = d == b->depth - 1 ? p->nkids : p->nkids - 1; /* the next node's, or its
                                                                  * open container's, place */
        if (p->kind != YN_MAP)
            continue;
        if (at % 2 == 0 || p->kids[at - 1]->kind != YN_SCALAR)
            return NULL; /* a key, or under a key that is not a name */
        int n = snprintf(buf + used, cap - used, "%s%s", used ? "." : "", p->kids[at - 1]->text);
        used = n < 0 || (size_t)n >= cap - used ? cap - 1 : used + (size_t)n;
    }
    return used ? buf : NULL;
}

/* Attach a new node under the open container (or as the root). */
static int builder_add(ctx *c, builder *b, const yaml_event_t *ev, ykind kind)
{
    int line = (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;
    if (++c->nodes > CONFIG_MAX_NODES)
        return cfg_fail_at(c, line, col, NULL, "too many YAML nodes (more than %d)",
                           CONFIG_MAX_NODES);
    if (kind == YN_SCALAR && memchr(ev->data.scalar.value, 0, ev->data.scalar.length))
        return cfg_fail_at(c, line, col, NULL, "NUL character (a \\0 escape) in a string");
    const char *tag = unhonoured_tag(ev, kind);
    if (tag) {
        char key[256];
        const char *core = "tag:yaml.org,2002:";
        bool short_form = !strncmp(tag, core, strlen(core));
        return cfg_fail_at(c, line, col, next_node_key(b, key, sizeof key),
                           "YAML tag %s%.40s not supported here (only !!str, !!float, !!int on a "
                           "whole number, !!seq and !!map)",
                           short_form ? "!!" : "", short_form ? tag + strlen(core) : tag);
    }
    ynode *parent = b->depth ? b->stack[b->depth - 1] : NULL;
    size_t cap = parent && parent->kind == YN_MAP ? 2 * (size_t)CONFIG_MAX_LIST : CONFIG_MAX_LIST;
    if (parent && parent->nkids >= cap)
        return fail_node(c, parent, NULL, "list or mapping longer than %d items",
                         CONFIG_MAX_LIST);
    if (kind != YN_SCALAR && b->depth == CONFIG_MAX_DEPTH)
        return cfg_fail_at(c, line, col, NULL, "nested deeper than %d levels", CONFIG_MAX_DEPTH);
    ynode *n = ynode_new(ev, kind);
    if (!n || (parent && ynode_append(parent, n))) {
        cfg_ynode_free(n);
        return cfg_fail_at(c, line, col, NULL, "out of memory");
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
            return cfg_fail_at(c, line, col, NULL, "expected one YAML document, found more");
        b->document_seen = true;
        return 0;
    case YAML_ALIAS_EVENT: {
        char key[256];
        return cfg_fail_at(c, line, col, next_node_key(b, key, sizeof key),
                           "YAML aliases (*%s) are not supported",
                           (const char *)ev->data.alias.anchor);
    }
    case YAML_SCALAR_EVENT: return builder_add(c, b, ev, YN_SCALAR);
    case YAML_SEQUENCE_START_EVENT: return builder_add(c, b, ev, YN_SEQ);
    case YAML_MAPPING_START_EVENT: return builder_add(c, b, ev, YN_MAP);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: b->depth--; return 0;
    default: return 0;
    }
}

int cfg_parse_tree(ctx *c, const char *buf, size_t len, ynode **root)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return cfg_fail_at(c, 0, 0, NULL, "out of memory");
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
    cfg_ynode_free(b.root);
    return status;
}

/* ---- reading the file --------------------------------------------------------------------- */

/* Read up to CONFIG_MAX_BYTES + 1 bytes from fd into a buffer that grows as needed (the file
 * may be a pipe), NUL-terminated. Returns 0, or an errno value. */
int cfg_read_capped(int fd, size_t hint, char **out, size_t *outlen)
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

int cfg_read_all(ctx *c, char **out, size_t *outlen, struct config_file_id *id)
{
    int fd = open(c->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cfg_fail_at(c, 0, 0, NULL, "cannot open: %s", strerror(errno));
    struct stat st;
    int stat_error = fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
    if (stat_error) { /* st is not to be read when fstat failed */
        close(fd);
        return cfg_fail_at(c, 0, 0, NULL, "cannot read: %s", strerror(stat_error));
    }
    *id = (config_file_id){(unsigned long long)st.st_dev, (unsigned long long)st.st_ino};
    bool regular = S_ISREG(st.st_mode);
    size_t hint = regular && st.st_size >= 0 ? (size_t)st.st_size : 65536;
    int e = regular && st.st_size > (off_t)CONFIG_MAX_BYTES
                ? EFBIG
                : cfg_read_capped(fd, hint, out, outlen);
    close(fd);
    if (e == 0 && *outlen > CONFIG_MAX_BYTES) {
        free(*out);
        *out = NULL;
        e = EFBIG;
    }
    if (e == EFBIG)
        return cfg_fail_at(c, 0, 0, NULL, "larger than %u MiB, not a config",
                           CONFIG_MAX_BYTES >> 20);
    return e ? cfg_fail_at(c, 0, 0, NULL, "cannot read: %s", strerror(e)) : 0;
}

int cfg_reject_nul(const ctx *c, const char *buf, size_t len)
{
    const char *nul = memchr(buf, '\0', len);
    if (!nul)
        return 0;
    int line, col;
    locate_offset(buf, (size_t)(nul - buf), &line, &col);
    return cfg_fail_at(c, line, col, NULL, "NUL byte in the file, not a YAML config");
}

/* ---- scalars ------------------------------------------------------------------------------ */

/* A short rendering of a scalar for messages: its first 40 bytes, "..." after them if there
 * were more. Raw: the line that quotes it shows it (put_line), as the same pass over these bytes
 * here would. A character cut at 40 bytes is followed by '.', which continues no character: each
 * of its bytes shows as '?' there, as it would before a NUL here. */
const char *cfg_excerpt(const ynode *n, char buf[48])
{
    snprintf(buf, 41, "%s", n->text);
    if (strlen(n->text) > 40)
        memcpy(buf + 40, "...", 4);
    return buf;
}

const char *cfg_kind_name(ykind k) { return k == YN_SEQ ? "a list" : "a mapping"; }

/* A character a name (of the run or of a method) may hold. */
bool cfg_name_char_ok(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '.' || ch == '_' || ch == '-' || ch == '+';
}

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

int cfg_number(const ctx *c, const ynode *n, const char *key, num_rule rule, double *out)
{
    char buf[48];
    if (n->kind != YN_SCALAR)
        return fail_node(c, n, key, "expected a number, not %s", cfg_kind_name(n->kind));
    if (n->plain && spells_nonfinite(n->text))
        return fail_node(c, n, key, "expected a finite number, got '%s'", cfg_excerpt(n, buf));
    double v = 0;
    int is_fraction = n->plain ? fraction(n->text, &v) : 0;
    if (is_fraction == -2)
        return fail_node(c, n, key, "expected a finite number, '%s' overflows a double",
                         cfg_excerpt(n, buf));
    if (is_fraction < 0)
        return fail_node(c, n, key, "expected a number, '%s' divides by zero (its denominator is "
                                    "0 or underflows to 0)", cfg_excerpt(n, buf));
    if (!n->plain && is_decimal(n->text))
        return fail_node(c, n, key, "expected a number, got the string '%s' (quoted or !!str)",
                         cfg_excerpt(n, buf));
    if (!is_fraction && (!n->plain || !is_decimal(n->text)))
        return fail_node(c, n, key, "expected a number, got '%s'", cfg_excerpt(n, buf));
    errno = 0;
    if (!is_fraction)
        v = strtod(n->text, NULL);
    if ((errno == ERANGE || is_fraction) && isinf(v))
        return fail_node(c, n, key, "expected a finite number, '%s' overflows a double",
                         cfg_excerpt(n, buf));
    if (rule == NUM_POSITIVE && !(v > 0))
        return fail_node(c, n, key, "expected a positive number, got %s", cfg_excerpt(n, buf));
    if (rule == NUM_NONNEG && !(v >= 0))
        return fail_node(c, n, key, "expected a number >= 0, got %s", cfg_excerpt(n, buf));
    *out = v == 0 ? 0.0 : v; /* -0 reads as 0 */
    return 0;
}

/* A decimal as written, exactly: m 10^e with m free of trailing zeros (m = 0 for zero). False when
 * m has more than 19 significant digits: no whole-number key's range needs more, so a number (or
 * either side of a fraction) written with more is refused. The exponent is clamped to +-10^6: a
 * finite double written with a larger one needs about a million digits beside it. */
typedef struct {
    unsigned long long m;
    long e;
    bool negative;
} decimal;

static bool read_decimal(const char *s, const char *end, decimal *d)
{
    *d = (decimal){.negative = *s == '-'};
    s += *s == '+' || *s == '-';
    long zeros = 0, fraction_digits = 0; /* zeros: since the last nonzero digit */
    for (bool after_point = false; s < end && *s != 'e' && *s != 'E'; s++) {
        if (*s == '.') {
            after_point = true;
            continue;
        }
        fraction_digits += after_point;
        if (*s == '0') {
            zeros += d->m != 0;
            continue;
        }
        for (long i = 0; i <= zeros; i++) {
            if (d->m > ULLONG_MAX / 10)
                return false;
            d->m *= 10;
        }
        if (d->m > ULLONG_MAX - (unsigned)(*s - '0'))
            return false;
        d->m += (unsigned)(*s - '0'), zeros = 0;
    }
    long exponent = 0;
    if (s < end) { /* 'e' */
        const bool negative = *++s == '-';
        s += *s == '+' || *s == '-';
        for (; s < end; s++)
            exponent = exponent >= 1000000 ? exponent : exponent * 10 + (*s - '0');
        exponent = negative ? -exponent : exponent;
    }
    d->e = exponent - fraction_digits + zeros;
    return true;
}

/* m base^k (m > 0), or false beyond unsigned long long. */
static bool times_power(unsigned long long m, unsigned base, long k, unsigned long long *out)
{
    for (; k > 0; k--) {
        if (m > ULLONG_MAX / base)
            return false;
        m *= base;
    }
    *out = m;
    return true;
}

static unsigned long long gcd(unsigned long long a, unsigned long long b)
{
    while (b) {
        const unsigned long long rest = a % b;
        a = b, b = rest;
    }
    return a;
}

/* The text of a number cfg_number took (a decimal, or a fraction A/B of two) as the whole number
 * it denotes, read exactly: a double reads 9007199254740993 as 2^53, 2.0000000000000001 as 2, and
 * 10/0.01 as the quotient of two rounded numbers. False if the text is not a whole number or its
 * magnitude is beyond unsigned long long. */
static bool exact_whole(const char *text, bool *negative, unsigned long long *magnitude)
{
    const char *slash = strchr(text, '/'), *end = text + strlen(text);
    decimal a, b = {.m = 1};
    if (!read_decimal(text, slash ? slash : end, &a) ||
        (slash && !read_decimal(slash + 1, end, &b)))
        return false;
    *negative = a.m && a.negative != b.negative;
    *magnitude = 0;
    if (a.m == 0)
        return true;
    /* a/b = (num / den) 10^k in lowest terms. num divides a.m, which has no factor 10, so the
     * quotient is whole iff den divides 10^k: den = 2^i 5^j with i, j <= k (never when k < 0),
     * and then it is num 2^(k-i) 5^(k-j). */
    const unsigned long long common = gcd(a.m, b.m), num = a.m / common;
    unsigned long long den = b.m / common;
    const long k = a.e - b.e;
    long twos = 0, fives = 0;
    for (; den % 2 == 0; den /= 2)
        twos++;
    for (; den % 5 == 0; den /= 5)
        fives++;
    if (den != 1 || twos > k || fives > k)
        return false;
    return times_power(num, 2, k - twos, magnitude) &&
           times_power(*magnitude, 5, k - fives, magnitude);
}

/* A whole number in [lo, hi] (whole bounds within +-2^63); 1e6, 10.0 and 120/2 count as whole. */
int cfg_whole(const ctx *c, const ynode *n, const char *key, double lo, double hi, long *out)
{
    double v;
    if (cfg_number(c, n, key, NUM_ANY, &v))
        return CONFIG_BAD;
    bool negative = false;
    unsigned long long magnitude = 0;
    const bool whole = exact_whole(n->text, &negative, &magnitude) &&
                       magnitude <= (unsigned long long)LLONG_MAX;
    const long long w = !whole ? 0 : negative ? -(long long)magnitude : (long long)magnitude;
    if (!whole || w < (long long)lo || w > (long long)hi)
        return fail_node(c, n, key, "expected a whole number from %.0f to %.0f", lo, hi);
    *out = (long)w;
    return 0;
}

/* The scalar's text if it is one of `names` (index into them), else an error listing them. */
int cfg_one_of(const ctx *c, const ynode *n, const char *key, const char *what,
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
        return fail_node(c, n, key, "expected one %s, not %s (valid: %s)", what,
                         cfg_kind_name(n->kind), valid);
    return fail_node(c, n, key, "unknown %s '%s' (valid: %s)", what, cfg_excerpt(n, buf), valid);
}

/* ---- mappings of known fields ------------------------------------------------------------- */

size_t cfg_edit_distance(const char *a, const char *b)
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
    snprintf(full, sizeof full, "%s%s", prefix, cfg_excerpt(k, buf));
    size_t best = 0, dist = SIZE_MAX;
    for (size_t i = 0; i < nnames; i++) {
        size_t d = cfg_edit_distance(k->text, names[i]);
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
int cfg_fields(const ctx *c, const ynode *map, const char *prefix, const char *const *names,
               size_t nnames, const ynode **keys, const ynode **vals)
{
    for (size_t i = 0; i < nnames; i++)
        keys[i] = vals[i] = NULL;
    int status = 0; /* every bad key is reported, the good ones still read */
    for (size_t p = 0; p + 1 < map->nkids; p += 2) {
        const ynode *k = map->kids[p];
        if (k->kind != YN_SCALAR) {
            status = fail_node(c, k, prefix[0] ? prefix : NULL, "expected a key name, not %s",
                               cfg_kind_name(k->kind));
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

int cfg_expect_map(const ctx *c, const ynode *n, const char *key, const char *what)
{
    if (n->kind == YN_MAP)
        return 0;
    char buf[48];
    if (n->kind == YN_SCALAR)
        return fail_node(c, n, key, "expected %s, got '%s'", what, cfg_excerpt(n, buf));
    return fail_node(c, n, key, "expected %s, not a list", what);
}
