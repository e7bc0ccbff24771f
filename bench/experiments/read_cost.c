/* read_cost.c - how fast threads can bring a cached file into a staging ring: pread (as
 * host/io.c's reader pool does, in parts of PART bytes), or memcpy from an mmap of the file
 * (plain stores or non-temporal ones, the mapping's pages faulted in as touched or populated
 * first with MADV_POPULATE_READ). clmatch's 10 GB FASTA stream is bound by its reading
 * threads (pread into pinned memory at 2.7-3 GB/s a thread); this asks whether another way
 * of reading moves that bound. The ring is plain memory touched before the run or, built with
 * -DWITH_OPENCL and given PLATFORM DEVICE, a mapped CL_MEM_ALLOC_HOST_PTR buffer (as
 * host/path.c's pinned path makes), read on its own and while a thread writes the ring to a
 * device buffer over and over (the stream's transfers).
 *
 * Build and run:
 *   gcc -std=c11 -O2 -pthread -o /tmp/read_cost bench/experiments/read_cost.c
 *   gcc -std=c11 -O2 -pthread -DWITH_OPENCL -o /tmp/read_cost_cl \
 *       bench/experiments/read_cost.c -lOpenCL
 *   /tmp/read_cost FILE THREADS [PIECE_MIB [PART_KIB [PLATFORM DEVICE]]]
 * Prints, per way, the wall time (mapping and unmapping included) and GB/s. */
#define _GNU_SOURCE
#ifdef WITH_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#endif
#include <emmintrin.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#define RING_PIECES 16

enum way { PREAD, MMAP_COPY, MMAP_POPULATE, MMAP_STREAM, MMAP_POPULATE_STREAM, WAYS };
static const char *const way_name[WAYS] = {"pread", "mmap+memcpy", "mmap+populate+memcpy",
                                           "mmap+stream stores",
                                           "mmap+populate+stream"};

