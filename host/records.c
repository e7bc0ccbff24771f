/* clm_like_select: a LIKE predicate over a string column, resident or sent from host memory
 * in batches of whole rows (cl/records.cl: a work-item per row, then the row ids of each
 * work-group from its base, an exclusive prefix sum of the groups' counts taken here). */
#include <stdlib.h>
#include <string.h>

#include "records.h"

#define DEFAULT_SLAB_BYTES ((size_t)64 << 20)
/* The search kernels read their text in 16-byte words (cl/common.cl LOAD16). */
#define TEXT_ALIGN 16u
/* auto's look at the first piece: anchors in more than one block in DENSE leave too many
 * rows to verify. H200, TPC-H SF 10 comments, with the verify kernel walking a bitmap word's
 * marked blocks: Q13's 'requests' (a block in 5.1) 237 GB/s against 197 for a work-item per
 * row, '%special%' (a block in 8.3) 323 against 244, the verify's share growing with the
 * marked blocks (0.9 ms of search and row lookup, 2.2 ms of verify at Q13), so about even
 * at a block in four (bench/experiments/records-item.md). A CPU verifies more cheaply beside
 * its work-item per row: 2-core PoCL, TPC-H SF 1 comments, filter and verify was 1.7-3.3x
 * faster with 'special' (about a block in eight marked), NOT LIKE Q13 and '%s_ecial%', and
 * even with Q13 ('requests'). */
#define DENSE 5u
#define DENSE_CPU 4u /* at 64-byte blocks: scaled to the CPU's smaller block (query_open) */
/* Rows per launch at most (a multiple of every work-group size): bounds the per-row device
 * buffers (positions, ids) whatever the column. */
#define BATCH_ROWS ((uint64_t)1 << 20)
/* A resident column asked for no row ids: its launches cost a round trip each */
#define RESIDENT_BATCH_ROWS ((uint64_t)32 << 20)
/* Filter and verify: the most bytes one search reads (its n is a uint: a piece, an anchor
 * and the alignment must fit) */
#define MAX_PIECE_BYTES ((size_t)1 << 30)
#define LIKE_WG 256u
/* CLM_ROWS_AUTO: long rows get a work-group each below this many rows per compute unit
 * (auto_group), and CPUs filter rows of fewer bytes than this on a mean (auto_filter) */
#define GROUP_ROWS_PER_UNIT 1024u
#define FILTER_MEAN_CPU 256u
/* KMP's tables (records.cl LIKE_KMP_MAX): a ushort per prog word in local memory */
#define KMP_MAX_WORDS 1024u

int clm_selection_init(clm_selection *sel, size_t size)
{
    if (!sel || size < CLM_SELECTION_V1)
        return clm_fail(CLM_E_INVALID, "clm_selection_init: NULL or a size below %zu",
                        (size_t)CLM_SELECTION_V1);
    memset(sel, 0, size);
    sel->size = size;
    sel->row_id_bits = 32;
    return CLM_OK;
}

static void query_release(struct query *Q)
{
    cl_mem *bufs[] = {&Q->off,    &Q->data,    &Q->valid,   &Q->bitmap,
                      &Q->groups, &Q->bases,   &Q->pos,     &Q->ids_buf,
                      &Q->pos_out, &Q->counter, &Q->blocks, &Q->marked_buf,
                      &Q->list,   &Q->listed,  &Q->index,  &Q->first,
                      &Q->last,   &Q->places};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (*bufs[i])
            clm_pool_put_buffer(Q->dev, *bufs[i]);
    cl_kernel *kernels[] = {&Q->match,  &Q->ids,    &Q->count, &Q->verify,
                            &Q->invert, &Q->marked, &Q->text_k[0],
                            &Q->text_k[1], &Q->text_k[2], &Q->text_k[3]};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (*kernels[i])
            clm_pool_put_kernel(Q->dev, *kernels[i]);
    for (unsigned e = 0; Q->find && e < Q->anchors->engine_count; e++)
        if (Q->find[e])
            clm_pool_put_kernel(Q->dev, Q->find[e]);
    free(Q->find);
    free(Q->zeros);
    if (Q->program)
        clReleaseProgram(Q->program);
    clm_pool_put_queue(Q->dev, Q->q);
    free(Q->counts);
}

/* The last row of the batch that starts at row r0 of a host column: whole rows of at most
 * slab bytes, a multiple of 32 rows (its bitmap bytes are whole) unless it ends the column,
 * and at least 32 rows (or the rest): a row longer than a slab gets a batch of its own 32. */
static uint64_t batch_end(const struct clm_column *c, uint64_t r0, size_t slab)
{
    uint64_t lo = r0 + 1, hi = c->rows - r0 > BATCH_ROWS ? r0 + BATCH_ROWS : c->rows;
    uint64_t start = clm_column_offset(c, r0);
    if (clm_column_offset(c, hi) - start <= slab)
        return hi;
    while (lo < hi) { /* the most rows within slab: offsets do not decrease */
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (clm_column_offset(c, mid) - start <= slab)
            lo = mid;
        else
            hi = mid - 1;
    }
    uint64_t r1 = r0 + (lo - r0) / 32 * 32;
    if (r1 == r0)
        r1 = c->rows - r0 > 32 ? r0 + 32 : c->rows;
    return r1;
}

/* A buffer over the caller's n bytes at p (CL_MEM_USE_HOST_PTR: the kernels read them in
 * place); nothing to read gets a byte of its own. */
static int host_buffer(clm_device *dev, const void *p, size_t n, cl_mem *out)
{
    cl_int err;
    if (*out)
        clReleaseMemObject(*out);
    *out = n ? clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, n,
                              (void *)p, &err)
             : clCreateBuffer(dev->context, CL_MEM_READ_ONLY, 1, NULL, &err);
    return err == CL_SUCCESS ? CLM_OK : clm_fail_cl(err, "clCreateBuffer (string column)");
}

/* ---- staging: a host column's batches through pinned memory (struct clm_device's stage_*) */

/* Where a batch's parts lie in a staging buffer: its bytes, then its offsets, then its
 * validity bytes; 0 when the batch does not fit `cap`. */
static size_t stage_layout(const struct clm_column *c, uint64_t r0, uint64_t r1, size_t cap,
                           size_t *off_at, size_t *valid_at)
{
    uint64_t bytes = clm_column_offset(c, r1) - clm_column_offset(c, r0);
    uint64_t b0 = (c->validity_bit + r0) >> 3, b1 = (c->validity_bit + r1 + 7) >> 3;
    uint64_t o = (bytes + 7) / 8 * 8, v = o + (r1 - r0 + 1) * (c->offset_bits / 8);
    uint64_t end = v + (c->validity ? b1 - b0 : 0);
    if (end > cap)
        return 0;
    *off_at = (size_t)o;
    *valid_at = (size_t)v;
    return (size_t)end;
}

/* Copy rows [r0, r1) of a host column into dst (stage_layout's places), by threads. */
static void stage_fill(const struct clm_column *c, unsigned char *dst, uint64_t r0, uint64_t r1,
                       size_t off_at, size_t valid_at)
{
    size_t ob = c->offset_bits / 8;
    uint64_t start = clm_column_offset(c, r0), bytes = clm_column_offset(c, r1) - start;
    /* the offsets (a twelfth of TPC-H comments' bytes) on a thread of their own, beside the
     * bytes' threads rather than after them */
    clm_parallel_copy2(dst, c->data + start, (size_t)bytes, dst + off_at,
                       (const char *)c->offsets + r0 * ob, (size_t)(r1 - r0 + 1) * ob,
                       clm_io_threads(NULL));
    if (c->validity) {
        uint64_t b0 = (c->validity_bit + r0) >> 3, b1 = (c->validity_bit + r1 + 7) >> 3;
        memcpy(dst + valid_at, c->validity + b0, (size_t)(b1 - b0));
    }
}

