// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

/*
 * hooks.c: how the reference model sees what afd.sys sees.
 *
 * ProcessSocketNotifications lives in afd.sys, which every recv, send,
 * accept, dequeue and close of a socket passes through: it knows when a
 * receive buffer empties and when a packet leaves the port. A model in user
 * mode sees none of that by itself, and a model that guesses (by sampling)
 * reports edges late and level conditions that are gone (SPEC.md,
 * Decisions). So the model watches the same calls where user mode hands
 * them to the kernel: the ntdll entries NtDeviceIoControlFile (every
 * Winsock data call; Wine's ws2_32 and Windows' mswsock issue them),
 * NtRemoveIoCompletion and NtRemoveIoCompletionEx (every dequeue, through
 * kernelbase), NtClose (closesocket) and NtSetInformationFile (a handle
 * tied to a completion port). It replaces those entries in the import
 * tables of every other module of the process, and of every module loaded
 * later; each replacement calls the real entry and tells the model what it
 * did. Nothing else changes: the socket keeps its mode, its buffers and its
 * completion port, and a caller's call returns what the OS returned.
 *
 * This is test scaffolding of the model's DLL: it exists only in a process
 * that loaded psnmodel.dll, which only sockstate's own tests built with
 * -tags sockstate_psnmodel do.
 */
#define WIN32_LEAN_AND_MEAN
#include <winsock2.h>
#include <windows.h>
#include <winternl.h>
#include <psapi.h>
#include <string.h>

#include "model.h"

static ioctlFn realIoctl;
static removeFn realRemove;
static removeExFn realRemoveEx;
static closeFn realClose;
static setInfoFn realSetInfo;
static DWORD busySlot = TLS_OUT_OF_INDEXES;

/* busy: the model's own code runs on this thread; its calls pass through. */
BOOL busy(void) { return TlsGetValue(busySlot) != NULL; }

void setBusy(BOOL on)
{
    ULONG_PTR n = (ULONG_PTR)TlsGetValue(busySlot);
    TlsSetValue(busySlot, (LPVOID)(on ? n + 1 : n - 1));
}

/* The model's own ntdll calls, past the replaced entries. */
NTSTATUS modelIoctl(HANDLE h, HANDLE ev, PIO_APC_ROUTINE apc, PVOID ctx, PIO_STATUS_BLOCK io, ULONG code, PVOID in, ULONG inLen, PVOID out, ULONG outLen)
{
    return realIoctl(h, ev, apc, ctx, io, code, in, inLen, out, outLen);
}

/*
 * Each hook leaves the thread's last error as it found it: the model's own
 * calls (TlsGetValue among them) set it, and a caller reads it after a
 * call that the hook wraps (Wine's accept, for one, fails with the error
 * of its getpeername after a closesocket that reaches hookClose; a model
 * that cleared it would fail that accept with no error).
 */
static NTSTATUS NTAPI hookIoctl(HANDLE h, HANDLE ev, PIO_APC_ROUTINE apc, PVOID ctx, PIO_STATUS_BLOCK io, ULONG code, PVOID in, ULONG inLen, PVOID out, ULONG outLen)
{
    DWORD e = GetLastError();
    callNote note;
    BOOL mine = !busy() && watching() && beforeSocketCall(h, code, &note);
    SetLastError(e);
    NTSTATUS s = realIoctl(h, ev, apc, ctx, io, code, in, inLen, out, outLen);
    if (mine) {
        e = GetLastError();
        afterSocketCall(h, &note, s, s == STATUS_PENDING_ ? 0 : io->Information);
        SetLastError(e);
    }
    return s;
}

static NTSTATUS NTAPI hookRemove(HANDLE port, PULONG_PTR key, PULONG_PTR apc, PIO_STATUS_BLOCK io, PLARGE_INTEGER timeout)
{
    DWORD e = GetLastError();
    if (!busy() && watching())
        beforeDequeue(port);
    SetLastError(e);
    NTSTATUS s = realRemove(port, key, apc, io, timeout);
    /* watching() again: a dequeue that began before the first
     * registration (a Wait blocked before an Add) takes its packets too. */
    if (s == 0 /* STATUS_SUCCESS */ && !busy() && watching()) {
        e = GetLastError();
        dequeued(port, *key, *apc);
        SetLastError(e);
    }
    return s;
}

static NTSTATUS NTAPI hookRemoveEx(HANDLE port, completionInfo *info, ULONG count, PULONG written, PLARGE_INTEGER timeout, BOOLEAN alertable)
{
    DWORD e = GetLastError();
    if (!busy() && watching())
        beforeDequeue(port);
    SetLastError(e);
    NTSTATUS s = realRemoveEx(port, info, count, written, timeout, alertable);
    if (s == 0 /* STATUS_SUCCESS */ && !busy() && watching()) { /* watching() again: as above */
        e = GetLastError();
        for (ULONG i = 0; i < *written; i++)
            dequeued(port, info[i].key, info[i].apc);
        SetLastError(e);
    }
    return s;
}

