// The program Microsoft's coverage plugin instruments in test_coverage_plugin.py: Sign is
// called with a positive number only, so its `return 0` block is never run; Never is never
// called. `tokens` prints the metadata token of each, which the fake collector needs.
using System;
using System.Reflection;
using System.Runtime.CompilerServices;

static class Program
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Sign(int x)
    {
        if (x > 0)
            return 1;
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Never(int x) => x * 3;

    static int Main(string[] args)
    {
        if (args.Length > 0 && args[0] == "tokens")
        {
            foreach (string name in new[] { "Sign", "Never" })
            {
                MethodInfo method = typeof(Program).GetMethod(name,
                    BindingFlags.Static | BindingFlags.NonPublic);
                Console.WriteLine(name + " 0x" + method.MetadataToken.ToString("x8"));
            }
            return 0;
        }
        Console.WriteLine("Sign(5) = " + Sign(5));
        return 3;
    }
}
