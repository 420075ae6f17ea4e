// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

/*
 * A stand-in for bcryptprimitives.dll under Wine 8, which lacks it.
 *
 * The Go runtime (1.24 and later) draws its random bytes from
 * bcryptprimitives!ProcessPrng. Wine 8 has no such DLL, so Go programs fail
 * at start-up. This DLL exports ProcessPrng and fills the buffer from
 * advapi32!SystemFunction036 (RtlGenRandom), which Wine does have. It is
 * installed only into the Wine prefix that scripts/setup.sh makes; it is
 * never used on Windows.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
