/* records_text.c - CLM_ROWS_FILTER for one LIKE or NOT LIKE of one or two literal segments
 * ('%a%', '%a%b%'): the batch's bytes are searched as one text for both segments and each
 * place is kept by the row holding it (cl/like_text.cl), so that no row is read whole and no
 * anchor database is compiled. Filter and verify (records.c) serves the other predicates. */
#include <string.h>

#include "records.h"

/* Segment k's words of the kernel's SEGS (contract.h CLM_LIKE_TEXT_ARG_LIST) from `at` on:
 * its length, its first three bytes replicated, the masks of the second and third. */
static void segment_words(const uint32_t *prog, uint32_t sym, uint32_t len, cl_uint *at)
{
    at[0] = len;
    for (uint32_t j = 0; j < 3; j++)
        at[1 + j] = j < len ? prog[sym + j] * 0x01010101u : 0;
    at[4] = len > 1 ? 0xffffffffu : 0;
    at[5] = len > 2 ? 0xffffffffu : 0;
}

/* CLMATCH_LIKE_TEXT: 0 unset (or another value), else 1 + its index in text_env's list */
enum { TEXT_ENV_OFF = 1, TEXT_ENV_ON, TEXT_ENV_INDEX, TEXT_ENV_GROUPS };
static int text_env(void)
{
    static const char *const values[] = {"off", "on", "index", "groups"};
    const char *env = clm_env(CLM_ENV_LIKE_TEXT);
    for (int i = 0; env && i < 4; i++)
        if (strcmp(env, values[i]) == 0)
            return 1 + i;
    return 0;
}

int clm_like_text_plan(const struct clm_like *like, cl_uint16 *segs)
{
    const int env = text_env(), forced = env > TEXT_ENV_OFF;
    if (env == TEXT_ENV_OFF)
        return 0;
    const uint32_t *prog = like->prog, *head = prog + 1;
    const uint32_t flags = head[CLM_LIKE_FLAGS], n = head[CLM_LIKE_SEGS];
    const uint32_t anchored =
        CLM_LIKE_F_APPROX | CLM_LIKE_F_START | CLM_LIKE_F_END | CLM_LIKE_F_EXACT;
    /* GPUs only: on the H200 machine's 16 cores (PoCL) an anchor and its rows' verify took
     * half the time (TPC-H SF 10 o_comment: Q13 0.11 s against 0.20 s, '%special%' 0.069
     * against 0.12). A device with a loop budget (llvmpipe) would spend it on a long
     * segment's compares. */
    if (like->count != 1 || (flags & anchored) || n < 1 || n > 2 || like->dev->loop_budget ||
        (like->dev->info.type == CLM_DEVICE_CPU && !forced))
        return 0;
    memset(segs, 0, sizeof *segs);
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t sym = prog[head[CLM_LIKE_SEG] + 2 * k];
        const uint32_t len = prog[head[CLM_LIKE_SEG] + 2 * k + 1];
        if (!len)
            return 0;
        for (uint32_t j = 0; j < len; j++)
            if (prog[sym + j] == CLM_LIKE_ANY)
                return 0;
        if (k == 0) {
            segs->s[0] = sym;
            segment_words(prog, sym, len, &segs->s[1]);
        } else {
            segs->s[14] = sym;
            segment_words(prog, sym, len, &segs->s[8]);
        }
    }
    segs->s[7] = flags;
    /* clm_like_text_groups finds segments of 7 bytes and more by their aligned words */
    segs->s[15] = segs->s[1] >= 7 && (n == 1 || segs->s[8] >= 7);
    return 1;
}

/* Rows per work-group of clm_like_text_groups (cl/like_text.cl TEXT_ROWS), and the mean row
 * length up to which auto takes it: a group's bytes are then its rows' at most 8 wg x 256. */
#define GROUP_ROWS_PER_ITEM 8u
#define GROUPS_MEAN 256u

/* Whether a batch's rows go a work-group per range of them: short rows, and room for their
 * offsets, first a and last b, and the grains' rows in local memory (a KiB left for the
 * kernel's own). */
static int use_groups(const struct clm_like *like, const struct clm_column *c,
                      const struct query *Q)
{
    const int env = text_env();
    size_t local = ((size_t)GROUP_ROWS_PER_ITEM * Q->wg * 3 + 9) * 4 +
                   (size_t)GROUP_ROWS_PER_ITEM * Q->wg * 2;
    if (env == TEXT_ENV_INDEX || local + 1024 > like->dev->info.local_mem_bytes)
        return 0;
    return env == TEXT_ENV_GROUPS || c->bytes / c->rows <= GROUPS_MEAN;
}

