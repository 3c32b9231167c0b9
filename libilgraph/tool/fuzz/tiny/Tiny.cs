// Source of libilgraph/tool/fuzz/corpus/tiny.dll, a fuzz seed from a real compiler:
// every EH kind, a switch, generics (MethodSpec, TypeSpec), nested types, calli, varargs.
using System;
using System.Collections.Generic;

namespace Tiny
{
    public static class Samples
    {
        public static int Guarded(int x)
        {
            try { x = checked(x * 3); }
            catch (OverflowException) when (x > 0) { x = -1; }
            catch (Exception) { x = -2; }
            finally { x++; }
            return x;
        }

        public static int Pick(int x) => x switch { 0 => 5, 1 => 7, 2 => 11, 3 => 13, _ => 0 };

        public static T First<T>(List<T> items) => items.Count > 0 ? items[0] : default;

        public static int UseFirst() => First(new List<int> { 4, 2 });

        public static unsafe int Indirect(delegate*<int, int> f, int x) => f(x);

        public static int Args(__arglist) => new ArgIterator(__arglist).GetRemainingCount();

        public static int CallArgs() => Args(__arglist(1, 2.5, "s"));

        public static double Ratio(float a, double b) => a / b + 1.5;

        public sealed class Inner
        {
            private long _total;
            public long Add(long v) { using (new Disposer()) { _total += v; } return _total; }
        }

        private struct Disposer : IDisposable { public void Dispose() { } }
    }
}
