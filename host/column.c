/* String columns (clmatch.h, "String columns and SQL LIKE"): checked descriptions of the
 * caller's Arrow-layout buffers, Arrow C Data Interface arrays, and resident device copies. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CLM_COLUMN_DESC_V1 CLM_SIZE_THROUGH(clm_column_desc, validity_bit)
#define CLM_COLUMN_INFO_V1 CLM_SIZE_THROUGH(clm_column_info, resident)

uint64_t clm_column_offset(const struct clm_column *col, uint64_t i)
{
    if (col->offset_bits == 64)
        return (uint64_t)((const int64_t *)col->offsets)[i];
    return (uint64_t)(uint32_t)((const int32_t *)col->offsets)[i];
}

int clm_column_desc_init(clm_column_desc *desc, size_t size)
{
    if (!desc || size < CLM_COLUMN_DESC_V1)
        return clm_fail(CLM_E_INVALID, "clm_column_desc_init: NULL or a size below %zu",
                        (size_t)CLM_COLUMN_DESC_V1);
    memset(desc, 0, size);
    desc->size = size;
    desc->offset_bits = 32;
    return CLM_OK;
}

/* Offsets are signed in Arrow: each must be at least 0 and the one before, and the last at
 * most the bytes there are. One pass, before anything reads a row. */
static int check_offsets(const void *offsets, unsigned bits, uint64_t rows, uint64_t bytes)
{
    int64_t prev = 0;
    for (uint64_t i = 0; i <= rows; i++) {
        int64_t o = bits == 64 ? ((const int64_t *)offsets)[i] : ((const int32_t *)offsets)[i];
        if (o < 0)
            return clm_fail(CLM_E_INVALID, "string column: offset %llu (the start of row %llu) "
                                           "is %lld, below 0",
                            (unsigned long long)i, (unsigned long long)i, (long long)o);
        if (i > 0 && o < prev)
            return clm_fail(CLM_E_INVALID,
                            "string column: row %llu ends at offset %lld, before it starts "
                            "(%lld): offsets must not decrease",
                            (unsigned long long)(i - 1), (long long)o, (long long)prev);
        if ((uint64_t)o > bytes)
            return clm_fail(CLM_E_INVALID,
                            "string column: offset %llu is %lld, past the %llu bytes of data",
                            (unsigned long long)i, (long long)o, (unsigned long long)bytes);
        prev = o;
    }
    return CLM_OK;
}

static uint64_t count_nulls(const uint8_t *validity, uint64_t bit, uint64_t rows)
{
    uint64_t nulls = 0;
    for (uint64_t i = 0; validity && i < rows; i++, bit++)
        nulls += !(validity[bit >> 3] >> (bit & 7) & 1);
    return nulls;
}

int clm_column_wrap(const clm_column_desc *desc, clm_column **out)
{
    clm_column_desc d;
    int rc;
    if (!out)
        return clm_fail(CLM_E_INVALID, "clm_column_wrap: out is NULL");
    *out = NULL;
    if (!desc)
        return clm_fail(CLM_E_INVALID, "clm_column_wrap: desc is NULL");
    clm_column_desc_init(&d, sizeof d);
    if ((rc = clm_options_read(&d, sizeof d, desc, CLM_COLUMN_DESC_V1, "clm_column_desc",
                               "clm_column_desc_init")) != CLM_OK)
        return rc;
    if (d.offset_bits != 32 && d.offset_bits != 64)
        return clm_fail(CLM_E_INVALID, "string column: offset_bits %u: 32 or 64",
                        d.offset_bits);
    if (!d.offsets)
        return clm_fail(CLM_E_INVALID, "string column: offsets is NULL");
    if (d.rows >= (uint64_t)1 << 60) /* (rows + 1) offsets must be addressable */
        return clm_fail(CLM_E_INVALID, "string column: %llu rows", (unsigned long long)d.rows);
    if (!d.data && d.data_bytes)
        return clm_fail(CLM_E_INVALID, "string column: data is NULL but data_bytes is %llu",
                        (unsigned long long)d.data_bytes);
    if ((rc = check_offsets(d.offsets, d.offset_bits, d.rows, d.data_bytes)) != CLM_OK)
        return rc;
    struct clm_column *c = calloc(1, sizeof *c);
    if (!c)
        return clm_fail(CLM_E_NOMEM, "out of memory");
    c->rows = d.rows;
    c->offset_bits = d.offset_bits;
    c->offsets = d.offsets;
    c->data = d.data;
    c->validity = d.validity;
    c->validity_bit = d.validity_bit;
    c->nulls = count_nulls(d.validity, d.validity_bit, d.rows);
    c->bytes = clm_column_offset(c, d.rows) - clm_column_offset(c, 0);
    *out = c;
    return CLM_OK;
}

