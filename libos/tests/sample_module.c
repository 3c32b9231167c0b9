/* A module for the tests of clrie/os/module.h. */
int clrie_os_sample_answer(void);

#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
    int clrie_os_sample_answer(void)
{
    return 42;
}
