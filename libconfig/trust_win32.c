/* The trust rule on Windows (clrie/config.h, clrie_config_trust_check): the owner and the
 * access list of the file and of every folder above it, up to the drive's root. Someone other
 * than Administrators, SYSTEM, TrustedInstaller, the owner and the current user must not be
 * able to change what the path leads to: write the file, delete or rename it or a folder on
 * the way, add a file to its folder, or change an owner or an access list. Creating a new
 * subfolder (which the root of a system drive grants to Users) changes no existing path and is
 * allowed. Only allowing entries are read: an access list that grants and then denies is
 * refused, which errs on the side of refusing. */
#include "config_private.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <aclapi.h>
#include <sddl.h>

#include "clrie/os/file.h"

/* Rights that let their holder change what a path leads to, for the file itself and for a
 * folder on the way (FILE_WRITE_DATA is "add a file" on a folder; FILE_APPEND_DATA, "add a
 * subfolder", is left out there). */
#define TAKEOVER_RIGHTS (DELETE | WRITE_DAC | WRITE_OWNER | GENERIC_ALL | GENERIC_WRITE)
#define FILE_RIGHTS (TAKEOVER_RIGHTS | FILE_WRITE_DATA | FILE_APPEND_DATA)
#define FOLDER_RIGHTS (TAKEOVER_RIGHTS | FILE_WRITE_DATA | FILE_DELETE_CHILD)

/* The well-known accounts that may write anything: they can take any file anyway. */
struct trusted {
    PSID admins, system, creator_owner, installer, user;
    BYTE user_buffer[SECURITY_MAX_SID_SIZE + sizeof(TOKEN_USER)];
};

static PSID well_known(WELL_KNOWN_SID_TYPE type)
{
    DWORD size = SECURITY_MAX_SID_SIZE;
    PSID sid = malloc(size);
    if (sid && !CreateWellKnownSid(type, NULL, sid, &size)) {
        free(sid);
        sid = NULL;
    }
    return sid;
}

static int trusted_init(struct trusted *t)
{
    memset(t, 0, sizeof(*t));
    t->admins = well_known(WinBuiltinAdministratorsSid);
    t->system = well_known(WinLocalSystemSid);
    t->creator_owner = well_known(WinCreatorOwnerSid);
    /* NT SERVICE\TrustedInstaller, a service SID (the hash of its name). */
    PSID installer = NULL;
    if (ConvertStringSidToSidW(L"S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464",
                               &installer)) {
        DWORD n = GetLengthSid(installer);
        t->installer = malloc(n);
        if (t->installer)
            CopySid(n, t->installer, installer);
        LocalFree(installer);
    }
    HANDLE token;
    if (OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token)) {
        DWORD got = 0;
        if (GetTokenInformation(token, TokenUser, t->user_buffer, sizeof(t->user_buffer), &got))
            t->user = ((TOKEN_USER *)t->user_buffer)->User.Sid;
        CloseHandle(token);
    }
    return t->admins && t->system && t->creator_owner && t->installer ? 0 : -ENOMEM;
}

static void trusted_finish(struct trusted *t)
{
    free(t->admins);
    free(t->system);
    free(t->creator_owner);
    free(t->installer);
}

static bool is_trusted(const struct trusted *t, PSID sid, PSID owner)
{
    return EqualSid(sid, t->admins) || EqualSid(sid, t->system) || EqualSid(sid, t->installer) ||
           (t->user && EqualSid(sid, t->user)) || (owner && EqualSid(sid, owner)) ||
           EqualSid(sid, t->creator_owner);
}

/* "DOMAIN\name" of sid, or its S-1-... form, into buf. */
static void name_of(PSID sid, char *buf, size_t len)
{
    WCHAR name[128], domain[128];
    DWORD n = 128, d = 128;
    SID_NAME_USE use;
    char *text = NULL;
    if (LookupAccountSidW(NULL, sid, name, &n, domain, &d, &use)) {
        char a[512], b[512];
        if (WideCharToMultiByte(CP_UTF8, 0, domain, -1, a, sizeof(a), NULL, NULL) > 0 &&
            WideCharToMultiByte(CP_UTF8, 0, name, -1, b, sizeof(b), NULL, NULL) > 0) {
            snprintf(buf, len, "%s%s%s", a, a[0] ? "\\" : "", b);
            return;
        }
    }
    LPWSTR string = NULL;
    if (ConvertSidToStringSidW(sid, &string)) {
        char a[256];
        if (WideCharToMultiByte(CP_UTF8, 0, string, -1, a, sizeof(a), NULL, NULL) > 0)
            text = a;
        snprintf(buf, len, "%s", text ? text : "an unknown account");
        LocalFree(string);
        return;
    }
    snprintf(buf, len, "an unknown account");
}