int clm_like_text_open(const struct clm_like *like, const struct clm_column *c,
                       struct query *Q, uint64_t batch)
{
    static const char *const names[4] = {"clm_like_text_index", "clm_like_text_search",
                                         "clm_like_text_select", "clm_like_text_groups"};
    cl_int err = CL_SUCCESS;
    Q->text_groups = use_groups(like, c, Q);
    for (int i = Q->text_groups ? 3 : 0; i < (Q->text_groups ? 4 : 3) && err == CL_SUCCESS; i++)
        Q->text_k[i] = clm_pool_kernel(like->dev, Q->program, names[i], &err);
    if (err != CL_SUCCESS)
        return clm_fail_cl(err, "clCreateKernel (LIKE text)");
    int rc;
    if (Q->text_groups)
        return clm_pool_buffer(like->dev, CL_MEM_READ_WRITE, sizeof(cl_uint), &Q->places);
    if ((rc = clm_pool_buffer(like->dev, CL_MEM_READ_WRITE, (size_t)batch * 4, &Q->first)) ||
        (rc = clm_pool_buffer(like->dev, CL_MEM_READ_WRITE, Q->segs.s[8] ? (size_t)batch * 4 : 4,
                            &Q->last)))
        return rc;
    return clm_pool_buffer(like->dev, CL_MEM_READ_WRITE, sizeof(cl_uint), &Q->places);
}

/* A launch of clm_like_text's stage: stages 1 and 3 over the starts [origin, owned) of the
 * batch's bytes (origin CLM_LIKE_TEXT_CHUNK-aligned from B0), a work-item per chunk; the
 * others a work-item per row. */
static int text_stage(struct query *Q, cl_uint stage, cl_uint rows, cl_ulong origin,
                      cl_ulong owned)
{
    size_t items = rows;
    if (stage == 1 || stage == 3)
        items = (size_t)((owned - origin + CLM_LIKE_TEXT_CHUNK - 1) / CLM_LIKE_TEXT_CHUNK);
    size_t local = Q->wg, global = (items + local - 1) / local * local;
    cl_kernel k = Q->text_k[stage == 0 ? 0 : stage == 2 ? 2 : 1];
    int rc;
    if ((rc = clm_rq_arg(k, CLM_LIKE_TEXT_ARG_STAGE, sizeof stage, &stage)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_TEXT_ARG_ORIGIN, sizeof origin, &origin)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_TEXT_ARG_OWNED, sizeof owned, &owned)))
        return rc;
    if (!items)
        return CLM_OK;
    cl_int err = clEnqueueNDRangeKernel(Q->q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    return err == CL_SUCCESS ? CLM_OK
                             : clm_fail_cl(err, "clEnqueueNDRangeKernel (clm_like_text)");
}

/* Kernel k's arguments for batch b: its bytes from B0 (16-aligned) to AVAIL, the index and the
 * per-row arrays (any buffer where the kernel reads none). */
static int text_args(const struct clm_like *like, struct query *Q, cl_kernel k,
                     const struct batch *b, cl_mem index, cl_ulong b0, cl_ulong avail,
                     cl_mem first, cl_mem last)
{
    int rc;
    if ((rc = clm_rq_row_args(like, k, b)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_TEXT_ARG_INDEX, sizeof index, &index)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_TEXT_ARG_B0, sizeof b0, &b0)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_TEXT_ARG_AVAIL, sizeof avail, &avail)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_TEXT_ARG_SEGS, sizeof Q->segs, &Q->segs)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_TEXT_ARG_FIRST, sizeof first, &first)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_TEXT_ARG_LAST, sizeof last, &last)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_TEXT_ARG_BITMAP, sizeof Q->bitmap, &Q->bitmap)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_TEXT_ARG_GROUPS, sizeof Q->groups, &Q->groups)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_TEXT_ARG_POS, sizeof Q->pos, &Q->pos)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_TEXT_ARG_WANT_POS, sizeof Q->pos_wanted, &Q->pos_wanted)))
        return rc;
    return clm_rq_arg(k, CLM_LIKE_TEXT_ARG_PLACES, sizeof Q->places, &Q->places);
}

/* auto: one place in DENSE bytes of the first piece or more leaves the batch (and the
 * select) to a work-item per row. H200, TPC-H SF 10 o_comment resident: '%ly%' (about one
 * place in 30 bytes) 1.31 ms paired against 2.30 a work-item per row, '%s%r%' 2.31 against
 * 2.39, '%e%' (about one in 8) 1.78 against 1.20. */
#define DENSE 16u

/* auto's probe: its count of places set to 0 before, read back after (and the probe done). */
static int places_clear(struct query *Q)
{
    static const cl_uint zero = 0;
    cl_int err = clEnqueueWriteBuffer(Q->q, Q->places, CL_FALSE, 0, sizeof zero, &zero, 0, NULL,
                                      NULL);
    return err == CL_SUCCESS ? CLM_OK
                             : clm_fail_cl(err, "clEnqueueWriteBuffer (LIKE text probe)");
}

static int places_read(struct query *Q, cl_uint *places)
{
    cl_int err = clEnqueueReadBuffer(Q->q, Q->places, CL_TRUE, 0, sizeof *places, places, 0,
                                     NULL, NULL);
    Q->probe = 0;
    return err == CL_SUCCESS ? CLM_OK
                             : clm_fail_cl(err, "clEnqueueReadBuffer (LIKE text probe)");
}