void clm_like_stage_free(struct clm_device *dev)
{
    for (int k = 0; k < 2; k++) {
        if (dev->stage_ptr[k])
            clEnqueueUnmapMemObject(dev->stage_q, dev->stage_buf[k], dev->stage_ptr[k], 0,
                                    NULL, NULL);
        dev->stage_ptr[k] = NULL;
    }
    if (dev->stage_q)
        clFinish(dev->stage_q);
    for (int k = 0; k < 2; k++) {
        if (dev->stage_buf[k])
            clReleaseMemObject(dev->stage_buf[k]);
        dev->stage_buf[k] = NULL;
    }
    if (dev->stage_q)
        clReleaseCommandQueue(dev->stage_q);
    dev->stage_q = NULL;
    dev->stage_cap = 0;
}

/* Lend the device's staging buffers, of at least cap bytes, to this call: 1, or 0 when
 * another call holds them or pinned memory cannot be had (the call then sends from the
 * column itself, as fast as the device takes pageable memory). */
static int stage_take(clm_device *dev, size_t cap)
{
    pthread_mutex_lock(&dev->stage_lock);
    int mine = !dev->stage_busy;
    dev->stage_busy = 1;
    pthread_mutex_unlock(&dev->stage_lock);
    if (!mine)
        return 0;
    if (dev->stage_cap >= cap)
        return 1;
    clm_like_stage_free(dev);
    cl_int err;
    dev->stage_q = clCreateCommandQueue(dev->context, dev->device, 0, &err);
    for (int k = 0; k < 2 && err == CL_SUCCESS; k++) {
        dev->stage_buf[k] = clCreateBuffer(dev->context, CL_MEM_READ_ONLY |
                                           CL_MEM_ALLOC_HOST_PTR, cap, NULL, &err);
        if (err == CL_SUCCESS)
            dev->stage_ptr[k] = clEnqueueMapBuffer(dev->stage_q, dev->stage_buf[k], CL_TRUE,
                                                   CL_MAP_WRITE, 0, cap, 0, NULL, NULL, &err);
    }
    if (err == CL_SUCCESS) {
        dev->stage_cap = cap;
        return 1;
    }
    clm_like_stage_free(dev);
    pthread_mutex_lock(&dev->stage_lock);
    dev->stage_busy = 0;
    pthread_mutex_unlock(&dev->stage_lock);
    return 0;
}

static void stage_give(clm_device *dev)
{
    pthread_mutex_lock(&dev->stage_lock);
    dev->stage_busy = 0;
    pthread_mutex_unlock(&dev->stage_lock);
}

/* The next batch of a staged select, copied into its staging buffer while the device works
 * on the current one (run_batch). */
struct stage_next {
    const struct clm_column *c;
    uint64_t r0, r1;
    unsigned char *dst; /* NULL: nothing to copy (no next batch, or it does not fit) */
    size_t off_at, valid_at;
};

/* Send a host column's rows [r0, r1) to the query's buffers, from the column or from staged
 * (stage_fill's copy of them at stage_layout's places), growing the bytes' buffer for a
 * batch larger than it; or, zero-copy, make the buffers the caller's memory of those rows. */
static int send_batch(clm_device *dev, struct query *Q, const struct clm_column *c,
                      uint64_t r0, uint64_t r1, const unsigned char *staged, size_t off_at,
                      size_t valid_at)
{
    size_t ob = c->offset_bits / 8;
    uint64_t start = clm_column_offset(c, r0), bytes = clm_column_offset(c, r1) - start;
    uint64_t b0 = (c->validity_bit + r0) >> 3, b1 = (c->validity_bit + r1 + 7) >> 3;
    int rc;
    if (Q->zero_copy) {
        /* from the aligned address at or before the first row's bytes, where the column's
         * memory has one (filter and verify searches the buffer) */
        uint64_t lead = (uintptr_t)(c->data + start) % TEXT_ALIGN;
        Q->lead = bytes && lead <= start ? lead : 0;
        if ((rc = host_buffer(dev, (const char *)c->offsets + r0 * ob,
                              (size_t)(r1 - r0 + 1) * ob, &Q->off)) ||
            (rc = host_buffer(dev, bytes ? c->data + start - Q->lead : NULL,
                              (size_t)(bytes + Q->lead), &Q->data)))
            return rc;
        return c->validity ? host_buffer(dev, c->validity + b0, (size_t)(b1 - b0), &Q->valid)
                           : CLM_OK;
    }
    if (bytes > Q->data_cap) {
        if (bytes > dev->info.max_alloc_bytes || bytes > SIZE_MAX)
            return clm_fail(CLM_E_DEVICE_MEMORY,
                            "string column: rows %llu to %llu hold %llu bytes, above the "
                            "largest allocation of %s",
                            (unsigned long long)r0, (unsigned long long)r1 - 1,
                            (unsigned long long)bytes, dev->info.name);
        clReleaseMemObject(Q->data);
        Q->data = NULL;
        if ((rc = clm_pool_buffer(dev, CL_MEM_READ_ONLY, (size_t)bytes, &Q->data)) != CLM_OK)
            return rc;
        Q->data_cap = (size_t)bytes;
    }
    const void *off_src = staged ? (const void *)(staged + off_at)
                                 : (const void *)((const char *)c->offsets + r0 * ob);
    const void *data_src = staged ? (const void *)staged : (const void *)(c->data + start);
    const void *valid_src = staged ? (const void *)(staged + valid_at)
                                   : (const void *)(c->validity + b0);
    cl_int err = clEnqueueWriteBuffer(Q->q, Q->off, CL_FALSE, 0, (size_t)(r1 - r0 + 1) * ob,
                                      off_src, 0, NULL, NULL);
    if (err == CL_SUCCESS && bytes)
        err = clEnqueueWriteBuffer(Q->q, Q->data, CL_FALSE, 0, (size_t)bytes, data_src, 0, NULL,
                                   NULL);
    if (err == CL_SUCCESS && c->validity)
        err = clEnqueueWriteBuffer(Q->q, Q->valid, CL_FALSE, 0, (size_t)(b1 - b0), valid_src, 0,
                                   NULL, NULL);
    return err == CL_SUCCESS ? CLM_OK : clm_fail_cl(err, "clEnqueueWriteBuffer (string column)");
}

int clm_rq_arg(cl_kernel k, unsigned i, size_t n, const void *v)
{
    cl_int err = clSetKernelArg(k, i, n, v);
    return err == CL_SUCCESS ? CLM_OK : clm_fail_cl(err, "clSetKernelArg (LIKE)");
}

/* The counts per WG rows of the batch's bitmap (the item kernel writes its own). */
static int count_rows(struct query *Q, cl_uint rows)
{
    size_t groups = (rows + Q->wg - 1) / Q->wg;
    int rc;
    if ((rc = clm_rq_arg(Q->count, CLM_LIKE_COUNT_ARG_BITMAP, sizeof Q->bitmap, &Q->bitmap)) ||
        (rc = clm_rq_arg(Q->count, CLM_LIKE_COUNT_ARG_ROWS, sizeof rows, &rows)) ||
        (rc = clm_rq_arg(Q->count, CLM_LIKE_COUNT_ARG_GROUPS, sizeof Q->groups, &Q->groups)))
        return rc;
    cl_int err = clEnqueueNDRangeKernel(Q->q, Q->count, 1, NULL, &groups, NULL, 0, NULL, NULL);
    return err == CL_SUCCESS ? CLM_OK
                             : clm_fail_cl(err, "clEnqueueNDRangeKernel (clm_like_count)");
}

