// Large methods: branches that need the long forms, and short ones that stop fitting as
// soon as a rewriter adds anything between branch and target. Written out by hand in a
// regular pattern (no source generator), so each body is several kilobytes of IL.
using System;
using System.Runtime.CompilerServices;

static class Large
{
    // A 48-case dense switch, each case a few statements; the loop's back edge jumps over
    // the whole switch (kilobytes).
    [MethodImpl(MethodImplOptions.NoInlining)]
    static long BigSwitch(int rounds)
    {
        long acc = 7;
        for (int i = 0; i < rounds; i++)
        {
            switch ((int)((acc ^ i) % 48 + 48) % 48)
            {
                case 0:
                    acc = acc * 31 + i; acc ^= acc >> 1; acc += 1;
                    if ((acc & 1) == 0) acc -= 3;
                    break;
                case 1:
                    acc = acc * 33 + i; acc ^= acc >> 2; acc += 14;
                    break;
                case 2:
                    acc = acc * 35 + i; acc ^= acc >> 3; acc += 27;
                    break;
                case 3:
                    acc = acc * 37 + i; acc ^= acc >> 4; acc += 40;
                    if ((acc & 8) == 0) acc -= 6;
                    break;
                case 4:
                    acc = acc * 39 + i; acc ^= acc >> 5; acc += 53;
                    break;
                case 5:
                    acc = acc * 41 + i; acc ^= acc >> 6; acc += 66;
                    break;
                case 6:
                    acc = acc * 43 + i; acc ^= acc >> 7; acc += 79;
                    if ((acc & 2) == 0) acc -= 9;
                    break;
                case 7:
                    acc = acc * 45 + i; acc ^= acc >> 1; acc += 92;
                    break;
                case 8:
                    acc = acc * 47 + i; acc ^= acc >> 2; acc += 105;
                    break;
                case 9:
                    acc = acc * 49 + i; acc ^= acc >> 3; acc += 118;
                    if ((acc & 16) == 0) acc -= 12;
                    break;
                case 10:
                    acc = acc * 51 + i; acc ^= acc >> 4; acc += 131;
                    break;
                case 11:
                    acc = acc * 53 + i; acc ^= acc >> 5; acc += 144;
                    break;
                case 12:
                    acc = acc * 55 + i; acc ^= acc >> 6; acc += 157;
                    if ((acc & 4) == 0) acc -= 15;
                    break;
                case 13:
                    acc = acc * 57 + i; acc ^= acc >> 7; acc += 170;
                    break;
                case 14:
                    acc = acc * 59 + i; acc ^= acc >> 1; acc += 183;
                    break;
                case 15:
                    acc = acc * 61 + i; acc ^= acc >> 2; acc += 196;
                    if ((acc & 1) == 0) acc -= 18;
                    break;
                case 16:
                    acc = acc * 63 + i; acc ^= acc >> 3; acc += 209;
                    break;
                case 17:
                    acc = acc * 65 + i; acc ^= acc >> 4; acc += 222;
                    break;
                case 18:
                    acc = acc * 67 + i; acc ^= acc >> 5; acc += 235;
                    if ((acc & 8) == 0) acc -= 21;
                    break;
                case 19:
                    acc = acc * 69 + i; acc ^= acc >> 6; acc += 248;
                    break;
                case 20:
                    acc = acc * 71 + i; acc ^= acc >> 7; acc += 261;
                    break;
                case 21:
                    acc = acc * 73 + i; acc ^= acc >> 1; acc += 274;
                    if ((acc & 2) == 0) acc -= 24;
                    break;
                case 22:
                    acc = acc * 75 + i; acc ^= acc >> 2; acc += 287;
                    break;
                case 23:
                    acc = acc * 77 + i; acc ^= acc >> 3; acc += 300;
                    break;
                case 24:
                    acc = acc * 79 + i; acc ^= acc >> 4; acc += 313;
                    if ((acc & 16) == 0) acc -= 27;
                    break;
                case 25:
                    acc = acc * 81 + i; acc ^= acc >> 5; acc += 326;
                    break;
                case 26:
                    acc = acc * 83 + i; acc ^= acc >> 6; acc += 339;
                    break;
                case 27:
                    acc = acc * 85 + i; acc ^= acc >> 7; acc += 352;
                    if ((acc & 4) == 0) acc -= 30;
                    break;
                case 28:
                    acc = acc * 87 + i; acc ^= acc >> 1; acc += 365;
                    break;
                case 29:
                    acc = acc * 89 + i; acc ^= acc >> 2; acc += 378;
                    break;
                case 30:
                    acc = acc * 91 + i; acc ^= acc >> 3; acc += 391;
                    if ((acc & 1) == 0) acc -= 33;
                    break;
                case 31:
                    acc = acc * 93 + i; acc ^= acc >> 4; acc += 404;
                    break;
                case 32:
                    acc = acc * 95 + i; acc ^= acc >> 5; acc += 417;
                    break;
                case 33:
                    acc = acc * 97 + i; acc ^= acc >> 6; acc += 430;
                    if ((acc & 8) == 0) acc -= 36;
                    break;
                case 34:
                    acc = acc * 99 + i; acc ^= acc >> 7; acc += 443;
                    break;
                case 35:
                    acc = acc * 101 + i; acc ^= acc >> 1; acc += 456;
                    break;
                case 36:
                    acc = acc * 103 + i; acc ^= acc >> 2; acc += 469;
                    if ((acc & 2) == 0) acc -= 39;
                    break;
                case 37:
                    acc = acc * 105 + i; acc ^= acc >> 3; acc += 482;
                    break;
                case 38:
                    acc = acc * 107 + i; acc ^= acc >> 4; acc += 495;
                    break;
                case 39:
                    acc = acc * 109 + i; acc ^= acc >> 5; acc += 508;
                    if ((acc & 16) == 0) acc -= 42;
                    break;
                case 40:
                    acc = acc * 111 + i; acc ^= acc >> 6; acc += 521;
                    break;
                case 41:
                    acc = acc * 113 + i; acc ^= acc >> 7; acc += 534;
                    break;
                case 42:
                    acc = acc * 115 + i; acc ^= acc >> 1; acc += 547;
                    if ((acc & 4) == 0) acc -= 45;
                    break;
                case 43:
                    acc = acc * 117 + i; acc ^= acc >> 2; acc += 560;
                    break;
                case 44:
                    acc = acc * 119 + i; acc ^= acc >> 3; acc += 573;
                    break;
                case 45:
                    acc = acc * 121 + i; acc ^= acc >> 4; acc += 586;
                    if ((acc & 1) == 0) acc -= 48;
                    break;
                case 46:
                    acc = acc * 123 + i; acc ^= acc >> 5; acc += 599;
                    break;
                case 47:
                    acc = acc * 125 + i; acc ^= acc >> 6; acc += 612;
                    break;
            }
            acc &= 0xFFFFFFFFFFFF;
        }
        return acc;
    }

