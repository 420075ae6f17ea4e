// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

/*
 * The AFD readiness request (IOCTL_AFD_POLL), as wepoll, mio and libuv use
 * it (Microsoft does not document it), for the C programs in testdata/ (the
 * reference model and the C reference loop); poller's Go side is in
 * internal/afd. Include after winsock2.h and winternl.h.
 */
#ifndef SOCKSTATE_AFD_H
#define SOCKSTATE_AFD_H

#define AFD_POLL_RECEIVE 0x0001
#define AFD_POLL_SEND 0x0004
#define AFD_POLL_DISCONNECT 0x0008
#define AFD_POLL_ABORT 0x0010
#define AFD_POLL_LOCAL_CLOSE 0x0020
#define AFD_POLL_ACCEPT 0x0080
#define AFD_POLL_CONNECT_FAIL 0x0100
#define IOCTL_AFD_POLL 0x00012024
#define SIO_BASE_HANDLE_ 0x48000022 /* SIO_BASE_HANDLE: _WSAIOR(IOC_WS2, 34) */

/* AFD_POLL_INFO with room for one handle. */
typedef struct {
    LARGE_INTEGER Timeout;
    ULONG NumberOfHandles;
    ULONG Exclusive;
    HANDLE Handle;
    ULONG Events;
    NTSTATUS Status;
} AFD_POLL_INFO;

#endif
