/* The target process on Windows: OpenProcess says whether it runs; the engine's log file is
 * made in this user's temporary folder and, when the process runs as another user, that user
 * is given the right to write it (an entry added to the file's access list, the Windows form of
 * the chown clrie-attach does on POSIX). Windows lets any user reach a file through folders it
 * may not list (the bypass-traverse right every user has), so the file's own entry suffices. */
#include "target.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>
#include <aclapi.h>

int attach_target_exists(unsigned long pid)
{
    HANDLE process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
    if (!process) /* another user's process: it is there, the system just will not say more */
        return GetLastError() == ERROR_ACCESS_DENIED ? 0 : -ESRCH;
    DWORD code = 0;
    bool running = GetExitCodeProcess(process, &code) && code == STILL_ACTIVE;
    CloseHandle(process);
    return running ? 0 : -ESRCH;
}

/* The user a process runs as, in a malloc'd TOKEN_USER, or NULL when the system will not say. */
static TOKEN_USER *process_user(HANDLE process)
{
    HANDLE token = NULL;
    TOKEN_USER *user = NULL;
    DWORD size = 0;
    if (!OpenProcessToken(process, TOKEN_QUERY, &token))
        return NULL;
    GetTokenInformation(token, TokenUser, NULL, 0, &size);
    if (size > 0 && (user = malloc(size)) != NULL &&
        !GetTokenInformation(token, TokenUser, user, size, &size)) {
        free(user);
        user = NULL;
    }
    CloseHandle(token);
    return user;
}

/* Lets the user process pid runs as read and write file, when that is not this user. Nothing is
 * done when the system will not name that user (a process of a more privileged account): the
 * engine then says on its own that it cannot open the log. */
static void grant_target_user(HANDLE file, unsigned long pid)
{
    HANDLE process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
    if (!process)
        return;
    TOKEN_USER *target = process_user(process);
    TOKEN_USER *self = process_user(GetCurrentProcess());
    CloseHandle(process);
    if (target && self && !EqualSid(target->User.Sid, self->User.Sid)) {
        PACL old_acl = NULL, new_acl = NULL;
        PSECURITY_DESCRIPTOR descriptor = NULL;
        EXPLICIT_ACCESSW entry = {
            .grfAccessPermissions = GENERIC_READ | GENERIC_WRITE,
            .grfAccessMode = GRANT_ACCESS,
            .grfInheritance = NO_INHERITANCE,
            .Trustee = {.TrusteeForm = TRUSTEE_IS_SID,
                        .TrusteeType = TRUSTEE_IS_USER,
                        .ptstrName = (LPWSTR)target->User.Sid},
        };
        if (GetSecurityInfo(file, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &old_acl,
                            NULL, &descriptor) == ERROR_SUCCESS &&
            SetEntriesInAclW(1, &entry, old_acl, &new_acl) == ERROR_SUCCESS)
            SetSecurityInfo(file, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, new_acl,
                            NULL);
        LocalFree(new_acl);
        LocalFree(descriptor);
    }
    free(target);
    free(self);
}

static int utf8_of(const wchar_t *text, char **out)
{
    int n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, text, -1, NULL, 0, NULL, NULL);
    if (n <= 0)
        return -EILSEQ;
    *out = malloc((size_t)n);
    if (!*out)
        return -ENOMEM;
    WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, text, -1, *out, n, NULL, NULL);
    return 0;
}

int attach_target_log_create(unsigned long pid, char **out)
{
    wchar_t folder[MAX_PATH + 1], path[MAX_PATH + 64];
    DWORD n = GetTempPathW(MAX_PATH + 1, folder);
    if (n == 0 || n > MAX_PATH)
        return -ENOENT;
    /* A name no one has taken: CREATE_NEW fails on one that exists, and another is tried. */
    unsigned seed = (unsigned)GetTickCount() ^ (unsigned)GetCurrentProcessId() << 16;
    for (int attempt = 0; attempt < 100; attempt++) {
        seed = seed * 1103515245u + 12345u;
        _snwprintf(path, sizeof(path) / sizeof(path[0]), L"%lsclrie-attach-%lu-%06X.log", folder,
                   pid, (seed >> 8) & 0xFFFFFFu);
        path[sizeof(path) / sizeof(path[0]) - 1] = L'\0';
        HANDLE file = CreateFileW(path, GENERIC_READ | GENERIC_WRITE | READ_CONTROL | WRITE_DAC,
                                  FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                                  CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
        if (file == INVALID_HANDLE_VALUE) {
            if (GetLastError() == ERROR_FILE_EXISTS)
                continue;
            return GetLastError() == ERROR_ACCESS_DENIED ? -EACCES : -EIO;
        }
        grant_target_user(file, pid);
        CloseHandle(file);
        int r = utf8_of(path, out);
        if (r != 0)
            DeleteFileW(path);
        return r;
    }
    return -EEXIST;
}

void attach_target_log_remove(const char *path)
{
    if (!path)
        return;
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, NULL, 0);
    wchar_t *wide = n > 0 ? malloc((size_t)n * sizeof(*wide)) : NULL;
    if (wide && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, wide, n) > 0)
        DeleteFileW(wide);
    free(wide);
}
