/* The program's arguments in UTF-8 for a tool's main (clrie/os/process.h), on every system. */
#include "clrie/os/process.h"

#include <stddef.h>

int clrie_os_process_main(int argc, char **argv, int (*main_utf8)(int argc, char **argv))
{
    char **arguments = NULL;
    size_t count = 0;
    if (clrie_os_process_arguments(&arguments, &count) == 0 && count == (size_t)argc)
        argv = arguments;
    int status = main_utf8(argc, argv);
    clrie_os_process_arguments_free(arguments);
    return status;
}
