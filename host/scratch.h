/* scratch.h - what the scan's files share (not installed): a scratch, its lanes (one per
 * device), their slots and buffers, the data paths, streams, and the functions between them.
 *   slot.c     slots: queues, counters, match and text buffers, made on first use, grown
 *   path.c     data paths (copy, pinned, zero-copy, svm): one table of operations
 *   pass.c     one pass of the kernels over a slab range; collection, growth, splitting
 *   deliver.c  matches read back, sorted and called back in text order; held-back matches
 *   scratch.c  the memory plan, clm_scratch_alloc/free/info/stats, one call at a time
 *   scan.c     the memory and file drivers (clm_scan, clm_count, clm_scan_fd, ...)
 *   stream.c   the stream driver (clm_stream_*) */
#ifndef CLM_SCRATCH_H
#define CLM_SCRATCH_H

#include <stdatomic.h>

#include "internal.h"

#define CLM_SENDS_MAX 8 /* writes of a staging's parts ahead of its commit, at most */

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
    /* CLM_STREAM_SKIP_LINE_BREAKS (compact.c): the slab without its line breaks, what the
     * search kernels read when `compacted`; the blocks' offsets; a host copy for views */
    cl_mem compact, compact_sums;
    size_t compact_room, compact_groups;
    unsigned char *compact_host;
    int compacted;
    int compact_check;     /* compact_total is read back: the text bytes the device kept, */
    cl_uint compact_total; /* which must be n (a clm_stream_commit's count of breaks) */
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
    /* Copy and pinned streams: the staging's bytes [0, sent) already written to the device
     * while it fills (clm_slot_send), those writes' events (ev_sending) until the commit
     * hands them to the slab (ev_sent, its transfer time). */
    size_t sent;
    cl_event ev_sending[CLM_SENDS_MAX], ev_sent[CLM_SENDS_MAX];
    unsigned n_sending, n_sent;
};

struct clm_lane;

/* ---- data paths and lanes ------------------------------------------------------------------ */

/* A data path: how a slab gets from the host to the kernels (clm_data_path). Each path is
 * one entry of path.c's table, and nothing else tells the paths apart: a new path is a new
 * entry and its functions. */
struct clm_path_ops {
    clm_data_path id;
    const char *name;
    /* The device reads its own copy of the slab: the plan counts it as device memory, and
     * once the transfer is done the staging may be refilled while the search runs. */
    int device_copy;
    /* On devices that share host memory the kernels may read the caller's memory in place,
     * from an aligned start up to the device's alignment before the slab (the plan makes
     * room for that). */
    int in_place;
    /* CLM_OK, or why the device cannot take this path (clm_fail). NULL: every device can. */
    int (*check)(const clm_device *dev);
    /* Make the slot's text buffers of `room` bytes (the slot is open and has none), or free
     * what exists of them. */
    int (*alloc)(struct clm_lane *ln, struct clm_slot *sl, size_t room);
    void (*free)(struct clm_lane *ln, struct clm_slot *sl);
    /* Point sl->fill at a writable host view of the staging (sl->room bytes), or give that
     * view up without launching it. */
    int (*acquire)(struct clm_slot *sl);
    void (*unfill)(struct clm_slot *sl);
    /* Hand the staging's bytes p[0, n) to the device, asynchronously (sl->ev_write). */
    int (*commit)(struct clm_slot *sl, unsigned char *p, size_t n);
    /* Put the caller's bytes p[0, n) in the slot (clm_slot_load_memory). */
    int (*load)(struct clm_lane *ln, struct clm_slot *sl, const unsigned char *p, size_t n,
                size_t room, size_t *shift);
    /* Map the slab's sl->n bytes for reading on the host (sl->view), or unmap them. */
    cl_int (*view)(struct clm_slot *sl);
    void (*unview)(struct clm_slot *sl);
    /* Set kernel k's argument `arg` to the slab. */
    cl_int (*text_arg)(const struct clm_slot *sl, cl_kernel k, cl_uint arg);
};

/* What belongs to one device: the device, the data path chosen for it, the database's kernels
 * built for it, its slots (queues and buffers) and the counters of its work. The slot, path,
 * pass, collection and delivery functions take the lane; what all lanes share (the database,
 * the slab plan, the sort buffers and the matches held back) is its scratch's. */
