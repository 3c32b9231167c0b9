/* The proxy tests' scenarios: what one process does with the proxy and what came of it.
 *
 * The proxy keeps per-process state and reads the environment, exactly as it does inside a
 * .NET process, so each scenario runs in a child process of its own whose environment is
 * exactly the scenario's. test_proxy.c says what a scenario does (scenario_play); the part of
 * each system, chosen by Meson, starts the child and brings back its outcome and its stderr:
 * scenario_posix.c (fork) and scenario_win32.c (the test program started again with the
 * scenario on its command line, as Windows has no fork). That part also says what the
 * systems differ in (system_facts), so that the scenarios hold no #ifdef. */
#ifndef CLRIE_PROXY_TESTS_SCENARIO_H
#define CLRIE_PROXY_TESTS_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

struct scenario {
    const char *proxy;   /* the proxy copy to load */
    const char *env[12]; /* NAME=VALUE, NULL-terminated; the child sees nothing else */
    int threads;         /* concurrent first calls (default 1) */
    bool null_out;       /* pass NULL as the out pointer */
    bool unload_first;   /* call DllCanUnloadNow before anything is loaded */
    bool unload;         /* call DllCanUnloadNow after DllGetClassObject */
    bool again;          /* call DllGetClassObject once more after that */
    bool ordinary_user;  /* drop root first so permissions apply (POSIX only) */
};

/* What the child brings back. Its bytes cross from the child to the test as they are (the same
 * program on both sides), except log, which scenario_run fills in the test's process. */
struct outcome {
    int32_t hr;
    int32_t unload_first_hr;
    int32_t unload_hr;
    int32_t again_hr;
    bool out_was_null;
    bool engine_resident; /* after DllCanUnloadNow: is the chosen engine still loaded */
    char answer[4096];
    char *log; /* everything the child wrote to stderr, malloc'd */
};

/* test_proxy.c: plays sc in this process, which is the scenario's child: 0 with *o filled, or
 * the child's exit status (12 and up) when the proxy could not even be loaded, after a line on
 * stderr. */
int scenario_play(const struct scenario *sc, struct outcome *o);

/* Plays sc in a child process whose environment is exactly sc->env and whose stderr goes to a
 * file in tree, and returns the child's outcome with its stderr in log (byte for byte; free it
 * with outcome_free). Fails the test when the child does not end well within 60 seconds. */
struct outcome scenario_run(const char *tree, const struct scenario *sc);

/* When this process is a scenario's child started as a program of its own (Windows), plays the
 * scenario its command line names and returns the exit status for main; otherwise (always on
 * POSIX, where the child is a fork that never returns to main) -1. */
int scenario_child_main(void);

/* A pipe that nobody reads, to point the log at: a FIFO in tree on POSIX, a named pipe whose
 * server end the test holds on Windows. */
struct log_pipe {
    char *path;          /* malloc'd */
    const char *refusal; /* the log's words for why it does not write there */
    intptr_t server;     /* Windows: the server end's handle */
};

void log_pipe_make(const char *tree, struct log_pipe *pipe);
void log_pipe_free(struct log_pipe *pipe);

/* What the systems differ in, where a scenario depends on it. */
struct system_facts {
    /* libconfig's words for a file that is not a module of this system. */
    const char *not_a_module;
    /* A device every write to fails, or NULL when the system has none. */
    const char *full_device;
    /* Whether a folder's name may hold a newline (which could forge a log line). */
    bool names_take_control_characters;
    /* Whether unloading a module's last reference takes it out of the process. */
    bool unload_unmaps;
};

extern const struct system_facts system_facts;

#endif
