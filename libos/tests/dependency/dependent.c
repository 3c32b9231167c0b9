/* A DLL that imports os_dependency.dll: Windows finds it only where the loader searches. */
__declspec(dllimport) int clrie_os_dependency_value(void);
__declspec(dllexport) int clrie_os_dependent_value(void);

int clrie_os_dependent_value(void)
{
    return clrie_os_dependency_value() + 1;
}
