// Methods that test/plugins/jit_reject.c rewrites into bodies the JIT cannot compile, though
// every token in them names a row that exists: a type in an assembly that is not there, and a
// type that its assembly does not define. Each is called twice and the outcome printed, so the
// output shows whether the JIT rejected a body and whether the second call ran.
using System;
using System.Runtime.CompilerServices;

static class Program
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int NeedsMissingAssembly(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int NeedsMissingType(int x) => x * 2;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Untouched(int x) => x - 1;

    static void Report(string name, Func<int> call)
    {
        try {
            Console.WriteLine(name + ": " + call());
        } catch (Exception e) {
            Console.WriteLine(name + ": " + e.GetType().FullName);
        }
    }

    static int Main()
    {
        for (int round = 1; round <= 2; round++) {
            Report("NeedsMissingAssembly", () => NeedsMissingAssembly(20));
            Report("NeedsMissingType", () => NeedsMissingType(21));
            Report("Untouched", () => Untouched(3));
        }
        return 7;
    }
}
