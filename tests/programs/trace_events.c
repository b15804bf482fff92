/* calltrace_event with messages the report must keep on one line each:
 * a newline, a tab, a backslash, and one of 3000 bytes that is cut with a
 * visible mark.  Four events in all. */
#include <string.h>

#include "calltrace.h"

int main(void)
{
    static char big[3001];
    memset(big, 'x', 3000);
    calltrace_event("first line\nsecond line");
    calltrace_event("tab\there");
    calltrace_event("back\\slash");
    calltrace_event("%s", big);
    return 0;
}
