/* Which runtimes and processes the engine profiles (the activation policy), read at start-up
 * from the environment and at attach from the attach data's engine settings (which win):
 *
 *   Runtimes          "all" (the default): every runtime in the process that loads the engine;
 *                     "first": only the first one that gets past the other checks
 *   RuntimeVersions   LOW-HIGH: only runtimes whose version (GetRuntimeInformation) lies in
 *                     the range, bounds included; either bound may be left out ("8-", "-9.0"),
 *                     and a bound compares only the parts it has ("-9" takes 9.0.12). One
 *                     version alone ("10") means that version and everything under it
 *   IncludeProcesses  patterns (shell wildcards, clrie/os/match.h, any case) separated by ';' or
 * ',': only a process whose executable name or entry assembly matches one is profiled
 *   ExcludeProcesses  the same, for processes never profiled; it wins over IncludeProcesses
 *
 * As environment variables the names take the prefix "MicrosoftInstrumentationEngine_". A
 * runtime or process declined gets CORPROF_E_PROFILER_CANCEL_ACTIVATION and one Messages line
 * saying why. The only process-wide state is the claim of "first" (one flag). */
#ifndef CLRIE_PM_POLICY_H
#define CLRIE_PM_POLICY_H

#include <stdbool.h>

#include "clrie/abi/corprof.h"
#include "log.h"

#define CLRIE_PM__POLICY_ENV_PREFIX "MicrosoftInstrumentationEngine_"

enum policy_runtimes {
    POLICY_RUNTIMES_ALL = 0,
    POLICY_RUNTIMES_FIRST,
};

struct policy {
    enum policy_runtimes runtimes;
    bool has_low, has_high;
    unsigned low[4], high[4];
    unsigned low_parts, high_parts;
    char *include; /* the lists as given (malloc'd), NULL when not set */
    char *exclude;
};

/* Who this process is, as the process patterns see it. */
struct process_identity {
    char exe[256];   /* the executable's file name: "dotnet", "MyService" */
    char entry[256]; /* the entry assembly's name without ".dll"/".exe"; "" when unknown */
};

/* Looks a setting up by its short name ("Runtimes"); NULL when not set. */
typedef const char *(*policy_lookup_fn)(void *ctx, const char *name);

/* Reads the four settings through lookup. A value that cannot be read is logged as an error
 * and leaves that part of the policy at its default. Returns 0 or -ENOMEM. */
int clrie_pm__policy_read(struct policy *policy, policy_lookup_fn lookup, void *ctx,
                          struct clrie_pm_log *log);
void clrie_pm__policy_finish(struct policy *policy);

/* The identity from an executable path and a command line (argv[0] first): for the dotnet
 * host the entry assembly is the first argument naming a .dll or .exe after the host's own
 * options ("exec", "--depsfile X", ...), or "dotnet" (the SDK's dotnet.dll) when the first
 * argument is an SDK command ("build", "test"); for any other executable (an app host) it is
 * the executable's name. */
void clrie_pm__policy_identity(const char *exe_path, const char *const *argv, size_t argc,
                               struct process_identity *out);
/* The identity of this process: its program and arguments (clrie/os/process.h). */
void clrie_pm__policy_identity_self(struct process_identity *out);

/* Whether the process is to be profiled; when not, *why says so (one line). */
bool clrie_pm__policy_admits_process(const struct policy *policy,
                                     const struct process_identity *who, char *why, size_t why_len);
/* Whether a runtime of this version is to be profiled (the version range only). */
bool clrie_pm__policy_admits_version(const struct policy *policy, const unsigned version[4],
                                     char *why, size_t why_len);

/* The whole decision for a runtime that loads the engine: the process patterns, the version
 * range (asking info for the version), then "first". Logs one line when it declines. */
bool clrie_pm__policy_admits(const struct policy *policy, ICorProfilerInfo3 *info,
                             struct clrie_pm_log *log);

/* A policy_lookup_fn reading the environment (ctx unused): the prefixed name, NULL when unset
 * or empty. */
const char *clrie_pm__policy_lookup_env(void *ctx, const char *name);
/* A policy from the environment alone (start-up). */
int clrie_pm__policy_read_env(struct policy *policy, struct clrie_pm_log *log);

#endif
