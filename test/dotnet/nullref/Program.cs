// Real processor faults, caught: the runtime turns each null dereference (SIGSEGV) into a
// NullReferenceException, each integer division by zero into a DivideByZeroException and
// int.MinValue / -1 into an OverflowException (both SIGFPE on x64). Its output must not change
// with the engine's crash handler in front of the runtime's.
using System;
using System.Runtime.CompilerServices;

sealed class Node
{
    public int Value = 1;
    public Node? Next;
}

static class Program
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int ReadField(Node? node) => node!.Value;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void WriteField(Node? node) => node!.Value = 2;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int ReadElement(int[]? array) => array![0];

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Divide(int a, int b) => a / b;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Remainder(long a, long b) => a % b;

    static int Main()
    {
        int caught = 0;
        var list = new Node { Next = new Node() };
        for (int i = 0; i < 100; i++) {
            try { ReadField(list.Next!.Next); } catch (NullReferenceException) { caught++; }
            try { WriteField(null); } catch (NullReferenceException) { caught++; }
            try { ReadElement(null); } catch (NullReferenceException) { caught++; }
        }
        Console.WriteLine("caught " + caught + " NullReferenceExceptions");
        int divisions = 0, overflows = 0;
        for (int i = 0; i < 100; i++) {
            try { Divide(i, 0); } catch (DivideByZeroException) { divisions++; }
            try { Remainder(i, 0); } catch (DivideByZeroException) { divisions++; }
            try { Divide(int.MinValue, -1); } catch (OverflowException) { overflows++; }
        }
        Console.WriteLine("caught " + divisions + " DivideByZeroExceptions, " + overflows +
                          " OverflowExceptions");
        try {
            ReadField(null);
        } catch (NullReferenceException e) {
            Console.WriteLine("last: " + e.GetType().FullName + " in " + e.TargetSite?.Name);
        }
        Console.Error.WriteLine("a line on stderr");
        return 5;
    }
}
