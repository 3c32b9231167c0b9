// The conformance suite's program: each scenario (the first argument) calls methods whose IL
// the cases edit and prints what they return; its exit code is the last value it printed, so
// a case checks both. The target methods are small and never inlined, so their IL is known and
// each is compiled once, with the plugin's edits.
using System;
using System.IO;
using System.Runtime.CompilerServices;
using System.Threading;

static class Program
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Hit() => Console.WriteLine("hit");

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Answer() => 41;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int AddOne(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Branchy(int x)
    {
        if (x > 0)
            return 1;
        return 2;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Switchy(int x)
    {
        switch (x)
        {
            case 0: return 10;
            case 1: return 11;
            case 2: return 12;
            default: return -1;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Loop(int n)
    {
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += i;
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Empty() { }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Thrower(int x)
    {
        if (x < 0)
            throw new ArgumentException("negative");
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Guarded(int x)
    {
        try
        {
            if (x < 0)
                throw new ArgumentException("negative");
            return x;
        }
        catch (ArgumentException)
        {
            return -2;
        }
    }

    // Its first JIT tells the plugin of a `rejit` case to ask for the ReJIT of the case's
    // method (from a thread of its own, which records "rejit requested" when it is done).
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void AskRejit() { }

    // Waits (at most about 10 s) for the plugin's record to say the ReJIT was requested.
    static void WaitForRejitRequest()
    {
        string record = Environment.GetEnvironmentVariable("CLRIE_CONFORMANCE_OUT");
        for (int i = 0; i < 500 && record != null; i++)
        {
            if (File.Exists(record) && File.ReadAllText(record).Contains("rejit requested"))
                return;
            Thread.Sleep(20);
        }
        Console.WriteLine("no rejit requested");
    }

    static int Main(string[] args)
    {
        // `rejit <scenario>`: the scenario once as jitted, then again after a ReJIT.
        if (args.Length == 2 && args[0] == "rejit")
        {
            Run(args[1]);
            AskRejit();
            WaitForRejitRequest();
            return Run(args[1]);
        }
        return Run(args.Length > 0 ? args[0] : "");
    }

    static int Run(string scenario)
    {
        int last = 0;
        void Show(string what, int value)
        {
            Console.WriteLine(what + " = " + value);
            last = value;
        }
        switch (scenario)
        {
            case "answer":
                Show("Answer()", Answer());
                break;
            case "addone":
                Show("AddOne(5)", AddOne(5));
                break;
            case "branchy":
                Show("Branchy(1)", Branchy(1));
                Show("Branchy(0)", Branchy(0));
                break;
            case "switchy":
                for (int i = -1; i <= 3; i++)
                    Show("Switchy(" + i + ")", Switchy(i));
                break;
            case "loop":
                Show("Loop(5)", Loop(5));
                break;
            case "empty":
                Empty();
                Console.WriteLine("Empty() returned");
                last = 3;
                break;
            case "thrower":
                Show("Thrower(4)", Thrower(4));
                try
                {
                    Thrower(-1);
                    Console.WriteLine("no exception");
                }
                catch (ArgumentException e)
                {
                    Console.WriteLine("caught " + e.GetType().Name);
                }
                break;
            case "guarded":
                Show("Guarded(4)", Guarded(4));
                Show("Guarded(-1)", Guarded(-1));
                break;
            default:
                Console.WriteLine("no such scenario");
                return 100;
        }
        return last & 0x7F;
    }
}