/* The most bytes a piece's search reads, and its blocks of like->block bytes (an exclusive
 * end may sit at the last byte's end: one more block). */
static uint64_t piece_align(const clm_device *dev)
{
    uint64_t align = dev->info.mem_base_align_bits / 8;
    return align < 16 ? 16 : align;
}

static size_t piece_blocks(const struct query *Q, const clm_device *dev, unsigned block)
{
    uint64_t most = Q->piece + Q->anchors->max_len + piece_align(dev);
    return (size_t)(most / block + 1);
}

/* The anchors' search kernels and their buffers (CLM_ROWS_FILTER), for batches of up to
 * `batch` rows. */
static int filter_open(const struct clm_like *like, const clm_selection *s, struct query *Q,
                       uint64_t batch)
{
    clm_device *dev = like->dev;
    int rc = clm_like_anchors(like, &Q->anchors);
    if (rc != CLM_OK)
        return rc;
    const clm_database *db = Q->anchors;
    if (!(Q->find = calloc(db->engine_count, sizeof *Q->find)))
        return clm_fail(CLM_E_NOMEM, "out of memory");
    cl_int err = CL_SUCCESS;
    for (unsigned e = 0; e < db->engine_count && err == CL_SUCCESS; e++)
        Q->find[e] = clm_pool_kernel(dev, db->engines[e].program, "clm_find", &err);
    if (err == CL_SUCCESS)
        Q->verify = clm_pool_kernel(dev, Q->program, "clm_like_verify", &err);
    if (err == CL_SUCCESS)
        Q->invert = clm_pool_kernel(dev, Q->program, "clm_like_invert", &err);
    if (err == CL_SUCCESS)
        Q->marked = clm_pool_kernel(dev, Q->program, "clm_like_marked", &err);
    if (err != CL_SUCCESS)
        return clm_fail_cl(err, "clCreateKernel (LIKE filter)");
    size_t counter_bytes = CLM_COUNTER_WORDS(db->slots) * sizeof(cl_uint);
    if (!(Q->zeros = calloc(1, counter_bytes)))
        return clm_fail(CLM_E_NOMEM, "out of memory");
    /* a launch reads at most a piece plus an anchor and the alignment: n is a uint */
    Q->piece = s->slab_bytes && s->slab_bytes < MAX_PIECE_BYTES ? s->slab_bytes
                                                                : MAX_PIECE_BYTES;
    Q->block_words = piece_blocks(Q, dev, like->block) / 32 + 1;
    /* a piece lists each of its rows once per uint of blocks it reaches into: at most its
     * rows and one more per uint (GPUs only: CPUs match the rows where they find them) */
    Q->listing = dev->info.type != CLM_DEVICE_CPU;
    uint64_t cap = Q->listing ? batch + Q->block_words : 1;
    if (cap > UINT32_MAX)
        return clm_fail(CLM_E_UNSUPPORTED, "LIKE filter: %llu candidate rows in a batch",
                        (unsigned long long)cap);
    Q->list_cap = (cl_uint)cap;
    if ((rc = clm_pool_buffer(dev, CL_MEM_READ_WRITE, counter_bytes, &Q->counter)) ||
        (rc = clm_pool_buffer(dev, CL_MEM_READ_WRITE, Q->block_words * sizeof(cl_uint), &Q->blocks)) ||
        (rc = clm_pool_buffer(dev, CL_MEM_READ_WRITE, sizeof(cl_uint), &Q->marked_buf)) ||
        (rc = clm_pool_buffer(dev, CL_MEM_READ_WRITE, (size_t)cap * sizeof(cl_uint), &Q->list)) ||
        (rc = clm_pool_buffer(dev, CL_MEM_READ_WRITE, sizeof(cl_uint), &Q->listed)))
        return rc;
    if ((rc = clm_rq_arg(Q->verify, CLM_LIKE_VERIFY_ARG_LIST, sizeof Q->list, &Q->list)) ||
        (rc = clm_rq_arg(Q->verify, CLM_LIKE_VERIFY_ARG_LISTED, sizeof Q->listed, &Q->listed)) ||
        (rc = clm_rq_arg(Q->verify, CLM_LIKE_VERIFY_ARG_LIST_CAP, sizeof Q->list_cap,
                      &Q->list_cap)))
        return rc;
    return CLM_OK;
}

/* Whether CLM_ROWS_AUTO gives each row a work-group: on GPUs, rows of CLM_ROWS_GROUP_MEAN
 * bytes and more on a mean, too few to fill the device with a work-item each. H200, TPC-H
 * SF 10 o_comment joined into rows (bench/results/h200-t2-*-records-*): 11 324 rows of 64
 * KiB, Q13 3.4 TB/s a group per row, 3.2 Seg-32-16, 0.83 a work-item per row; 705 523
 * rows of 1 KiB, 0.20 TB/s a group per row, 0.34 a work-item. The bound between is a
 * guess. Never on CPUs: the 16-core PoCL ran a group per row at 0.2-0.25x a work-item's
 * speed on both. */
static int auto_group(const clm_device *dev, const struct clm_column *c)
{
    return dev->info.type != CLM_DEVICE_CPU && c->bytes / c->rows >= CLM_ROWS_GROUP_MEAN &&
           c->rows < (uint64_t)dev->info.compute_units * GROUP_ROWS_PER_UNIT;
}

/* Whether CLM_ROWS_AUTO tries filter and verify for a filterable predicate (measured on
 * the H200 against a work-item per row, bench/results/h200-*-records-*): for one LIKE or
 * NOT LIKE that is not a prefix or equality (a work-item per row reads only the row's
 * start for those), where rows get no work-group (on 1 KiB rows Q13 ran 2.4x a work-item
 * per row, h200-t2); a disjunction's anchors find most rows. On CPUs over short rows only:
 * the 16-core PoCL verified 436-byte rows (TPC-H's mixed lengths) at 0.4x a work-item per
 * row (pocl16-t2). The first piece's search then says whether the anchors are rare enough
 * (probe). */
static int auto_filter(const struct clm_like *like, const struct clm_column *c)
{
    const clm_device *dev = like->dev;
    return like->count == 1 && !(like->prog[1 + CLM_LIKE_FLAGS] & CLM_LIKE_F_START) &&
           !auto_group(dev, c) &&
           (dev->info.type != CLM_DEVICE_CPU || c->bytes / c->rows < FILTER_MEAN_CPU);
}

/* Whether CLM_ROWS_AUTO walks the automaton of a disjunction of contains (like->aho_buf):
 * over short rows, where a work-item per row reads each row once per pattern and one walk
 * reads it once. A guess until measured on a GPU (TPC-H o_comment, an OR of ten words:
 * a work-item per row 40 GB/s on the H200; filter and verify does not help, as most rows
 * are selected). */
static int auto_automaton(const struct clm_like *like, const struct clm_column *c)
{
    return like->count >= 2 && c->bytes / c->rows < CLM_ROWS_GROUP_MEAN;
}

