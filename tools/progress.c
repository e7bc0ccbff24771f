/* The progress line of long searches (tools/progress.h). */
#include "progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_common.h"

#define PROGRESS_TICK_NS 500000000L /* redrawn twice a second */

static pthread_mutex_t pg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pg_wake = PTHREAD_COND_INITIALIZER;
static struct {
    pthread_t thread;
    int running, stop;
    int shown;   /* the line is on the terminal */
    int writers; /* the CLI is writing: keep the line off */
    uint64_t total, base;
    double start, delay;
} pg;

/* The bytes this process has read so far, or -1 where /proc/self/io cannot tell. */
static long long bytes_read(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    long long v = -1;
    if (f) {
        if (fscanf(f, "rchar: %lld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

/* The bytes the operands hold, 0 when unknown (-r, a pipe). */
static uint64_t total_bytes(const config *cfg)
{
    uint64_t total = 0;
    size_t i;
    struct stat sb;
    if (cfg->recursive)
        return 0;
    if (cfg->n_files == 0)
        return fstat(STDIN_FILENO, &sb) == 0 && S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : 0;
    for (i = 0; i < cfg->n_files; i++) {
        const int is_stdin = cfg->files[i][0] == '-' && cfg->files[i][1] == '\0';
        if ((is_stdin ? fstat(STDIN_FILENO, &sb) : stat(cfg->files[i], &sb)) != 0 ||
            !S_ISREG(sb.st_mode))
            return 0;
        total += (uint64_t)sb.st_size;
    }
    return total;
}

/* Called with pg_lock held. */
static void draw(double elapsed)
{
    const long long now = bytes_read();
    const double done = now > (long long)pg.base ? (double)(now - (long long)pg.base) / 1e9 : 0,
                 total = (double)pg.total / 1e9, rate = elapsed > 0 ? done / elapsed : 0;
    fprintf(stderr, "\rclmatch: %.2f", done);
    if (pg.total)
        fprintf(stderr, " of %.2f", total);
    fprintf(stderr, " GB, %.2f GB/s", rate);
    if (pg.total && rate > 0 && done < total)
        fprintf(stderr, ", %.0f s left", (total - done) / rate);
    fputs("\33[K", stderr);
    pg.shown = 1;
}

static void clear_line(void)
{
    if (pg.shown)
        fputs("\r\33[K", stderr);
    pg.shown = 0;
}

static void write_hook(int before)
{
    pthread_mutex_lock(&pg_lock);
    if (!before)
        pg.writers--;
    else if (pg.writers++ == 0)
        clear_line();
    pthread_mutex_unlock(&pg_lock);
}

static void *run(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&pg_lock);
    while (!pg.stop) {
        const double elapsed = now_seconds() - pg.start;
        struct timespec ts;
        if (elapsed >= pg.delay && pg.writers == 0)
            draw(elapsed);
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += PROGRESS_TICK_NS;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&pg_wake, &pg_lock, &ts);
    }
    pthread_mutex_unlock(&pg_lock);
    return NULL;
}

void progress_start(const config *cfg)
{
    /* test hook, read by the CLI only: CLMATCH_PROGRESS_AFTER=SECONDS before the first line */
    const char *after = getenv("CLMATCH_PROGRESS_AFTER");
    const long long base = bytes_read();
    if (cfg->mode == MODE_QUIET || !isatty(STDERR_FILENO) || base < 0)
        return;
    pg.total = total_bytes(cfg);
    pg.base = (uint64_t)base;
    pg.start = now_seconds();
    pg.delay = after && *after ? atof(after) : 1.0; /* a second: only long searches */
    pg.stop = pg.shown = pg.writers = 0;
    cli_write_hook = write_hook;
    if (pg.delay <= 0) /* drawn here, so a search that ends before the thread runs shows it */
        draw(0);
    if (pthread_create(&pg.thread, NULL, run, NULL) != 0) {
        clear_line();
        cli_write_hook = NULL;
        return;
    }
    pg.running = 1;
}

void progress_stop(void)
{
    if (!pg.running)
        return;
    pthread_mutex_lock(&pg_lock);
    pg.stop = 1;
    pthread_cond_signal(&pg_wake);
    pthread_mutex_unlock(&pg_lock);
    pthread_join(pg.thread, NULL);
    clear_line();
    cli_write_hook = NULL;
    pg.running = 0;
}
