// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package afd

// ntdll calls that golang.org/x/sys/windows does not bind; mkwinsyscall
// writes zsyscall_windows.go from these lines (see mksyscall.go). They
// return the NTSTATUS as a number: STATUS_PENDING is their normal result,
// and boxing it in an error would allocate on every poll.

//sys	ntDeviceIoControlFile(file windows.Handle, event windows.Handle, apcRoutine uintptr, apcContext uintptr, iosb *windows.IO_STATUS_BLOCK, code uint32, in unsafe.Pointer, inLen uint32, out unsafe.Pointer, outLen uint32) (status uint32) = ntdll.NtDeviceIoControlFile
//sys	ntCancelIoFileEx(file windows.Handle, request *windows.IO_STATUS_BLOCK, iosb *windows.IO_STATUS_BLOCK) (status uint32) = ntdll.NtCancelIoFileEx
