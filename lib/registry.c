/* The method registry: adding a method is its file in methods/ plus one line here. */
#include <string.h>

#include "oscbench.h"

#define OSC_METHODS(X)                                                                           \
    X(euler)                                                                                     \
    X(semi_implicit)                                                                             \
    X(verlet)                                                                                    \
    X(stormer)                                                                                   \
    X(rk4)                                                                                       \
    X(forest_ruth)                                                                               \
    X(implicit_midpoint)                                                                         \
    X(verlet_implicit_drag)                                                                      \
    X(verlet_zero_start)

#define DECLARE(id) extern const osc_method osc_method_##id;
OSC_METHODS(DECLARE)
#undef DECLARE

#define ENTRY(id) &osc_method_##id,
static const osc_method *const registry[] = {OSC_METHODS(ENTRY)};
#undef ENTRY

size_t osc_method_count(void) { return sizeof registry / sizeof registry[0]; }

const osc_method *osc_method_at(size_t i) { return i < osc_method_count() ? registry[i] : NULL; }

const osc_method *osc_method_find(const char *name)
{
    for (size_t i = 0; name && i < osc_method_count(); i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

int osc_method_declared_order(const osc_method *m, double c)
{
    return c > 0 ? m->order_damped : m->order;
}

const char *osc_strerror(int status)
{
    switch (status) {
    case OSC_OK: return "success";
    case OSC_EINVAL: return "invalid parameter";
    case OSC_ENOMEM: return "out of memory";
    case OSC_ESTATE: return "call out of order";
    default: return "unknown error";
    }
}

const char *osc_precision_name(osc_precision p) { return p == OSC_FLOAT ? "float" : "double"; }
