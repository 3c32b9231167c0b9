// Writes and jits a module whose instrumentation cost per method should not grow with its size
// (test/bench-flatcost and test/dotnet/test_growth.py).
//
//   dotnet flatgen.dll write OUTPUT.dll COUNT [shared-locals] [strings=K] [nested-types]
//       writes a library with one class, Flat, of COUNT static methods M0 .. M<COUNT-1>. Like the
//       methods of a real assembly, each has its own local variables (a sequence of four types
//       of ten that no other method has: its own StandAloneSig row) and its own string literals
//       (K of them, default 1: its own #US entries), so the module's tables and heaps grow with
//       COUNT. With shared-locals every method has the same four locals (int, long, double,
//       float): a plugin that adds a local then needs one new signature for the whole module.
//       With nested-types each method M<i> is alone in a class Flat+C<i>, so the TypeDef and
//       NestedClass tables grow with COUNT too.
//   dotnet flatgen.dll jit INPUT.dll
//       jits every method of Flat in order, M0 first (RuntimeHelpers.PrepareMethod), so that the
//       engine instruments them in that order, and prints how many it jitted.
// write needs PersistedAssemblyBuilder (.NET 9 and later): the tests build flatgen for the SDK's
// framework to write the module, and for the runtime under test to jit it.
using System;
using System.Collections.Generic;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;

static class Program
{
    static readonly Type[] LocalTypes = {
        typeof(int), typeof(long), typeof(double), typeof(float), typeof(short),
        typeof(byte), typeof(bool), typeof(char), typeof(string), typeof(object),
    };

    static int Main(string[] args)
    {
        if (args.Length >= 3 && args[0] == "write")
        {
            bool sharedLocals = false, nestedTypes = false;
            int strings = 1;
            for (int i = 3; i < args.Length; i++)
            {
                if (args[i] == "shared-locals")
                    sharedLocals = true;
                else if (args[i] == "nested-types")
                    nestedTypes = true;
                else if (args[i].StartsWith("strings=") && int.TryParse(args[i].Substring(8),
                                                                        out strings))
                    continue;
                else
                    return Usage();
            }
            return Write(args[1], int.Parse(args[2]), sharedLocals, strings, nestedTypes);
        }
        if (args.Length == 2 && args[0] == "jit")
            return Jit(args[1]);
        return Usage();
    }

    static int Usage()
    {
        Console.Error.WriteLine("usage: flatgen write OUTPUT.dll COUNT [shared-locals] " +
                                "[strings=K] [nested-types] | flatgen jit INPUT.dll");
        return 2;
    }

#if !NET9_0_OR_GREATER
    static int Write(string output, int count, bool sharedLocals, int strings, bool nestedTypes)
    {
        Console.Error.WriteLine("flatgen write needs .NET 9 or later (PersistedAssemblyBuilder); " +
                                "this flatgen was built for " +
                                System.Runtime.InteropServices.RuntimeInformation.FrameworkDescription);
        return 2;
    }
#else
    static int Write(string output, int count, bool sharedLocals, int strings, bool nestedTypes)
    {
        if (count < 1 || count > 10000 || strings < 1 || strings > 100)
        {
            Console.Error.WriteLine("COUNT must be 1 to 10000 (four locals of ten types each), " +
                                    "K 1 to 100");
            return 2;
        }
        MethodInfo length = typeof(string).GetProperty("Length")!.GetMethod!;
        var assembly = new PersistedAssemblyBuilder(new AssemblyName("flat"),
                                                    typeof(object).Assembly);
        ModuleBuilder module = assembly.DefineDynamicModule("flat");
        TypeBuilder type = module.DefineType("Flat", TypeAttributes.Public |
                                             TypeAttributes.Abstract | TypeAttributes.Sealed);
        var nested = new List<TypeBuilder>();
        for (int i = 0; i < count; i++)
        {
            TypeBuilder owner = type;
            if (nestedTypes)
            {
                owner = type.DefineNestedType("C" + i, TypeAttributes.NestedPublic |
                                              TypeAttributes.Abstract | TypeAttributes.Sealed);
                nested.Add(owner);
            }
            // static int M<i>() { <four locals>; return i + "...".Length + "...".Length ...; }
            MethodBuilder method = owner.DefineMethod("M" + i,
                MethodAttributes.Public | MethodAttributes.Static, typeof(int), Type.EmptyTypes);
            ILGenerator il = method.GetILGenerator();
            for (int digit = 0, rest = sharedLocals ? 3210 : i; digit < 4; digit++, rest /= 10)
                il.DeclareLocal(LocalTypes[rest % 10]);
            il.Emit(OpCodes.Ldc_I4, i);
            for (int k = 0; k < strings; k++)
            {
                il.Emit(OpCodes.Ldstr, "flat method number " + i + ", string " + k);
                il.Emit(OpCodes.Callvirt, length);
                il.Emit(OpCodes.Add);
            }
            il.Emit(OpCodes.Ret);
        }
        type.CreateType();
        foreach (TypeBuilder t in nested)
            t.CreateType();
        assembly.Save(output);
        return 0;
    }
#endif

    static int Jit(string input)
    {
        Type type = Assembly.LoadFrom(input).GetType("Flat", throwOnError: true)!;
        const BindingFlags Declared = BindingFlags.Public | BindingFlags.Static |
                                      BindingFlags.DeclaredOnly;
        // One GetMethods, not a GetMethod per name: that looks through every method each time.
        var methods = new List<MethodInfo>(type.GetMethods(Declared));
        foreach (Type t in type.GetNestedTypes())
            methods.AddRange(t.GetMethods(Declared));
        methods.Sort((a, b) => int.Parse(a.Name.Substring(1))
                                   .CompareTo(int.Parse(b.Name.Substring(1))));
        foreach (MethodInfo method in methods)
            RuntimeHelpers.PrepareMethod(method.MethodHandle);
        Console.WriteLine("jitted " + methods.Count);
        return 0;
    }
}
