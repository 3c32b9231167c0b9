// Real null dereferences, caught: the runtime turns each processor fault into a
// NullReferenceException. Its output must not change with the engine's crash handler in front
// of the runtime's.
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
        try {
            ReadField(null);
        } catch (NullReferenceException e) {
            Console.WriteLine("last: " + e.GetType().FullName + " in " + e.TargetSite?.Name);
        }
        Console.Error.WriteLine("a line on stderr");
        return 5;
    }
}
