// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

/*
 * model.h: what hooks.c (the calls the model watches) and psnmodel.c (the
 * model's rules) tell each other.
 */
#ifndef PSNMODEL_MODEL_H
#define PSNMODEL_MODEL_H

#define STATUS_PENDING_ ((NTSTATUS)0x00000103L)
#define STATUS_DEVICE_NOT_READY_ ((NTSTATUS)0xC00000A3L) /* a non-blocking call would block */
#define FILE_COMPLETION_INFORMATION 30                    /* FileCompletionInformation */

/* FILE_IO_COMPLETION_INFORMATION: one dequeued packet. */
typedef struct {
    ULONG_PTR key, apc;
    IO_STATUS_BLOCK io;
} completionInfo;

typedef NTSTATUS(NTAPI *ioctlFn)(HANDLE, HANDLE, PIO_APC_ROUTINE, PVOID, PIO_STATUS_BLOCK, ULONG, PVOID, ULONG, PVOID, ULONG);
typedef NTSTATUS(NTAPI *removeFn)(HANDLE, PULONG_PTR, PULONG_PTR, PIO_STATUS_BLOCK, PLARGE_INTEGER);
typedef NTSTATUS(NTAPI *removeExFn)(HANDLE, completionInfo *, ULONG, PULONG, PLARGE_INTEGER, BOOLEAN);
typedef NTSTATUS(NTAPI *closeFn)(HANDLE);
typedef NTSTATUS(NTAPI *setInfoFn)(HANDLE, PIO_STATUS_BLOCK, PVOID, ULONG, int);

/* hooks.c */
DWORD installHooks(void);
BOOL busy(void);
void setBusy(BOOL on);
NTSTATUS modelIoctl(HANDLE, HANDLE, PIO_APC_ROUTINE, PVOID, PIO_STATUS_BLOCK, ULONG, PVOID, ULONG, PVOID, ULONG);

/* What the model remembers of a caller's call on a registered socket
 * between its start and its end. */
typedef struct {
    ULONG code;
    LONG before; /* bytes to read before a receive, or -1 */
    UINT32 id;   /* the registration whose receiving it counts in, or 0 */
} callNote;

/* psnmodel.c: each is called outside the model's lock, on the caller's
 * thread, and takes the lock itself. */
BOOL watching(void);
BOOL beforeSocketCall(HANDLE s, ULONG code, callNote *note);
void afterSocketCall(HANDLE s, const callNote *note, NTSTATUS status, ULONG_PTR information);
void beforeDequeue(HANDLE port);
void dequeued(HANDLE port, ULONG_PTR key, ULONG_PTR apc);
void closing(HANDLE h);
void associated(HANDLE h);

#endif
