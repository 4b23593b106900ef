/* The YAML layer of the config loader (config_yaml.c), for config.c and config_methods.c:
 * errors located at FILE:LINE:COL and key, the node tree of a file with the positions of its
 * nodes, reading a file, and readers of scalars and of mappings of known keys. Each function is
 * described where it is defined. */
#ifndef OSC_CONFIG_YAML_H
#define OSC_CONFIG_YAML_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

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

int cfg_vfail_at(const ctx *c, int line, int col, const char *key, const char *fmt, va_list ap);
int cfg_fail_at(const ctx *c, int line, int col, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void cfg_append_tally(const ctx *c);
const char *cfg_shortened(const char *s, char *buf, size_t cap);

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

#define fail_node(c, n, key, ...) cfg_fail_at((c), (n)->line, (n)->col, (key), __VA_ARGS__)

void cfg_ynode_free(ynode *n);
int cfg_parse_tree(ctx *c, const char *buf, size_t len, ynode **root);

/* ---- reading the file --------------------------------------------------------------------- */

int cfg_read_capped(int fd, size_t hint, char **out, size_t *outlen);
struct config_file_id; /* config.h */
/* The file at c->path, whole (at most CONFIG_MAX_BYTES), and its identity in *id. */
int cfg_read_all(ctx *c, char **out, size_t *outlen, struct config_file_id *id);
int cfg_reject_nul(const ctx *c, const char *buf, size_t len);

/* ---- scalars ------------------------------------------------------------------------------ */

typedef enum { NUM_ANY, NUM_NONNEG, NUM_POSITIVE } num_rule;

const char *cfg_excerpt(const ynode *n, char buf[48]);
const char *cfg_kind_name(ykind k);
bool cfg_name_char_ok(char ch);
int cfg_number(const ctx *c, const ynode *n, const char *key, num_rule rule, double *out);
int cfg_whole(const ctx *c, const ynode *n, const char *key, double lo, double hi, long *out);
int cfg_one_of(const ctx *c, const ynode *n, const char *key, const char *what,
               const char *const *names, size_t nnames, size_t *out);

/* ---- mappings of known fields ------------------------------------------------------------- */

size_t cfg_edit_distance(const char *a, const char *b);
int cfg_fields(const ctx *c, const ynode *map, const char *prefix, const char *const *names,
               size_t nnames, const ynode **keys, const ynode **vals);
int cfg_expect_map(const ctx *c, const ynode *n, const char *key, const char *what);

#endif
