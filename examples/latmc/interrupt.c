/* latmc front end — SIGINT, SIGTERM and SIGUSR1 handling. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <signal.h>
#include <string.h>

#include "cluster.h"
#include "interrupt.h"

static volatile sig_atomic_t requested = 0;

static void on_signal(int sig)
{
    if (requested == 0)
        requested = sig;
}

void interrupt_install(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGUSR1 };
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND; /* the second signal terminates */
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

/* A signal on any process stops every process (latmc-mpi: at the same sweep). */
bool interrupt_requested(void)
{
    int sig = cluster_max_int((int)requested);
    if (sig != 0 && requested == 0)
        requested = sig;
    return sig != 0;
}

int interrupt_signal(void)
{
    return (int)requested;
}
