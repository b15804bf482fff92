/* Built with -fno-plt (tests/e2e/libcalls_noplt.sh): library calls go
 * through GOT slots.  Known by construction:
 *   called(): getpid 4 times; its slot serves only calls, so the calls
 *             are recorded (getpid@got)
 *   taken():  getppid 3 times; the program also takes getppid's address,
 *             which comes from the same slot, so the slot is left alone
 *             and these calls are not recorded
 * Output: one line, the same with and without the tracer. */
#include <stdio.h>
#include <unistd.h>

pid_t (*volatile keep)(void);

static int called(void)
{
    int ok = 0;
    for (int i = 0; i < 4; i++)
        ok += getpid() > 0;
    return ok;
}

static int taken(void)
{
    int ok = 0;
    keep = getppid;
    for (int i = 0; i < 3; i++)
        ok += getppid() > 0;
    return ok + (keep == getppid);
}

int main(void)
{
    int c = called();
    int t = taken();
    printf("called=%d taken=%d\n", c, t);
    return 0;
}
