// Code the runtime makes or loads while the app runs: dynamic methods, expression trees,
// compiled regular expressions, a dynamic assembly, an assembly in a collectible load context
// that is unloaded again, methods compiled again at tier 1 and on stack replacement,
// reflection over method bodies, and native code calling back into managed code.
using System;
using System.IO;
using System.Linq;
using System.Linq.Expressions;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Loader;
using System.Security.Cryptography;
using System.Text.RegularExpressions;
using System.Threading;

static class Loading
{
    public static int DynamicCode(string[] args)
    {
        // A dynamic method with a try/catch of its own.
        var method = new DynamicMethod("SafeDivide", typeof(int), new[] { typeof(int), typeof(int) });
        var il = method.GetILGenerator();
        var result = il.DeclareLocal(typeof(int));
        il.BeginExceptionBlock();
        il.Emit(OpCodes.Ldarg_0);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Div);
        il.Emit(OpCodes.Stloc, result);
        il.BeginCatchBlock(typeof(DivideByZeroException));
        il.Emit(OpCodes.Pop);
        il.Emit(OpCodes.Ldc_I4_M1);
        il.Emit(OpCodes.Stloc, result);
        il.EndExceptionBlock();
        il.Emit(OpCodes.Ldloc, result);
        il.Emit(OpCodes.Ret);
        var divide = method.CreateDelegate<Func<int, int, int>>();
        Console.WriteLine("dynamic method: " + divide(10, 3) + " " + divide(1, args.Length));

        var x = Expression.Parameter(typeof(int), "x");
        var body = Expression.Condition(Expression.GreaterThan(x, Expression.Constant(10)),
                                        Expression.Multiply(x, Expression.Constant(2)),
                                        Expression.Negate(x));
        var compiled = Expression.Lambda<Func<int, int>>(body, x).Compile();
        Console.WriteLine("expression tree: " + compiled(20) + " " + compiled(3));

        var regex = new Regex(@"(\w+)@(\w+)\.com", RegexOptions.Compiled);
        Console.WriteLine("compiled regex: " +
                          string.Join(",", regex.Matches("a@b.com, c@d.com; e@f.org")
                                               .Select(m => m.Groups[2].Value)));

