// One method edited by both the engine's raw hook (test/plugins/rewriting_hook.c: x += 100,
// 200, 300 ... at the first JIT and each ReJIT) and a plugin (test/plugins/compose_plugin.c:
// + 10, 20, 30 ... on the result). Value(1) shows whose edits the running code carries:
// 111 after the first JIT, 221 after a ReJIT the hook asked for, 331 after one the plugin
// asked for, 401 once the plugin reverted it (a ReJIT with the hook's edit only, on the original
// body), 111 again once the hook reverted it too (the first JIT's code). Without a profiler it
// prints 1 five times.
using System;
using System.Runtime.CompilerServices;
using System.Threading;

static class Program
{
    static int s_last;

    // Statements through a static field, so the JIT reports several IL offsets for its code.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Value(int x)
    {
        s_last = x * 2;
        s_last -= x;
        return s_last;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void RejitByHook() { }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void RejitByPlugin() { }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void RevertByHook() { }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void RevertByPlugin() { }

    // Calls Value until it answers something other than `before` (a ReJIT takes effect at
    // some call after it was asked for), for at most about 5 seconds.
    static int Changed(int before)
    {
        int seen = Value(1);
        for (int i = 0; i < 250 && seen == before; i++) {
            Thread.Sleep(20);
            seen = Value(1);
        }
        return seen;
    }

    // Calls Value until it answers `wanted`, for at most about 5 seconds.
    static int Reaches(int wanted)
    {
        int seen = Value(1);
        for (int i = 0; i < 250 && seen != wanted; i++) {
            Thread.Sleep(20);
            seen = Value(1);
        }
        return seen;
    }

    static int Main(string[] args)
    {
        bool profiled = args.Length > 0;
        bool hook = !profiled || args[0] != "plugins"; // "plugins": no step of the hook's
        int value = Value(1), first = value;
        Console.WriteLine("first " + value);
        if (hook) {
            RejitByHook();
            value = profiled ? Changed(value) : Value(1);
            Console.WriteLine("after the hook's rejit " + value);
        }
        RejitByPlugin();
        value = profiled ? Changed(value) : Value(1);
        Console.WriteLine("after the plugin's rejit " + value);
        RevertByPlugin();
        // With two engines each running the plugin, both revert, one after the other: wait
        // for the first JIT's code to come back.
        value = !profiled ? Value(1) : hook ? Changed(value) : Reaches(first);
        Console.WriteLine("after the plugin's revert " + value);
        if (hook) {
            RevertByHook();
            value = profiled ? Changed(value) : Value(1);
            Console.WriteLine("after the hook's revert " + value);
        }
        return 0;
    }
}
