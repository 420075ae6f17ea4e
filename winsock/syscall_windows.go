// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package winsock

// socketError is SOCKET_ERROR (-1) as the low 32 bits of a return register,
// where ioctlsocket's int result arrives.
const socketError = uintptr(^uint32(0))

// The prototypes below are read by mkwinsyscall (see mksyscall.go), which
// writes zsyscall_windows.go from them. Winsock sets the thread's last
// error, which the generated code reads, on every failure.

//sys	accept(s windows.Handle, addr *windows.RawSockaddrAny, addrlen *int32) (fd windows.Handle, err error) [failretval==windows.InvalidHandle] = ws2_32.accept
//sys	ioctlsocket(s windows.Handle, cmd uint32, arg *uint32) (err error) [failretval==socketError] = ws2_32.ioctlsocket
//sys	recv(s windows.Handle, buf []byte, flags int32) (n int32, err error) [failretval==-1] = ws2_32.recv
//sys	send(s windows.Handle, buf []byte, flags int32) (n int32, err error) [failretval==-1] = ws2_32.send