/* The automaton kernel and its own arguments: the automaton in local memory after the class
 * map when both fit (a KiB left for the kernel's own), else in global memory. */
static int aho_open(const struct clm_like *like, struct query *Q)
{
    clm_device *dev = like->dev;
    size_t local = (CLM_LIKE_AHO_MAP + (size_t)like->aho_words) * 4, spare = 1024;
    int in_local = dev->info.local_mem_bytes > spare &&
                   local <= dev->info.local_mem_bytes - spare;
    cl_int err;
    Q->match = clm_pool_kernel(dev, Q->program,
                               in_local ? "clm_like_aho_local" : "clm_like_aho_global", &err);
    if (err != CL_SUCCESS)
        return clm_fail_cl(err, "clCreateKernel (LIKE automaton)");
    cl_uint words = like->aho_words;
    size_t cache = in_local ? local : CLM_LIKE_AHO_MAP * 4;
    int rc;
    if ((rc = clm_rq_arg(Q->match, CLM_LIKE_AHO_ARG_AHO, sizeof like->aho_buf, &like->aho_buf)) ||
        (rc = clm_rq_arg(Q->match, CLM_LIKE_AHO_ARG_AHO_WORDS, sizeof words, &words)))
        return rc;
    return clm_rq_arg(Q->match, CLM_LIKE_AHO_ARG_CACHE, cache, NULL);
}

static int query_open(const struct clm_like *like, const struct clm_column *c,
                      const clm_selection *s, struct query *Q)
{
    clm_device *dev = like->dev;
    cl_int err;
    size_t max = dev->info.max_work_group_size;
    Q->wg = LIKE_WG;
    while (Q->wg > 32 && Q->wg > max)
        Q->wg /= 2;
    if (Q->wg > max)
        return clm_fail(CLM_E_UNSUPPORTED, "LIKE: %s takes work-groups of %zu, below 32",
                        dev->info.name, max);
    struct clm_kernel_shape shape;
    memset(&shape, 0, sizeof shape);
    shape.records = c->offset_bits;
    shape.wg = Q->wg;
    shape.like_approx = like->approx != 0; /* else the kernels need no room for its states */
    shape.pivot = c->pivot;
    shape.self_segs = c->self_segs;
    shape.self_len = c->self_len;
    shape.like_block = like->block;
    /* KMP's tables are a symbol's ushort each in local memory, per prog word. auto: KMP_basic
     * on GPUs (H200, TPC-H o_comment, a work-item per row: 1.28x the first-byte scan; rows of
     * 1 KiB 1.41x; bench/results/h200-t1-*-records-*), the wide first-byte scan on CPUs */
    clm_like_find find = s->find != CLM_FIND_AUTO ? s->find
                         : dev->info.type == CLM_DEVICE_GPU ? CLM_FIND_KMP_BASIC
                                                            : CLM_FIND_FIRST_BYTE_WIDE;
    if (find == CLM_FIND_FIRST_BYTE_WIDE)
        shape.like_find = 4;
    else if (find >= CLM_FIND_KMP_BASIC && like->prog_words <= KMP_MAX_WORDS) {
        shape.like_find = (unsigned)find - CLM_FIND_KMP_BASIC + 1;
        shape.like_kmp_max = KMP_MAX_WORDS;
    }
    /* Seg-k-t: a team per row; a group holds whole bitmap bytes of rows (8 or more) */
    if (s->kernel == CLM_ROWS_SEGMENT && !like->approx) {
        /* a self-pivoted column: a member per segment of a chunk */
        unsigned t = s->seg_threads ? s->seg_threads
                     : c->self_segs ? c->self_segs
                                    : CLM_SEG_THREADS;
        while (t > 2 && Q->wg / t < 8)
            t /= 2;
        Q->seg_t = t;
        Q->seg_k = s->seg_gap ? s->seg_gap : c->self_len ? c->self_len : CLM_SEG_GAP;
    }
    /* the pairing's kernels only where filter and verify may pair (a bigger program: about
     * a second more to build on the 2-core PoCL) */
    int can_text = (s->kernel == CLM_ROWS_FILTER || s->kernel == CLM_ROWS_AUTO) && !c->pivot &&
                   clm_like_text_plan(like, &Q->segs);
    shape.like_text = can_text != 0;
    int hit, rc = clm_get_program(dev, &shape, &Q->program, &hit, NULL, 0);
    if (rc != CLM_OK)
        return rc;
    Q->q = clm_pool_queue(dev, &err);
    if (err != CL_SUCCESS)
        return clm_fail_cl(err, "clCreateCommandQueue (LIKE)");
    /* auto: in place where the device reads host memory as its own (CPUs, integrated GPUs) */
    Q->zero_copy = !c->dev && (s->data_path == CLM_PATH_ZERO_COPY ||
                               (s->data_path == CLM_PATH_AUTO && dev->info.host_unified_memory));
    /* a resident column's launches cost a round trip each: without ids, few and large */
    Q->batch_rows = c->dev && !s->row_ids ? RESIDENT_BATCH_ROWS : BATCH_ROWS;
    Q->pos_wanted = s->positions != NULL;
    Q->dense = dev->info.type == CLM_DEVICE_CPU ? DENSE_CPU * CLM_LIKE_BLOCK / like->block
                                                : DENSE;
    uint64_t batch = c->rows < Q->batch_rows ? c->rows : Q->batch_rows;
    Q->aho = like->aho_buf &&
             (s->kernel == CLM_ROWS_AUTOMATON ||
              (s->kernel == CLM_ROWS_AUTO && auto_automaton(like, c)));
    /* zero-copy batches start at the aligned address before their first row (send_batch),
     * which a column whose memory is not aligned lacks: the search kernels want aligned text */
    /* a pivoted column's rows are read through its pieces: no search over its bytes in
     * order, no work-group per row */
    Q->filter = !Q->aho && like->filterable && !c->pivot &&
                (!Q->zero_copy || (uintptr_t)c->data % TEXT_ALIGN == 0) &&
                (s->kernel == CLM_ROWS_FILTER ||
                 (Q->probe = s->kernel == CLM_ROWS_AUTO && auto_filter(like, c)));
    /* an approximate pattern's automaton reads the row in order: a work-item per row */
    Q->group = !Q->filter && !Q->aho && !like->approx && !c->pivot &&
               (s->kernel == CLM_ROWS_GROUP ||
                (s->kernel == CLM_ROWS_AUTO && auto_group(dev, c)));
    if (Q->aho && (rc = aho_open(like, Q)) != CLM_OK)
        return rc;
    if (!Q->aho)
        Q->match = clm_pool_kernel(dev, Q->program,
                                   Q->group   ? "clm_like_match_group"
                                   : Q->seg_t ? "clm_like_match_seg"
                                              : "clm_like_match",
                                   &err);
    if (err == CL_SUCCESS && (Q->group || Q->seg_t || Q->filter))
        Q->count = clm_pool_kernel(dev, Q->program, "clm_like_count", &err);
    if (err == CL_SUCCESS)
        Q->ids = clm_pool_kernel(dev, Q->program,
                                 s->row_id_bits == 64 ? "clm_like_ids64" : "clm_like_ids32",
                                 &err);
    if (err != CL_SUCCESS)
        return clm_fail_cl(err, "clCreateKernel (LIKE)");
    size_t groups = (size_t)(batch + Q->wg - 1) / Q->wg, want_pos = s->positions != NULL;
    if (!(Q->counts = malloc(groups * sizeof *Q->counts)))
        return clm_fail(CLM_E_NOMEM, "out of memory");
    /* the bitmap in whole uint words: the filter's kernels set bits atomically */
    if ((rc = clm_pool_buffer(dev, CL_MEM_READ_WRITE, (size_t)(batch + 31) / 32 * 4, &Q->bitmap)) ||
        (rc = clm_pool_buffer(dev, CL_MEM_READ_WRITE, groups * 4, &Q->groups)) ||
        (rc = clm_pool_buffer(dev, CL_MEM_READ_ONLY, groups * 4, &Q->bases)) ||
        (rc = clm_pool_buffer(dev, CL_MEM_READ_WRITE, want_pos ? (size_t)batch * 8 : 8, &Q->pos)) ||
        (rc = clm_pool_buffer(dev, CL_MEM_WRITE_ONLY,
                     s->row_ids ? (size_t)batch * (s->row_id_bits / 8) : 8, &Q->ids_buf)) ||
        (rc = clm_pool_buffer(dev, CL_MEM_WRITE_ONLY, want_pos ? (size_t)batch * 8 : 8, &Q->pos_out)))
        return rc;
    /* one or two literal segments: found over the bytes and paired per row, no anchor
     * compiled; batches of 4 GiB and more (a row's places are uints) go the anchor's way */
    Q->text = Q->filter && can_text &&
              (c->dev ? c->bytes : (uint64_t)(s->slab_bytes ? s->slab_bytes
                                                            : DEFAULT_SLAB_BYTES)) <
                  ((uint64_t)1 << 32);
    if (Q->text) {
        if ((rc = clm_like_text_open(like, c, Q, batch)) != CLM_OK)
            return rc;
    } else if (Q->filter && (rc = filter_open(like, s, Q, batch)) != CLM_OK) {
        if (!Q->probe) /* asked for: its failure is the call's */
            return rc;
        Q->filter = Q->probe = 0; /* auto: anchors that do not build leave a row per item */
    }
    if (Q->zero_copy) { /* send_batch makes the buffers; a NULL-free column gets a dummy */
        if (!c->validity && (rc = clm_pool_buffer(dev, CL_MEM_READ_ONLY, 1, &Q->valid)))
            return rc;
    } else if (!c->dev) { /* a host column's batches go through buffers of the query's own */
        size_t slab = s->slab_bytes ? s->slab_bytes : DEFAULT_SLAB_BYTES;
        uint64_t bytes = c->bytes < slab ? c->bytes : slab;
        if ((rc = clm_pool_buffer(dev, CL_MEM_READ_ONLY, (size_t)(batch + 1) * (c->offset_bits / 8),
                         &Q->off)) ||
            (rc = clm_pool_buffer(dev, CL_MEM_READ_ONLY, (size_t)bytes, &Q->data)) ||
            (rc = clm_pool_buffer(dev, CL_MEM_READ_ONLY, (size_t)(batch + 7) / 8 + 1, &Q->valid)))
            return rc;
        Q->data_cap = (size_t)bytes;
    } else if (!c->valid_buf && (rc = clm_pool_buffer(dev, CL_MEM_READ_ONLY, 1, &Q->valid)))
        return rc;
    return CLM_OK;
}

