// Runs the methods of tailcalls.dll (written by ../tailgen with `tail.` prefixes, a fault
// clause, a short branch at the edge of its range and a `jmp`). SumTo recurses five million
// times: without its `tail.` prefix that overflows the stack and the process dies.
using System;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text;

static class TailCalls
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Run(string? path)
    {
        if (path == null)
        {
            Console.WriteLine("no tailcalls.dll given: skipped");
            return;
        }
        Assembly assembly = Assembly.LoadFrom(path);
        Type type = assembly.GetType("TailCalls", throwOnError: true)!;
        T Get<T>(string name) where T : Delegate => type.GetMethod(name)!.CreateDelegate<T>();

        var sumTo = Get<Func<long, long, long>>("SumTo");
        Console.WriteLine($"SumTo(5000000) = {sumTo(5_000_000, 0)}");
        var isEven = Get<Func<int, bool>>("IsEven");
        var isOdd = Get<Func<int, bool>>("IsOdd");
        Console.WriteLine($"IsEven(1000001) = {isEven(1_000_001)}, IsOdd(1000001) = {isOdd(1_000_001)}");
        var few = Get<Func<int, long, long>>("Few");
        Console.WriteLine($"Few(1000000) = {few(1_000_000, 0)}");
        var steps = Get<Func<int, long>>("VirtualSteps");
        Console.WriteLine($"VirtualSteps(1000000) = {steps(1_000_000)}");
        var throwAfter = Get<Func<int, int>>("ThrowAfter");
        try
        {
            Console.WriteLine($"ThrowAfter = {throwAfter(100_000)}");
        }
        catch (InvalidOperationException e)
        {
            Console.WriteLine($"ThrowAfter(100000): {e.GetType().FullName}: {e.Message}");
        }
        var fault = Get<Func<int, StringBuilder, int>>("Fault");
        var log = new StringBuilder();
        Console.WriteLine($"Fault(0) = {fault(0, log)} log {log}");
        log.Clear();
        try
        {
            fault(1, log);
        }
        catch (ArgumentException e)
        {
            Console.WriteLine($"Fault(1): {e.GetType().FullName}: {e.Message}, log {log}");
        }
        var shortJump = Get<Func<int, int>>("ShortJump");
        Console.WriteLine($"ShortJump = {shortJump(5)}, {shortJump(-5)}");
        var jump = Get<Func<int, int, int>>("Jump");
        Console.WriteLine($"Jump(4, 2) = {jump(4, 2)}, Jump(4, -1) = {jump(4, -1)}");
    }
}