struct run {
    enum way way;
    int fd;
    const unsigned char *map;
    uint64_t size;
    size_t piece, part;
    unsigned char *ring;
    atomic_uint_fast64_t next; /* the next piece handed out */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Non-temporal copy: 16-byte stream stores where dst is aligned, memcpy for the rest. */
static void copy_stream(unsigned char *dst, const unsigned char *src, size_t n)
{
    size_t head = (16 - ((uintptr_t)dst & 15)) & 15;
    if (head > n)
        head = n;
    memcpy(dst, src, head);
    size_t i = head;
    for (; i + 64 <= n; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(src + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(src + i + 48));
        _mm_stream_si128((__m128i *)(dst + i), a);
        _mm_stream_si128((__m128i *)(dst + i + 16), b);
        _mm_stream_si128((__m128i *)(dst + i + 32), c);
        _mm_stream_si128((__m128i *)(dst + i + 48), d);
    }
    memcpy(dst + i, src + i, n - i);
    _mm_sfence();
}

static void *work(void *arg)
{
    struct run *r = arg;
    for (;;) {
        uint64_t k = atomic_fetch_add(&r->next, 1);
        uint64_t at = k * r->piece;
        if (at >= r->size)
            break;
        size_t n = r->size - at < r->piece ? (size_t)(r->size - at) : r->piece;
        unsigned char *dst = r->ring + (k % RING_PIECES) * r->piece;
        for (size_t done = 0; done < n;) {
            size_t want = n - done < r->part ? n - done : r->part;
            const unsigned char *src = r->map ? r->map + at + done : NULL;
            switch (r->way) {
            case PREAD:
                if (pread(r->fd, dst + done, want, (off_t)(at + done)) != (ssize_t)want) {
                    perror("pread");
                    exit(1);
                }
                break;
            case MMAP_POPULATE:
            case MMAP_POPULATE_STREAM: {
                uintptr_t lo = (uintptr_t)src & ~(uintptr_t)4095;
                madvise((void *)lo, (uintptr_t)src + want - lo, MADV_POPULATE_READ);
                if (r->way == MMAP_POPULATE)
                    memcpy(dst + done, src, want);
                else
                    copy_stream(dst + done, src, want);
                break;
            }
            case MMAP_COPY:
                memcpy(dst + done, src, want);
                break;
            case MMAP_STREAM:
                copy_stream(dst + done, src, want);
                break;
            default:
                break;
            }
            done += want;
        }
    }
    return NULL;
}

#ifdef WITH_OPENCL
struct dma {
    cl_command_queue q;
    cl_mem dst;
    const unsigned char *ring;
    size_t bytes;
    atomic_int stop;
    double gb;
};

/* Write the ring to the device buffer, 8 MiB at a time, until told to stop. */
static void *dma_run(void *arg)
{
    struct dma *d = arg;
    size_t at = 0, step = (size_t)8 << 20;
    while (!atomic_load(&d->stop)) {
        clEnqueueWriteBuffer(d->q, d->dst, CL_TRUE, at, step, d->ring + at, 0, NULL, NULL);
        d->gb += step / 1e9;
        at = (at + step) % d->bytes;
    }
    return NULL;
}
#endif

static void run_ways(int fd, uint64_t size, unsigned threads, size_t piece, size_t part,
                     unsigned char *ring, const char *label)
{
    for (int w = 0; w < WAYS; w++) {
        struct run r = {.way = (enum way)w, .fd = fd, .size = size, .piece = piece,
                        .part = part, .ring = ring};
        atomic_init(&r.next, 0);
        pthread_t tid[256];
        double t0 = now();
        if (w != PREAD) {
            r.map = mmap(NULL, r.size, PROT_READ, MAP_SHARED, fd, 0);
            if (r.map == MAP_FAILED) {
                perror("mmap");
                exit(1);
            }
        }
        for (unsigned i = 0; i < threads; i++)
            pthread_create(&tid[i], NULL, work, &r);
        for (unsigned i = 0; i < threads; i++)
            pthread_join(tid[i], NULL);
        double t1 = now();
        if (r.map)
            munmap((void *)r.map, r.size);
        double t2 = now();
        printf("%s%-22s %u threads, %zu MiB pieces, %zu KiB parts: %.3f s (unmap %.3f s), "
               "%.1f GB/s\n", label, way_name[w], threads, piece >> 20, part >> 10, t2 - t0,
               t2 - t1, (double)r.size / (t2 - t0) / 1e9);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s FILE THREADS [PIECE_MIB] [PART_KIB]\n", argv[0]);
        return 2;
    }
    unsigned threads = (unsigned)atoi(argv[2]);
    size_t piece = (argc > 3 ? (size_t)atoi(argv[3]) : 4) << 20;
    size_t part = (argc > 4 ? (size_t)atoi(argv[4]) : 256) << 10;
    int fd = open(argv[1], O_RDONLY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || threads == 0 || threads > 256) {
        perror(argv[1]);
        return 2;
    }
    unsigned char *ring = aligned_alloc(4096, RING_PIECES * piece);
    if (!ring)
        return 2;
    memset(ring, 1, RING_PIECES * piece);
    for (int pass = 0; pass < 2; pass++)
        run_ways(fd, (uint64_t)sb.st_size, threads, piece, part, ring, "heap   ");
#ifdef WITH_OPENCL
    if (argc > 6) {
        cl_platform_id plats[8];
        cl_device_id devs[8];
        cl_uint np = 0, nd = 0;
        int pi = atoi(argv[5]), di = atoi(argv[6]);
        cl_int err = clGetPlatformIDs(8, plats, &np);
        if (err || pi >= (int)np ||
            clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 8, devs, &nd) || di >= (int)nd) {
            fprintf(stderr, "no device %d:%d\n", pi, di);
            return 2;
        }
        size_t bytes = RING_PIECES * piece;
        cl_context ctx = clCreateContext(NULL, 1, &devs[di], NULL, NULL, &err);
        cl_command_queue q = clCreateCommandQueue(ctx, devs[di], 0, &err);
        cl_mem stage = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes, NULL,
                                      &err);
        cl_mem dst = clCreateBuffer(ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
        unsigned char *pinned = clEnqueueMapBuffer(q, stage, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                                   0, bytes, 0, NULL, NULL, &err);
        if (err || !pinned) {
            fprintf(stderr, "pinned staging: error %d\n", err);
            return 1;
        }
        memset(pinned, 1, bytes);
        run_ways(fd, (uint64_t)sb.st_size, threads, piece, part, pinned, "pinned ");
        struct dma d = {.q = q, .dst = dst, .ring = pinned, .bytes = bytes};
        atomic_init(&d.stop, 0);
        pthread_t t;
        pthread_create(&t, NULL, dma_run, &d);
        double t0 = now();
        run_ways(fd, (uint64_t)sb.st_size, threads, piece, part, pinned, "+dma   ");
        atomic_store(&d.stop, 1);
        pthread_join(t, NULL);
        printf("the transfers meanwhile: %.1f GB/s\n", d.gb / (now() - t0));
        clEnqueueUnmapMemObject(q, stage, pinned, 0, NULL, NULL);
        clFinish(q);
        clReleaseMemObject(stage);
        clReleaseMemObject(dst);
        clReleaseCommandQueue(q);
        clReleaseContext(ctx);
    }
#endif
    free(ring);
    close(fd);
    return 0;
}
