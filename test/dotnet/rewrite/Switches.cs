// Switches: dense (the IL `switch`), sparse (compare trees), on strings, chars, longs, enums,
// patterns, and switches nested in switches.
using System;
using System.Runtime.CompilerServices;

static class Switches
{
    enum Colour { Red, Green, Blue, Cyan = 10, Magenta = 11, Yellow = 1000 }

    public static void Run()
    {
        var dense = new int[14];
        for (int i = -1; i < 13; i++)
            dense[i + 1] = Dense(i);
        Console.WriteLine("dense = " + string.Join(",", dense));
        Console.WriteLine("sparse = " + string.Join(",", Sparse(1), Sparse(100), Sparse(1000),
                                                         Sparse(10_000), Sparse(-7), Sparse(5)));
        foreach (var s in new[] { "add", "sub", "mul", "div", "mod", "pow", "", "unknown" })
            Console.WriteLine($"op({s}) = {Op(s, 7, 3)}");
        Console.WriteLine("chars = " + string.Join(",", Char('a'), Char('z'), Char('0'), Char('?')));
        Console.WriteLine("longs = " + string.Join(",", Long(0), Long(1L << 40), Long(-1), Long(3)));
        foreach (Colour c in Enum.GetValues<Colour>())
            Console.WriteLine($"colour {c} = {ColourName(c)}");
        foreach (object? o in new object?[] { 3, -3, "text", 2.5, null, new[] { 1, 2 }, 'c' })
            Console.WriteLine($"pattern = {Pattern(o)}");
        Console.WriteLine("nested = " + string.Join(",", Nested(0, 0), Nested(1, 2), Nested(2, 1), Nested(3, 3)));
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Dense(int n)
    {
        switch (n)
        {
            case 0: return 10;
            case 1: return 11;
            case 2: n += 5; goto case 4;
            case 3: return 13;
            case 4: return n * 100;
            case 5:
            case 6: return 56;
            case 7:
                if (n > 6)
                    return 77;
                break;
            case 8: return 18;
            case 9: return n > 100 ? throw new InvalidOperationException("never") : 19;
            case 10: return 20;
            case 11: return 21;
        }
        return -1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Sparse(int n)
    {
        switch (n)
        {
            case 1: return "one";
            case 100: return "hundred";
            case 1000: return "thousand";
            case 10_000: return "ten thousand";
            case -7: return "minus seven";
            default: return "other";
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Op(string name, int a, int b)
    {
        switch (name)
        {
            case "add": return a + b;
            case "sub": return a - b;
            case "mul": return a * b;
            case "div": return a / b;
            case "mod": return a % b;
            case "pow":
                int r = 1;
                for (int i = 0; i < b; i++)
                    r *= a;
                return r;
            case "": return 0;
            default: return -1;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Char(char c) => c switch
    {
        >= 'a' and <= 'm' => "first half",
        >= 'n' and <= 'z' => "second half",
        >= '0' and <= '9' => "digit",
        _ => "other",
    };

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Long(long n)
    {
        switch (n)
        {
            case 0: return 0;
            case 1: return 1;
            case 2: return 2;
            case 3: return 3;
            case 1L << 40: return 40;
            default: return -1;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string ColourName(Colour c)
    {
        switch (c)
        {
            case Colour.Red: return "warm";
            case Colour.Green:
            case Colour.Blue: return "cool";
            case Colour.Cyan: return "mixed cool";
            case Colour.Magenta: return "mixed";
            default: return "bright " + (int)c;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Pattern(object? o) => o switch
    {
        int i when i > 0 => "positive int " + i,
        int i => "int " + i,
        string { Length: > 2 } s => "long string " + s,
        string s => "string " + s,
        double d => "double " + d.ToString(System.Globalization.CultureInfo.InvariantCulture),
        int[] { Length: 2 } a => "pair " + (a[0] + a[1]),
        null => "null",
        _ => "other " + o.GetType().Name,
    };

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Nested(int a, int b)
    {
        switch (a)
        {
            case 0: return 0;
            case 1:
                switch (b)
                {
                    case 0: return 10;
                    case 1: return 11;
                    case 2: return 12;
                }
                return 19;
            case 2:
                switch (b)
                {
                    case 1: return 21;
                    case 5: return 25;
                }
                return 29;
            default:
                return 99;
        }
    }
}
