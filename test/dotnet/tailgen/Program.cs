// Writes tailcalls.dll: IL that C# never produces, for the `rewrite` app to load and run.
//   - `tail.` calls: a self-recursive tail call, mutual recursion, a tail call to a method
//     with more stack arguments than its caller (the runtime's tail-call helpers), a
//     `tail. callvirt`, all deep enough (SumTo: millions of frames) that the process dies of
//     a stack overflow if a rewriter drops the prefix or separates the call from its `ret`;
//   - a `fault` clause (C# has none);
//   - a `br.s` over 122 bytes, which a rewriter must widen as soon as it adds anything inside;
//   - a `jmp` (C# has none), after the method has changed one of its arguments: the target
//     gets the arguments as they are at the jmp, so a rewriter that moved them, left a value
//     on the stack or put the jmp in a try block changes the result or has the body rejected.
// Usage: dotnet tailgen.dll OUTPUT.dll
using System;
using System.Reflection;
using System.Reflection.Emit;

static class Program
{
    static int Main(string[] args)
    {
        if (args.Length != 1)
        {
            Console.Error.WriteLine("usage: tailgen OUTPUT.dll");
            return 2;
        }
        var assembly = new PersistedAssemblyBuilder(new AssemblyName("tailcalls"),
                                                    typeof(object).Assembly);
        ModuleBuilder module = assembly.DefineDynamicModule("tailcalls");
        TypeBuilder type = module.DefineType("TailCalls", TypeAttributes.Public |
                                             TypeAttributes.Abstract | TypeAttributes.Sealed);
        const MethodAttributes Static = MethodAttributes.Public | MethodAttributes.Static;

        // static long SumTo(long n, long acc) => n == 0 ? acc : tail. SumTo(n - 1, acc + n);
        MethodBuilder sumTo = type.DefineMethod("SumTo", Static, typeof(long),
                                                new[] { typeof(long), typeof(long) });
        EmitCountdown(sumTo.GetILGenerator(), OpCodes.Ldarg_0,
                      il =>
                      {
                          il.Emit(OpCodes.Ldarg_1);
                          il.Emit(OpCodes.Ret);
                      },
                      il =>
                      {
                          il.Emit(OpCodes.Ldarg_0);
                          il.Emit(OpCodes.Ldc_I4_1);
                          il.Emit(OpCodes.Conv_I8);
                          il.Emit(OpCodes.Sub);
                          il.Emit(OpCodes.Ldarg_1);
                          il.Emit(OpCodes.Ldarg_0);
                          il.Emit(OpCodes.Add);
                      },
                      OpCodes.Call, sumTo);

        // IsEven(n) => n == 0 || tail. IsOdd(n - 1); IsOdd(n) => n != 0 && tail. IsEven(n - 1)
        MethodBuilder isEven = type.DefineMethod("IsEven", Static, typeof(bool),
                                                 new[] { typeof(int) });
        MethodBuilder isOdd = type.DefineMethod("IsOdd", Static, typeof(bool),
                                                new[] { typeof(int) });
        foreach (var (method, other, atZero) in new[] { (isEven, isOdd, 1), (isOdd, isEven, 0) })
            EmitCountdown(method.GetILGenerator(), OpCodes.Ldarg_0,
                          il =>
                          {
                              il.Emit(atZero == 1 ? OpCodes.Ldc_I4_1 : OpCodes.Ldc_I4_0);
                              il.Emit(OpCodes.Ret);
                          },
                          EmitDecrementArgument0, OpCodes.Call, other);

        // Few(n, acc) tail-calls Many(n, acc, 1..8), which tail-calls Few(n - 1, acc + sum):
        // the callee needs more argument stack than the caller has, so the runtime cannot
        // turn the call into a jump and uses its tail-call helpers.
        var manyParameters = new Type[10];
        manyParameters[0] = typeof(int);
        for (int i = 1; i < manyParameters.Length; i++)
            manyParameters[i] = typeof(long);
        MethodBuilder few = type.DefineMethod("Few", Static, typeof(long),
                                              new[] { typeof(int), typeof(long) });
        MethodBuilder many = type.DefineMethod("Many", Static, typeof(long), manyParameters);
        EmitCountdown(few.GetILGenerator(), OpCodes.Ldarg_0,
                      il =>
                      {
                          il.Emit(OpCodes.Ldarg_1);
                          il.Emit(OpCodes.Ret);
                      },
                      il =>
                      {
                          il.Emit(OpCodes.Ldarg_0);
                          il.Emit(OpCodes.Ldarg_1);
                          for (int i = 1; i <= 8; i++)
                          {
                              il.Emit(OpCodes.Ldc_I4, i);
                              il.Emit(OpCodes.Conv_I8);
                          }
                      },
                      OpCodes.Call, many);
        {
            ILGenerator il = many.GetILGenerator();
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Ldc_I4_1);
            il.Emit(OpCodes.Sub);
            il.Emit(OpCodes.Ldarg_1);
            for (short i = 2; i <= 9; i++)
            {
                il.Emit(OpCodes.Ldarg_S, (byte)i);
                il.Emit(OpCodes.Add);
            }
            EmitTailCall(il, OpCodes.Call, few);
        }

