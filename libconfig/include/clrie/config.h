/* clrie/config.h: instrumentation-method configuration files.
 *
 * A configuration file names the instrumentation methods (plugins) the engine loads:
 *
 *     <InstrumentationEngineConfiguration>
 *       <InstrumentationMethod>
 *         <Name>Example</Name>
 *         <Description>optional</Description>
 *         <Module>libExample.so</Module>
 *         <ClassGuid>{12345678-1234-1234-1234-123456789ABC}</ClassGuid>
 *         <Priority>50</Priority>
 *         <Settings><Setting Name="Key" Value="Value"/></Settings>
 *       </InstrumentationMethod>
 *     </InstrumentationEngineConfiguration>
 *
 * A struct clrie_config collects the methods of every file loaded into it, ordered by
 * ascending Priority (a method without one comes after every method with one; equal
 * priorities keep the order they were loaded in), together with every problem found. A file
 * with any error contributes no method at all; the other files still do. The first method
 * declaring a ClassGuid wins; a later one is dropped with a warning that names both.
 *
 * Hostile files fail fast: a file over CLRIE_CONFIG_MAX_FILE_SIZE is not read, a DOCTYPE
 * (so any DTD or entity declaration) is refused before it is parsed, nothing is fetched from
 * the network, a tag with more than 256 attributes is refused before libxml2 sees it,
 * libxml2 stops nesting at depth 256, and after 100 problems the rest of a file is not
 * checked (which rejects it).
 *
 * Nothing here prints or aborts on bad input. Only clrie_config_load_env() looks at an
 * environment, and only the one it is handed. libxml2 is used with a parser context per
 * call; its process-wide state is left alone (no cleanup, no global handlers), so the host
 * may use libxml2 too. The one thing touched is the calling thread's generic error function,
 * which libxml2 uses for a few context-less messages (encoding conversion): it is pointed at
 * the diagnostics list for the duration of one parse and restored exactly afterwards.
 * Distinct struct clrie_config objects may be used from different threads at the same time;
 * one object must not be used by two threads at once.
 */
#ifndef CLRIE_CONFIG_H
#define CLRIE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The environment variables clrie_config_load_env() reads: every variable whose name starts
 * with the prefix in effect (case-sensitive, any suffix, also none) holds a list of
 * configuration files or folders, separated by ':' (';' on Windows, whose paths have ':').
 * The prefix is CLRIE_CONFIG_ENV_PREFIX, the architecture's own: ConfigPath64_ on x86_64,
 * ConfigPath32_ on x86 (a 32-bit engine), ConfigPathARM64_ on aarch64. On aarch64, CLRIE's
 * Linux name, CLRIE_CONFIG_ENV_PREFIX_64, is read too, as CLRIE does on any Linux: when both
 * kinds are set, the ARM64 variables win and the others are ignored (with a warning each). */
#define CLRIE_CONFIG_ENV_PREFIX_64 "MicrosoftInstrumentationEngine_ConfigPath64_"
#if defined(__aarch64__) || defined(_M_ARM64)
#define CLRIE_CONFIG_ENV_PREFIX "MicrosoftInstrumentationEngine_ConfigPathARM64_"
#elif defined(__i386__) || defined(_M_IX86)
#define CLRIE_CONFIG_ENV_PREFIX "MicrosoftInstrumentationEngine_ConfigPath32_"
#else
#define CLRIE_CONFIG_ENV_PREFIX CLRIE_CONFIG_ENV_PREFIX_64
#endif

/* Set to exactly "1", this variable turns the trust check off (CLRIE's name for its own
 * signature check switch). */
#define CLRIE_CONFIG_ENV_DISABLE_TRUST                                                             \
    "MicrosoftInstrumentationEngine_DisableCodeSignatureValidation"

/* Configuration files larger than this are refused unread. */
#define CLRIE_CONFIG_MAX_FILE_SIZE (1024 * 1024)

/* A ClassGuid in the Windows GUID layout (the bytes a plugin's DllGetClassObject expects). */
struct clrie_config_guid {
    uint32_t data1;
    uint16_t data2;
    uint16_t data3;
    uint8_t data4[8];
};

/* Length of a GUID in registry form, "{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}", without NUL. */
#define CLRIE_CONFIG_GUID_TEXT_LEN 38

/* Parses exactly one braced registry-form GUID (hex digits in either case, no surrounding
 * space) from text[0..len). Returns 0 and fills *out, or -EILSEQ; -EINVAL for NULL. */
