/* Loaded with dlopen by dump_main: its names must come from a MAPS entry
 * written after the program started. */
static int plugin_helper(int x)
{
    return x + 7;
}

int plugin_run(int n)
{
    return plugin_helper(n) * 2;
}