    // If blocks of ~100 to 125 bytes of IL: short branches that a rewriter must widen.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int NearTheLimit(int n)
    {
        int a = n, b = n * 2, c = n * 3;
        if (((a + 0) & 1) != 0)
        {
            a += b ^ 0; b -= c + 1; c ^= a + 0;
            a += b ^ 1; b -= c + 2; c ^= a + 3;
            a += b ^ 2; b -= c + 3; c ^= a + 6;
            a += b ^ 3; b -= c + 4; c ^= a + 9;
            a += b ^ 4; b -= c + 5; c ^= a + 12;
            a += b ^ 5; b -= c + 6; c ^= a + 15;
        }
        if (((a + 1) & 2) != 0)
        {
            a += b ^ 10; b -= c + 1; c ^= a + 1;
            a += b ^ 11; b -= c + 2; c ^= a + 4;
            a += b ^ 12; b -= c + 3; c ^= a + 7;
            a += b ^ 13; b -= c + 4; c ^= a + 10;
            a += b ^ 14; b -= c + 5; c ^= a + 13;
            a += b ^ 15; b -= c + 6; c ^= a + 16;
            a += b ^ 16; b -= c + 7; c ^= a + 19;
        }
        if (((a + 2) & 4) != 0)
        {
            a += b ^ 20; b -= c + 1; c ^= a + 2;
            a += b ^ 21; b -= c + 2; c ^= a + 5;
            a += b ^ 22; b -= c + 3; c ^= a + 8;
            a += b ^ 23; b -= c + 4; c ^= a + 11;
            a += b ^ 24; b -= c + 5; c ^= a + 14;
            a += b ^ 25; b -= c + 6; c ^= a + 17;
            a += b ^ 26; b -= c + 7; c ^= a + 20;
            a += b ^ 27; b -= c + 8; c ^= a + 23;
        }
        if (((a + 3) & 1) != 0)
        {
            a += b ^ 30; b -= c + 1; c ^= a + 3;
            a += b ^ 31; b -= c + 2; c ^= a + 6;
            a += b ^ 32; b -= c + 3; c ^= a + 9;
            a += b ^ 33; b -= c + 4; c ^= a + 12;
            a += b ^ 34; b -= c + 5; c ^= a + 15;
            a += b ^ 35; b -= c + 6; c ^= a + 18;
        }
        if (((a + 4) & 2) != 0)
        {
            a += b ^ 40; b -= c + 1; c ^= a + 4;
            a += b ^ 41; b -= c + 2; c ^= a + 7;
            a += b ^ 42; b -= c + 3; c ^= a + 10;
            a += b ^ 43; b -= c + 4; c ^= a + 13;
            a += b ^ 44; b -= c + 5; c ^= a + 16;
            a += b ^ 45; b -= c + 6; c ^= a + 19;
            a += b ^ 46; b -= c + 7; c ^= a + 22;
        }
        if (((a + 5) & 4) != 0)
        {
            a += b ^ 50; b -= c + 1; c ^= a + 5;
            a += b ^ 51; b -= c + 2; c ^= a + 8;
            a += b ^ 52; b -= c + 3; c ^= a + 11;
            a += b ^ 53; b -= c + 4; c ^= a + 14;
            a += b ^ 54; b -= c + 5; c ^= a + 17;
            a += b ^ 55; b -= c + 6; c ^= a + 20;
            a += b ^ 56; b -= c + 7; c ^= a + 23;
            a += b ^ 57; b -= c + 8; c ^= a + 26;
        }
        if (((a + 6) & 1) != 0)
        {
            a += b ^ 60; b -= c + 1; c ^= a + 6;
            a += b ^ 61; b -= c + 2; c ^= a + 9;
            a += b ^ 62; b -= c + 3; c ^= a + 12;
            a += b ^ 63; b -= c + 4; c ^= a + 15;
            a += b ^ 64; b -= c + 5; c ^= a + 18;
            a += b ^ 65; b -= c + 6; c ^= a + 21;
        }
        if (((a + 7) & 2) != 0)
        {
            a += b ^ 70; b -= c + 1; c ^= a + 7;
            a += b ^ 71; b -= c + 2; c ^= a + 10;
            a += b ^ 72; b -= c + 3; c ^= a + 13;
            a += b ^ 73; b -= c + 4; c ^= a + 16;
            a += b ^ 74; b -= c + 5; c ^= a + 19;
            a += b ^ 75; b -= c + 6; c ^= a + 22;
            a += b ^ 76; b -= c + 7; c ^= a + 25;
        }
        return a ^ b ^ c;
    }

