// Values: structs returned by value (small, and large through a hidden return buffer), ref
// returns, ref readonly, ref structs with ref fields, in/out/ref parameters, stackalloc and
// Span, fixed (pinned locals), explicit layout, nullable value types.
using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

static class Values
{
    struct Small
    {
        public int X, Y;
    }

    struct Large
    {
        public long A, B, C, D, E;
        public override string ToString() => $"{A}/{B}/{C}/{D}/{E}";
    }

    [StructLayout(LayoutKind.Explicit)]
    struct Overlay
    {
        [FieldOffset(0)] public long Whole;
        [FieldOffset(0)] public int Low;
        [FieldOffset(4)] public int High;
    }

    ref struct Cursor
    {
        ref int current;
        readonly Span<int> all;
        int index;

        public Cursor(Span<int> values)
        {
            all = values;
            index = 0;
            current = ref values[0];
        }

        public bool Advance()
        {
            if (++index >= all.Length)
                return false;
            current = ref all[index];
            return true;
        }

        public ref int Current => ref current;
    }

    static int[] slots = { 1, 2, 3, 4 };
    static readonly Large Constant = new Large { A = 9, E = 1 };

    [MethodImpl(MethodImplOptions.NoInlining)]
    static Small MakeSmall(int seed) => seed < 0 ? default : new Small { X = seed, Y = -seed };

    [MethodImpl(MethodImplOptions.NoInlining)]
    static Large MakeLarge(int seed)
    {
        if (seed == 0)
            return default;
        var l = new Large { A = seed, B = seed * 2L, C = seed * 3L };
        if (seed > 5)
            return l;
        l.D = 100;
        l.E = -1;
        return l;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static ref int Slot(int index)
    {
        if (index < 0)
            return ref slots[0];
        if (index >= slots.Length)
            return ref slots[slots.Length - 1];
        return ref slots[index];
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static ref readonly Large ReadOnlyConstant() => ref Constant;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long SumIn(in Large l, in Small s) => l.A + l.B + l.C + l.D + l.E + s.X * 1000 + s.Y;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static bool TryHalve(int n, out int half, ref int calls)
    {
        calls++;
        if (n % 2 != 0)
        {
            half = 0;
            return false;
        }
        half = n / 2;
        return true;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int StackAlloc(int n)
    {
        Span<int> buffer = n <= 64 ? stackalloc int[n] : new int[n];
        for (int i = 0; i < buffer.Length; i++)
            buffer[i] = i * i - n;
        buffer.Sort();
        int sum = 0;
        foreach (ref int v in buffer)
        {
            v += 1;
            sum += v;
        }
        return sum + buffer[0];
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static unsafe int Localloc(int n)
    {
        byte* p = stackalloc byte[n];
        for (int i = 0; i < n; i++)
            p[i] = (byte)(i * 7);
        int h = 17;
        for (int i = 0; i < n; i++)
            h = h * 31 + p[i];
        return h;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static unsafe long Pinned(int[] values, string text)
    {
        long total = 0;
        fixed (int* p = values)
        fixed (char* c = text)
        {
            for (int i = 0; i < values.Length; i++)
                total += p[i] * c[i % text.Length];
        }
        return total;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Cursors(Span<int> values)
    {
        var cursor = new Cursor(values);
        do
        {
            cursor.Current *= 10;
        } while (cursor.Advance());
        return string.Join(",", values.ToArray());
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Nullables(int? a, Small? b) => (a ?? -1) + ":" + (b?.X.ToString() ?? "none") + ":" + (a.HasValue && b.HasValue);

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Overlaid(long whole)
    {
        var o = new Overlay { Whole = whole };
        return o.Low + "," + o.High;
    }

    public static void Run()
    {
        var small = MakeSmall(7);
        Console.WriteLine($"small = {small.X},{small.Y} {MakeSmall(-1).X}");
        Console.WriteLine($"large = {MakeLarge(0)} {MakeLarge(3)} {MakeLarge(8)}");
        Slot(1) = 20;
        Slot(-5) += 10;
        Slot(99) *= 4;
        Console.WriteLine($"slots = {string.Join(",", slots)}");
        Console.WriteLine($"readonly ref = {ReadOnlyConstant()}");
        Console.WriteLine($"in = {SumIn(MakeLarge(2), small)}");
        int calls = 0;
        string halves = "";
        foreach (int n in new[] { 10, 7, 4 })
            halves += TryHalve(n, out int h, ref calls) ? h + " " : "odd ";
        Console.WriteLine($"out/ref = {halves}{calls} calls");
        Console.WriteLine($"stackalloc = {StackAlloc(10)}, {StackAlloc(100)}, localloc = {Localloc(33)}");
        Console.WriteLine($"fixed = {Pinned(new[] { 1, 2, 3 }, "ab")}");
        Span<int> span = stackalloc int[] { 1, 2, 3, 4 };
        Console.WriteLine($"ref struct = {Cursors(span)}");
        Console.WriteLine($"nullables = {Nullables(null, null)}, {Nullables(3, new Small { X = 5 })}");
        Console.WriteLine($"overlay = {Overlaid(0x1_0000_0002)}");
    }
}
