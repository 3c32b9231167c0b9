/* A module for the tests of the module check: a real shared object or DLL of this build. */
int clrie_config_sample_module(void);

int clrie_config_sample_module(void)
{
    return 42;
}