    // A straight run of statements inside a loop and a try: long back edge, long leave.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static string LongLoopInTry(int n)
    {
        long x = 1, y = 2;
        try
        {
            for (int i = 0; i < n; i++)
            {
                x = x * 3 + y; y ^= x >> 1;
                x = x * 4 + y; y ^= x >> 2;
                x = x * 5 + y; y ^= x >> 3;
                x = x * 6 + y; y ^= x >> 4;
                x = x * 7 + y; y ^= x >> 5; if (y == 4017) break;
                x = x * 8 + y; y ^= x >> 6;
                x = x * 9 + y; y ^= x >> 7;
                x = x * 10 + y; y ^= x >> 8;
                x = x * 11 + y; y ^= x >> 9;
                x = x * 12 + y; y ^= x >> 10; if (y == 9017) break;
                x = x * 13 + y; y ^= x >> 11;
                x = x * 14 + y; y ^= x >> 12;
                x = x * 15 + y; y ^= x >> 13;
                x = x * 16 + y; y ^= x >> 1;
                x = x * 17 + y; y ^= x >> 2; if (y == 14017) break;
                x = x * 18 + y; y ^= x >> 3;
                x = x * 19 + y; y ^= x >> 4;
                x = x * 20 + y; y ^= x >> 5;
                x = x * 21 + y; y ^= x >> 6;
                x = x * 22 + y; y ^= x >> 7; if (y == 19017) break;
                x = x * 23 + y; y ^= x >> 8;
                x = x * 24 + y; y ^= x >> 9;
                x = x * 25 + y; y ^= x >> 10;
                x = x * 26 + y; y ^= x >> 11;
                x = x * 27 + y; y ^= x >> 12; if (y == 24017) break;
                x = x * 28 + y; y ^= x >> 13;
                x = x * 29 + y; y ^= x >> 1;
                x = x * 30 + y; y ^= x >> 2;
                x = x * 31 + y; y ^= x >> 3;
                x = x * 32 + y; y ^= x >> 4; if (y == 29017) break;
                x &= 0xFFFFFFFFFF; y &= 0xFFFFFFFFFF;
            }
            if (n > 1000)
                throw new ArgumentOutOfRangeException(nameof(n));
        }
        finally
        {
            x += 1;
        }
        return x + "/" + y;
    }

    public static void Run()
    {
        Console.WriteLine($"big switch = {BigSwitch(5000)}");
        Console.WriteLine($"near the limit = {NearTheLimit(3)}, {NearTheLimit(4)}, {NearTheLimit(-9)}");
        Console.WriteLine($"long loop in try = {LongLoopInTry(500)}");
        try
        {
            LongLoopInTry(2000);
        }
        catch (ArgumentOutOfRangeException e)
        {
            Console.WriteLine("long loop in try: " + e.GetType().Name + ": " + e.ParamName);
        }
    }
}