struct clm_lane {
    clm_scratch *s;              /* the scratch it belongs to */
    clm_device *dev;
    const struct clm_path_ops *path;
    size_t wrap_align;           /* zero-copy: caller memory aligned to this is read in place
                                    (0: never; the device has no unified host memory) */
    cl_kernel *k_find, *k_count; /* per engine; arguments are captured at enqueue time, so
                                    both slots share them */
    cl_kernel k_pack;            /* packed databases: text -> packed */
    cl_kernel k_compact[3];      /* line breaks dropped (compact.c), made on first use */
    size_t compact_wg;
    struct clm_slot slot[CLM_MAX_SCRATCH_SLOTS]; /* the scratch's n_slots are used */
    clm_stats stats;             /* its part of the scratch's stats (clm_scratch_get_stats
                                    adds them up) */
};

/* A scratch has one lane today. Device sets (devset.c) give each device a scratch of its
 * own and split the input above them; lanes would let one scratch do it. */
#define CLM_MAX_LANES 1

struct clm_scratch {
    const clm_database *db;
    uint64_t db_serial;          /* db's, to tell it from a database at db's address after
                                    db was freed (clm_database_live) */
    unsigned engines, slots;     /* db's, for what runs without the database */
    unsigned n_slots;            /* slabs in flight: each lane's slots, filled in turn */
    atomic_uintptr_t owner;      /* the thread whose call uses it (clm_scratch_take); 0: none */
    size_t slab, overlap, lead, max_cap; /* a slab: lead bytes, slab owned bytes, overlap */
    size_t text_bytes;           /* lead + slab + overlap: the staging of a slot */
    size_t text_cap;             /* ... plus the alignment a zero-copy slab may start earlier */
    unsigned io_threads;
    unsigned stream_io_threads;  /* ... of them, those that read a file into a stream */
    size_t init_cap;             /* match buffer entries a slot starts with */
    clm_scratch_info info;
    unsigned lanes;
    struct clm_lane lane[CLM_MAX_LANES];
    cl_uint *zeros;              /* CLM_COUNTER_WORDS zeros: the counters' initial value */
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

/* A stream fills the staging of its slots in turn (clm_slot_acquire): no buffers of its own. */
struct clm_stream {
    const clm_database *db;
    clm_scratch *s;
    struct clm_lane *ln; /* the lane it fills */
    unsigned flags;
    int cur;      /* slot whose staging is being filled; the others, from cur + 1 round to
                     cur - 1, hold the slabs in flight, oldest first */
    size_t fill;  /* bytes in the current staging */
    size_t tfill; /* ... of them text: fill less its line breaks with
                     CLM_STREAM_SKIP_LINE_BREAKS, else fill. The staging's first bytes (the
                     carried lead and overlap, up to `first` and past) have none */
    size_t first; /* where its owned range starts (after the lead it keeps) */
    uint64_t base; /* absolute offset of its byte 0 */
    int dead;
    uint64_t total;
    size_t reserved; /* clm_stream_reserve's room at staging[fill], until the next call */
    int told_breaks; /* the current staging has bytes whose line breaks the caller counted:
                        the device checks their count (clm_slot_compact's `check`) */
    uint64_t settled; /* every match starting before it has been delivered */
};

/* Bytes of a slot's counters for a database of `slots` patterns (cl/contract.h). */
static inline size_t clm_counter_bytes(unsigned slots)
{
    return CLM_COUNTER_WORDS((size_t)slots) * sizeof(cl_uint);
}

/* Whether a slot's staging may be refilled once its transfer is done, while its search still
 * runs: the device reads its own copy (copy and pinned paths), and the slab's collection
 * reads nothing on the host (with indels it finds the best starts in the staging). */
static inline int clm_lane_refill_early(const struct clm_lane *ln)
{
    return ln->path->device_copy && !ln->s->db->indels;
}

/* ---- streams (stream.c, stream_fd.c) ---------------------------------------------------- */

/* Check a stream call's arguments and take the stream's scratch for it (need_cb: a callback
 * is needed unless the stream only counts); clm_scratch_give when done. */
int clm_stream_enter(clm_stream *st, clm_match_cb cb, int need_cb, const char *fn);
/* rc, after marking the stream failed where it is not CLM_OK. */
int clm_stream_failed(clm_stream *st, int rc);
/* Collect slot sl's slab if one is in flight (st->settled moves on). */
int clm_stream_finish(clm_stream *st, struct clm_slot *sl, clm_match_cb cb, void *ctx);
/* Slot sl's staging may be filled (sl is not the current slot): its slab transferred where
 * clm_lane_refill_early, else collected. */
int clm_stream_refillable(clm_stream *st, struct clm_slot *sl, clm_match_cb cb, void *ctx);
/* CLM_E_INVALID (naming fn) when `breaks` cannot be the line breaks of len input bytes: more
 * than len, or any without CLM_STREAM_SKIP_LINE_BREAKS (CLM_BREAKS_UNKNOWN always can). */
int clm_stream_check_breaks(const clm_stream *st, size_t len, size_t breaks, const char *fn);
/* len bytes at the current staging's fill are input, `breaks` of them line breaks
 * (CLM_BREAKS_UNKNOWN: counted here; told: the caller counted them, the device checks); a
 * full staging is launched or squeezed. */
int clm_stream_take(clm_stream *st, size_t len, size_t breaks, int told, clm_match_cb cb,
                    void *ctx);
/* The file range check of the fd calls: fd a regular file and [offset, offset + *length)
 * within it (*length CLM_FD_TO_END: up to its end, set here). */
int clm_fd_range(int fd, uint64_t offset, uint64_t *length, const char *fn);

/* ---- slots (slot.c) ---------------------------------------------------------------------- */

/* A device buffer; CLM_E_DEVICE_MEMORY or CLM_E_OPENCL naming `what` when it fails. */
int clm_create_buffer(clm_device *dev, cl_mem_flags flags, size_t bytes, cl_mem *out,
                      const char *what);
/* The slot's queue, counters and match buffer (what any slab needs). What exists is kept, so
 * a failure can be retried. The time it takes is added to *alloc_s. */
int clm_slot_open(struct clm_lane *ln, struct clm_slot *sl, double *alloc_s);
/* The slot opened and its text buffers holding at least `need` bytes (at most text_bytes).
 * The slot is idle and not acquired. The time it takes is added to *alloc_s. */
int clm_slot_reserve(struct clm_lane *ln, struct clm_slot *sl, size_t need, double *alloc_s);
/* Packed databases: the packed buffer covers `n` text bytes (the slab, from its start). */
int clm_slot_reserve_packed(struct clm_lane *ln, struct clm_slot *sl, size_t n);
void clm_release_event(cl_event *ev);
/* Keep a kernel's event for the slot's profiling (released on failure). */
int clm_slot_push_event(struct clm_slot *sl, cl_event ev);
/* Account profiling times and drop the slot's events (and what the slab borrowed). */
void clm_slot_release_events(struct clm_lane *ln, struct clm_slot *sl);
/* Wait for whatever the slot has in flight and forget it (error and stop paths). */
/* Wait for everything queued (clFinish, made safe on rusticl: slot.c). */
void clm_finish_queue(cl_command_queue queue);
void clm_slot_abandon(struct clm_lane *ln, struct clm_slot *sl);
/* Release everything the slot holds. */
void clm_slot_close(struct clm_lane *ln, struct clm_slot *sl);
/* Drop what the lane's slots hold: slabs in flight and acquired staging (stops, failures). */
void clm_lane_drop(struct clm_lane *ln);
/* Device and host bytes the lane's slots hold now. */
size_t clm_lane_allocated_bytes(const struct clm_lane *ln);

/* ---- data paths (path.c) ----------------------------------------------------------------- */

/* Resolve the data path: the option, else CLMATCH_DATA_PATH, else the automatic table by
 * device type; `why` gets how it was chosen. */
int clm_path_choose(const clm_device *dev, clm_data_path asked,
                    const struct clm_path_ops **out, char *why, size_t why_cap);
/* A writable host view of the slot's staging, for a slab of up to `need` bytes to be read or
 * copied into (the slot is idle). Idempotent until clm_slot_commit or clm_slot_unfill. */
int clm_slot_acquire(struct clm_lane *ln, struct clm_slot *sl, size_t need,
                     unsigned char **out);
/* Give up an acquired view without launching it (streams that end, errors). */
void clm_slot_unfill(struct clm_lane *ln, struct clm_slot *sl);
/* Hand the acquired staging's bytes [0, n) to the device (asynchronous: the staging stays
 * untouched until the slot is finished). */
int clm_slot_commit(struct clm_lane *ln, struct clm_slot *sl, size_t n);
/* On paths where the device has its own copy: write the acquired staging's bytes
 * [sl->sent, n) to the device now, so that its commit has only the rest to send (nothing
 * where the path has no copy or CLM_SENDS_MAX writes are out). The slot's text must be free:
 * its last slab collected (a pass run again reads it). */
int clm_slot_send(struct clm_lane *ln, struct clm_slot *sl, size_t n);
/* Forget what was sent of the acquired staging (its bytes changed, or it is given up). */
void clm_slot_unsend(struct clm_slot *sl);
/* Put the caller's bytes p[0, n) in the slot. room: input bytes before p (that the slab may
 * start earlier by). *shift gets how many bytes before p the slab starts. */
int clm_slot_load_memory(struct clm_lane *ln, struct clm_slot *sl, const unsigned char *p,
                         size_t n, size_t room, size_t *shift);
/* The slab's bytes on the host (approximate matches' best starts): the caller's memory or
 * the staging when readable, else the slab mapped for reading (kernels may go on reading it
 * meanwhile). */
int clm_slot_view(struct clm_lane *ln, struct clm_slot *sl, const unsigned char **out);
/* Unmap what clm_slot_view mapped. */
void clm_slot_unview(struct clm_lane *ln, struct clm_slot *sl);

/* ---- passes and collection (pass.c) ------------------------------------------------------- */

/* Start the search of the slab the slot holds (a load or commit put it there): match starts
 * [first, first + owned) of its n bytes, text[0] at absolute offset base. Asynchronous. */
int clm_slot_launch(struct clm_lane *ln, struct clm_slot *sl, size_t n, size_t first,
                    size_t owned, uint64_t base, int count_only);
/* Complete the slot's slab: counts, or matches delivered in order (growing as needed);
 * *total (may be NULL) gets what it added. */
int clm_slot_finish(struct clm_lane *ln, struct clm_slot *sl, clm_match_cb cb, void *ctx,
                    uint64_t *total);
/* Wait for one of the lane's events, the time counted as waiting for the device. */
int clm_lane_wait(struct clm_lane *ln, cl_event ev, const char *what);

/* ---- line breaks dropped on the device (compact.c) -------------------------------------- */

/* After clm_slot_commit of `raw` staging bytes holding `text` bytes other than '\n' and
 * '\r': queue their compaction into the slot's own buffer, which the slab's search then
 * reads (sl->compacted). check: also read back how many bytes it kept (the caller of
 * clm_stream_commit counted the line breaks, not the library). */
int clm_slot_compact(struct clm_lane *ln, struct clm_slot *sl, size_t raw, size_t text,
                     int check);
/* CLM_OK, or CLM_E_INVALID when a checked compaction kept other than sl->n bytes (after the
 * slab's pass was waited for). */
int clm_slot_compact_verify(const struct clm_slot *sl);
/* Set kernel k's argument `arg` to the slab the search reads: compacted, or the path's. */
cl_int clm_slot_text_arg(const struct clm_lane *ln, const struct clm_slot *sl, cl_kernel k,
                         cl_uint arg);
/* A compacted slab's sl->n bytes read back to the host (sl->host), for clm_slot_view. */
int clm_slot_read_compact(struct clm_lane *ln, struct clm_slot *sl);
void clm_slot_close_compact(struct clm_slot *sl);
void clm_lane_close_compact(struct clm_lane *ln);

/* ---- delivery (deliver.c) ----------------------------------------------------------------- */

/* Read the pass's `found` matches (all fit), put them in text order and call back. The pass
 * covered match starts up to range_end (slab offsets). */
int clm_deliver(struct clm_lane *ln, struct clm_slot *sl, size_t found, size_t range_end,
                clm_match_cb cb, void *ctx);
/* Deliver every held-back match (end of a scan or stream). */
int clm_deliver_pending(clm_scratch *s, clm_match_cb cb, void *ctx);

/* ---- one call at a time (scratch.c) ------------------------------------------------------ */

/* Take the scratch for a call of fn: CLM_E_BUSY while another call uses it. */
int clm_scratch_take(clm_scratch *s, const char *fn);
void clm_scratch_give(clm_scratch *s);
/* CLM_E_INVALID when the scratch's database was freed (it is not read). */
int clm_scratch_live(const clm_scratch *s, const char *fn);
/* Check a one-shot call's (or clm_stream_open's) arguments and take the scratch for it;
 * clm_scratch_give when done. */
int clm_scratch_enter(const clm_database *db, clm_scratch *s, const void *data, size_t len,
                      const char *fn);

#endif
