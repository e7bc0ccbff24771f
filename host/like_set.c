/* LIKE over a device set (seed 004 section 6, CPU+GPU co-processing): a host column's rows
 * split into one contiguous range per device in proportion to the set's speeds, each range
 * selected by its device on a thread of its own, the results put together in row order. */
#include <stdlib.h>
#include <string.h>

#include "devset_impl.h"

/* Ranges start at multiples of this many rows, so each range's bitmap starts on a byte (and
 * its last byte, but for the column's end, holds only its own rows). */
#define RANGE_ROWS 64u

struct clm_set_like {
    clm_device_set *set;
    unsigned n;
    clm_like *like[CLM_MAX_SET_DEVICES];
};

int clm_set_like_wrap(clm_device_set *set, clm_like **per_device, clm_set_like **out)
{
    if (!set || !per_device || !out)
        return clm_fail(CLM_E_INVALID, "clm_set_like_wrap: %s is NULL",
                        !set ? "set" : !per_device ? "per_device" : "out");
    *out = NULL;
    for (unsigned i = 0; i < set->n; i++)
        if (!per_device[i] || per_device[i]->dev != set->dev[i])
            return clm_fail(CLM_E_INVALID, "clm_set_like_wrap: predicate %u is %s", i,
                            !per_device[i] ? "NULL" : "not compiled for device i of the set");
    clm_set_like *l = calloc(1, sizeof *l);
    if (!l)
        return clm_fail(CLM_E_NOMEM, "out of memory");
    l->set = set;
    l->n = set->n;
    memcpy(l->like, per_device, set->n * sizeof *per_device);
    *out = l;
    return CLM_OK;
}

int clm_set_like_compile(clm_device_set *set, const char *const *patterns,
                         const size_t *lengths, const unsigned *flags, unsigned count,
                         int escape, clm_set_like **out)
{
    if (!set || !out)
        return clm_fail(CLM_E_INVALID, "clm_set_like_compile: %s is NULL",
                        !set ? "set" : "out");
    *out = NULL;
    clm_devset_early_join(set);
    clm_like *like[CLM_MAX_SET_DEVICES] = {NULL};
    int rc = CLM_OK;
    for (unsigned i = 0; i < set->n && rc == CLM_OK; i++) {
        rc = clm_like_compile(set->dev[i], patterns, lengths, flags, count, escape, &like[i]);
        if (rc != CLM_OK) {
            char why[1024];
            snprintf(why, sizeof why, "%s", clm_last_error());
            rc = clm_fail(rc, "device %u of the set (%s): %s", i, set->dev[i]->info.name, why);
        }
    }
    if (rc == CLM_OK)
        rc = clm_set_like_wrap(set, like, out);
    if (rc != CLM_OK)
        for (unsigned i = 0; i < set->n; i++)
            clm_like_free(like[i]);
    return rc;
}

void clm_set_like_free(clm_set_like *like)
{
    if (!like)
        return;
    for (unsigned i = 0; i < like->n; i++)
        clm_like_free(like->like[i]);
    free(like);
}

const clm_like *clm_set_like_get(const clm_set_like *like, unsigned i)
{
    return like && i < like->n ? like->like[i] : NULL;
}

/* One device's rows [r0, r1) and what came of them. */
struct range {
    const clm_set_like *like;
    unsigned dev;
    struct clm_column col;     /* the rows, a view of the caller's column */
    clm_selection sel;         /* its own ids and positions; the bitmap is the caller's */
    uint64_t r0, r1;
    int status;
    char err[1024];
};

static void *range_run(void *arg)
{
    struct range *g = arg;
    const clm_device_set *set = g->like->set;
    int serial = clm_devset_one_at_a_time(set, g->dev, set->dev[g->dev]);
    clm_devset_serial_lock(serial, 1);
    g->status = clm_like_select(g->like->like[g->dev], &g->col, &g->sel);
    clm_devset_serial_lock(serial, 0);
    if (g->status < 0)
        snprintf(g->err, sizeof g->err, "%s", clm_last_error());
    return NULL;
}

/* The row where device i's range ends: the first row starting at or past its share of the
 * bytes, down to a multiple of RANGE_ROWS. */
