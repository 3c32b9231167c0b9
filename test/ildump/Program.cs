// ildump: the reference for clrie-il's differential tests. It reads an assembly with
// System.Reflection.Metadata (the runtime's own reader) and prints what clrie's C reader
// and IL decoder must print for the same file.
//
//   dotnet ildump.dll [--list] [--filter TEXT] ASSEMBLY
//   dotnet ildump.dll --opcodes
//
// --opcodes prints the opcode table the disassembly uses, one "0xNN name OperandType" (or
// 0xFENN) line per opcode: ECMA-335 Partition III's opcodes, no reserved or internal ones.
//
// Names. A type is "Namespace.Name"; a nested type is "Outer/Inner" after its outermost
// type's namespace (the nested type's own namespace is not shown). A method is
// "Type::Name"; a method no type owns is just "Name".
//
// --list: one line per MethodDef row, in row order:
//
//   <token> <name> <rva> <body-length> <code-size> <max-stack>
//
//   token and rva as 0x%08X; body-length is the whole body (header, code, padding, EH
//   sections); a method without an IL body (RVA 0, or native code) prints "0 0 0".
//
// Canonical disassembly (default), for each method with an IL body whose name contains
// TEXT (all when there is no --filter), in row order:
//
//   method 0x06000001 Namespace.Type::Name
//     maxstack 8 codesize 12 localsig 0x11000002 initlocals 1
//     IL_0000: ldarg.0
//     IL_0001: call 0x0A000012
//     ...
//     eh catch try IL_0000 length 16 handler IL_0010 length 6 type 0x01000005
//     eh filter try IL_0000 length 16 handler IL_0020 length 6 filter IL_0010
//     eh finally try IL_0000 length 16 handler IL_0010 length 6
//     eh fault try IL_0000 length 16 handler IL_0010 length 6
//   end
//
//   Offsets are IL_ and at least four lowercase hex digits (IL_-xxxx for a branch before
//   the start). Opcode names are ECMA-335's
//   (ldc.i4.s, unaligned., constrained., ...). Operands, one space after the name:
//     integers (ldc.i4, ldc.i4.s, ldc.i8, unaligned., no.)  signed decimal
//     argument and local numbers                           unsigned decimal
//     tokens                                               0x%08X
//     branch targets                                       absolute: IL_xxxx
//     switch                                               (IL_xxxx, IL_yyyy), () if empty
//     ldc.r4 / ldc.r8                                      the IEEE bits: 0x%08X / 0x%016X
//   A byte that starts no opcode prints "IL_xxxx: .unknown 0xNN" (0xFENN for a two-byte
//   form) and decoding continues after it; an operand cut off by the end of the code prints
//   "IL_xxxx: NAME <truncated>" and ends the method's instructions. EH lengths are decimal.
using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Text;

internal static class Program
{
    private static readonly OpCode?[] OneByte = new OpCode?[256];
    private static readonly OpCode?[] TwoByte = new OpCode?[256];