int clrie_config_guid_parse(const char *text, size_t len, struct clrie_config_guid *out);

/* Writes the upper-case registry form and a NUL: buf must hold
 * CLRIE_CONFIG_GUID_TEXT_LEN + 1 bytes. */
void clrie_config_guid_format(const struct clrie_config_guid *guid,
                              char buf[CLRIE_CONFIG_GUID_TEXT_LEN + 1]);

/* One <Setting Name="…" Value="…"/> handed to the plugin. */
struct clrie_config_setting {
    const char *name;
    const char *value;
};

/* One instrumentation method as loaded. Every pointer in it is owned by the struct
 * clrie_config it came from and stays valid until that object is freed. Strings are UTF-8,
 * trimmed of surrounding XML white space. */
struct clrie_config_method {
    const char *name;
    const char *description; /* "" when the element is absent */
    const char *module;      /* the <Module> text as written */
    const char *module_path; /* the resolved, canonical path of an existing regular file */
    struct clrie_config_guid class_guid;
    char class_guid_text[CLRIE_CONFIG_GUID_TEXT_LEN + 1]; /* upper case, braced */
    bool has_priority; /* false: no <Priority>; loads after every method with one */
    uint32_t priority; /* meaningful only when has_priority */
    size_t setting_count;
    /* In file order. Names are unique: a repeated Name is a warning and the first one wins
     * (as CLRIE does for attach settings). Values are kept exactly, not trimmed. */
    const struct clrie_config_setting *settings;
    const char *file; /* the configuration file (or memory name) it came from */
    unsigned line;    /* where its <InstrumentationMethod> element starts */
    unsigned column;
};

enum clrie_config_severity {
    CLRIE_CONFIG_ERROR = 0, /* the file (or the listed path) contributed nothing */
    CLRIE_CONFIG_WARNING,   /* something was ignored; the file still counts */
};

/* One problem. file is the configuration file, folder or listed path concerned (for an empty
 * entry of an environment list, the variable's name); line and
 * column are 1-based, 0 when they do not apply (a file that cannot be read has neither, an
 * XML problem in a file not encoded in UTF-8 may have no column). message is one line of
 * English, without the location or severity. Owned by the struct clrie_config. */
struct clrie_config_diag {
    enum clrie_config_severity severity;
    const char *file;
    unsigned line;
    unsigned column;
    const char *message;
};

/* How one file is checked. */
struct clrie_config_options {
    /* Apply the trust rule (clrie_config_trust_check: the file and the folders above it) to
     * every configuration file and Module. */
    bool trust_check;
};

struct clrie_config;

/* Returns a new empty collection, or NULL when out of memory. Free with clrie_config_free. */
struct clrie_config *clrie_config_new(void);

/* Frees the collection and everything it handed out. Accepts NULL. */
void clrie_config_free(struct clrie_config *config);

/* Loads one configuration file. A relative Module is resolved against the folder of the
 * file's canonical path. opts NULL means trust_check true.
 * Returns 0 when the file was accepted (warnings may have been added); otherwise nothing of
 * the file was added and the diagnostics say why: -ENOENT (no such file), -EISDIR (a folder:
 * see clrie_config_load_path), -EINVAL (not a regular file), -EFBIG (over
 * CLRIE_CONFIG_MAX_FILE_SIZE), -EACCES (the file or a folder above it is writable by group or
 * others), -EPERM (it or a folder above it is owned by another user), another negative errno when
 * it cannot be read, -EILSEQ when its content is rejected (bad XML, bad elements or values, or a
 * Module that is missing or untrusted), -ENOMEM (the collection may then be incomplete). -EINVAL
 * for NULL arguments. */
int clrie_config_load_file(struct clrie_config *config, const char *path,
                           const struct clrie_config_options *opts);

/* Like clrie_config_load_file, and a folder contributes its *.config and *.xml entries (not
 * starting with '.') in byte order of their names. Returns 0 when every file was accepted,
 * else the first failure's code (-ENOENT, -EACCES, … for the folder itself). */
int clrie_config_load_path(struct clrie_config *config, const char *path,
                           const struct clrie_config_options *opts);

/* Loads a configuration held in memory (data need not be NUL-terminated). name stands for
 * the file in diagnostics and methods (NULL: "<memory>"); a relative Module is resolved
 * against base_dir (NULL: a relative Module is an error). Returns 0, -EILSEQ, -EFBIG,
 * -ENOMEM or -EINVAL as clrie_config_load_file does. */