static uint64_t range_end(const struct clm_column *col, double share)
{
    const uint64_t first = clm_column_offset(col, 0);
    const uint64_t want = first + (uint64_t)(share * (double)col->bytes);
    uint64_t lo = 0, hi = col->rows;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (clm_column_offset(col, mid) < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo / RANGE_ROWS * RANGE_ROWS;
}

/* Split the rows by the set's speeds (by row counts when the column has no bytes). */
static void split_rows(const clm_device_set *set, const struct clm_column *col,
                       uint64_t *ends)
{
    double sum = 0, acc = 0;
    for (unsigned i = 0; i < set->n; i++)
        sum += set->speed[i];
    for (unsigned i = 0; i < set->n; i++) {
        acc += sum > 0 ? set->speed[i] : 1;
        double share = acc / (sum > 0 ? sum : set->n);
        if (i + 1 == set->n)
            ends[i] = col->rows;
        else if (col->bytes)
            ends[i] = range_end(col, share);
        else
            ends[i] = (uint64_t)(share * (double)col->rows) / RANGE_ROWS * RANGE_ROWS;
        if (i > 0 && ends[i] < ends[i - 1])
            ends[i] = ends[i - 1];
    }
}

static void range_view(struct range *g, const struct clm_column *col)
{
    const size_t width = col->offset_bits / 8;
    g->col = *col;
    g->col.owned = NULL;
    g->col.rows = g->r1 - g->r0;
    g->col.offsets = (const unsigned char *)col->offsets + g->r0 * width;
    g->col.bytes = clm_column_offset(col, g->r1) - clm_column_offset(col, g->r0);
    g->col.validity_bit = col->validity_bit + g->r0;
}

/* Each range's ids (plus its first row) and positions after those of the ranges before it
 * (they fit: the caller's room holds them all). */
static void gather_ids(struct range *g, unsigned n, const clm_selection *s)
{
    uint64_t at = 0;
    for (unsigned i = 0; i < n; i++) {
        const clm_selection *p = &g[i].sel;
        for (uint64_t k = 0; k < p->count; k++, at++) {
            if (s->row_id_bits == 64)
                ((uint64_t *)s->row_ids)[at] = ((const uint64_t *)p->row_ids)[k] + g[i].r0;
            else
                ((uint32_t *)s->row_ids)[at] =
                    (uint32_t)(((const uint32_t *)p->row_ids)[k] + g[i].r0);
            if (s->positions)
                s->positions[at] = p->positions[k];
        }
    }
}

static void free_ranges(struct range *g, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        free(g[i].sel.row_ids);
        free(g[i].sel.positions);
    }
    free(g);
}

int clm_set_like_select(const clm_set_like *like, const clm_column *col, clm_selection *sel)
{
    if (!like || !col || !sel)
        return clm_fail(CLM_E_INVALID, "clm_set_like_select: %s is NULL",
                        !like ? "like" : !col ? "column" : "selection");
    if (col->dev)
        return clm_fail(CLM_E_INVALID, "clm_set_like_select: the column is resident on %s; "
                                       "a set selects host columns (clm_like_select searches "
                                       "a resident one)",
                        col->dev->info.name);
    clm_selection s;
    clm_selection_init(&s, sizeof s);
    int rc = clm_options_read(&s, sizeof s, sel, CLM_SELECTION_V1, "clm_selection",
                              "clm_selection_init");
    if (rc != CLM_OK)
        return rc;
    if (s.row_ids && s.row_id_bits == 32 && col->rows > (uint64_t)UINT32_MAX + 1)
        return clm_fail(CLM_E_INVALID, "clm_selection: 32-bit row ids for a column of %llu "
                                       "rows: set row_id_bits 64",
                        (unsigned long long)col->rows);
    const unsigned n = like->n;
    struct range *g = calloc(n, sizeof *g);
    uint64_t ends[CLM_MAX_SET_DEVICES];
    unsigned char skip[CLM_MAX_SET_DEVICES] = {0};
    if (!g)
        return clm_fail(CLM_E_NOMEM, "out of memory");
    clm_devset_early_lock(like->set, 1);
    split_rows(like->set, col, ends);
    clm_devset_early_lock(like->set, 0);
    size_t id_bytes = s.row_id_bits == 64 ? 8 : 4;
    for (unsigned i = 0; i < n && rc == CLM_OK; i++) {
        struct range *r = &g[i];
        r->like = like;
        r->dev = i;
        r->r0 = i ? ends[i - 1] : 0;
        r->r1 = ends[i];
        r->sel = s;
        r->sel.bitmap = s.bitmap ? s.bitmap + r->r0 / 8 : NULL;
        r->sel.row_ids = NULL;
        r->sel.positions = NULL;
        skip[i] = r->r1 == r->r0 && i > 0; /* device 0 runs even an empty column: checks */
        range_view(r, col);
        if (s.row_ids) {
            uint64_t room = r->r1 - r->r0 < s.row_id_capacity ? r->r1 - r->r0
                                                               : s.row_id_capacity;
            r->sel.row_id_capacity = room;
            r->sel.row_ids = malloc(room ? room * id_bytes : 1);
            r->sel.positions = s.positions ? malloc(room ? room * 8 : 1) : NULL;
            if (!r->sel.row_ids || (s.positions && !r->sel.positions))
                rc = clm_fail(CLM_E_NOMEM, "out of memory for the row ids of %llu rows",
                              (unsigned long long)room);
        }
    }
    if (rc != CLM_OK) {
        free_ranges(g, n);
        return rc;
    }
    clm_devset_run_each(range_run, g, sizeof *g, n, skip);
    uint64_t count = 0;
    for (unsigned i = 0; i < n; i++)
        if (!skip[i]) {
            int short_room = s.row_ids && g[i].sel.count > g[i].sel.row_id_capacity;
            if (g[i].status < 0 && !short_room && rc == CLM_OK)
                rc = clm_fail(g[i].status, "device %u of the set (%s): %s", i,
                              like->set->dev[i]->info.name, g[i].err);
            count += g[i].sel.count;
        }
    sel->count = rc == CLM_OK || (s.row_ids && count > s.row_id_capacity) ? count : 0;
    sel->kernel_used = g[0].sel.kernel_used;
    sel->data_path_used = g[0].sel.data_path_used;
    if (rc == CLM_OK && s.row_ids && count > s.row_id_capacity)
        rc = clm_fail(CLM_E_INVALID, "clm_selection.row_id_capacity %llu is below the %llu "
                                     "rows selected",
                      (unsigned long long)s.row_id_capacity, (unsigned long long)count);
    else if (rc == CLM_OK && s.row_ids)
        gather_ids(g, n, &s);
    free_ranges(g, n);
    return rc;
}
