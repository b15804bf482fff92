/*
 * Library calls whose counts are known by construction, for
 * tests/e2e/trace_filter_libcalls.sh.  One round makes, in this order:
 *   count_pids 1: getpid@plt 7
 *   measure 1:    strlen@plt 5 (built with -fno-builtin: a real call)
 *   parent 1:     getppid@plt 3
 *   plugin_pids 1 (in the library PLUGIN, dlopened at the first round):
 *                 getpid@plt 2, through the plugin's own PLT
 *   through_dlsym 1: getpid@dlsym 4 (a pointer dlsym returned)
 * `filter_libcalls PLUGIN` runs one round; `filter_libcalls PLUGIN -`
 * runs a round for each line "go" on its input, printing "done N" after
 * each, until "exit" (for control tests); "ready" comes first.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile long sink;
static char word[] = "calltrace";

NOINLINE void count_pids(void)
{
    for (int i = 0; i < 7; i++)
        sink += getpid();
}

NOINLINE void measure(void)
{
    for (int i = 0; i < 5; i++)
        sink += (long)strlen(word + i);
}

NOINLINE void parent(void)
{
    for (int i = 0; i < 3; i++)
        sink += getppid();
}

NOINLINE void through_dlsym(void)
{
    pid_t (*fn)(void) = (pid_t (*)(void))dlsym(RTLD_DEFAULT, "getpid");
    for (int i = 0; i < 4; i++)
        sink += fn();
}

static void (*plugin_pids)(void);

NOINLINE int round_of_calls(const char *plugin)
{
    count_pids();
    measure();
    parent();
    if (!plugin_pids) {
        void *h = dlopen(plugin, RTLD_NOW);
        plugin_pids = h ? (void (*)(void))dlsym(h, "plugin_pids") : NULL;
        if (!plugin_pids) {
            fprintf(stderr, "no plugin: %s\n", dlerror());
            return 1;
        }
    }
    plugin_pids();
    through_dlsym();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 1;
    if (argc < 3)
        return round_of_calls(argv[1]);
    printf("ready\n");
    fflush(stdout);
    char line[64];
    for (int n = 1; fgets(line, sizeof line, stdin); n++) {
        if (strcmp(line, "go\n") != 0)
            break;
        if (round_of_calls(argv[1]) != 0)
            return 1;
        printf("done %d\n", n);
        fflush(stdout);
    }
    return 0;
}