/* Arrow's string view ("vu"): 16-byte views, each its length (int32) and either its bytes
 * (up to 12, inline) or a 4-byte prefix, the index of a data buffer and the offset there;
 * the C Data Interface adds the data buffers' sizes (int64) as the last buffer. Checked and
 * gathered into offsets and bytes of the column's own: one copy. */
#define VIEW_INLINE 12
static int gather_views(const struct ArrowArray *a, const uint8_t *validity, clm_column **out)
{
    uint64_t rows = (uint64_t)a->length, first = (uint64_t)a->offset;
    int64_t nbufs = a->n_buffers - 3;
    const unsigned char *views = a->buffers[1];
    const int64_t *sizes = a->buffers[a->n_buffers - 1];
    if (!views || (nbufs > 0 && !sizes))
        return clm_fail(CLM_E_INVALID, "Arrow string view: the %s buffer is NULL",
                        !views ? "views" : "buffer sizes");
    views += first * 16;
    uint64_t total = 0;
    for (uint64_t i = 0; i < rows; i++) {
        int32_t len, idx, off;
        uint64_t bit = first + i;
        if (validity && !(validity[bit >> 3] >> (bit & 7) & 1))
            continue; /* a NULL row's view is not read */
        memcpy(&len, views + i * 16, 4);
        memcpy(&idx, views + i * 16 + 8, 4);
        memcpy(&off, views + i * 16 + 12, 4);
        if (len < 0)
            return clm_fail(CLM_E_INVALID, "Arrow string view: row %llu has length %d",
                            (unsigned long long)i, (int)len);
        if (len > VIEW_INLINE &&
            (idx < 0 || idx >= nbufs || off < 0 || !a->buffers[2 + idx] ||
             (uint64_t)off + (uint64_t)len > (uint64_t)(sizes[idx] < 0 ? 0 : sizes[idx])))
            return clm_fail(CLM_E_INVALID,
                            "Arrow string view: row %llu (%d bytes) refers to buffer %d at "
                            "offset %d, past the %lld data buffers or their sizes",
                            (unsigned long long)i, (int)len, (int)idx, (int)off,
                            (long long)nbufs);
        total += (uint64_t)len;
    }
    if (total > SIZE_MAX - (rows + 1) * 8)
        return clm_fail(CLM_E_NOMEM, "Arrow string view: %llu bytes", (unsigned long long)total);
    int64_t *offsets = malloc((size_t)(rows + 1) * 8 + (size_t)total);
    if (!offsets)
        return clm_fail(CLM_E_NOMEM, "out of memory");
    unsigned char *bytes = (unsigned char *)(offsets + rows + 1);
    uint64_t at = 0;
    for (uint64_t i = 0; i < rows; i++) {
        int32_t len = 0, idx, off;
        uint64_t bit = first + i;
        offsets[i] = (int64_t)at;
        if (validity && !(validity[bit >> 3] >> (bit & 7) & 1))
            continue;
        memcpy(&len, views + i * 16, 4);
        memcpy(&idx, views + i * 16 + 8, 4);
        memcpy(&off, views + i * 16 + 12, 4);
        const unsigned char *src = len <= VIEW_INLINE
                                       ? views + i * 16 + 4
                                       : (const unsigned char *)a->buffers[2 + idx] + off;
        memcpy(bytes + at, src, (size_t)len);
        at += (uint64_t)len;
    }
    offsets[rows] = (int64_t)at;
    clm_column_desc d;
    clm_column_desc_init(&d, sizeof d);
    d.rows = rows;
    d.offset_bits = 64;
    d.offsets = offsets;
    d.data = bytes;
    d.data_bytes = at;
    d.validity = validity;
    d.validity_bit = first;
    int rc = clm_column_wrap(&d, out);
    if (rc != CLM_OK)
        free(offsets);
    else
        (*out)->owned = offsets;
    return rc;
}

