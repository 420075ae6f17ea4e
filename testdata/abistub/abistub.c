// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

/*
 * A stand-in ws2_32!ProcessSocketNotifications (and kernel32's
 * GetQueuedCompletionStatusEx) for the ABI tests only (TestABIStub* in
 * abi_test.go, process_test.go and dequeue_test.go). It does no socket
 * work: it records the arguments as C received them, writes known values into
 * both arrays for Go to read back, and returns the code that the test set;
 * it can report more entries than it was given room for, an OS fault the
 * binding must refuse to pass on.
 * The test points the binding at this DLL instead of ws2_32.dll to check
 * argument passing and struct layout across the Go/C boundary; Windows
 * behaviour is tested against the real ws2_32.dll.
 *
 * Build: CC -shared -O2 -Wall -Werror -o abistub.dll abistub.c abistub.def
 *        -Wl,--kill-at -Wl,--enable-stdcall-fixup
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stddef.h>
#include <string.h>

/*
 * winsock2.h is not included, so that newer mingw-w64 headers with their own
 * SOCK_NOTIFY_REGISTRATION cannot clash; OVERLAPPED_ENTRY comes from the
 * system's minwinbase.h.
 */
#include "../socknotify.h"

#define STUB_MAX_SEEN 8

static ULONG_PTR args[7];
static SOCK_NOTIFY_REGISTRATION seen[STUB_MAX_SEEN];
static DWORD result;
static UINT32 failMask = 0xFFFFFFFFu; /* registrations (by index, mod 32) to refuse */
static DWORD failBase = 0xA0000000u;  /* a refused one's result: failBase | index */
static OVERLAPPED marker;
static UINT32 overReport; /* entries reported beyond those written */

/* fill writes known values into entries[0:count]. */
static void fill(OVERLAPPED_ENTRY *entries, ULONG count)
{
    ULONG i;

    for (i = 0; entries != NULL && i < count; i++) {
        /* Every bit of the pointer-wide fields is set somewhere. */
        entries[i].lpCompletionKey = ~(ULONG_PTR)i;
        entries[i].lpOverlapped = (i % 2 == 0) ? &marker : NULL;
        entries[i].Internal = ((ULONG_PTR)0x5A5A5A5A << 16) | i;
        entries[i].dwNumberOfBytesTransferred = 0x80000000u | (i << 8) | 0xC7;
    }
}

DWORD WINAPI ProcessSocketNotifications(HANDLE completionPort, UINT32 registrationCount,
                                        SOCK_NOTIFY_REGISTRATION *registrationInfos, UINT32 timeoutMs,
                                        ULONG completionCount, OVERLAPPED_ENTRY *completionPortEntries,
                                        UINT32 *receivedEntryCount)
{
    UINT32 i;

    args[0] = (ULONG_PTR)completionPort;
    args[1] = registrationCount;
    args[2] = (ULONG_PTR)registrationInfos;
    args[3] = timeoutMs;
    args[4] = completionCount;
    args[5] = (ULONG_PTR)completionPortEntries;
    args[6] = (ULONG_PTR)receivedEntryCount;
    memset(seen, 0, sizeof seen);
    for (i = 0; registrationInfos != NULL && i < registrationCount; i++) {
        if (i < STUB_MAX_SEEN)
            seen[i] = registrationInfos[i];
        registrationInfos[i].registrationResult = (failMask >> (i % 32)) & 1 ? failBase | i : 0;
    }
    fill(completionPortEntries, completionCount);
    if (receivedEntryCount != NULL)
        *receivedEntryCount = completionCount + overReport;
    return result;
}

/*
 * StubGetQueuedCompletionStatusEx, exported as GetQueuedCompletionStatusEx,
 * stands in for kernel32's: it fills the count entries as above, reports
 * count plus the over-report as removed, and fails with the code set by
 * StubSetResult if it is not 0.
 */
BOOL WINAPI StubGetQueuedCompletionStatusEx(HANDLE completionPort, OVERLAPPED_ENTRY *entries, ULONG count,
                                            ULONG *removed, DWORD timeoutMs, BOOL alertable)
{
    (void)completionPort;
    (void)timeoutMs;
    (void)alertable;
    if (result != 0) {
        SetLastError(result);
        return FALSE;
    }
    fill(entries, count);
    *removed = count + overReport;
    return TRUE;
}

/*
 * StubSetOverReport makes the next calls report extra entries beyond those
 * they write: a count larger than the room given, which the binding must
 * refuse to pass on.
 */
void WINAPI StubSetOverReport(UINT32 extra) { overReport = extra; }

/* StubSetResult sets what the next ProcessSocketNotifications returns. */
void WINAPI StubSetResult(DWORD code) { result = code; }

/*
 * StubSetRegistrationResults sets which registrations the next calls refuse:
 * those whose index (mod 32) has its bit set in mask, with the result
 * base | index. The others get 0. By default all are refused, base 0xA0000000.
 */
void WINAPI StubSetRegistrationResults(UINT32 mask, DWORD base)
{
    failMask = mask;
    failBase = base;
}

/* StubArg returns argument i (0 to 6) of the last call, widened to a ULONG_PTR. */
ULONG_PTR WINAPI StubArg(UINT32 i) { return i < 7 ? args[i] : 0; }

/* StubSeen copies registration i of the last call as C read it on entry. */
BOOL WINAPI StubSeen(UINT32 i, SOCK_NOTIFY_REGISTRATION *out)
{
    if (i >= STUB_MAX_SEEN)
        return FALSE;
    *out = seen[i];
    return TRUE;
}

/* StubMarker returns the OVERLAPPED that even entries point at. */
OVERLAPPED *WINAPI StubMarker(void) { return &marker; }

/*
 * StubLayout returns the size or offset that the C compiler gives a struct
 * member, named as in testdata/layout.txt ("STRUCT field" or
 * "STRUCT sizeof"), or ~0 for a name it does not know.
 */
#define SIZE(s) {#s " sizeof", sizeof(s)}
#define FIELD(s, f) {#s " " #f, offsetof(s, f)}
static const struct {
    const char *name;
    size_t value;
} layout[] = {
    SIZE(SOCK_NOTIFY_REGISTRATION),
    FIELD(SOCK_NOTIFY_REGISTRATION, socket),
    FIELD(SOCK_NOTIFY_REGISTRATION, completionKey),
    FIELD(SOCK_NOTIFY_REGISTRATION, eventFilter),
    FIELD(SOCK_NOTIFY_REGISTRATION, operation),
    FIELD(SOCK_NOTIFY_REGISTRATION, triggerFlags),
    FIELD(SOCK_NOTIFY_REGISTRATION, registrationResult),
    SIZE(OVERLAPPED_ENTRY),
    FIELD(OVERLAPPED_ENTRY, lpCompletionKey),
    FIELD(OVERLAPPED_ENTRY, lpOverlapped),
    FIELD(OVERLAPPED_ENTRY, Internal),
    FIELD(OVERLAPPED_ENTRY, dwNumberOfBytesTransferred),
};

UINT32 WINAPI StubLayout(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof layout / sizeof layout[0]; i++)
        if (strcmp(layout[i].name, name) == 0)
            return (UINT32)layout[i].value;
    return ~0u;
}