        // A class with a virtual Step(n, acc) that tail-calls itself through callvirt.
        TypeBuilder counter = module.DefineType("Counter", TypeAttributes.Public);
        ConstructorBuilder counterCtor = counter.DefineDefaultConstructor(MethodAttributes.Public);
        MethodBuilder step = counter.DefineMethod("Step", MethodAttributes.Public |
                                                  MethodAttributes.Virtual |
                                                  MethodAttributes.HideBySig |
                                                  MethodAttributes.NewSlot,
                                                  typeof(long), new[] { typeof(int), typeof(long) });
        EmitCountdown(step.GetILGenerator(), OpCodes.Ldarg_1,
                      il =>
                      {
                          il.Emit(OpCodes.Ldarg_2);
                          il.Emit(OpCodes.Ret);
                      },
                      il =>
                      {
                          il.Emit(OpCodes.Ldarg_0);
                          il.Emit(OpCodes.Ldarg_1);
                          il.Emit(OpCodes.Ldc_I4_1);
                          il.Emit(OpCodes.Sub);
                          il.Emit(OpCodes.Ldarg_2);
                          il.Emit(OpCodes.Ldc_I4_3);
                          il.Emit(OpCodes.Conv_I8);
                          il.Emit(OpCodes.Add);
                      },
                      OpCodes.Callvirt, step);
        counter.CreateType();

