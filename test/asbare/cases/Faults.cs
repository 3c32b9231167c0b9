// Exceptions raised by the processor: the runtime's signal handlers turn SIGSEGV and SIGFPE in
// managed code into NullReferenceException, DivideByZeroException and OverflowException.
// With the engine loaded, its crash handler sits in front of the runtime's and must be
// invisible; a fault outside managed code must end the process the same way too.
using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

class Node
{
    public int Value = 1;
    public Node? Next;
    public int Twice() => Value * 2;
    public virtual int Virtual() => Value;
}

static class Faults
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Divide(int a, int b) => a / b;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Remainder(long a, long b) => a % b;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static uint DivideUnsigned(uint a, uint b) => a / b;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int ReadField(Node? node) => node!.Value;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void WriteField(Node? node) => node!.Next = node;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int ReadElement(int[]? array, int i) => array![i];

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Length(string?[]? array) => array!.Length;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int CallInstance(Node? node) => node!.Twice();

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int CallVirtual(Node? node) => node!.Virtual();

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int CallDelegate(Func<int>? f) => f!();

    static void Report(string what, Exception e) =>
        Console.WriteLine(what + ": " + e.GetType().FullName + ": " + e.Message + " [" +
                          e.TargetSite?.Name + "]");

    public static int DivideByZero(string[] args)
    {
        int zero = args.Length;
        try { Divide(5, zero); } catch (DivideByZeroException e) { Report("int / 0", e); }
        try { Remainder(5, zero); } catch (DivideByZeroException e) { Report("long % 0", e); }
        try { DivideUnsigned(5, (uint)zero); } catch (DivideByZeroException e) { Report("uint / 0", e); }
        // decimal division by zero is software, for contrast
        try { Console.WriteLine(5m / zero); } catch (DivideByZeroException e) { Report("decimal / 0", e); }
        int caught = 0;
        for (int i = 0; i < 1000; i++) {
            try { Divide(i, zero); } catch (DivideByZeroException) { caught++; }
        }
        Console.WriteLine("caught " + caught + " of 1000 in a loop");
        Console.WriteLine("after: " + Divide(10, zero + 2));
        return 0;
    }

    public static int MinValueOverMinusOne(string[] args)
    {
        int minusOne = -1 - args.Length;
        try { Divide(int.MinValue, minusOne); } catch (ArithmeticException e) { Report("int.MinValue / -1", e); }
        try { Remainder(long.MinValue, minusOne); } catch (ArithmeticException e) { Report("long.MinValue % -1", e); }
        Console.WriteLine("int.MinValue / 1 = " + Divide(int.MinValue, -minusOne));
        return 0;
    }

    public static int NullField(string[] args)
    {
        var list = new Node { Next = new Node() };
        try { ReadField(list.Next!.Next); } catch (NullReferenceException e) { Report("read", e); }
        try { WriteField(null); } catch (NullReferenceException e) { Report("write", e); }
        int caught = 0;
        for (int i = 0; i < 1000; i++) {
            try { ReadField(null); } catch (NullReferenceException) { caught++; }
        }
        Console.WriteLine("caught " + caught + " of 1000 in a loop");
        return 0;
    }

    public static int NullArray(string[] args)
    {
        try { ReadElement(null, 0); } catch (NullReferenceException e) { Report("element", e); }
        try { Length(null); } catch (NullReferenceException e) { Report("length", e); }
        try { ReadElement(new int[2], 2 + args.Length); } catch (IndexOutOfRangeException e) { Report("bounds", e); }
        return 0;
    }

    public static int NullCall(string[] args)
    {
        try { CallInstance(null); } catch (NullReferenceException e) { Report("instance", e); }
        try { CallVirtual(null); } catch (NullReferenceException e) { Report("virtual", e); }
        try { CallDelegate(null); } catch (NullReferenceException e) { Report("delegate", e); }
        return 0;
    }

    public static int CheckedOverflow(string[] args)
    {
        int big = int.MaxValue - args.Length;
        try { Console.WriteLine(checked(big + 1)); } catch (OverflowException e) { Report("int +", e); }
        try { Console.WriteLine(checked((byte)(big))); } catch (OverflowException e) { Report("conv byte", e); }
        try { Console.WriteLine(checked((long)big * big * big)); } catch (OverflowException e) { Report("long *", e); }
        try { Console.WriteLine(checked((uint)(-1 - args.Length))); } catch (OverflowException e) { Report("conv uint", e); }
        try { Console.WriteLine(new int[-1 - args.Length].Length); } catch (OverflowException e) { Report("newarr", e); }
        return 0;
    }

    // Faults on several threads at once, each caught where it happened.
    public static int Storm(string[] args)
    {
        const int threads = 4, rounds = 5000;
        int zero = args.Length;
        var counts = new int[threads];
        var workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int me = t;
            workers[t] = new Thread(() => {
                for (int i = 0; i < rounds; i++) {
                    try {
                        if ((i + me) % 2 == 0)
                            Divide(i, zero);
                        else
                            ReadField(null);
                    } catch (ArithmeticException) {
                        counts[me]++;
                    } catch (NullReferenceException) {
                        counts[me]++;
                    }
                }
            });
            workers[t].Start();
        }
        foreach (var w in workers)
            w.Join();
        Console.WriteLine("caught " + string.Join(" ", counts));
        return 0;
    }

    // A read of an address that is neither null nor mapped: the runtime does not turn it into
    // an exception the app can catch, and ends the process.
    public static unsafe int AccessViolation(string[] args)
    {
        Console.WriteLine("reading an unmapped address");
        Console.Out.Flush();
        int* p = (int*)(0x10000000L + args.Length);
        try {
            Console.WriteLine(*p);
        } catch (Exception e) {
            Console.WriteLine("caught " + e.GetType().FullName);
        }
        return 0;
    }

    [DllImport("libc", EntryPoint = "raise")]
    static extern int Raise(int signal);

    [DllImport("libc", EntryPoint = "abort")]
    static extern void Abort();

    // A SIGSEGV sent from native code, not raised by a fault: not the runtime's to handle.
    public static int NativeSigsegv(string[] args)
    {
        Console.WriteLine("raise(SIGSEGV)");
        Console.Out.Flush();
        Raise(11);
        Console.WriteLine("still running");
        return 0;
    }

    public static int NativeAbort(string[] args)
    {
        Console.WriteLine("abort()");
        Console.Out.Flush();
        Abort();
        Console.WriteLine("still running");
        return 0;
    }
}