static void batch_args(const struct clm_column *c, const struct query *Q, uint64_t r0,
                       uint64_t r1, struct batch *b)
{
    b->rows = (cl_uint)(r1 - r0);
    b->has_valid = c->dev ? c->valid_buf != NULL : c->validity != NULL;
    b->row_off = c->dev ? r0 : 0;
    b->row0 = r0;
    b->data = c->dev ? c->data_buf : Q->data;
    b->off = c->dev ? c->off_buf : Q->off;
    b->valid = c->valid_buf ? c->valid_buf : Q->valid;
    b->base = c->dev ? c->dev_base : clm_column_offset(c, r0) - Q->lead;
    b->vbit = c->dev ? c->dev_vbit + r0 : (c->validity_bit + r0) & 7;
}

/* The batch's rows and the predicate: the first arguments of the match and verify kernels
 * (cl/contract.h CLM_LIKE_ROW_ARG_LIST). */
int clm_rq_row_args(const struct clm_like *like, cl_kernel k, const struct batch *b)
{
    int rc;
    if ((rc = clm_rq_arg(k, CLM_LIKE_ROW_ARG_DATA, sizeof b->data, &b->data)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_ROW_ARG_OFFSETS, sizeof b->off, &b->off)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_ROW_ARG_VALID, sizeof b->valid, &b->valid)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_ROW_ARG_VBIT, sizeof b->vbit, &b->vbit)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_ROW_ARG_HAS_VALID, sizeof b->has_valid, &b->has_valid)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_ROW_ARG_ROWS, sizeof b->rows, &b->rows)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_ROW_ARG_ROW_OFF, sizeof b->row_off, &b->row_off)) ||
        (rc = clm_rq_arg(k, CLM_LIKE_ROW_ARG_BASE, sizeof b->base, &b->base)))
        return rc;
    return clm_rq_arg(k, CLM_LIKE_ROW_ARG_PROG, sizeof like->prog_buf, &like->prog_buf);
}

/* A work-item (or a work-group) per row: the batch's bitmap and its counts per group. */
static int match_rows(const struct clm_like *like, struct query *Q, const struct batch *b,
                      cl_uint want_pos)
{
    size_t groups = (b->rows + Q->wg - 1) / Q->wg, global = groups * Q->wg, local = Q->wg;
    /* a work-group per row: a group per bitmap byte, 8 rows one after the other; Seg-k-t:
     * a group per wg / seg_t rows */
    size_t match_global = Q->group   ? (b->rows + 7) / 8 * Q->wg
                          : Q->seg_t ? (b->rows + Q->wg / Q->seg_t - 1) / (Q->wg / Q->seg_t) *
                                           Q->wg
                                     : global;
    int rc;
    if ((rc = clm_rq_row_args(like, Q->match, b)) ||
        (rc = clm_rq_arg(Q->match, CLM_LIKE_MATCH_ARG_BITMAP, sizeof Q->bitmap, &Q->bitmap)) ||
        (rc = clm_rq_arg(Q->match, CLM_LIKE_MATCH_ARG_GROUPS, sizeof Q->groups, &Q->groups)) ||
        (rc = clm_rq_arg(Q->match, CLM_LIKE_MATCH_ARG_POS, sizeof Q->pos, &Q->pos)) ||
        (rc = clm_rq_arg(Q->match, CLM_LIKE_MATCH_ARG_WANT_POS, sizeof want_pos, &want_pos)))
        return rc;
    if (Q->seg_t &&
        ((rc = clm_rq_arg(Q->match, CLM_LIKE_SEG_ARG_SEG_T, sizeof Q->seg_t, &Q->seg_t)) ||
         (rc = clm_rq_arg(Q->match, CLM_LIKE_SEG_ARG_SEG_K, sizeof Q->seg_k, &Q->seg_k))))
        return rc;
    cl_int err = clEnqueueNDRangeKernel(Q->q, Q->match, 1, NULL, &match_global, &local, 0, NULL,
                                        NULL);
    if (err != CL_SUCCESS)
        return clm_fail_cl(err, "clEnqueueNDRangeKernel (clm_like_match)");
    return Q->group || Q->seg_t ? count_rows(Q, b->rows) : CLM_OK;
}

