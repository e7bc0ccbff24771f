/* line_records.h - an input's records as a string column for clmatch --like. */
#ifndef CLMATCH_LINE_RECORDS_H
#define CLMATCH_LINE_RECORDS_H

#include <stdint.h>

/* Record i is bytes[offset(i), offset(i + 1)): the input's bytes without the terminators. */
typedef struct {
    unsigned char *bytes;
    void *offsets;          /* rows + 1 of int32_t (offset_bits 32) or int64_t (64) */
    unsigned offset_bits;   /* 32 while the bytes fit, as Arrow's utf8 */
    uint64_t rows, data_bytes;
} line_records;

/* Read fd whole (a regular file by threads) and split it at every byte `sep`; a last record
 * without one counts, as grep counts it. 0, or an errno (ENOMEM, a read's). */
int line_records_read(int fd, int sep, line_records *out);
uint64_t line_records_offset(const line_records *r, uint64_t i);
void line_records_free(line_records *r);

#endif