        // static long VirtualSteps(int n) => tail. new Counter().Step(n, 0);
        MethodBuilder virtualSteps = type.DefineMethod("VirtualSteps", Static, typeof(long),
                                                       new[] { typeof(int) });
        {
            ILGenerator il = virtualSteps.GetILGenerator();
            il.Emit(OpCodes.Newobj, counterCtor);
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Ldc_I4_0);
            il.Emit(OpCodes.Conv_I8);
            EmitTailCall(il, OpCodes.Callvirt, step);
        }

        // static int ThrowAfter(int n): tail-calls itself n times, then throws; the exception
        // leaves through frames the tail calls replaced.
        MethodBuilder throwAfter = type.DefineMethod("ThrowAfter", Static, typeof(int),
                                                     new[] { typeof(int) });
        EmitCountdown(throwAfter.GetILGenerator(), OpCodes.Ldarg_0,
                      il =>
                      {
                          il.Emit(OpCodes.Ldstr, "thrown at the bottom of the tail calls");
                          il.Emit(OpCodes.Newobj, typeof(InvalidOperationException).GetConstructor(
                              new[] { typeof(string) })!);
                          il.Emit(OpCodes.Throw);
                      },
                      EmitDecrementArgument0, OpCodes.Call, throwAfter);

        // static string Fault(int mode, StringBuilder log): try { log 'a'; if (mode != 0)
        // throw; log 'b' } fault { log 'F' }, the fault run only when an exception leaves.
        MethodBuilder fault = type.DefineMethod("Fault", Static, typeof(int),
                                                new[] { typeof(int), typeof(System.Text.StringBuilder) });
        {
            MethodInfo append = typeof(System.Text.StringBuilder).GetMethod(
                "Append", new[] { typeof(char) })!;
            ILGenerator il = fault.GetILGenerator();
            LocalBuilder result = il.DeclareLocal(typeof(int));
            Label noThrow = il.DefineLabel();
            il.BeginExceptionBlock();
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ldc_I4_S, (sbyte)'a');
            il.Emit(OpCodes.Callvirt, append);
            il.Emit(OpCodes.Pop);
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Brfalse_S, noThrow);
            il.Emit(OpCodes.Ldstr, "fault test");
            il.Emit(OpCodes.Newobj, typeof(ArgumentException).GetConstructor(
                new[] { typeof(string) })!);
            il.Emit(OpCodes.Throw);
            il.MarkLabel(noThrow);
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ldc_I4_S, (sbyte)'b');
            il.Emit(OpCodes.Callvirt, append);
            il.Emit(OpCodes.Pop);
            il.Emit(OpCodes.Ldc_I4_7);
            il.Emit(OpCodes.Stloc, result);
            il.BeginFaultBlock();
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ldc_I4_S, (sbyte)'F');
            il.Emit(OpCodes.Callvirt, append);
            il.Emit(OpCodes.Pop);
            il.EndExceptionBlock();
            il.Emit(OpCodes.Ldloc, result);
            il.Emit(OpCodes.Ret);
        }

        // static int ShortJump(int n): a blt.s over 61 ldc/add pairs (122 bytes), n on the
        // stack at the branch and its target: still short, but one added byte per
        // instruction pushes it past 127.
        MethodBuilder shortJump = type.DefineMethod("ShortJump", Static, typeof(int),
                                                    new[] { typeof(int) });
        {
            ILGenerator il = shortJump.GetILGenerator();
            Label skip = il.DefineLabel();
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Dup);
            il.Emit(OpCodes.Ldc_I4_0);
            il.Emit(OpCodes.Blt_S, skip);
            for (int i = 0; i < 61; i++)
            {
                il.Emit(OpCodes.Ldc_I4_1);
                il.Emit(OpCodes.Add);
            }
            il.MarkLabel(skip);
            il.Emit(OpCodes.Ret);
        }

        // static int JumpTarget(int a, int b) => a * 100 + b;
        // static int Jump(int a, int b) { if (b < 0) return -1; a += 1; jmp JumpTarget; }
        MethodBuilder jumpTarget = type.DefineMethod("JumpTarget", Static, typeof(int),
                                                     new[] { typeof(int), typeof(int) });
        {
            ILGenerator il = jumpTarget.GetILGenerator();
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Ldc_I4_S, (sbyte)100);
            il.Emit(OpCodes.Mul);
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Add);
            il.Emit(OpCodes.Ret);
        }
        MethodBuilder jump = type.DefineMethod("Jump", Static, typeof(int),
                                               new[] { typeof(int), typeof(int) });
        {
            ILGenerator il = jump.GetILGenerator();
            Label go = il.DefineLabel();
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ldc_I4_0);
            il.Emit(OpCodes.Bge_S, go);
            il.Emit(OpCodes.Ldc_I4_M1);
            il.Emit(OpCodes.Ret);
            il.MarkLabel(go);
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Ldc_I4_1);
            il.Emit(OpCodes.Add);
            il.Emit(OpCodes.Starg_S, (byte)0);
            il.Emit(OpCodes.Jmp, jumpTarget);
        }

        type.CreateType();
        assembly.Save(args[0]);
        Console.WriteLine("wrote " + args[0]);
        return 0;
    }

    // The shape of the recursive methods: `if (counter != 0) { arguments; tail. call target }
    // else atZero`, with `loadCounter` loading the counter argument and `atZero` ending its
    // branch (ret or throw).
    static void EmitCountdown(ILGenerator il, OpCode loadCounter, Action<ILGenerator> atZero,
                              Action<ILGenerator> arguments, OpCode call, MethodInfo target)
    {
        Label recurse = il.DefineLabel();
        il.Emit(loadCounter);
        il.Emit(OpCodes.Brtrue_S, recurse);
        atZero(il);
        il.MarkLabel(recurse);
        arguments(il);
        EmitTailCall(il, call, target);
    }

    // The arguments `n - 1` of a method that takes only the counter n (argument 0, an int).
    static void EmitDecrementArgument0(ILGenerator il)
    {
        il.Emit(OpCodes.Ldarg_0);
        il.Emit(OpCodes.Ldc_I4_1);
        il.Emit(OpCodes.Sub);
    }

    // `tail. call target; ret` (or callvirt): the arguments are on the stack.
    static void EmitTailCall(ILGenerator il, OpCode call, MethodInfo target)
    {
        il.Emit(OpCodes.Tailcall);
        il.Emit(call, target);
        il.Emit(OpCodes.Ret);
    }
}
