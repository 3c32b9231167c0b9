// The corpus of test/asbare: small programs, each doing one thing the runtime does through the
// operating system or its own machinery. `asbare <case>` runs one case; `asbare list` prints
// their names. test/asbare/asbare.py runs each case without a profiler and under the engine
// and compares what the process did: stdout, stderr and how it ended.
//
// A case prints only what is the same from run to run (no process ids, times or addresses)
// and what a user would notice if it changed. Cases that take a signal print "ready" once
// they can, and one line for each signal they handle.
using System;
using System.Collections.Generic;
using System.Linq;

static class Program
{
    static readonly Dictionary<string, Func<string[], int>> Cases = new()
    {
        // hardware faults the runtime turns into exceptions (Faults.cs)
        ["divide-by-zero"] = Faults.DivideByZero,
        ["min-value-over-minus-one"] = Faults.MinValueOverMinusOne,
        ["null-field"] = Faults.NullField,
        ["null-array"] = Faults.NullArray,
        ["null-call"] = Faults.NullCall,
        ["checked-overflow"] = Faults.CheckedOverflow,
        ["fault-storm"] = Faults.Storm,
        ["access-violation"] = Faults.AccessViolation,
        ["native-sigsegv"] = Faults.NativeSigsegv,
        ["native-abort"] = Faults.NativeAbort,
        // how a process ends (Endings.cs)
        ["stack-overflow"] = Endings.StackOverflow,
        ["stack-overflow-child"] = Endings.StackOverflowInChild,
        ["failfast"] = Endings.FailFast,
        ["unhandled"] = Endings.Unhandled,
        ["unhandled-thread"] = Endings.UnhandledOnThread,
        ["exit-code"] = Endings.ExitCodeProperty,
        ["exit-from-finalizer"] = Endings.ExitFromFinalizer,
        ["exit-from-thread"] = Endings.ExitFromThread,
        ["process-exit"] = Endings.ProcessExitHandlers,
        // signals sent by the test (Signals.cs)
        ["posix-signals"] = Signals.Handled,
        ["sigterm-default"] = Signals.TermDefault,
        ["cancel-key-press"] = Signals.CancelKeyPress,
        ["child-processes"] = Signals.ChildProcesses,
        // exceptions and the runtime's two-pass handling (Exceptions.cs)
        ["type-initializer"] = Exceptions.TypeInitializer,
        ["filters"] = Exceptions.Filters,
        ["iterator-dispose"] = Exceptions.IteratorDispose,
        ["rethrow"] = Exceptions.Rethrow,
        ["first-chance"] = Exceptions.FirstChance,
        ["async-exceptions"] = Exceptions.AsyncExceptions,
        ["stack-trace-lines"] = Exceptions.StackTraceLines,
        ["stack-trace-lambda"] = Exceptions.StackTraceFromLambda,
        // threads, the GC, memory (Threads.cs)
        ["gc-finalizers"] = Threads.GcFinalizers,
        ["thread-interrupt"] = Threads.Interrupt,
        ["thread-static-async-local"] = Threads.ThreadStaticAndAsyncLocal,
        ["monitor"] = Threads.MonitorWaitPulse,
        ["stackalloc"] = Threads.StackallocSkipLocalsInit,
        ["debugger"] = Threads.DebuggerGuarded,
        // code the runtime makes or loads while running (Loading.cs)
        ["dynamic-code"] = Loading.DynamicCode,
        ["collectible-context"] = Loading.CollectibleContext,
        ["tier-up"] = Loading.TierUp,
        ["reflection"] = Loading.ReflectionOverBodies,
        ["native-callbacks"] = Loading.NativeCallbacks,
    };

    static int Main(string[] args)
    {
        if (args.Length == 0 || args[0] == "list") {
            foreach (var name in Cases.Keys)
                Console.WriteLine(name);
            return args.Length == 0 ? 2 : 0;
        }
        if (!Cases.TryGetValue(args[0], out var run)) {
            Console.Error.WriteLine("asbare: no case '" + args[0] + "'");
            return 2;
        }
        return run(args.Skip(1).ToArray());
    }
}
