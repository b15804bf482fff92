/* Empty hooks: the baseline that costs only the instrumentation calls. */
__attribute__((visibility("default"))) void __cyg_profile_func_enter(void *fn, void *site) { (void)fn; (void)site; }
__attribute__((visibility("default"))) void __cyg_profile_func_exit(void *fn, void *site) { (void)fn; (void)site; }
