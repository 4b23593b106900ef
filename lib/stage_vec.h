/* Vectors over the stages of a tableau, and the products the order conditions are made of
 * (tableau.c, rkn.c). Private to the library. */
#ifndef OSC_STAGE_VEC_H
#define OSC_STAGE_VEC_H

#define OSC_STAGE_VEC_MAX 8

typedef struct osc_svec {
    double v[OSC_STAGE_VEC_MAX];
} osc_svec;

/* The first s entries of x (the rest 0). */
static inline osc_svec osc_svec_of(int s, const double *x)
{
    osc_svec r = {{0}};
    for (int i = 0; i < s; i++)
        r.v[i] = x[i];
    return r;
}

/* (1, ..., 1) over s stages. */
static inline osc_svec osc_svec_ones(int s)
{
    osc_svec r = {{0}};
    for (int i = 0; i < s; i++)
        r.v[i] = 1;
    return r;
}

/* M x for a strictly lower triangular s x s matrix M (entries on and above the diagonal are not
 * read). */
static inline osc_svec osc_svec_mul(int s, const double m[][OSC_STAGE_VEC_MAX], osc_svec x)
{
    osc_svec r = {{0}};
    for (int i = 0; i < s; i++)
        for (int j = 0; j < i; j++)
            r.v[i] += m[i][j] * x.v[j];
    return r;
}

/* x .* y, elementwise */
static inline osc_svec osc_svec_emul(int s, osc_svec x, osc_svec y)
{
    osc_svec r = {{0}};
    for (int i = 0; i < s; i++)
        r.v[i] = x.v[i] * y.v[i];
    return r;
}

/* w^T x */
static inline double osc_svec_dot(int s, const double *w, osc_svec x)
{
    double sum = 0;
    for (int i = 0; i < s; i++)
        sum += w[i] * x.v[i];
    return sum;
}

#endif