int clrie_config_load_memory(struct clrie_config *config, const void *data, size_t len,
                             const char *name, const char *base_dir,
                             const struct clrie_config_options *opts);

/* Discovers configuration from envp, a NULL-terminated array of "NAME=VALUE" strings in
 * environment order (pass environ for the real one; on Windows a UTF-8 copy,
 * clrie_os_env_block of clrie/os/env.h). Each variable whose name starts with
 * the prefix in effect (clrie_config_env_prefix) is split on ':' (';' on Windows) and each
 * part loaded with clrie_config_load_path, in variable order then list order; a missing or
 * unreadable part is an error for that part only, an empty part a warning. The trust check is on
 * unless envp sets CLRIE_CONFIG_ENV_DISABLE_TRUST=1. Returns 0 when no error was found, -ENOMEM,
 * -EINVAL for NULL arguments, or the first failing part's code. */
int clrie_config_load_env(struct clrie_config *config, char *const *envp);

/* The prefix whose variables clrie_config_load_env reads in envp: CLRIE_CONFIG_ENV_PREFIX if a
 * variable starts with it, else, on aarch64, CLRIE_CONFIG_ENV_PREFIX_64 if one starts with
 * that, else NULL: envp names no configuration. A static string. */
const char *clrie_config_env_prefix(char *const *envp);

/* The methods in load order. index must be below the count (else NULL). A returned pointer
 * stays valid until config is freed; a later load may change which index it has. */
size_t clrie_config_method_count(const struct clrie_config *config);
const struct clrie_config_method *clrie_config_method_at(const struct clrie_config *config,
                                                         size_t index);

/* The problems, file by file in load order, and within one file in the order of their places
 * in it. A returned pointer stays valid until config is freed. */
size_t clrie_config_diag_count(const struct clrie_config *config);
const struct clrie_config_diag *clrie_config_diag_at(const struct clrie_config *config,
                                                     size_t index);

/* How many of the problems are errors. */
size_t clrie_config_error_count(const struct clrie_config *config);

/* "error" or "warning". Never NULL. */
const char *clrie_config_severity_string(enum clrie_config_severity severity);

/* ---- Files that decide what code runs -------------------------------------------------------
 *
 * Every file the engine or the proxy reads to decide which code to load (configuration files,
 * plugin modules, the raw profiler hook, the engine under the proxy) passes one trust rule,
 * and every module passes the image check (ELF on Linux, PE on Windows) before it is loaded. Both
 * write a one-line English reason (NUL-terminated, cut to why_len) when they refuse; why may be
 * NULL. */

/* Space enough for any reason these functions give. */
#define CLRIE_CONFIG_REASON_SIZE 512

/* The trust rule, for the file open on fd (a C runtime descriptor: open(), or _open() on
 * Windows) whose canonical path (no symbolic link, as realpath gives it) is canonical_path.
 * On POSIX systems:
 *   - the file must not be writable by group or others, and must be owned by the effective
 *     user or root;
 *   - every folder above it, up to '/', must be owned by the effective user or root, and must
 *     not be writable by group or others, unless it is sticky (as /tmp) and the file is owned
 *     by the effective user or root (as OpenSSH's StrictModes).
 * On Windows: neither the file nor any folder above it, up to the drive's root, may grant
 * write access (writing or appending data, changing its permissions or owner, deleting, or
 * the generic rights that include them) to anyone but Administrators, SYSTEM,
 * TrustedInstaller, the object's owner (CREATOR OWNER) and the current user; a NULL access
 * list, which grants everyone everything, is refused.
 * Returns 0 when the file may be trusted; -EACCES (the file or a folder is writable by
 * others), -EPERM (owned by another user), or the negative errno of a folder that cannot be
 * examined; -EINVAL for a NULL path or one that is not absolute. */
int clrie_config_trust_check(int fd, const char *canonical_path, char *why, size_t why_len);

/* Whether a module is a complete ELF shared object of this machine: a 64-bit little-endian
 * ELF header of the current version for this architecture (EM_X86_64 or EM_AARCH64), of type
 * ET_DYN, whose program headers, every PT_LOAD segment's bytes in the file, and section
 * header table lie within the file. A file cut short (half-written during an upgrade) would
 * otherwise make dlopen's mappings fault with SIGBUS. Reads at offsets only.
 * Returns 0, -ENOEXEC when the file is refused, or the negative errno of a failed read. */
