/* latmc front end — SIGINT handling. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <signal.h>
#include <string.h>

#include "interrupt.h"

static volatile sig_atomic_t requested = 0;

static void on_sigint(int sig)
{
    (void)sig;
    requested = 1;
}

void interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND; /* the second Ctrl-C terminates */
    sigaction(SIGINT, &sa, NULL);
}

bool interrupt_requested(void)
{
    return requested != 0;
}
