// The C# side of the verifier's differential test (test/dotnet/test_ildiff.py): every method
// of Targets is compiled by the real JIT with RuntimeHelpers.PrepareMethod, never run, while
// test/plugins/il_mutator.c gives the runtime a mutated body for it. For each method the
// driver prints "start <token>" before and "done <token> <result>" after, result being "ok"
// or the exception's type name (InvalidProgramException when the JIT rejects the IL), so a
// process that dies inside the JIT still says which method it was compiling.
using System;
using System.Collections.Generic;
using System.Reflection;
using System.Runtime.CompilerServices;

namespace ILDiff
{
    public struct Pair
    {
        public int A;
        public long B;
        public double C;
        public Pair(int a, long b, double c) { A = a; B = b; C = c; }
        public int Sum() => A + (int)B + (int)C;
    }

    public enum Color { Red, Green, Blue }

    public class Node
    {
        public int Value;
        public string Name;
        public Node Next;
        public static int Count;
        public static double Scale = 1.5;
        public virtual int Weight() => Value * 2;
    }

    public class Leaf : Node
    {
        public override int Weight() => Value + 1;
    }

    public static unsafe class Targets
    {
        public static int AddInts(int a, int b) => a + b;
        public static long AddLongs(long a, long b) => a + b;
        public static double AddDoubles(double a, double b) => a + b;
        public static float MulFloats(float a, float b) => a * b;
        public static nint AddNative(nint a, int b) => a + b;
        public static int Mixed(int a, long b, double c) => (int)(a + b + (long)c);
        public static int Shifts(int a, int n) => (a << n) ^ (a >> 1) ^ (int)((uint)a >> 2);
        public static long LongShift(long a, int n) => a << n;
        public static bool Compare(int a, int b) => a < b;
        public static bool CompareDoubles(double a, double b) => a >= b;
        public static bool CompareUnsigned(uint a, uint b) => a > b;
        public static bool IsNull(object o) => o == null;
        public static bool SameRef(object a, object b) => a == b;
        public static int Branches(int x)
        {
            if (x > 10) return 1;
            if (x < -10) return -1;
            return x == 0 ? 5 : 0;
        }
        public static int Loop(int n)
        {
            int s = 0;
            for (int i = 0; i < n; i++) s += i * i;
            return s;
        }
        public static long LongLoop(long n)
        {
            long s = 1;
            while (n > 0) { s *= 3; n--; }
            return s;
        }
        public static double DoubleLoop(int n)
        {
            double d = 0;
            for (int i = 0; i < n; i++) d += 1.0 / (i + 1);
            return d;
        }
        public static int Switch(int x)
        {
            switch (x)
            {
                case 0: return 10;
                case 1: return 20;
                case 2: return 35;
                case 3: return 47;
                default: return -1;
            }
        }
        public static string Strings(string a, int n) => a + n.ToString() + "x";
        public static int StringLength(string s) => s == null ? 0 : s.Length;
        public static int ArraySum(int[] a)
        {
            int s = 0;
            for (int i = 0; i < a.Length; i++) s += a[i];
            return s;
        }
        public static double[] MakeArray(int n)
        {
            var a = new double[n];
            for (int i = 0; i < n; i++) a[i] = i * 0.5;
            return a;
        }
        public static object[] ObjectArray(object o)
        {
            var a = new object[2];
            a[0] = o;
            a[1] = "s";
            return a;
        }
        public static long[] LongArray(long v) => new long[] { v, v + 1 };
        public static int Fields(Node n) => n.Value + (n.Name?.Length ?? 0) + Node.Count;
        public static void SetFields(Node n, int v) { n.Value = v; n.Name = "n"; Node.Count++; }
        public static double StaticDouble() => Node.Scale * 2;
        public static int Virtual(Node n) => n.Weight();
        public static Node Create(int v) => new Leaf { Value = v };
        public static int StructLocal(int a)
        {
            var p = new Pair(a, 2, 3.0);
            p.A += 1;
            return p.Sum();
        }
        public static Pair StructReturn(int a) => new Pair(a, a, a);
        public static object Box(int a) => a;
        public static int Unbox(object o) => (int)o;
        public static string Cast(object o) => o as string ?? (string)o;
        public static Color Enum(int i) => (Color)i;
        public static int EnumValue(Color c) => (int)c + 1;
        public static Type TypeOf() => typeof(Node);
        public static RuntimeMethodHandle MethodToken() => MethodBase.GetCurrentMethod().MethodHandle;
        public static Func<int, int, int> Delegate() => AddInts;
        public static int TryCatch(int a)
        {
            try { return 10 / a; }
            catch (DivideByZeroException) { return -1; }
        }
        public static int TryFinally(int a)
        {
            int r = 0;
            try { r = a * 2; }
            finally { Node.Count++; }
            return r;
        }
        public static int Filter(int a)
        {
            try { throw new InvalidOperationException(); }
            catch (Exception e) when (a > 3) { return e.HResult; }
            catch { return 0; }
        }
        public static void Throw(string m) => throw new ArgumentException(m);
        public static void ByRef(ref int a, ref double b) { a += 1; b *= 2; }
        public static int ByRefCall(int x)
        {
            double d = 1;
            ByRef(ref x, ref d);
            return x + (int)d;
        }
        public static int Pointer(int* p, int n)
        {
            int s = 0;
            for (int i = 0; i < n; i++) s += p[i];
            return s;
        }
        public static int StackAlloc(int n)
        {
            int* p = stackalloc int[8];
            for (int i = 0; i < 8; i++) p[i] = i + n;
            return Pointer(p, 8);
        }
        public static int Fixed(int[] a)
        {
            fixed (int* p = a) return *p + a.Length;
        }
        public static ulong Unsigned(ulong a, ulong b) => a / (b | 1) + a % (b | 1);
        public static int Checked(int a, int b) => checked(a * b + a - b);
        public static long Conversions(double d, float f, int i) =>
            (long)d + (long)f + (byte)i + (short)i + (char)i + (long)(uint)i;
        public static double IntToDouble(int a, long b, uint c) => a + (double)b + c;
        public static nuint NativeUnsigned(nuint a) => a * 2 + 1;
        public static bool Bool(bool a, bool b) => a & !b | (a ^ b);
        public static char Char(string s) => s[0];
        public static decimal Decimal(decimal a) => a * 2;
        public static List<int> Generic(int a)
        {
            var l = new List<int> { a, a + 1 };
            l.Add(3);
            return l;
        }
        public static int Dictionary(string k)
        {
            var d = new Dictionary<string, int>();
            d[k] = 5;
            return d.TryGetValue(k, out var v) ? v : -1;
        }
        public static int Nested(int a, int b)
        {
            int r = 0;
            for (int i = 0; i < a; i++)
                for (int j = 0; j < b; j++)
                    r += (i ^ j) & 3;
            return r;
        }
        public static string Interp(int a, double b) => $"{a}:{b}";
        public static int Ternary(int a, int b, int c) => a > b ? (b > c ? b : c) : a;
        public static long Max(long a, long b) => Math.Max(a, b);
        public static double Sqrt(double a) => Math.Sqrt(Math.Abs(a));
        public static int Recursive(int n) => n <= 1 ? 1 : n * Recursive(n - 1);
        public static object NullCoalesce(object a, object b) => a ?? b;
        public static int Lock(object o)
        {
            lock (o) { return o.GetHashCode(); }
        }
        public static int Using(int a)
        {
            using (var s = new System.IO.MemoryStream()) { s.WriteByte((byte)a); return (int)s.Length; }
        }
        public static int Span(int n)
        {
            Span<int> s = stackalloc int[4];
            s[0] = n;
            s[3] = n * 2;
            return s[0] + s[3];
        }
        public static int Params(params int[] a) => a.Length;
        public static int CallParams() => Params(1, 2, 3);
        public static int Local8(int a)
        {
            int b = a + 1, c = b + 1, d = c + 1, e = d + 1, f = e + 1, g = f + 1, h = g + 1;
            long l = h;
            double x = l;
            return (int)x + a + b + c + d + e + f + g + h;
        }
        public static void Void(int a) { if (a > 0) Node.Count = a; }
        public static ref int RefReturn(int[] a) => ref a[0];
        public static int IsInst(object o) => o is Node n ? n.Value : 0;
        public static int Sizeof() => sizeof(Pair);
        public static int Default() { Pair p = default; return p.A; }
        public static IntPtr IntPtrOps(IntPtr p, int o) => p + o;
        public static float FloatOps(float a, double b) => (float)(a * b) - a / 2f;
        public static int ArrayOfStruct(int n)
        {
            var a = new Pair[n + 1];
            a[0].A = 3;
            return a[0].A + a.Length;
        }
        public static int MultiDim(int n)
        {
            var a = new int[2, 3];
            a[1, 2] = n;
            return a[1, 2];
        }
    }

    public static class Program
    {
        public static int Main(string[] args)
        {
            var methods = new List<MethodInfo>(typeof(Targets).GetMethods(
                BindingFlags.Public | BindingFlags.Static | BindingFlags.DeclaredOnly));
            methods.Sort((a, b) => a.MetadataToken.CompareTo(b.MetadataToken));
            var stdout = Console.Out;
            foreach (var m in methods)
            {
                string token = m.MetadataToken.ToString("X8");
                stdout.WriteLine("start " + token);
                stdout.Flush();
                string result;
                try
                {
                    RuntimeHelpers.PrepareMethod(m.MethodHandle);
                    result = "ok";
                }
                catch (Exception e)
                {
                    result = e.GetType().Name;
                }
                stdout.WriteLine("done " + token + " " + result);
                stdout.Flush();
            }
            return 0;
        }
    }
}