    private static int Main(string[] args)
    {
        bool list = false;
        if (args.Length == 1 && args[0] == "--opcodes")
        {
            LoadOpCodes();
            PrintOpCodes();
            return 0;
        }
        string? filter = null, path = null;
        for (int i = 0; i < args.Length; i++)
        {
            if (args[i] == "--list") list = true;
            else if (args[i] == "--filter" && i + 1 < args.Length) filter = args[++i];
            else if (path == null && !args[i].StartsWith("--", StringComparison.Ordinal)) path = args[i];
            else return Usage();
        }
        if (path == null) return Usage();

        var stdout = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false), 1 << 16);
        stdout.NewLine = "\n";
        try
        {
            using var stream = File.OpenRead(path);
            using var pe = new PEReader(stream);
            MetadataReader md = pe.GetMetadataReader();
            var owners = MethodOwners(md);
            if (list) List(pe, md, owners, stdout);
            else
            {
                LoadOpCodes();
                Disassemble(pe, md, owners, filter, stdout);
            }
        }
        catch (Exception e) when (e is BadImageFormatException || e is IOException || e is InvalidOperationException)
        {
            stdout.Flush();
            Console.Error.WriteLine($"ildump: {path}: {e.Message}");
            return 1;
        }
        stdout.Flush();
        return 0;
    }

    private static int Usage()
    {
        Console.Error.WriteLine("usage: ildump [--list] [--filter TEXT] ASSEMBLY");
        return 2;
    }

    private static Dictionary<MethodDefinitionHandle, TypeDefinitionHandle> MethodOwners(MetadataReader md)
    {
        var owners = new Dictionary<MethodDefinitionHandle, TypeDefinitionHandle>();
        foreach (var type in md.TypeDefinitions)
            foreach (var method in md.GetTypeDefinition(type).GetMethods())
                owners[method] = type;
        return owners;
    }

    private static string TypeName(MetadataReader md, TypeDefinitionHandle handle)
    {
        var type = md.GetTypeDefinition(handle);
        string name = md.GetString(type.Name);
        var outer = type.GetDeclaringType();
        if (!outer.IsNil) return TypeName(md, outer) + "/" + name;
        string ns = md.GetString(type.Namespace);
        return ns.Length > 0 ? ns + "." + name : name;
    }

    private static string MethodName(MetadataReader md,
        Dictionary<MethodDefinitionHandle, TypeDefinitionHandle> owners, MethodDefinitionHandle handle)
    {
        string name = md.GetString(md.GetMethodDefinition(handle).Name);
        return owners.TryGetValue(handle, out var owner) ? TypeName(md, owner) + "::" + name : name;
    }

    private static bool HasIL(MethodDefinition method) =>
        method.RelativeVirtualAddress != 0 &&
        (method.ImplAttributes & MethodImplAttributes.CodeTypeMask) != MethodImplAttributes.Native;

    private static void List(PEReader pe, MetadataReader md,
        Dictionary<MethodDefinitionHandle, TypeDefinitionHandle> owners, TextWriter o)
    {
        foreach (var handle in md.MethodDefinitions)
        {
            var method = md.GetMethodDefinition(handle);
            int token = MetadataTokens.GetToken(handle);
            int rva = method.RelativeVirtualAddress;
            string facts = "0 0 0";
            if (HasIL(method))
            {
                var body = pe.GetMethodBody(rva);
                facts = $"{body.Size} {body.GetILBytes()!.Length} {body.MaxStack}";
            }
            o.WriteLine($"0x{token:X8} {MethodName(md, owners, handle)} 0x{rva:X8} {facts}");
        }
    }

    // "no." (0xFE19) is in ECMA-335 but not in System.Reflection.Emit.OpCodes.
    private static readonly (ushort Value, string Name, OperandType Operand)[] Missing =
    {
        (0xFE19, "no.", OperandType.ShortInlineI),
    };
    private static readonly Dictionary<ushort, (string Name, OperandType Operand)> Extra = new();

    private static void LoadOpCodes()
    {
        foreach (var field in typeof(OpCodes).GetFields(BindingFlags.Public | BindingFlags.Static))
        {
            if (field.GetValue(null) is not OpCode op) continue;
            if (op.OpCodeType == OpCodeType.Nternal) continue; // prefix1..7, prefixref: reserved
            ushort value = unchecked((ushort)op.Value);
            if (op.Size == 1) OneByte[value & 0xFF] = op;
            else TwoByte[value & 0xFF] = op;
        }
        foreach (var m in Missing) Extra[m.Value] = (m.Name, m.Operand);
    }

    private static void PrintOpCodes()
    {
        var o = Console.Out;
        for (int i = 0; i < 256; i++)
            if (OneByte[i] is OpCode op) o.WriteLine($"0x{i:X2} {op.Name} {op.OperandType}");
        for (int i = 0; i < 256; i++)
        {
            if (TwoByte[i] is OpCode op) o.WriteLine($"0xFE{i:X2} {op.Name} {op.OperandType}");
            else if (Extra.TryGetValue((ushort)(0xFE00 | i), out var e)) o.WriteLine($"0xFE{i:X2} {e.Name} {e.Operand}");
        }
    }

    private static string Offset(long offset) =>
        offset < 0 ? "IL_-" + (-offset).ToString("x4") : "IL_" + offset.ToString("x4");

    private static void Disassemble(PEReader pe, MetadataReader md,
        Dictionary<MethodDefinitionHandle, TypeDefinitionHandle> owners, string? filter, TextWriter o)
    {
        foreach (var handle in md.MethodDefinitions)
        {
            var method = md.GetMethodDefinition(handle);
            if (!HasIL(method)) continue;
            string name = MethodName(md, owners, handle);
            if (filter != null && !name.Contains(filter, StringComparison.Ordinal)) continue;
            var body = pe.GetMethodBody(method.RelativeVirtualAddress);
            byte[] il = body.GetILBytes()!;
            int localSig = body.LocalSignature.IsNil ? 0 : MetadataTokens.GetToken(body.LocalSignature);
            o.WriteLine($"method 0x{MetadataTokens.GetToken(handle):X8} {name}");
            o.WriteLine($"  maxstack {body.MaxStack} codesize {il.Length} localsig 0x{localSig:X8} initlocals {(body.LocalVariablesInitialized ? 1 : 0)}");
            Instructions(il, o);
            foreach (var region in body.ExceptionRegions) Region(region, o);
            o.WriteLine("end");
        }
    }

    private static void Instructions(byte[] il, TextWriter o)
    {
        int pos = 0;
        while (pos < il.Length)
        {
            int start = pos;
            string? name = null;
            OperandType operandType = OperandType.InlineNone;
            int value = il[pos++];
            if (value == 0xFE && pos < il.Length)
            {
                value = 0xFE00 | il[pos++];
                if (TwoByte[value & 0xFF] is OpCode two) (name, operandType) = (two.Name, two.OperandType);
                else if (Extra.TryGetValue((ushort)value, out var extra)) (name, operandType) = extra;
            }
            else if (value != 0xFE && OneByte[value] is OpCode one) (name, operandType) = (one.Name, one.OperandType);
            if (name == null)
            {
                o.WriteLine($"  {Offset(start)}: .unknown 0x{value:X2}");
                continue;
            }
            string? operand = Operand(operandType, il, ref pos);
            if (operand == null)
            {
                o.WriteLine($"  {Offset(start)}: {name} <truncated>");
                return;
            }
            o.WriteLine(operand.Length == 0 ? $"  {Offset(start)}: {name}" : $"  {Offset(start)}: {name} {operand}");
        }
    }

    // The operand's text ("" for none), or null when the code ends inside it.
    private static string? Operand(OperandType type, byte[] il, ref int pos)
    {
        int size = type switch
        {
            OperandType.InlineNone => 0,
            OperandType.ShortInlineBrTarget or OperandType.ShortInlineI or OperandType.ShortInlineVar => 1,
            OperandType.InlineVar => 2,
            OperandType.InlineI8 or OperandType.InlineR => 8,
            _ => 4, // switch: its count first
        };
        if (il.Length - pos < size) return null;
        var span = il.AsSpan(pos, size);
        pos += size;
        switch (type)
        {
            case OperandType.InlineNone: return "";
            case OperandType.ShortInlineBrTarget: return Offset(pos + (sbyte)span[0]);
            case OperandType.InlineBrTarget: return Offset((long)pos + BitConverter.ToInt32(span));
            case OperandType.ShortInlineI: return ((sbyte)span[0]).ToString();
            case OperandType.ShortInlineVar: return span[0].ToString();
            case OperandType.InlineVar: return BitConverter.ToUInt16(span).ToString();
            case OperandType.InlineI: return BitConverter.ToInt32(span).ToString();
            case OperandType.InlineI8: return BitConverter.ToInt64(span).ToString();
            case OperandType.ShortInlineR: return $"0x{BitConverter.ToUInt32(span):X8}";
            case OperandType.InlineR: return $"0x{BitConverter.ToUInt64(span):X16}";
            case OperandType.InlineSwitch:
            {
                uint count = BitConverter.ToUInt32(span);
                if ((ulong)(il.Length - pos) < (ulong)count * 4) return null;
                long next = pos + (long)count * 4;
                var targets = new StringBuilder("(");
                for (uint i = 0; i < count; i++)
                {
                    if (i > 0) targets.Append(", ");
                    targets.Append(Offset(next + BitConverter.ToInt32(il, pos)));
                    pos += 4;
                }
                return targets.Append(')').ToString();
            }
            default: return $"0x{BitConverter.ToUInt32(span):X8}"; // tokens
        }
    }

    private static void Region(ExceptionRegion r, TextWriter o)
    {
        string kind = r.Kind switch
        {
            ExceptionRegionKind.Catch => "catch",
            ExceptionRegionKind.Filter => "filter",
            ExceptionRegionKind.Finally => "finally",
            _ => "fault",
        };
        string text = $"  eh {kind} try {Offset(r.TryOffset)} length {r.TryLength} handler {Offset(r.HandlerOffset)} length {r.HandlerLength}";
        if (r.Kind == ExceptionRegionKind.Catch)
            text += $" type 0x{(r.CatchType.IsNil ? 0 : MetadataTokens.GetToken(r.CatchType)):X8}";
        else if (r.Kind == ExceptionRegionKind.Filter)
            text += $" filter {Offset(r.FilterOffset)}";
        o.WriteLine(text);
    }
}