/* The rule for one object (the file, or a folder above it) described by sd. */
static int check_object(const struct trusted *t, PSID owner, PACL dacl, DWORD rights,
                        const char *what, const char *path, char *why, size_t why_len)
{
    char account[256];
    if (owner && !EqualSid(owner, t->admins) && !EqualSid(owner, t->system) &&
        !EqualSid(owner, t->installer) && !(t->user && EqualSid(owner, t->user))) {
        name_of(owner, account, sizeof(account));
        clrie_config__why(why, why_len,
                          "%s '%s' is owned by %s, not by Administrators, SYSTEM, "
                          "TrustedInstaller or the current user",
                          what, path, account);
        return -EPERM;
    }
    if (!dacl) {
        clrie_config__why(why, why_len, "%s '%s' has no access list (everyone may change it)", what,
                          path);
        return -EACCES;
    }
    for (DWORD i = 0; i < dacl->AceCount; i++) {
        ACE_HEADER *ace = NULL;
        if (!GetAce(dacl, i, (void **)&ace) || ace->AceType != ACCESS_ALLOWED_ACE_TYPE ||
            (ace->AceFlags & INHERIT_ONLY_ACE))
            continue;
        ACCESS_ALLOWED_ACE *allowed = (ACCESS_ALLOWED_ACE *)ace;
        PSID sid = (PSID)&allowed->SidStart;
        if (!(allowed->Mask & rights) || is_trusted(t, sid, owner))
            continue;
        name_of(sid, account, sizeof(account));
        clrie_config__why(why, why_len, "%s '%s' can be changed by %s (access mask 0x%lx)", what,
                          path, account, (unsigned long)allowed->Mask);
        return -EACCES;
    }
    return 0;
}

static int check_folder(const struct trusted *t, const char *folder, char *why, size_t why_len)
{
    int units = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, folder, -1, NULL, 0);
    WCHAR *wide = units > 0 ? malloc((size_t)units * sizeof(WCHAR)) : NULL;
    if (!wide)
        return units > 0 ? -ENOMEM : -EILSEQ;
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, folder, -1, wide, units);
    PSID owner = NULL;
    PACL dacl = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    DWORD error = GetNamedSecurityInfoW(wide, SE_FILE_OBJECT,
                                        OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
                                        &owner, NULL, &dacl, NULL, &sd);
    free(wide);
    if (error != ERROR_SUCCESS) {
        clrie_config__why(why, why_len, "the folder '%s' cannot be examined: Windows error %lu",
                          folder, (unsigned long)error);
        return error == ERROR_ACCESS_DENIED ? -EACCES : -EIO;
    }
    int r = check_object(t, owner, dacl, FOLDER_RIGHTS, "the folder", folder, why, why_len);
    LocalFree(sd);
    return r;
}

/* Where the folders of an absolute path start: after "C:\" or "\\server\share\". */
static size_t root_length(const char *path)
{
    if (path[0] && path[1] == ':')
        return 3;
    size_t n = 2, separators = 0;
    while (path[n] && separators < 2)
        if (path[n++] == '\\' || path[n - 1] == '/')
            separators++;
    return n;
}

int clrie_config__trust_file(struct clrie_os_file *file, const char *canonical_path, char *why,
                             size_t why_len)
{
    if (!canonical_path || !clrie_os_path_is_absolute(canonical_path))
        return -EINVAL;
    struct trusted t;
    int r = trusted_init(&t);
    if (r != 0)
        goto out;
    PSID owner = NULL;
    PACL dacl = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    DWORD error = GetSecurityInfo((HANDLE)clrie_os_file_native(file), SE_FILE_OBJECT,
                                  OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION, &owner,
                                  NULL, &dacl, NULL, &sd);
    if (error != ERROR_SUCCESS) {
        clrie_config__why(why, why_len, "cannot examine the file: Windows error %lu",
                          (unsigned long)error);
        r = error == ERROR_ACCESS_DENIED ? -EACCES : -EIO;
        goto out;
    }
    r = check_object(&t, owner, dacl, FILE_RIGHTS, "the file", canonical_path, why, why_len);
    LocalFree(sd);
    if (r != 0)
        goto out;
    size_t len = strlen(canonical_path), root = root_length(canonical_path);
    char *folder = malloc(len + 1);
    if (!folder) {
        r = -ENOMEM;
        goto out;
    }
    memcpy(folder, canonical_path, len + 1);
    for (size_t end = len; r == 0 && end > root;) {
        while (end > root && !clrie_os_is_separator(folder[end - 1]))
            end--;
        if (end <= root) {
            folder[root] = '\0'; /* the root itself, after every folder below it */
            r = check_folder(&t, folder, why, why_len);
            break;
        }
        folder[--end] = '\0';
        r = check_folder(&t, folder, why, why_len);
    }
    free(folder);
out:
    trusted_finish(&t);
    return r;
}
