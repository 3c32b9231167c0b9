/* clrie/version.h: engine version strings, their order, and choosing the newest install.
 *
 * An engine version names the folder an engine is installed in:
 *
 *     MAJOR.MINOR.PATCH[-build<digits>][_Debug|_debug]
 *
 * "-build<n>" marks a preview, "_Debug"/"_debug" a debug build. Each number is one or more
 * ASCII digits of any length; numbers compare by value (leading zeros ignored), never as text,
 * so 1.10.0 is newer than 1.9.0 and no number is too long to compare.
 *
 * Nothing here allocates except clrie_version_select(), prints, or reads the environment.
 */
#ifndef CLRIE_VERSION_H
#define CLRIE_VERSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One number of a version: its significant digits (leading zeros removed; zero has len 0).
 * Borrowed from the parsed text. */
struct clrie_version_number {
    const char *digits;
    size_t len;
};

/* A parsed version. It borrows the text it was parsed from: every pointer in it stays valid
 * as long as that text does. */
struct clrie_version {
    const char *text;
    size_t text_len;
    struct clrie_version_number major;
    struct clrie_version_number minor;
    struct clrie_version_number patch;
    struct clrie_version_number build; /* len 0 and is_preview false for a release */
    bool is_preview;
    bool is_debug;
};

/* Why a string is not a version: the byte offset where parsing stopped and what was expected
 * there. */
struct clrie_version_diag {
    size_t offset;
    char message[96];
};

/* Parses text[0..len). Returns 0 and fills *out, or -EILSEQ and fills *diag (which may be
 * NULL) without touching *out; -EINVAL if text or out is NULL. */
int clrie_version_parse(const char *text, size_t len, struct clrie_version *out,
                        struct clrie_version_diag *diag);

/* Compares two numbers by value: <0, 0 or >0. */
int clrie_version_number_compare(const struct clrie_version_number *a,
                                 const struct clrie_version_number *b);

/* True if the number equals value. */
bool clrie_version_number_equals(const struct clrie_version_number *n, uint64_t value);

/* Rank order: MAJOR, MINOR, PATCH by value; a preview is older than the release of the same
 * three numbers; previews of one release order by build number. Debug and release builds of
 * the same version rank equal, and so do spellings that differ only in leading zeros.
 * Returns <0 if a is older than b, 0 if they rank equal, >0 if a is newer. */
int clrie_version_compare(const struct clrie_version *a, const struct clrie_version *b);

/* A total order for choosing between folders: rank order first; among equal ranks the shorter
 * name counts as newer (it spells its numbers with fewer leading zeros: "1.0.0-build1" beats
 * "1.0.0-build01"), then the name that is greater byte by byte. The result never depends on
 * the order a directory lists its entries in. Returns 0 only for identical text. */
int clrie_version_compare_total(const struct clrie_version *a, const struct clrie_version *b);

/* Why clrie_version_select() did not choose an entry of the root folder. */
enum clrie_version_verdict {
    CLRIE_VERSION_CHOSEN = 0,
    CLRIE_VERSION_OLDER,               /* eligible, but a newer eligible one exists */
    CLRIE_VERSION_BAD_NAME,            /* the name is not a version */
    CLRIE_VERSION_WRONG_MAJOR,         /* the major version is not the one required */
    CLRIE_VERSION_DEBUG_MISMATCH,      /* debug build without use_debug, or the reverse */
    CLRIE_VERSION_PREVIEW_NOT_ALLOWED, /* a preview without use_preview */
    CLRIE_VERSION_NO_SUCH_FOLDER,      /* nothing of that name (or a dangling link) */
    CLRIE_VERSION_NOT_A_DIRECTORY,     /* the entry is not a folder */
    CLRIE_VERSION_ENGINE_MISSING,      /* <arch folder>/<engine file> does not exist */
    CLRIE_VERSION_ENGINE_NOT_A_FILE,   /* <arch folder>/<engine file> is not a regular file */
    CLRIE_VERSION_UNREADABLE,          /* the entry or its engine could not be examined */
};

/* A short English phrase for a verdict ("not a version name", ...). Never NULL. */
const char *clrie_version_verdict_string(enum clrie_version_verdict verdict);

struct clrie_version_select_options {
    const char *root;        /* folder holding one sub-folder per installed version */
    uint64_t major;          /* only this major version is eligible */
    const char *arch_folder; /* e.g. "Instrumentation64" */
    const char *engine_file; /* e.g. "libInstrumentationEngine.so" */
    bool use_debug;          /* only debug builds are eligible (otherwise only release) */
    bool use_preview;        /* previews are eligible too */
    /* If not NULL, only the folder of exactly this name is considered. It must be a version
     * name of the required major, contain no '/', and hold the engine file; use_debug and
     * use_preview do not apply to it (the caller named it explicitly). */
    const char *specific_version;
};

/* One entry of the root folder and what became of it. */
struct clrie_version_candidate {
    char *name;
    enum clrie_version_verdict verdict;
    int error;     /* errno behind CLRIE_VERSION_UNREADABLE, else 0 */
    size_t offset; /* for CLRIE_VERSION_BAD_NAME: where the name stopped being a version */
};

/* What clrie_version_select() found. Owned by the caller: release with
 * clrie_version_selection_finish() whatever select returned. */
struct clrie_version_selection {
    char *path;     /* the chosen engine file, NULL if none */
    char *version;  /* the chosen folder's name, NULL if none */
    int root_error; /* errno if the root folder could not be read, else 0 */
    size_t count;   /* entries of the root, sorted by name */
    struct clrie_version_candidate *candidates;
};

/* Chooses the newest eligible engine under opts->root. Returns 0 with out->path set; -ENOENT
 * when no entry is eligible (out->candidates says why for each entry, out->root_error says
 * why the root itself could not be read); -EINVAL for bad options (NULL fields, or a
 * specific_version containing '/'); -ENOMEM. *out is always initialised and must be
 * finished, also on failure, because the reasons are the point of a failed selection. */
int clrie_version_select(const struct clrie_version_select_options *opts,
                         struct clrie_version_selection *out);

void clrie_version_selection_finish(struct clrie_version_selection *selection);

#ifdef __cplusplus
}
#endif

#endif
