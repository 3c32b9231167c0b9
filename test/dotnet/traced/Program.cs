// The app test_tracer.py traces: static and instance methods, a struct return, void, a method
// that throws, a generic method at two instantiations, an out parameter, several returns, a
// traced method calling another, a method of a generic type at two instantiations, methods of
// value types (their `this` boxed), an async method, an iterator, a framework method
// (System.IO.Path.GetExtension, precompiled with ReadyToRun), and two methods with by-ref-like
// parameters that the plugin must leave alone.
// Its output and exit code (3) must not change when traced.
using System;
using System.Collections.Generic;
using System.IO;
using System.Threading.Tasks;

namespace Traced
{
    public struct Pair
    {
        public int X, Y;

        public Pair(int x, int y)
        {
            X = x;
            Y = y;
        }

        public int Sum() => X + Y;

        public override string ToString() => "(" + X + "," + Y + ")";
    }

    public struct Holder<T>
    {
        public T Value;

        public T Get() => Value;

        public override string ToString() => "Holder(" + Value + ")";
    }

    public ref struct Window
    {
        public int Size;
    }

    public class Box<T>
    {
        readonly T value;

        public Box(T value)
        {
            this.value = value;
        }

        public T Swap(T other, out T old)
        {
            old = value;
            return other;
        }

        public override string ToString() => "Box(" + value + ")";
    }

    public class Calculator
    {
        readonly int offset;

        public Calculator(int offset)
        {
            this.offset = offset;
        }

        public int Add(int a, int b) => a + b + offset;

        public override string ToString() => "Calculator+" + offset;
    }

    public static class Program
    {
        static int Main()
        {
            var calculator = new Calculator(1);
            Console.WriteLine("add " + calculator.Add(2, 3));
            Console.WriteLine("mid " + Mid(new Pair(2, 4), new Pair(4, 8)));
            Log("hello");
            try
            {
                Fail("boom");
            }
            catch (InvalidOperationException e)
            {
                Console.WriteLine("caught " + e.Message);
            }
            Console.WriteLine("first " + First(new[] { "a", "b" }) + " " + First(new[] { 7, 8 }));
            Console.WriteLine("parse " + TryDouble("21", out int doubled) + " " + doubled);
            Console.WriteLine("early " + Early(-1) + " " + Early(5));
            Console.WriteLine("nested " + Outer(4));
            Console.WriteLine("swap " + new Box<int>(1).Swap(2, out int old) + " " + old + " " +
                              new Box<string>("x").Swap("y", out string? oldText) + " " + oldText);
            Console.WriteLine("sum " + new Pair(3, 6).Sum() + " " +
                              new Holder<string> { Value = "h" }.Get());
            Console.WriteLine("later " + LaterAsync(6).GetAwaiter().GetResult());
            foreach (int n in Countdown(2))
                Console.WriteLine("countdown " + n);
            Console.WriteLine("extension " + Path.GetExtension("notes.txt"));
            Console.WriteLine("count " + Count("four".AsSpan()) + " " +
                              Measure(new Window { Size = 9 }) + " " +
                              Advance(new TracedLib.Cursor { At = 5 }));
            int[] slots = { 1, 2 };
            Slot(slots) = 8;
#if NET9_0_OR_GREATER
            Console.WriteLine("slot " + slots[0] + " " + Holds(new TracedLib.Cursor { At = 2 }));
#else
            Console.WriteLine("slot " + slots[0] + " 1"); // no `allows ref struct` before C# 13
#endif
            return 3;
        }

        static Pair Mid(Pair a, Pair b) => new Pair((a.X + b.X) / 2, (a.Y + b.Y) / 2);

        static void Log(string message) => Console.WriteLine("log " + message);

        static int Fail(string message) => throw new InvalidOperationException(message);

        static T First<T>(T[] items) => items[0];

        static bool TryDouble(string text, out int value)
        {
            if (int.TryParse(text, out int n))
            {
                value = 2 * n;
                return true;
            }
            value = 0;
            return false;
        }

        static int Early(int x)
        {
            if (x < 0)
                return 0;
            int sum = 0;
            for (int i = 0; i < x; i++)
            {
                if (i == 10)
                    return -1;
                sum += i;
            }
            return sum;
        }

        static async Task<int> LaterAsync(int x)
        {
            await Task.Yield();
            return x + 1;
        }

        static IEnumerable<int> Countdown(int from)
        {
            for (int i = from; i > 0; i--)
                yield return i;
        }

        // By-ref-like arguments cannot be boxed for a tracer: the plugin leaves these alone.
        static int Count(ReadOnlySpan<char> text) => text.Length;

        static int Measure(Window window) => window.Size;

        // a by-ref-like type of another assembly (test/dotnet/tracedlib)
        static int Advance(TracedLib.Cursor cursor) => cursor.At + 1;

        // a byref return: the wrapper could not keep the reference through its exit
        static ref int Slot(int[] slots) => ref slots[0];

#if NET9_0_OR_GREATER
        // a type parameter that may be a ref struct (C# 13, .NET 9), here given one
        static int Holds<T>(T value) where T : allows ref struct => 1;
#endif

        static int Outer(int x) => Inner(x) + 1;

        static int Inner(int x)
        {
            try
            {
                return x * 10;
            }
            finally
            {
                Console.WriteLine("inner finally");
            }
        }
    }
}