static NTSTATUS NTAPI hookClose(HANDLE h)
{
    DWORD e = GetLastError();
    if (!busy() && watching())
        closing(h);
    SetLastError(e);
    return realClose(h);
}

static NTSTATUS NTAPI hookSetInfo(HANDLE h, PIO_STATUS_BLOCK io, PVOID info, ULONG len, int class)
{
    NTSTATUS s = realSetInfo(h, io, info, len, class);
    DWORD e = GetLastError();
    if (s >= 0 && class == FILE_COMPLETION_INFORMATION && !busy())
        associated(h);
    SetLastError(e);
    return s;
}

static const struct {
    const char *name;
    void *hook;
    void **real;
} entries[] = {
    {"NtDeviceIoControlFile", hookIoctl, (void **)&realIoctl},
    {"NtRemoveIoCompletion", hookRemove, (void **)&realRemove},
    {"NtRemoveIoCompletionEx", hookRemoveEx, (void **)&realRemoveEx},
    {"NtClose", hookClose, (void **)&realClose},
    {"NtSetInformationFile", hookSetInfo, (void **)&realSetInfo},
};
#define NENTRIES (sizeof entries / sizeof entries[0])

static HMODULE self;

/* patch replaces, in m's import address table, every slot that holds one of
 * the real entries; FALSE if a slot could not be written. */
static BOOL patch(HMODULE m)
{
    if (m == self || m == GetModuleHandleA("ntdll.dll"))
        return TRUE;
    BYTE *base = (BYTE *)m;
    IMAGE_NT_HEADERS *nt = (IMAGE_NT_HEADERS *)(base + ((IMAGE_DOS_HEADER *)base)->e_lfanew);
    IMAGE_DATA_DIRECTORY dir = nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_IMPORT];
    if (dir.VirtualAddress == 0)
        return TRUE;
    for (IMAGE_IMPORT_DESCRIPTOR *d = (IMAGE_IMPORT_DESCRIPTOR *)(base + dir.VirtualAddress); d->Name != 0; d++) {
        for (void **slot = (void **)(base + d->FirstThunk); *slot != NULL; slot++) {
            for (size_t i = 0; i < NENTRIES; i++) {
                if (*slot != *entries[i].real)
                    continue;
                DWORD old;
                if (!VirtualProtect(slot, sizeof *slot, PAGE_READWRITE, &old))
                    return FALSE;
                *slot = entries[i].hook;
                VirtualProtect(slot, sizeof *slot, old, &old);
            }
        }
    }
    return TRUE;
}

/* LDR_DLL_NOTIFICATION_DATA's loaded-module part, as ntdll passes it. */
typedef struct {
    ULONG flags;
    PCUNICODE_STRING fullName, baseName;
    PVOID base;
    ULONG size;
} dllLoaded;

static VOID CALLBACK onLoad(ULONG reason, const dllLoaded *data, PVOID ctx)
{
    (void)ctx;
    if (reason == 1 /* LDR_DLL_NOTIFICATION_REASON_LOADED */)
        patch((HMODULE)data->base);
}

typedef NTSTATUS(NTAPI *registerFn)(ULONG, VOID(CALLBACK *)(ULONG, const dllLoaded *, PVOID), PVOID, PVOID *);

/* installHooks patches every module loaded now and every one loaded later;
 * it returns 0 or a Win32 error code. */
DWORD installHooks(void)
{
    HMODULE ntdll = GetModuleHandleA("ntdll.dll"), mods[512];
    DWORD need;
    PVOID cookie;
    if ((busySlot = TlsAlloc()) == TLS_OUT_OF_INDEXES)
        return GetLastError();
    for (size_t i = 0; i < NENTRIES; i++)
        if ((*entries[i].real = (void *)GetProcAddress(ntdll, entries[i].name)) == NULL)
            return ERROR_PROC_NOT_FOUND;
    if (!GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT, (LPCSTR)installHooks, &self))
        return GetLastError();
    registerFn reg = (registerFn)(void *)GetProcAddress(ntdll, "LdrRegisterDllNotification");
    if (reg == NULL || reg(0, onLoad, NULL, &cookie) < 0)
        return ERROR_PROC_NOT_FOUND;
    if (!EnumProcessModules(GetCurrentProcess(), mods, sizeof mods, &need))
        return GetLastError();
    for (DWORD i = 0; i < need / sizeof mods[0] && i < sizeof mods / sizeof mods[0]; i++)
        if (!patch(mods[i]))
            return ERROR_ACCESS_DENIED;
    return 0;
}
