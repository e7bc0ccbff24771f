/* records.h - what host/records.c (clm_like_select) shares with the strategies in files of
 * their own (records_text.c). */
#ifndef CLM_RECORDS_H
#define CLM_RECORDS_H

#include "internal.h"

/* Everything one clm_like_select call holds on the device. */
struct query {
    clm_device *dev; /* its queue and buffers go back to dev's pool (like_pool.c) */
    cl_command_queue q;
    cl_program program;
    cl_kernel match, count, ids; /* count: after a work-group per row and filter only */
    int group;                   /* a work-group per row (CLM_ROWS_GROUP) */
    cl_uint seg_t, seg_k;        /* Seg-k-t (CLM_ROWS_SEGMENT): work-items per row (0: not
                                    Seg-k-t) and places per slice */
    int aho;                     /* an automaton walk per row (CLM_ROWS_AUTOMATON) */
    cl_mem off, data, valid, bitmap, groups, bases, pos, ids_buf, pos_out;
    size_t data_cap; /* host columns: bytes data holds */
    cl_uint pos_wanted;
    int zero_copy;   /* host columns: each batch's buffers are the caller's memory itself */
    uint64_t lead;   /* zero-copy: bytes before the batch's first row in its data buffer,
                        which then starts TEXT_ALIGN-aligned */
    unsigned wg;
    uint32_t *counts;
    uint64_t batch_rows; /* rows per launch at most */
    /* filter and verify (CLM_ROWS_FILTER): the anchors' search kernels (one per engine),
     * their counters and the blocks their matches were in (a bit per like->block bytes
     * of a piece, block_words uints) */
    int filter;
    int probe; /* auto: the first piece's marked blocks decide whether to filter at all */
    unsigned dense; /* ... leaving it for a work-item per row past one block in dense */
    const clm_database *anchors;
    cl_kernel *find, verify, invert, marked;
    cl_mem counter, blocks, marked_buf, list, listed; /* list: the candidate rows to match */
    size_t block_words, piece;
    int listing;     /* GPUs: the verify lists the candidate rows, then matches the list */
    cl_uint list_cap;
    void *zeros;
    /* filter by the text (records_text.c): one LIKE of one or two literal segments, found
     * over the batch's bytes and paired per row, none verified */
    int text;
    int text_groups; /* short rows: a work-group per rows' range, their places in local
                        memory (clm_like_text_groups: text_k[3] alone) */
    cl_kernel text_k[4]; /* clm_like_text_index, _search, _select, _groups */
    cl_uint16 segs;
    cl_mem index, first, last, places;
    size_t index_cap;
};

/* What the kernels of one batch read: rows [r0, r1) of the column, already on the device. */
struct batch {
    cl_uint rows, has_valid;
    cl_ulong row_off, base, vbit, row0;
    cl_mem data, off, valid;
};

/* auto's probe: the bytes of the first piece searched before it decides */
#define CLM_RQ_PROBE_BYTES ((uint64_t)32 << 20)

int clm_rq_arg(cl_kernel k, unsigned i, size_t n, const void *v);
/* The batch's rows and the predicate: the first arguments of the row kernels. */
int clm_rq_row_args(const struct clm_like *like, cl_kernel k, const struct batch *b);

/* records_text.c: whether the predicate is one LIKE or NOT LIKE of one or two literal
 * segments between '%'s ('%a%', '%a%b%'), with *segs its kernel argument; its kernel and
 * buffers for batches of up to `batch` rows; and a batch's bitmap, counts and positions
 * from its bytes [b0, b1) of the data buffer (auto's probe, Q->probe, may find the places
 * too dense and leave the batch with Q->filter 0). */
int clm_like_text_plan(const struct clm_like *like, cl_uint16 *segs);
int clm_like_text_open(const struct clm_like *like, const struct clm_column *c,
                       struct query *Q, uint64_t batch);
int clm_like_text_rows(const struct clm_like *like, struct query *Q, const struct batch *b,
                       uint64_t b0, uint64_t b1);
/* ... or, Q->text_groups, the batch's rows a work-group per range of them (no byte range
 * needed). */
int clm_like_text_groups(const struct clm_like *like, const struct clm_column *c,
                         struct query *Q, const struct batch *b);

#endif