/* The offset at row r of a resident column, read back from the device. */
static int resident_offset(struct query *Q, const struct clm_column *c, uint64_t r,
                           uint64_t *out)
{
    size_t ob = c->offset_bits / 8;
    uint64_t v64 = 0;
    uint32_t v32 = 0;
    if (r == 0 || r == c->rows) { /* the column's ends: no round trip */
        *out = r ? c->bytes : 0;
        return CLM_OK;
    }
    cl_int err = clEnqueueReadBuffer(Q->q, c->off_buf, CL_TRUE, (size_t)r * ob, ob,
                                     ob == 8 ? (void *)&v64 : (void *)&v32, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clm_fail_cl(err, "clEnqueueReadBuffer (column offset)");
    *out = (ob == 8 ? v64 : v32) - c->dev_base;
    return CLM_OK;
}

static int probe(struct query *Q, cl_uint nblocks)
{
    cl_uint words = nblocks / 32 + 1, marked = 0;
    size_t local = Q->wg, global = (words + local - 1) / local * local;
    cl_int err = clEnqueueWriteBuffer(Q->q, Q->marked_buf, CL_FALSE, 0, sizeof marked, &marked,
                                      0, NULL, NULL);
    err |= clSetKernelArg(Q->marked, 0, sizeof Q->blocks, &Q->blocks);
    err |= clSetKernelArg(Q->marked, 1, sizeof words, &words);
    err |= clSetKernelArg(Q->marked, 2, sizeof Q->marked_buf, &Q->marked_buf);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(Q->q, Q->marked, 1, NULL, &global, &local, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(Q->q, Q->marked_buf, CL_TRUE, 0, sizeof marked, &marked, 0,
                                  NULL, NULL);
    if (err != CL_SUCCESS)
        return clm_fail_cl(err, "clm_like_marked");
    Q->probe = 0;
    if ((uint64_t)marked * Q->dense > nblocks)
        Q->filter = 0;
    return CLM_OK;
}

/* The anchors' search over data[a, e) (a aligned), the rows of the blocks where it found
 * one matched against the predicate into the bitmap. */
static int filter_piece(const struct clm_like *like, struct query *Q, const struct batch *b,
                        uint64_t a, uint64_t e)
{
    clm_device *dev = like->dev;
    const clm_database *db = Q->anchors;
    cl_mem text = b->data;
    cl_int err = CL_SUCCESS;
    if (a) { /* a piece of the column's buffer, from an address the device can align */
        cl_buffer_region region = {(size_t)a, (size_t)(e - a)};
        text = clCreateSubBuffer(b->data, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
        if (err != CL_SUCCESS)
            return clm_fail_cl(err, "clCreateSubBuffer (LIKE filter)");
    }
    size_t n = (size_t)(e - a);
    cl_uint nblocks = (cl_uint)(n / like->block + 1), zero = 0;
    err = clEnqueueWriteBuffer(Q->q, Q->counter, CL_FALSE, 0,
                               CLM_COUNTER_WORDS(db->slots) * sizeof(cl_uint), Q->zeros, 0, NULL,
                               NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueFillBuffer(Q->q, Q->blocks, &zero, sizeof zero, 0,
                                  (nblocks / 32 + 1) * sizeof(cl_uint), 0, NULL, NULL);
    for (unsigned k = 0; k < db->engine_count && err == CL_SUCCESS; k++) {
        if (n < db->engines[k].min_m)
            continue;
        err = clSetKernelArg(Q->find[k], CLM_ARG_TEXT, sizeof text, &text);
        if (err == CL_SUCCESS)
            err = clm_engine_enqueue(dev, &db->engines[k], Q->find[k], Q->q, n, 0, n,
                                     Q->counter, Q->blocks, Q->block_words, NULL);
    }
    if (a)
        clReleaseMemObject(text); /* kept by the commands that use it */
    if (err != CL_SUCCESS)
        return clm_fail_cl(err, "enqueue (LIKE filter search)");
    if (Q->probe) {
        int rc = probe(Q, nblocks);
        if (rc != CLM_OK || !Q->filter)
            return rc;
    }
    cl_ulong origin = a;
    cl_uint ends = (cl_uint)db->ends;
    int rc;
    if ((rc = clm_rq_arg(Q->verify, CLM_LIKE_VERIFY_ARG_BLOCKS, sizeof Q->blocks, &Q->blocks)) ||
        (rc = clm_rq_arg(Q->verify, CLM_LIKE_VERIFY_ARG_NBLOCKS, sizeof nblocks, &nblocks)) ||
        (rc = clm_rq_arg(Q->verify, CLM_LIKE_VERIFY_ARG_ORIGIN, sizeof origin, &origin)) ||
        (rc = clm_rq_arg(Q->verify, CLM_LIKE_VERIFY_ARG_ENDS, sizeof ends, &ends)))
        return rc;
    /* GPUs: stage 0 lists the marked blocks' rows, stage 1 matches them, with enough
     * work-items to fill the device, each taking entries a grid apart (a device with a loop
     * budget, an entry each), never one per possible entry for each small piece. CPUs:
     * stage 2 matches them where it finds them, one launch a piece. */
    size_t local = Q->wg, words = (nblocks + 31) / 32;
    size_t most = ((size_t)Q->list_cap + local - 1) / local * local;
    size_t fill = (size_t)(dev->info.compute_units ? dev->info.compute_units : 1) * 8 * local;
    size_t global[2] = {(words + local - 1) / local * local,
                        dev->loop_budget || most < fill ? most : fill};
    if (Q->listing)
        err = clEnqueueFillBuffer(Q->q, Q->listed, &zero, sizeof zero, 0, sizeof zero, 0, NULL,
                                  NULL);
    for (cl_uint step = 0; step < (Q->listing ? 2u : 1u) && err == CL_SUCCESS; step++) {
        cl_uint stage = Q->listing ? step : 2u;
        if ((rc = clm_rq_arg(Q->verify, CLM_LIKE_VERIFY_ARG_STAGE, sizeof stage, &stage)))
            return rc;
        err = clEnqueueNDRangeKernel(Q->q, Q->verify, 1, NULL, &global[step], &local, 0, NULL,
                                     NULL);
    }
    return err == CL_SUCCESS ? CLM_OK
                             : clm_fail_cl(err, "clEnqueueNDRangeKernel (clm_like_verify)");
}

/* NOT LIKE's selection from the rows matched: not matched and not NULL. */
static int invert_rows(struct query *Q, const struct batch *b)
{
    size_t global = ((size_t)b->rows + 31) / 32;
    int rc;
    if ((rc = clm_rq_arg(Q->invert, CLM_LIKE_INVERT_ARG_BITMAP, sizeof Q->bitmap, &Q->bitmap)) ||
        (rc = clm_rq_arg(Q->invert, CLM_LIKE_INVERT_ARG_ROWS, sizeof b->rows, &b->rows)) ||
        (rc = clm_rq_arg(Q->invert, CLM_LIKE_INVERT_ARG_VALID, sizeof b->valid, &b->valid)) ||
        (rc = clm_rq_arg(Q->invert, CLM_LIKE_INVERT_ARG_VBIT, sizeof b->vbit, &b->vbit)) ||
        (rc = clm_rq_arg(Q->invert, CLM_LIKE_INVERT_ARG_HAS_VALID, sizeof b->has_valid,
                         &b->has_valid)))
        return rc;
    cl_int err = clEnqueueNDRangeKernel(Q->q, Q->invert, 1, NULL, &global, NULL, 0, NULL, NULL);
    return err == CL_SUCCESS ? CLM_OK
                             : clm_fail_cl(err, "clEnqueueNDRangeKernel (clm_like_invert)");
}

/* Filter and verify: the batch's bitmap and counts per group from its bytes [b0, b1) of the
 * data buffer, searched in pieces that overlap by an anchor (a row's bit set twice is set
 * once); then NOT LIKE's selection from the rows matched. */
static int filter_rows(const struct clm_like *like, const struct clm_column *c,
                       struct query *Q, const struct batch *b, uint64_t b0, uint64_t b1,
                       cl_uint want_pos)
{
    clm_device *dev = like->dev;
    static const cl_uint zero = 0;
    static const cl_ulong none = CLM_NO_POSITION;
    size_t words = (b->rows + 31) / 32;
    cl_int err = clEnqueueFillBuffer(Q->q, Q->bitmap, &zero, sizeof zero, 0, words * 4, 0,
                                     NULL, NULL);
    if (err == CL_SUCCESS && want_pos)
        err = clEnqueueFillBuffer(Q->q, Q->pos, &none, sizeof none, 0, (size_t)b->rows * 8, 0,
                                  NULL, NULL);
    if (err != CL_SUCCESS)
        return clm_fail_cl(err, "clear (LIKE filter)");
    int rc;
    if ((rc = clm_rq_row_args(like, Q->verify, b)) ||
        (rc = clm_rq_arg(Q->verify, CLM_LIKE_VERIFY_ARG_BITMAP, sizeof Q->bitmap, &Q->bitmap)) ||
        (rc = clm_rq_arg(Q->verify, CLM_LIKE_VERIFY_ARG_POS, sizeof Q->pos, &Q->pos)) ||
        (rc = clm_rq_arg(Q->verify, CLM_LIKE_VERIFY_ARG_WANT_POS, sizeof want_pos, &want_pos)))
        return rc;
    uint64_t align = piece_align(dev), reach = Q->anchors->max_len - 1;
    for (uint64_t p0 = b0, p1; p0 < b1 && rc == CLM_OK && Q->filter; p0 = p1) {
        /* auto's probe reads a smaller first piece: a common anchor costs little then */
        uint64_t size = Q->probe && Q->piece > CLM_RQ_PROBE_BYTES ? CLM_RQ_PROBE_BYTES : Q->piece;
        p1 = b1 - p0 > size ? p0 + size : b1;
        rc = filter_piece(like, Q, b, p0 / align * align, b1 - p1 > reach ? p1 + reach : b1);
    }
    if (rc != CLM_OK || !Q->filter)
        return rc;
    if ((like->prog[1 + CLM_LIKE_FLAGS] & CLM_LIKE_F_NOT) && (rc = invert_rows(Q, b)))
        return rc;
    (void)c;
    return rc == CLM_OK ? count_rows(Q, b->rows) : rc;
}

/* The batch's bitmap read back, its counts turned into each group's base, and the ids and
 * positions of its selected rows from *done on (up to the capacity). */
static int collect(struct query *Q, const clm_selection *s, const struct batch *b,
                   uint64_t *done)
{
    cl_uint rows = b->rows, want_pos = s->positions != NULL;
    size_t groups = (rows + Q->wg - 1) / Q->wg, global = groups * Q->wg, local = Q->wg;
    uint64_t r0 = b->row0;
    int rc;
    cl_int err;
    if ((err = clEnqueueReadBuffer(Q->q, Q->groups, CL_TRUE, 0, groups * 4, Q->counts, 0, NULL,
                                   NULL)) != CL_SUCCESS)
        return clm_fail_cl(err, "clEnqueueReadBuffer (LIKE counts)");
    uint32_t total = 0;
    for (size_t g = 0; g < groups; g++) { /* the exclusive prefix sum: each group's base */
        uint32_t n = Q->counts[g];
        Q->counts[g] = total;
        total += n;
    }
    if (s->bitmap && (err = clEnqueueReadBuffer(Q->q, Q->bitmap, CL_FALSE, 0, (rows + 7) / 8,
                                                s->bitmap + r0 / 8, 0, NULL, NULL)) !=
                         CL_SUCCESS)
        return clm_fail_cl(err, "clEnqueueReadBuffer (LIKE bitmap)");
    if (s->row_ids && total && *done + total <= s->row_id_capacity) {
        size_t idb = s->row_id_bits / 8;
        if ((err = clEnqueueWriteBuffer(Q->q, Q->bases, CL_FALSE, 0, groups * 4, Q->counts, 0,
                                        NULL, NULL)) != CL_SUCCESS)
            return clm_fail_cl(err, "clEnqueueWriteBuffer (LIKE bases)");
        if ((rc = clm_rq_arg(Q->ids, CLM_LIKE_IDS_ARG_BITMAP, sizeof Q->bitmap, &Q->bitmap)) ||
            (rc = clm_rq_arg(Q->ids, CLM_LIKE_IDS_ARG_ROWS, sizeof rows, &rows)) ||
            (rc = clm_rq_arg(Q->ids, CLM_LIKE_IDS_ARG_BASES, sizeof Q->bases, &Q->bases)) ||
            (rc = clm_rq_arg(Q->ids, CLM_LIKE_IDS_ARG_ROW0, sizeof b->row0, &b->row0)) ||
            (rc = clm_rq_arg(Q->ids, CLM_LIKE_IDS_ARG_IDS, sizeof Q->ids_buf, &Q->ids_buf)) ||
            (rc = clm_rq_arg(Q->ids, CLM_LIKE_IDS_ARG_POS, sizeof Q->pos, &Q->pos)) ||
            (rc = clm_rq_arg(Q->ids, CLM_LIKE_IDS_ARG_POS_OUT, sizeof Q->pos_out, &Q->pos_out)) ||
            (rc = clm_rq_arg(Q->ids, CLM_LIKE_IDS_ARG_WANT_POS, sizeof want_pos, &want_pos)))
            return rc;
        err = clEnqueueNDRangeKernel(Q->q, Q->ids, 1, NULL, &global, &local, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return clm_fail_cl(err, "clEnqueueNDRangeKernel (clm_like_ids)");
        err = clEnqueueReadBuffer(Q->q, Q->ids_buf, CL_FALSE, 0, total * idb,
                                  (char *)s->row_ids + *done * idb, 0, NULL, NULL);
        if (err == CL_SUCCESS && want_pos)
            err = clEnqueueReadBuffer(Q->q, Q->pos_out, CL_FALSE, 0, (size_t)total * 8,
                                      s->positions + *done, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return clm_fail_cl(err, "clEnqueueReadBuffer (LIKE row ids)");
    }
    /* the next batch reuses the buffers: this one's reads must be done */
    if ((err = clFinish(Q->q)) != CL_SUCCESS)
        return clm_fail_cl(err, "clFinish (LIKE)");
    *done += total;
    return CLM_OK;
}

/* Filter and verify over a batch: its bytes' range in the data buffer first. */
static int filter_batch(const struct clm_like *like, const struct clm_column *c,
                        struct query *Q, const struct batch *b, uint64_t r0, uint64_t r1)
{
    uint64_t b0 = 0, b1;
    int rc;
    if (Q->text && Q->text_groups)
        return clm_like_text_groups(like, c, Q, b);
    if (c->dev) {
        if ((rc = resident_offset(Q, c, r0, &b0)) || (rc = resident_offset(Q, c, r1, &b1)))
            return rc;
    } else { /* the batch's bytes, after the lead of a zero-copy buffer */
        b0 = Q->lead;
        b1 = b0 + clm_column_offset(c, r1) - clm_column_offset(c, r0);
    }
    return Q->text ? clm_like_text_rows(like, Q, b, b0, b1)
                   : filter_rows(like, c, Q, b, b0, b1, Q->pos_wanted);
}

/* Rows [r0, r1) of the column, already on the device: the bitmap's bytes, the count, and
 * the ids and positions from *done on (up to the capacity). */
static int run_batch(const struct clm_like *like, const struct clm_column *c,
                     const clm_selection *s, struct query *Q, uint64_t r0, uint64_t r1,
                     uint64_t *done, const struct stage_next *next)
{
    struct batch b;
    batch_args(c, Q, r0, r1, &b);
    int rc = Q->filter ? filter_batch(like, c, Q, &b, r0, r1) : CLM_OK;
    if (rc == CLM_OK && !Q->filter) /* or auto found the anchors too common to filter */
        rc = match_rows(like, Q, &b, Q->pos_wanted);
    if (rc == CLM_OK && next && next->dst) { /* the device works while the host copies */
        cl_int err = clFlush(Q->q);
        if (err != CL_SUCCESS)
            return clm_fail_cl(err, "clFlush (LIKE)");
        stage_fill(next->c, next->dst, next->r0, next->r1, next->off_at, next->valid_at);
    }
    return rc == CLM_OK ? collect(Q, s, &b, done) : rc;
}

int clm_like_select(const clm_like *like, const clm_column *col, clm_selection *sel)
{
    clm_selection s;
    int rc;
    if (!like || !col || !sel)
        return clm_fail(CLM_E_INVALID, "clm_like_select: %s is NULL",
                        !like ? "like" : !col ? "column" : "selection");
    clm_selection_init(&s, sizeof s);
    if ((rc = clm_options_read(&s, sizeof s, sel, CLM_SELECTION_V1, "clm_selection",
                               "clm_selection_init")) != CLM_OK)
        return rc;
    if (s.row_id_bits != 32 && s.row_id_bits != 64)
        return clm_fail(CLM_E_INVALID, "clm_selection.row_id_bits %u: 32 or 64",
                        s.row_id_bits);
    if (s.row_id_bits == 32 && col->rows > (uint64_t)UINT32_MAX + 1)
        return clm_fail(CLM_E_INVALID, "clm_selection: 32-bit row ids for a column of %llu "
                                       "rows: set row_id_bits 64",
                        (unsigned long long)col->rows);
    if (s.data_path != CLM_PATH_AUTO && s.data_path != CLM_PATH_COPY &&
        s.data_path != CLM_PATH_ZERO_COPY)
        return clm_fail(CLM_E_INVALID, "clm_selection.data_path %d: auto, copy or zero-copy",
                        (int)s.data_path);
    if ((unsigned)s.kernel > CLM_ROWS_SEGMENT)
        return clm_fail(CLM_E_INVALID, "clm_selection.kernel %d: CLM_ROWS_AUTO, _ITEM, _GROUP, "
                                       "_FILTER, _AUTOMATON or _SEGMENT",
                        (int)s.kernel);
    if (s.seg_threads && (s.seg_threads < 2 || s.seg_threads > 32 ||
                          (s.seg_threads & (s.seg_threads - 1))))
        return clm_fail(CLM_E_INVALID, "clm_selection.seg_threads %u: a power of 2 from 2 to 32",
                        s.seg_threads);
    if (s.seg_gap > 65536)
        return clm_fail(CLM_E_INVALID, "clm_selection.seg_gap %u: 1 to 65536", s.seg_gap);
    if ((unsigned)s.find > CLM_FIND_FIRST_BYTE_WIDE)
        return clm_fail(CLM_E_INVALID, "clm_selection.find %d: CLM_FIND_AUTO, _FIRST_BYTE, "
                                       "_KMP_BASIC, _KMP_STEP, _KMP_HYBRID or _FIRST_BYTE_WIDE",
                        (int)s.find);
    if (s.positions && !s.row_ids)
        return clm_fail(CLM_E_INVALID, "clm_selection: positions without row_ids");
    if (col->dev && col->dev != like->dev)
        return clm_fail(CLM_E_INVALID, "clm_like_select: the column is resident on %s, the "
                                       "predicate compiled for %s",
                        col->dev->info.name, like->dev->info.name);
    if (like->dev->model)
        return clm_fail(CLM_E_INVALID, "clm_like_select: a model device runs nothing");
    sel->count = 0;
    if (col->rows == 0)
        return CLM_OK;
    struct query Q;
    memset(&Q, 0, sizeof Q);
    Q.dev = like->dev;
    uint64_t done = 0;
    size_t slab = s.slab_bytes ? s.slab_bytes : DEFAULT_SLAB_BYTES;
    rc = query_open(like, col, &s, &Q);
    /* a host column on the copy path: batches through the pinned staging buffers, the next
     * one copied there while the device takes the current one */
    size_t cap = slab + (size_t)(BATCH_ROWS + 1) * 8 + (size_t)BATCH_ROWS / 8 + 16;
    int staging = rc == CLM_OK && !col->dev && !Q.zero_copy && stage_take(like->dev, cap);
    struct stage_next cur = {col, 0, 0, NULL, 0, 0};
    int k = 0; /* the staging buffer of the current batch; the next one takes the other */
    for (uint64_t r0 = 0, r1 = 0; rc == CLM_OK && r0 < col->rows; r0 = r1, k ^= 1) {
        r1 = col->dev ? (col->rows - r0 > Q.batch_rows ? r0 + Q.batch_rows : col->rows)
                      : batch_end(col, r0, slab);
        if (staging && r0 == 0 && stage_layout(col, r0, r1, cap, &cur.off_at, &cur.valid_at)) {
            cur.dst = like->dev->stage_ptr[0];
            stage_fill(col, cur.dst, r0, r1, cur.off_at, cur.valid_at);
        }
        if (!col->dev)
            rc = send_batch(like->dev, &Q, col, r0, r1, cur.dst, cur.off_at, cur.valid_at);
        struct stage_next next = {col, r1, r1, NULL, 0, 0};
        if (staging && r1 < col->rows) {
            next.r1 = batch_end(col, r1, slab);
            if (stage_layout(col, next.r0, next.r1, cap, &next.off_at, &next.valid_at))
                next.dst = like->dev->stage_ptr[k ^ 1];
        }
        if (rc == CLM_OK)
            rc = run_batch(like, col, &s, &Q, r0, r1, &done, &next);
        cur = next;
    }
    if (staging)
        stage_give(like->dev);
    sel->kernel_used = Q.aho      ? CLM_ROWS_AUTOMATON
                       : Q.filter ? CLM_ROWS_FILTER
                       : Q.group  ? CLM_ROWS_GROUP
                       : Q.seg_t  ? CLM_ROWS_SEGMENT
                                  : CLM_ROWS_ITEM;
    sel->data_path_used = col->dev       ? CLM_PATH_AUTO
                          : Q.zero_copy ? CLM_PATH_ZERO_COPY
                                        : CLM_PATH_COPY;
    query_release(&Q);
    if (rc != CLM_OK)
        return rc;
    sel->count = done;
    if (s.row_ids && done > s.row_id_capacity)
        return clm_fail(CLM_E_INVALID, "clm_selection.row_id_capacity %llu is below the %llu "
                                       "rows selected (clm_selection.count)",
                        (unsigned long long)s.row_id_capacity, (unsigned long long)done);
    return CLM_OK;
}