/* auto's probe: the search of the batch's first CLM_RQ_PROBE_BYTES from a, counting its
 * places; *from: where the rest of the search starts, when the places are rare enough. */
static int probe(struct query *Q, cl_ulong a, cl_ulong b1, cl_ulong *from)
{
    cl_ulong end = b1 - a > CLM_RQ_PROBE_BYTES ? a + CLM_RQ_PROBE_BYTES : b1;
    cl_uint places;
    int rc;
    if ((rc = places_clear(Q)) || (rc = text_stage(Q, 3, 0, a, end)) ||
        (rc = places_read(Q, &places)))
        return rc;
    if ((uint64_t)places * DENSE > end - a)
        Q->filter = 0;
    *from = end;
    return CLM_OK;
}

int clm_like_text_rows(const struct clm_like *like, struct query *Q, const struct batch *b,
                       uint64_t b0, uint64_t b1)
{
    const cl_ulong a = b0 / 16 * 16, end = b1;
    const size_t grains = (size_t)((b1 - a) / CLM_LIKE_TEXT_GRAIN + 1);
    int rc;
    if (grains > Q->index_cap) {
        clm_pool_put_buffer(like->dev, Q->index);
        Q->index = NULL;
        Q->index_cap = 0;
        if ((rc = clm_pool_buffer(like->dev, CL_MEM_READ_WRITE, grains * 4, &Q->index)))
            return rc;
        Q->index_cap = grains;
    }
    for (int i = 0; i < 3; i++)
        if ((rc = text_args(like, Q, Q->text_k[i], b, Q->index, a, end, Q->first, Q->last)))
            return rc;
    if ((rc = text_stage(Q, 0, b->rows, a, a)))
        return rc;
    cl_ulong from = a;
    if (Q->probe && (rc = probe(Q, a, b1, &from)) != CLM_OK)
        return rc;
    if (!Q->filter) /* too dense: the batch goes to a work-item per row */
        return CLM_OK;
    if (from < end && (rc = text_stage(Q, 1, 0, from, end)))
        return rc;
    return text_stage(Q, 2, b->rows, a, a);
}

/* Groups [g0, g1) of clm_like_text_groups, stage 4 (or 5: counting their places). */
static int groups_stage(struct query *Q, cl_uint stage, cl_ulong g0, cl_ulong g1)
{
    cl_kernel k = Q->text_k[3];
    int rc;
    if ((rc = clm_rq_arg(k, CLM_LIKE_TEXT_ARG_STAGE, sizeof stage, &stage)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_TEXT_ARG_ORIGIN, sizeof g0, &g0)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_TEXT_ARG_OWNED, sizeof g1, &g1)))
        return rc;
    size_t local = Q->wg, global = (size_t)(g1 - g0) * local;
    cl_int err = clEnqueueNDRangeKernel(Q->q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    return err == CL_SUCCESS ? CLM_OK
                             : clm_fail_cl(err, "clEnqueueNDRangeKernel (clm_like_text_groups)");
}

int clm_like_text_groups(const struct clm_like *like, const struct clm_column *c,
                         struct query *Q, const struct batch *b)
{
    /* every byte of the data buffer may be read: the kernel keeps places within its rows */
    size_t size = 0;
    cl_int err = clGetMemObjectInfo(b->data, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err != CL_SUCCESS)
        return clm_fail_cl(err, "clGetMemObjectInfo (LIKE text)");
    int rc = text_args(like, Q, Q->text_k[3], b, Q->places, 0, size, Q->places, Q->places);
    if (rc != CLM_OK)
        return rc;
    const uint64_t per = (uint64_t)GROUP_ROWS_PER_ITEM * Q->wg;
    const cl_ulong groups = (b->rows + per - 1) / per;
    if (!Q->probe)
        return groups_stage(Q, 4, 0, groups);
    /* auto: the groups of about the first CLM_RQ_PROBE_BYTES count their places. The rest
     * is launched before the count is read back (no round trip between them); a count that
     * finds the places too dense leaves the whole batch to a work-item per row. */
    uint64_t mean = c->bytes / c->rows ? c->bytes / c->rows : 1;
    uint64_t n = (CLM_RQ_PROBE_BYTES / mean + per - 1) / per;
    const cl_ulong from = n < groups ? n : groups;
    cl_uint places;
    if ((rc = places_clear(Q)) || (rc = groups_stage(Q, 5, 0, from)) ||
        (from < groups && (rc = groups_stage(Q, 4, from, groups))) ||
        (rc = places_read(Q, &places)))
        return rc;
    uint64_t probed = from * per < b->rows ? from * per : b->rows;
    if ((uint64_t)places * DENSE > probed * mean)
        Q->filter = 0; /* too dense: the batch goes to a work-item per row */
    return CLM_OK;
}
