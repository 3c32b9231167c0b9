/* A plugin's code that faults, for test_crash_win32.c: a DLL of its own, as a plugin is. */

__declspec(dllexport) void crash_write_null(void);
__declspec(dllexport) int crash_divide(int dividend, int divisor);

int *volatile crash_nowhere;

void crash_write_null(void)
{
    *crash_nowhere = 1;
}

int crash_divide(int dividend, int divisor)
{
    return dividend / divisor;
}