int clm_column_from_arrow(const struct ArrowSchema *schema, const struct ArrowArray *array,
                          clm_column **out)
{
    if (!out)
        return clm_fail(CLM_E_INVALID, "clm_column_from_arrow: out is NULL");
    *out = NULL;
    if (!schema || !array)
        return clm_fail(CLM_E_INVALID, "clm_column_from_arrow: schema or array is NULL");
    if (!schema->release || !array->release)
        return clm_fail(CLM_E_INVALID, "Arrow array: released (its release callback is NULL)");
    const char *f = schema->format ? schema->format : "";
    int view = strcmp(f, "vu") == 0;
    unsigned bits = strcmp(f, "u") == 0 ? 32 : strcmp(f, "U") == 0 ? 64 : 0;
    if (!bits && !view)
        return clm_fail(CLM_E_INVALID, "Arrow array: format \"%.32s\": strings are \"u\" (utf8), "
                                       "\"U\" (large utf8) or \"vu\" (utf8 view)",
                        f);
    if (schema->n_children != 0 || array->n_children != 0 || schema->dictionary ||
        array->dictionary)
        return clm_fail(CLM_E_INVALID,
                        "Arrow array: a string array has no children and no dictionary "
                        "(n_children %lld)",
                        (long long)array->n_children);
    if ((view ? array->n_buffers < 3 : array->n_buffers != 3) || !array->buffers)
        return clm_fail(CLM_E_INVALID, "Arrow array: %lld buffers: a string array has 3 "
                                       "(validity, offsets, data), a view at least 3 "
                                       "(validity, views, data..., their sizes)",
                        (long long)array->n_buffers);
    if (array->length < 0 || array->offset < 0)
        return clm_fail(CLM_E_INVALID, "Arrow array: length %lld, offset %lld",
                        (long long)array->length, (long long)array->offset);
    if (view)
        return gather_views(array, array->null_count == 0 ? NULL : array->buffers[0], out);
    /* producers may leave the buffers of an empty array NULL: its one offset is 0 */
    static const int64_t empty[2];
    const void *offsets = array->buffers[1];
    if (!offsets && array->length == 0 && array->offset == 0)
        offsets = empty;
    if (!offsets)
        return clm_fail(CLM_E_INVALID, "Arrow array: the offsets buffer is NULL");
    const uint8_t *validity = array->null_count == 0 ? NULL : array->buffers[0];
    /* the slice's offsets; the data buffer's size is not part of the interface: the bytes
     * end at the slice's last offset, which check_offsets then holds every offset to */
    uint64_t first = (uint64_t)array->offset, rows = (uint64_t)array->length;
    const char *at = (const char *)offsets + first * (bits / 8);
    int64_t last = bits == 64 ? ((const int64_t *)at)[rows] : ((const int32_t *)at)[rows];
    if (last < 0)
        return clm_fail(CLM_E_INVALID, "Arrow array: the last offset is %lld", (long long)last);
    clm_column_desc d;
    clm_column_desc_init(&d, sizeof d);
    d.rows = rows;
    d.offset_bits = bits;
    d.offsets = at;
    d.data = array->buffers[2];
    d.data_bytes = (uint64_t)last;
    d.validity = validity;
    d.validity_bit = first;
    if (!d.data && d.data_bytes)
        return clm_fail(CLM_E_INVALID, "Arrow array: the data buffer is NULL");
    return clm_column_wrap(&d, out);
}

static int upload(clm_device *dev, const void *src, size_t n, cl_mem *buf)
{
    cl_int err;
    /* a zero-sized buffer is invalid in OpenCL: an empty part gets one byte */
    static const unsigned char zero[8];
    *buf = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n ? n : 1,
                          (void *)(n ? src : zero), &err);
    return err == CL_SUCCESS ? CLM_OK : clm_fail_cl(err, "clCreateBuffer (string column)");
}

_Static_assert(CLM_PIVOT_ROWS == CLM_PIVOT_GROUP, "clmatch.h's group is the kernels'");

/* The pivoted bytes of host (cl/contract.h CLM_PIVOT_*): the groups' starts, then their
 * blocks. *bytes gets their size; NULL when out of memory or past `limit` bytes. */
