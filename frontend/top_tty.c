/*
 * The terminal of calltrace top: no echo, keys one at a time, the
 * alternate screen, and everything put back on the way out, on q, on
 * Ctrl-C and on SIGTERM/SIGHUP alike (the signals only set a flag; the
 * loop leaves through top_tty_leave).  ANSI escapes only: every terminal
 * emulator and tmux know them, and no curses library is needed.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "frontend/top.h"

static struct termios saved;
static bool raw;
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

void top_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* No SA_RESTART: poll returns at once with EINTR. */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

static void put(const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t w = write(STDOUT_FILENO, s, n);
        if (w <= 0 && errno != EINTR)
            return;
        if (w > 0) {
            s += w;
            n -= (size_t)w;
        }
    }
}

bool top_tty_enter(void)
{
    if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved) != 0)
        return false;
    struct termios t = saved;
    t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    if (tcsetattr(STDIN_FILENO, TCSANOW, &t) != 0)
        return false;
    raw = true;
    atexit(top_tty_leave);
    put("\033[?1049h\033[?25l\033[H\033[2J"); /* alternate screen, no cursor */
    return true;
}

void top_tty_leave(void)
{
    if (!raw)
        return;
    raw = false;
    put("\033[?25h\033[?1049l");
    tcsetattr(STDIN_FILENO, TCSANOW, &saved);
}

int top_tty_key(int ms, int *sig)
{
    struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
    if (stop_signal) {
        *sig = stop_signal;
        return -1;
    }
    int r = poll(&p, 1, ms);
    if (stop_signal) {
        *sig = stop_signal;
        return -1;
    }
    if (r <= 0)
        return 0;
    unsigned char c;
    if (read(STDIN_FILENO, &c, 1) != 1)
        return 0;
    return c;
}

int top_wait(int ms, int *sig)
{
    if (!stop_signal)
        poll(NULL, 0, ms);
    if (stop_signal) {
        *sig = stop_signal;
        return -1;
    }
    return 0;
}

void top_tty_size(unsigned *cols, unsigned *lines)
{
    struct winsize ws;
    *cols = 80;
    *lines = 24;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col &&
        ws.ws_row) {
        *cols = ws.ws_col;
        *lines = ws.ws_row;
    }
}
