/* --devices LIST (tools/cli_devices.c): clmatch's search across a device set, and a stream
 * that is either one device's or the set's, so that the search code calls one thing. */
#ifndef CLMATCH_CLI_DEVICES_H
#define CLMATCH_CLI_DEVICES_H

#include "cli_common.h"

typedef struct cli_set cli_set;

/* The help lines of --devices. */
#define CLI_DEVICES_HELP                                                                      \
    "      --devices=LIST        search with several devices at once, each a share of the\n"  \
    "                            input by its measured speed (clmatch-tune), else equal:\n"   \
    "                            P:D pairs (0:0,1:0), gpus (every GPU) or all; auto: the\n"  \
    "                            CPU starts at once, the GPUs join once they are up;\n"     \
    "                            early:LIST: LIST's first device starts, the others join\n"

/* Open the devices LIST names ("P:D,P:D", "gpus", "all"). 0, or -1 after a message (a bad
 * item, an unknown or repeated device, no device). "auto" (the first CPU, then every GPU)
 * and "early:LIST" open them in cli_set_compile instead, with the patterns and o's scratch options: the
 * CPU searches at once while the GPUs come up (clm_set_open_early).
 * "auto" with one literal pattern the host search takes (clm_host_compile) lists and opens
 * no device at all until an input needs one: inputs of up to CLMATCH_HOST_MAX bytes
 * (default: no limit; 0: never) go to the host search, larger ones and streams to the
 * devices, opened then. */
int cli_set_open(const char *list, const cli_device_opts *o, cli_set **out);
/* clm_set_compile, timed into cli_time.compile; its status (the caller reports a failure). */
int cli_set_compile(cli_set *set, const char *const *patterns, const size_t *lengths,
                    const unsigned *ids, unsigned count, const clm_compile_options *opts);
/* The set's scratches with the options' data path and memory budget. 0, or -1 after a
 * message. */
int cli_set_alloc(cli_set *set, const cli_device_opts *o);
/* --devices auto: the name of the input the next search call is for (--stats says which
 * inputs went to the host search). */
void cli_set_input(cli_set *set, const char *name);
int cli_set_scan_fd_range(cli_set *set, int fd, uint64_t off, uint64_t len, clm_match_cb cb,
                          void *ctx);
int cli_set_scan(cli_set *set, const void *data, size_t len, clm_match_cb cb, void *ctx);
int cli_set_count_fd_range(cli_set *set, int fd, uint64_t off, uint64_t len, uint64_t *n);
/* --stats: the devices, their shares and what each searched. */
void cli_set_stats(const cli_set *set, double setup_s, double search_s, uint64_t bytes);
void cli_set_close(cli_set *set);
/* No device chosen: no --devices LIST, no -p or -d in o, no CLMATCH_PLATFORM or
 * CLMATCH_DEVICE (where a mode's host search may take inputs by default). */
int cli_no_device_chosen(const char *devices, const cli_device_opts *o);
/* CLMATCH_HOST_MAX into *out (*set: it was set; else the grep mode's default). 0, or -1
 * after a message (a bad value). */
int cli_host_max_env(uint64_t *out, int *set);
/* Environment variable `name` as bytes (K, M or G after the number), dflt when unset (*set
 * 0). 0, or -1 after a message. */
int cli_env_bytes(const char *name, uint64_t dflt, uint64_t *out, int *set);
/* --dna with no device chosen: a FASTA file of this many bytes goes to a GPU rather than to
 * the host search where the machine has one (CLMATCH_DEVICE_FROM). On the H200 machine they
 * tie at 4 GB, start-up included, and at 10 GB the GPU takes half the time. Not the main
 * mode's: its host search read 10 GB in 0.41-0.44 s there, the GPU in 0.59-0.61. */
#define CLI_DEVICE_FROM ((uint64_t)4 << 30)
/* CLMATCH_DEVICE_FROM into *out (CLI_DEVICE_FROM when unset). 0, or -1 after a message. */
int cli_device_from_env(uint64_t *out);
/* Does the machine list a GPU (or another accelerator), which the default device then is?
 * ask 0: what an earlier call found (-1: none asked). OpenCL is loaded for the first ask. */
int cli_machine_has_gpu(int ask);
/* "auto": the largest input a host search takes: CLMATCH_HOST_MAX when it is set (0: none),
 * else dflt. 0 for other lists. */
uint64_t cli_set_host_max(const cli_set *set, uint64_t dflt);
/* The set's devices, opened by cli_set_open (NULL for auto and early:LIST, whose devices
 * open with the patterns). */
clm_device_set *cli_set_devices(const cli_set *set);

/* A stream of one device (set NULL: db and scratch) or of the set. */
typedef struct cli_stream cli_stream;
int cli_stream_open(cli_set *set, const clm_database *db, clm_scratch *scratch, unsigned flags,
                    cli_stream **out);
int cli_stream_write(cli_stream *s, const void *data, size_t len, clm_match_cb cb, void *ctx);
int cli_stream_flush(cli_stream *s, clm_match_cb cb, void *ctx);
/* clm_stream_text_offset; one device only (CLM_E_UNSUPPORTED on a set). */
int cli_stream_text_offset(cli_stream *s, uint64_t *offset);
int cli_stream_close(cli_stream *s, clm_match_cb cb, void *ctx, uint64_t *total);
/* The one device's stream (for clm_stream_reserve and the like); NULL for a set's. */
clm_stream *cli_stream_one(cli_stream *s);

#endif