static unsigned char *pivot_bytes(const clm_column *host, unsigned width, uint64_t limit,
                                  uint64_t *bytes)
{
    const uint64_t G = CLM_PIVOT_ROWS, groups = (host->rows + G - 1) / G;
    uint64_t *start = malloc((size_t)(groups + 1) * sizeof *start);
    if (!start) {
        *bytes = 0;
        return NULL;
    }
    start[0] = 8 * (groups + 1);
    for (uint64_t g = 0; g < groups; g++) { /* each group padded to its longest row */
        uint64_t longest = 0;
        for (uint64_t r = g * G; r < host->rows && r < (g + 1) * G; r++) {
            uint64_t n = clm_column_offset(host, r + 1) - clm_column_offset(host, r);
            longest = n > longest ? n : longest;
        }
        start[g + 1] = start[g] + G * ((longest + width - 1) / width * width);
    }
    *bytes = start[groups];
    unsigned char *out = *bytes <= limit && *bytes <= SIZE_MAX ? calloc((size_t)*bytes, 1) : NULL;
    if (out) {
        /* the device reads the starts as ulongs in the host's byte order, which an OpenCL
         * device shares */
        memcpy(out, start, (size_t)(groups + 1) * sizeof *start);
        for (uint64_t r = 0; r < host->rows; r++) {
            uint64_t a = clm_column_offset(host, r), n = clm_column_offset(host, r + 1) - a;
            unsigned char *row = out + start[r / G] + (r % G) * width;
            for (uint64_t j = 0; j < n; j++)
                row[j / width * G * width + j % width] = host->data[a + j];
        }
    }
    free(start);
    return out;
}

/* The self-pivoted bytes of host (cl/records.cl SELF_SEGS): each row's start (a ulong a
 * row), then the rows, each in chunks of segs segments of len bytes, a chunk's segments
 * pivoted in pieces of width bytes. NULL when out of memory or past `limit` bytes. */
static unsigned char *self_pivot_bytes(const clm_column *host, unsigned width, unsigned segs,
                                       unsigned len, uint64_t limit, uint64_t *bytes)
{
    const uint64_t chunk = (uint64_t)segs * len, lead = 8 * (host->rows ? host->rows : 1);
    uint64_t total = lead;
    for (uint64_t r = 0; r < host->rows; r++) {
        uint64_t n = clm_column_offset(host, r + 1) - clm_column_offset(host, r);
        total += (n + chunk - 1) / chunk * chunk;
    }
    *bytes = total;
    unsigned char *out = total <= limit && total <= SIZE_MAX ? calloc((size_t)total, 1) : NULL;
    if (!out)
        return NULL;
    uint64_t at = lead;
    for (uint64_t r = 0; r < host->rows; r++) {
        uint64_t a = clm_column_offset(host, r), n = clm_column_offset(host, r + 1) - a;
        memcpy(out + 8 * r, &at, 8); /* in the host's byte order, which the device shares */
        unsigned char *row = out + at;
        for (uint64_t j = 0; j < n; j++) {
            uint64_t q = j % chunk, o = q % len;
            row[j - q + (o / width * segs + q / len) * width + o % width] = host->data[a + j];
        }
        at += (n + chunk - 1) / chunk * chunk;
    }
    return out;
}

/* clm_column_upload, and with width > 0 clm_column_pivot (segs 0) or clm_column_self_pivot:
 * the offsets and validity as the host has them, the bytes one after the other or pivoted. */
