/* UTF-8 and UTF-16 at the Win32 boundary, and Win32 errors as errno values (private to
 * libos's Win32 files). */
#ifndef CLRIE_OS_WIN32_TEXT_H
#define CLRIE_OS_WIN32_TEXT_H

#include <wchar.h>
#include <windows.h>

/* text (UTF-8) as a new UTF-16 string in *out (free it): 0, -EILSEQ for text that is not
 * UTF-8, -ENOMEM. */
int clrie_os__utf16(const char *text, wchar_t **out);

/* text (UTF-16) as a new UTF-8 string in *out (free it): 0, -EILSEQ for an unpaired
 * surrogate, -ENOMEM. */
int clrie_os__utf8(const wchar_t *text, char **out);

/* A Win32 error code as a negative errno value. */
int clrie_os__error(DWORD code);

/* The canonical path of the file or folder open on h, as UTF-8 without the \\?\ prefix
 * (a UNC path keeps its two leading separators), in *out (free it). */
int clrie_os__final_path(HANDLE h, char **out);

#endif
