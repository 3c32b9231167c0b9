// The app the tracer and timer examples are shown on: a few methods with one return, several
// returns, a loop, a value type result and an exception leaving a method, each called from
// Main. NoInlining keeps every method a call of its own, so each is jitted (and instrumented)
// on its own whatever the JIT would otherwise inline.
using System;
using System.Runtime.CompilerServices;

namespace Sample
{
    static class Program
    {
        static int Main(string[] args)
        {
            Console.WriteLine("sample start");
            Console.WriteLine("sum " + Sum(4));
            Console.WriteLine(Classify(-3) + " " + Classify(0) + " " + Classify(7));
            try
            {
                Fail("boom");
            }
            catch (InvalidOperationException e)
            {
                Console.WriteLine("caught " + e.Message);
            }
            Console.WriteLine("point " + Shapes.Mid(new Point(1, 2), new Point(5, 8)));
            Console.Error.WriteLine("sample stderr");
            return 3;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Sum(int n)
        {
            int total = 0;
            for (int i = 1; i <= n; i++)
                total += i;
            return total;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static string Classify(int x)
        {
            if (x < 0)
                return "negative";
            if (x == 0)
                return "zero";
            return "positive";
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Fail(string message)
        {
            throw new InvalidOperationException(message);
        }
    }

    readonly struct Point
    {
        public readonly int X, Y;

        public Point(int x, int y)
        {
            X = x;
            Y = y;
        }

        public override string ToString() => "(" + X + ", " + Y + ")";
    }

    static class Shapes
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Point Mid(Point a, Point b)
        {
            return new Point((a.X + b.X) / 2, (a.Y + b.Y) / 2);
        }
    }
}