int clrie_config_elf_check_fd(int fd, char *why, size_t why_len);

/* The same check of a file held in memory: data holds the whole file of size bytes. */
int clrie_config_elf_check_memory(const void *data, size_t size, char *why, size_t why_len);

/* Whether a module is a complete DLL of this machine: MZ and PE headers, the machine of this
 * build (x64, x86 or ARM64) with the matching optional header (PE32+ or PE32), the DLL flag,
 * and headers and every section's raw bytes within the file. Returns as the ELF check. */
int clrie_config_pe_check_memory(const void *data, size_t size, char *why, size_t why_len);

/* The check of this system's module format: the ELF check on Linux, the PE check on Windows. */
int clrie_config_image_check_fd(int fd, char *why, size_t why_len);

/* What clrie_config_module_check checks. */
enum clrie_config_module_checks {
    CLRIE_CONFIG_CHECK_TRUST = 1 << 0,                 /* clrie_config_trust_check */
    CLRIE_CONFIG_CHECK_IMAGE = 1 << 1,                 /* clrie_config_image_check_fd */
    CLRIE_CONFIG_CHECK_ELF = CLRIE_CONFIG_CHECK_IMAGE, /* its name before Windows */
};

/* Checks the module at path before it is loaded: resolves it to its canonical path (symbolic
 * links are followed: the file they lead to and the folders above it are what is checked),
 * opens it (refusing a link put in its place since, where the system has them), requires a
 * regular file, and applies the checks `checks` names (a mask of enum
 * clrie_config_module_checks). On success returns 0 and, when canonical is not NULL, the
 * canonical path (malloc'd, UTF-8; load that path). Returns -ENOENT and the other errors of
 * resolving and opening, -EINVAL (not a regular file, or a NULL path), the codes of
 * clrie_config_trust_check and clrie_config_image_check_fd, or -ENOMEM. */
int clrie_config_module_check(const char *path, unsigned checks, char **canonical, char *why,
                              size_t why_len);

/* ---- Attach requests -------------------------------------------------------------------------
 *
 * The client data of an attach request (ICorProfilerCallback3::InitializeForAttach), in CLRIE's
 * schema: <InstrumentationEngineConfiguration> holding an optional <InstrumentationEngine>
 * with <Settings> for the engine, and an optional <InstrumentationMethods> with
 * <AddInstrumentationMethod ConfigPath="..."> elements, each with optional <Settings> for the
 * methods of that configuration file. A Setting needs a non-empty Name and Value; of two with
 * one name the first wins. */

struct clrie_config_attach;

/* One <AddInstrumentationMethod>: owned by the struct clrie_config_attach it came from. */
struct clrie_config_attach_method {
    const char *config_path; /* as written */
    size_t setting_count;
    const struct clrie_config_setting *settings; /* in document order */
    unsigned line;
};

/* Parses len bytes of UTF-8 (the data ends at the first NUL, if any). Returns 0 and *out (free
 * with clrie_config_attach_free), or, with a one-line reason in why: -ENODATA (empty), -EFBIG
 * (over CLRIE_CONFIG_MAX_FILE_SIZE), -EILSEQ (not well-formed, a DOCTYPE, or not the schema:
 * an unknown element, text between elements, a Setting without Name or Value, an
 * AddInstrumentationMethod without ConfigPath), -ENOMEM, -EINVAL for NULL arguments. */
int clrie_config_attach_parse(const void *data, size_t len, struct clrie_config_attach **out,
                              char *why, size_t why_len);
void clrie_config_attach_free(struct clrie_config_attach *attach);

/* The engine's settings, in document order; the value of one by name (NULL when absent). */
size_t clrie_config_attach_setting_count(const struct clrie_config_attach *attach);
const struct clrie_config_setting *
clrie_config_attach_setting_at(const struct clrie_config_attach *attach, size_t index);
const char *clrie_config_attach_setting(const struct clrie_config_attach *attach, const char *name);

/* The <AddInstrumentationMethod> elements, in document order. */
size_t clrie_config_attach_method_count(const struct clrie_config_attach *attach);
const struct clrie_config_attach_method *
clrie_config_attach_method_at(const struct clrie_config_attach *attach, size_t index);

#ifdef __cplusplus
}
#endif

#endif
