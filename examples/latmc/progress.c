/* latmc front end — terminal progress bar. */
#include <stdio.h>
#include <string.h>

#include "progress.h"
#include "timer.h"

#define BAR_WIDTH 16
#define REDRAW_INTERVAL 0.1 /* seconds */

void progress_init(struct progress *p, bool enabled, uint64_t first, uint64_t total_sweeps)
{
    memset(p, 0, sizeof *p);
    p->enabled = enabled;
    p->first = first;
    p->total = total_sweeps;
    p->t_start = timer_now();
    p->t_drawn = p->t_start - 2 * REDRAW_INTERVAL;
}

/* "1.23k", "45.6M": a rate in few characters. */
static void format_rate(char *buf, size_t size, double r)
{
    static const char suffix[] = " kMGT";
    int i = 0;
    while (r >= 999.5 && i < 4) {
        r /= 1000.0;
        i++;
    }
    if (i == 0)
        snprintf(buf, size, "%.3g", r);
    else
        snprintf(buf, size, "%.3g%c", r, suffix[i]);
}

/* "1:05", "2:03:04", "--:--" */
static void format_duration(char *buf, size_t size, double s)
{
    if (!(s >= 0.0) || s > 99.0 * 3600.0) {
        snprintf(buf, size, "--:--");
        return;
    }
    unsigned long t = (unsigned long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, size, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, size, "%lu:%02lu", t / 60, t % 60);
}

void progress_update(struct progress *p, const char *phase, uint64_t done)
{
    if (!p->enabled)
        return;
    double now = timer_now();
    if (now - p->t_drawn < REDRAW_INTERVAL)
        return;
    p->t_drawn = now;

    double frac = p->total > 0 ? (double)done / (double)p->total : 1.0;
    if (frac > 1.0)
        frac = 1.0;
    double elapsed = now - p->t_start;
    uint64_t run = done > p->first ? done - p->first : 0;
    double rate = elapsed > 0.0 ? (double)run / elapsed : 0.0;

    char bar[BAR_WIDTH + 1];
    int fill = (int)(frac * BAR_WIDTH);
    for (int i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[BAR_WIDTH] = '\0';

    char rate_s[32], eta_s[32], done_s[32], total_s[32];
    format_rate(rate_s, sizeof rate_s, rate);
    format_rate(done_s, sizeof done_s, (double)done);
    format_rate(total_s, sizeof total_s, (double)p->total);
    if (run > 0 && rate > 0.0 && done <= p->total)
        format_duration(eta_s, sizeof eta_s, (double)(p->total - done) / rate);
    else
        snprintf(eta_s, sizeof eta_s, "--:--");

    /* \r, the line (< 80 columns), then erase to the end of the line */
    fprintf(stderr, "\r%-7s [%s] %5.1f%% %s/%s sweeps  %s sweeps/s  ETA %s\033[K",
            phase, bar, 100.0 * frac, done_s, total_s, rate_s, eta_s);
    fflush(stderr);
    p->visible = true;
}

void progress_clear(struct progress *p)
{
    if (!p->enabled || !p->visible)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    p->visible = false;
    p->t_drawn = timer_now() - 2 * REDRAW_INTERVAL; /* redraw at the next update */
}
