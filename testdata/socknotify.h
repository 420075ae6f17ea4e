// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

/*
 * SOCK_NOTIFY_REGISTRATION as winsock2.h (Windows SDK 10.0.20348.0 and
 * later) declares it, for the C stand-ins in testdata/ (the ABI stub and the
 * reference model): older mingw-w64 headers lack it. SOCKET is UINT_PTR.
 */
#ifndef SOCKSTATE_SOCKNOTIFY_H
#define SOCKSTATE_SOCKNOTIFY_H

typedef struct SOCK_NOTIFY_REGISTRATION {
    UINT_PTR socket;
    PVOID completionKey;
    UINT16 eventFilter;
    UINT8 operation;
    UINT8 triggerFlags;
    DWORD registrationResult;
} SOCK_NOTIFY_REGISTRATION;

#endif
