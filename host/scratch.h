/* scratch.h - what the scan's files share (not installed): a scratch, its slots and their
 * buffers, streams. host/scan.c scans with them. */
#ifndef CLM_SCRATCH_H
#define CLM_SCRATCH_H

#include <stdatomic.h>

#include "internal.h"

#define DEFAULT_MATCH_CAPACITY (1u << 18)
#define MAX_MATCH_CAPACITY (1u << 24) /* beyond this a range is split instead of grown */
#ifndef SLOTS /* a third slot (-DSLOTS=3) measured the same within 3 % on the 2-core PoCL VM */
#define SLOTS 2
#endif
#define BUDGET_STEP ((size_t)4096)    /* slabs a budget shrinks are multiples of this */
#define ROOM_STEP ((size_t)65536)     /* slot buffers sized to the input: multiples of this */

/* A slot's queue, counter and match buffer are created when a scan first uses it, its text
 * buffers (staging, device text, packed text) then too, sized to that slab (`room` bytes):
 * an input smaller than the slab gets small buffers and one slot, not two whole slabs of
 * pinned memory. A later, larger slab grows them (to twice the room at least, at most
 * text_bytes). */
struct clm_slot {
    cl_command_queue queue;
    cl_mem text;    /* what the kernels read: a device buffer (copy, pinned) or a host-visible
                       CL_MEM_ALLOC_HOST_PTR buffer (zero-copy); unused with SVM */
    void *svm;      /* SVM: the slab */
    cl_mem stage;   /* pinned: the CL_MEM_ALLOC_HOST_PTR staging buffer ... */
    unsigned char *stage_ptr; /* ... and its mapping, kept for the scratch's life */
    unsigned char *heap;      /* copy: staging for streams and fd scans (allocated on use) */
    size_t room;              /* bytes text, stage, svm and heap hold (0: none yet) */
    size_t packed_room;       /* text bytes the packed buffer covers */
    cl_mem wrap;    /* zero-copy: the caller's memory of the slab in flight (USE_HOST_PTR) */
    unsigned char *fill; /* writable host view of the staging while it is filled (mapped on
                            the zero-copy and SVM paths); NULL when not acquired */
    unsigned char *view; /* zero-copy/SVM: a mapping made to read the slab on the host */
    cl_mem packed;  /* CLM_DNA packed databases: the slab as clm_pack leaves it */
    cl_mem counter; /* [0] matches appended; [1 + e] count of engine e (count mode) */
    cl_mem matches; /* cap entries of (start, engine) */
    size_t cap;
    cl_uint *counts; /* host copy of counter */
    /* the slab in flight */
    int busy;
    int count_only;
    const unsigned char *host; /* the slab's bytes on the host when readable there (best
                                  starts need them); NULL: map the slab to read it */
    uint64_t base;             /* absolute offset of text[0] */
    size_t n, first, owned;    /* owned match starts: [first, first + owned) */
    cl_event ev_write, ev_read;
    cl_event *ev_kernels;
    size_t n_kernels, cap_kernels;
};

/* What belongs to one device: the device, the data path chosen for it, the database's kernels
 * built for it, its slots (queues and buffers) and the counters of its work. The slot, path,
 * pass, collection and delivery functions take the lane; what all lanes share (the database,
 * the slab plan, the sort buffers and the matches held back) is its scratch's. */
struct clm_lane {
    clm_scratch *s;              /* the scratch it belongs to */
    clm_device *dev;
    clm_data_path path;
    size_t wrap_align;           /* zero-copy: caller memory aligned to this is read in place
                                    (0: never; the device has no unified host memory) */
    cl_kernel *k_find, *k_count; /* per engine; arguments are captured at enqueue time, so
                                    both slots share them */
    cl_kernel k_pack;            /* packed databases: text -> packed */
    struct clm_slot slot[SLOTS];
    clm_stats stats;             /* its part of the scratch's stats (clm_scratch_get_stats
                                    adds them up) */
};

/* A scratch has one lane today; a device set will give it one per device, each scanning its
 * part of the input. */
#define CLM_MAX_LANES 1

struct clm_scratch {
    const clm_database *db;
    uint64_t db_serial;          /* db's, to tell it from a database at db's address after
                                    db was freed (clm_database_live) */
    unsigned engines, slots;     /* db's, for what runs without the database */
    atomic_uintptr_t owner;      /* the thread whose call uses it (scratch_take); 0: none */
    size_t slab, overlap, lead, max_cap; /* a slab: lead bytes, slab owned bytes, overlap */
    size_t text_bytes;           /* lead + slab + overlap: the staging of a slot */
    size_t text_cap;             /* ... plus the alignment a zero-copy slab may start earlier */
    unsigned io_threads;
    size_t init_cap;             /* match buffer entries a slot starts with */
    clm_scratch_info info;
    unsigned lanes;
    struct clm_lane lane[CLM_MAX_LANES];
    cl_uint *zeros;              /* counter_words zeros: the counters' initial value */
    cl_uint *raw;                /* matches read back */
    uint64_t *keys, *tmp;        /* sort keys: start << 32 | engine << 8 | edits */
    clm_match *found;            /* approximate matches with indels, sorted after their
                                    starts are known */
    clm_match *pending;          /* ... held back: a later range may still deliver a match
                                    that starts up to k bytes earlier */
    clm_match *merged;           /* where held-back and new matches merge; swapped with
                                    pending afterwards (both keep their capacity) */
    size_t n_pending, cap_pending, cap_merged;
    size_t host_cap;
    int stream_open;
    clm_stats stats;             /* what the drivers and delivery count; the lanes count
                                    their own */
};

/* A stream fills the staging of its slots in turn (slot_acquire): no buffers of its own. */
struct clm_stream {
    const clm_database *db;
    clm_scratch *s;
    struct clm_lane *ln; /* the lane it fills */
    unsigned flags;
    int cur;      /* slot whose staging is being filled; the others, from cur + 1 round to
                     cur - 1, hold the slabs in flight, oldest first */
    size_t fill;  /* bytes in the current staging */
    size_t first; /* where its owned range starts (after the lead it keeps) */
    uint64_t base; /* absolute offset of its byte 0 */
    int dead;
    uint64_t total;
};

#endif
