/* A DLL that os_dependent.dll imports (test_module_dependency.c): built in a folder of its own,
 * so that the test program's folder does not hold it. */
__declspec(dllexport) int clrie_os_dependency_value(void);

int clrie_os_dependency_value(void)
{
    return 41;
}