        var assembly = AssemblyBuilder.DefineDynamicAssembly(new AssemblyName("Emitted"),
                                                             AssemblyBuilderAccess.RunAndCollect);
        var module = assembly.DefineDynamicModule("Emitted");
        var type = module.DefineType("Emitted.Greeter", TypeAttributes.Public);
        var greet = type.DefineMethod("Greet", MethodAttributes.Public | MethodAttributes.Static,
                                      typeof(string), new[] { typeof(string) });
        var g = greet.GetILGenerator();
        g.Emit(OpCodes.Ldstr, "hello, ");
        g.Emit(OpCodes.Ldarg_0);
        g.Emit(OpCodes.Call, typeof(string).GetMethod("Concat", new[] { typeof(string), typeof(string) })!);
        g.Emit(OpCodes.Ret);
        var built = type.CreateType()!;
        Console.WriteLine("dynamic assembly: " + built.GetMethod("Greet")!.Invoke(null, new object[] { "emit" }));
        return 0;
    }

    public static string Hello(string who) => "hello from " + who + " in " +
                                                 AssemblyLoadContext.GetLoadContext(typeof(Loading).Assembly)!.Name;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static WeakReference LoadAndUnload(string path)
    {
        var context = new AssemblyLoadContext("collectible", isCollectible: true);
        context.Unloading += c => Console.WriteLine("Unloading " + c.Name);
        var assembly = context.LoadFromAssemblyPath(path);
        var hello = assembly.GetType("Loading")!.GetMethod("Hello")!;
        Console.WriteLine(hello.Invoke(null, new object[] { "a copy" }));
        try {
            assembly.GetType("Faults")!.GetMethod("DivideByZero")!.Invoke(null, new object[] { new string[0] });
        } catch (TargetInvocationException e) {
            Console.WriteLine("wrong: " + e.InnerException);
        }
        context.Unload();
        return new WeakReference(context);
    }

    public static int CollectibleContext(string[] args)
    {
        string copy = Path.Combine(Path.GetTempPath(), "asbare-copy-" + Guid.NewGuid().ToString("N") + ".dll");
        File.Copy(typeof(Loading).Assembly.Location, copy);
        try {
            var weak = LoadAndUnload(copy);
            for (int i = 0; i < 20 && weak.IsAlive; i++) {
                GC.Collect();
                GC.WaitForPendingFinalizers();
            }
            Console.WriteLine("the context is gone: " + !weak.IsAlive);
        } finally {
            File.Delete(copy);
        }
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long LongLoop(int n)
    {
        long total = 0;
        for (int i = 0; i < n; i++)
            total += i % 7 == 0 ? i : 1;
        return total;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Hot(int x, bool fail)
    {
        int total = 0;
        for (int i = 0; i < x; i++)
            total += i ^ x;
        if (fail)
            throw new InvalidOperationException("thrown from code compiled again at tier 1");
        return total;
    }

    static int At(int[] items, int i) => items[i];

    // Compiled optimized at its first call (not by the timing of tiering), with At inlined.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    static int Warm(int[] items, int i) => At(items, i) + 1;

    // A loop long enough for on-stack replacement, and a method called often enough to be
    // compiled again at tier 1 in the background; then the hot method throws, and its frame
    // must still name the right source line.
    public static int TierUp(string[] args)
    {
        long sum = LongLoop(30_000_000 + args.Length);
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < 50_000; i++)
                sum += Hot(10, false);
            Thread.Sleep(150);
        }
        var items = new int[4];
        for (int i = 0; i < 1000; i++)
            sum += Warm(items, i & 3);
        Console.WriteLine("sum " + sum);
        try {
            Warm(items, 4);
        } catch (IndexOutOfRangeException e) {
            // At is inlined into Warm's optimized code, so it has no frame of its own.
            Console.WriteLine("frames: " + string.Join(" ", new System.Diagnostics.StackTrace(e, false)
                                                             .GetFrames().Select(f => f.GetMethod()!.Name)));
        }
        try {
            Hot(10, true);
        } catch (InvalidOperationException e) {
            var frame = new System.Diagnostics.StackTrace(e, true).GetFrame(0)!;
            Console.WriteLine(e.Message + " at " + frame.GetMethod()!.Name + " line " +
                              frame.GetFileLineNumber());
        }
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Branchy(int x)
    {
        int local = x;
        for (int i = 0; i < x; i++)
            local += i % 3 == 0 ? i : -i;
        return local;
    }

    static string Body(string name)
    {
        var method = typeof(Loading).GetMethod(name, BindingFlags.Static | BindingFlags.Public |
                                                     BindingFlags.NonPublic)!;
        var body = method.GetMethodBody()!;
        var il = body.GetILAsByteArray()!;
        return name + ": " + il.Length + " bytes of IL, sha256 " +
               Convert.ToHexString(SHA256.HashData(il)).Substring(0, 16) + ", max stack " +
               body.MaxStackSize + ", " + body.LocalVariables.Count + " locals, init locals " +
               body.InitLocals + ", " + body.ExceptionHandlingClauses.Count + " clauses";
    }

    // Reflection reads a method's body from the metadata until the method has been compiled;
    // after that, the runtime serves the body a profiler gave the JIT for it (the lines marked
    // "[compiled]", which test/asbare/asbare.py knows differ where methods are rewritten at
    // their first JIT).
    public static int ReflectionOverBodies(string[] args)
    {
        Console.WriteLine(Body("Branchy"));
        Console.WriteLine(Body("CollectibleContext"));
        Console.WriteLine("Branchy(10) = " + Branchy(10));
        Console.WriteLine("[compiled] " + Body("Branchy"));
        Console.WriteLine("[compiled] " + Body("ReflectionOverBodies"));
        Console.WriteLine("current method: " + MethodBase.GetCurrentMethod()!.Name);
        return 0;
    }

    [DllImport("libc", EntryPoint = "qsort")]
    static extern unsafe void QSort(int* items, nuint count, nuint size,
                                    delegate* unmanaged<int*, int*, int> compare);

    [UnmanagedCallersOnly]
    static unsafe int Compare(int* a, int* b) => (*a).CompareTo(*b);

    delegate int Comparer(IntPtr a, IntPtr b);

    [DllImport("libc", EntryPoint = "qsort")]
    static extern void QSortDelegate(int[] items, nuint count, nuint size, Comparer compare);

    [DllImport("libc", EntryPoint = "strlen")]
    static extern nuint StrLen([MarshalAs(UnmanagedType.LPUTF8Str)] string text);

    public static unsafe int NativeCallbacks(string[] args)
    {
        var items = new[] { 5, 3, 9, 1, 7, 2, 8 };
        fixed (int* p = items)
            QSort(p, (nuint)items.Length, sizeof(int), &Compare);
        Console.WriteLine("qsort with an unmanaged callback: " + string.Join(" ", items));
        var more = new[] { 4, -1, 6, 0 };
        int calls = 0;
        Comparer descending = (a, b) => {
            calls++;
            return Marshal.ReadInt32(b).CompareTo(Marshal.ReadInt32(a));
        };
        QSortDelegate(more, (nuint)more.Length, sizeof(int), descending);
        GC.KeepAlive(descending);
        Console.WriteLine("qsort with a delegate: " + string.Join(" ", more) + ", called back: " + (calls > 0));
        Console.WriteLine("strlen: " + StrLen("héllo"));
        return 0;
    }
}
