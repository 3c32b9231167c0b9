/* UTF-8 <-> UTF-16 conversion and BSTRs as CoreCLR and CLRIE plugins expect them on Linux.
 *
 * A BSTR is a pointer to UTF-16 text (char16_t) preceded by a 4-byte byte length and followed
 * by a 0 code unit. The engine hands BSTRs to plugins, which free them with
 * InstrumentationEngineFreeString or IProfilerStringManager::FreeString (both end here). */
#ifndef CLRIE_PM_UTF16_H
#define CLRIE_PM_UTF16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uchar.h>

/* Length in code units of a 0-terminated UTF-16 string; 0 for NULL. */
size_t clrie_pm_utf16_len(const char16_t *text);

/* Converts len bytes of UTF-8 to a new 0-terminated UTF-16 string (*out, *out_len units,
 * caller frees with free()). Returns 0, -EILSEQ for invalid UTF-8 (overlong forms,
 * surrogates, values past U+10FFFF, truncated sequences), -ENOMEM, -EINVAL. */
int clrie_pm_utf8_to_utf16(const char *text, size_t len, char16_t **out, size_t *out_len);

/* Converts len units of UTF-16 to a new 0-terminated UTF-8 string (caller frees with free()).
 * An unpaired surrogate is -EILSEQ, or U+FFFD when lossy is true (for log text that must get
 * through whatever a plugin passed). */
int clrie_pm_utf16_to_utf8(const char16_t *text, size_t len, bool lossy, char **out,
                           size_t *out_len);

/* A new BSTR holding len units of text (text may be NULL: the BSTR is then zero-filled).
 * NULL if out of memory or len is too long for the 32-bit byte length. */
char16_t *clrie_pm_bstr_new(const char16_t *text, size_t len);

/* A new BSTR from 0-terminated UTF-8; NULL if invalid or out of memory. */
char16_t *clrie_pm_bstr_from_utf8(const char *text);

/* The BSTR's length in code units, from its prefix; 0 for NULL. */
size_t clrie_pm_bstr_len(const char16_t *bstr);

/* Frees a BSTR made by clrie_pm_bstr_new; NULL is fine. */
void clrie_pm_bstr_free(char16_t *bstr);

#endif