static int resident(clm_device *dev, const clm_column *host, unsigned width, unsigned segs,
                    unsigned len, clm_column **out, const char *fn)
{
    if (!out)
        return clm_fail(CLM_E_INVALID, "%s: out is NULL", fn);
    *out = NULL;
    if (!dev || !host)
        return clm_fail(CLM_E_INVALID, "%s: dev or column is NULL", fn);
    if (host->dev)
        return clm_fail(CLM_E_INVALID, "%s: the column is already resident", fn);
    if (dev->model)
        return clm_fail(CLM_E_INVALID, "%s: a model device holds no memory", fn);
    uint64_t base = clm_column_offset(host, 0), end = clm_column_offset(host, host->rows);
    uint64_t obytes = (host->rows + 1) * (host->offset_bits / 8), dbytes = end - base;
    uint64_t v0 = host->validity_bit >> 3;
    uint64_t vbytes = host->validity ? ((host->validity_bit + host->rows + 7) >> 3) - v0 : 0;
    unsigned char *piv = NULL;
    if (width && !(piv = segs ? self_pivot_bytes(host, width, segs, len,
                                                 dev->info.max_alloc_bytes, &dbytes)
                              : pivot_bytes(host, width, dev->info.max_alloc_bytes, &dbytes)) &&
        dbytes <= dev->info.max_alloc_bytes)
        return clm_fail(CLM_E_NOMEM, "out of memory");
    uint64_t largest = obytes > dbytes ? obytes : dbytes;
    if (largest > dev->info.max_alloc_bytes || largest > SIZE_MAX)
        return clm_fail(CLM_E_DEVICE_MEMORY,
                        "string column: %llu bytes in one buffer, above the largest allocation "
                        "of %s (%llu bytes)",
                        (unsigned long long)largest, dev->info.name,
                        (unsigned long long)dev->info.max_alloc_bytes);
    struct clm_column *c = calloc(1, sizeof *c);
    if (!c) {
        free(piv);
        return clm_fail(CLM_E_NOMEM, "out of memory");
    }
    *c = *host;
    c->owned = NULL;
    c->offsets = NULL;
    c->data = NULL;
    c->validity = NULL;
    c->dev = dev;
    c->dev_base = base;
    c->dev_vbit = host->validity_bit & 7;
    c->pivot = width;
    c->self_segs = segs;
    c->self_len = len;
    int rc = upload(dev, host->offsets, (size_t)obytes, &c->off_buf);
    if (rc == CLM_OK)
        rc = upload(dev, piv ? piv : dbytes ? host->data + base : NULL, (size_t)dbytes,
                    &c->data_buf);
    if (rc == CLM_OK && host->validity)
        rc = upload(dev, host->validity + v0, (size_t)vbytes, &c->valid_buf);
    free(piv);
    if (rc != CLM_OK) {
        clm_column_free(c);
        return rc;
    }
    *out = c;
    return CLM_OK;
}

int clm_column_upload(clm_device *dev, const clm_column *host, clm_column **out)
{
    return resident(dev, host, 0, 0, 0, out, "clm_column_upload");
}

int clm_column_pivot(clm_device *dev, const clm_column *host, unsigned width,
                     clm_column **out)
{
    if (width != 4 && width != 8 && width != 16) {
        if (out)
            *out = NULL;
        return clm_fail(CLM_E_INVALID, "clm_column_pivot: width %u: 4, 8 or 16", width);
    }
    return resident(dev, host, width, 0, 0, out, "clm_column_pivot");
}

int clm_column_self_pivot(clm_device *dev, const clm_column *host, unsigned width,
                          unsigned segments, unsigned seg_bytes, clm_column **out)
{
    const char *bad = width != 4 && width != 8 && width != 16 ? "width"
                      : segments < 2 || segments > 32 || (segments & (segments - 1))
                          ? "segments"
                      : seg_bytes < 16 || seg_bytes > 4096 || seg_bytes % width ? "seg_bytes"
                                                                                : NULL;
    if (bad) {
        if (out)
            *out = NULL;
        return clm_fail(CLM_E_INVALID,
                        "clm_column_self_pivot: width %u (4, 8 or 16), segments %u (2 to 32, "
                        "a power of 2), seg_bytes %u (16 to 4096, a multiple of width): bad %s",
                        width, segments, seg_bytes, bad);
    }
    return resident(dev, host, width, segments, seg_bytes, out, "clm_column_self_pivot");
}

void clm_column_free(clm_column *col)
{
    if (!col)
        return;
    if (col->off_buf)
        clReleaseMemObject(col->off_buf);
    if (col->data_buf)
        clReleaseMemObject(col->data_buf);
    if (col->valid_buf)
        clReleaseMemObject(col->valid_buf);
    free(col->owned);
    free(col);
}

int clm_column_get_info(const clm_column *col, clm_column_info *info, size_t size)
{
    if (!col)
        return clm_fail(CLM_E_INVALID, "clm_column_get_info: column is NULL");
    clm_column_info i;
    memset(&i, 0, sizeof i);
    i.rows = col->rows;
    i.nulls = col->nulls;
    i.offset_bits = col->offset_bits;
    i.resident = col->dev != NULL;
    i.pivot = col->pivot;
    i.self_segments = col->self_segs;
    i.seg_bytes = col->self_len;
    i.data_bytes = col->bytes;
    return clm_copy_out(info, size, &i, sizeof i, CLM_COLUMN_INFO_V1, "clm_column_info");
}
