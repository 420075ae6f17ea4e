// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Package afd asks the Windows socket driver, AFD, for readiness: the
// IOCTL_AFD_POLL request that WSAPoll is built on, issued asynchronously
// through NtDeviceIoControlFile on a handle to \Device\Afd that is tied to
// an I/O completion port, so that readiness arrives as completion packets.
// It works on every Windows (and under Wine), unlike
// ProcessSocketNotifications. The request and its results are not
// documented by Microsoft; the layout below is the one wepoll, mio and libuv
// rely on.
//
// Each Poll is one request for one socket, and completes once: when an
// asked-for event holds (at once, if it already does), when the socket is
// closed, or when it is cancelled. Its memory is written by the kernel until
// its completion packet is dequeued.
package afd

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate/internal/blocks"
)

// The AFD_POLL_* event bits.
const (
	POLL_RECEIVE           = 0x0001 // data to read, or end of stream
	POLL_RECEIVE_EXPEDITED = 0x0002 // out-of-band data
	POLL_SEND              = 0x0004 // room to write
	POLL_DISCONNECT        = 0x0008 // the peer closed its side
	POLL_ABORT             = 0x0010 // the connection was reset or aborted
	POLL_LOCAL_CLOSE       = 0x0020 // the socket was closed here
	POLL_ACCEPT            = 0x0080 // a connection to accept
	POLL_CONNECT_FAIL      = 0x0100 // a connect failed

	ioctlPoll = 0x00012024 // IOCTL_AFD_POLL

	sioBaseHandle = 0x48000022 // SIO_BASE_HANDLE: _WSAIOR(IOC_WS2, 34)

	statusPending   = 0x00000103
	statusCancelled = 0xC0000120
	statusNotFound  = 0xC0000225
)

// pollInfo is AFD_POLL_INFO with room for one AFD_POLL_HANDLE_INFO.
type pollInfo struct {
	Timeout         int64 // LARGE_INTEGER, in 100 ns units; the largest never expires
	NumberOfHandles uint32
	Exclusive       uint32 // BOOLEAN padded: 0, others may poll the socket too
	Handle          windows.Handle
	Events          uint32
	Status          uint32 // NTSTATUS
}

// Device is a handle to \Device\Afd associated with an I/O completion port:
// the completions of its polls arrive on that port with its key.
type Device struct {
	h windows.Handle
}

// Open opens \Device\Afd\sockstate and associates it with port under key.
func Open(port windows.Handle, key uintptr) (*Device, error) {
	name, err := windows.NewNTUnicodeString(`\Device\Afd\sockstate`)
	if err != nil {
		return nil, err
	}
	oa := windows.OBJECT_ATTRIBUTES{ObjectName: name}
	oa.Length = uint32(unsafe.Sizeof(oa))
	var h windows.Handle
	var iosb windows.IO_STATUS_BLOCK
	if err := windows.NtCreateFile(&h, windows.SYNCHRONIZE, &oa, &iosb, nil, 0,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, windows.FILE_OPEN, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("afd: opening \\Device\\Afd: %w", err)
	}
	if _, err := windows.CreateIoCompletionPort(h, port, key, 0); err != nil {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("afd: associating with the completion port: %w", err)
	}
	// A completion packet is all we want; no event to signal.
	if err := windows.SetFileCompletionNotificationModes(h, windows.FILE_SKIP_SET_EVENT_ON_HANDLE); err != nil {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("afd: SetFileCompletionNotificationModes: %w", err)
	}
	return &Device{h: h}, nil
}

// Close closes the device handle, cancelling its polls; their packets still
// arrive on the port.
func (d *Device) Close() error { return windows.CloseHandle(d.h) }

// Poll is one poll request. Its memory belongs to the kernel from Start
// until its completion packet is dequeued: keep it referenced (so that the
// garbage collector does not free it) and do not reuse it before then.
type Poll struct {
	iosb windows.IO_STATUS_BLOCK
	info pollInfo
}

// Polls is an array of Polls that grows without moving them: a Poll
// belongs to the kernel until its packet is dequeued, so it cannot live in
// a slice that append may copy. The zero value is empty.
type Polls struct {
	a blocks.Array[Poll]
}

// At returns Poll i, growing the array to hold it. A Poll keeps its
// address for as long as ps is referenced.
func (ps *Polls) At(i int) *Poll {
	for i >= ps.a.Len() {
		ps.a.Grow()
	}
	return ps.a.At(i)
}

// Submit asks AFD to complete p when one of events (POLL_* bits) holds on
// the socket base, a base handle as BaseHandle returns. The completion
// packet carries context as its OVERLAPPED value and the device's key. The
// packet is queued even when the poll completes at once. From now until its
// packet is dequeued p belongs to the kernel; on an error no packet comes,
// and p is the caller's again.
func (d *Device) Submit(p *Poll, base windows.Handle, events uint32, context uintptr) error {
	*p = Poll{info: pollInfo{
		Timeout:         1<<63 - 1,
		NumberOfHandles: 1,
		Handle:          base,
		Events:          events,
	}}
	size := uint32(unsafe.Sizeof(p.info))
	status := ntDeviceIoControlFile(d.h, 0, 0, context, &p.iosb, ioctlPoll,
		unsafe.Pointer(&p.info), size, unsafe.Pointer(&p.info), size)
	if status != 0 && status != statusPending {
		return fmt.Errorf("afd: IOCTL_AFD_POLL: %w", windows.NTStatus(status))
	}
	return nil
}

// Cancel asks for p to be completed now, with Cancelled reporting true. A
// poll that has already completed is left alone; its packet is on its way.
func (d *Device) Cancel(p *Poll) error {
	var iosb windows.IO_STATUS_BLOCK
	status := ntCancelIoFileEx(d.h, &p.iosb, &iosb)
	if status != 0 && status != statusNotFound {
		return fmt.Errorf("afd: NtCancelIoFileEx: %w", windows.NTStatus(status))
	}
	return nil
}

// Events returns what a completed poll found: the POLL_* bits that hold,
// 0 if it was cancelled.
func (p *Poll) Events() uint32 {
	if p.iosb.Status != 0 || p.info.NumberOfHandles == 0 {
		return 0
	}
	return p.info.Events
}

// Cancelled reports whether a completed poll was cancelled.
func (p *Poll) Cancelled() bool { return uint32(p.iosb.Status) == statusCancelled }

// Err returns the failure of a completed poll other than cancellation, such
// as a socket handle that was not valid when it was submitted.
func (p *Poll) Err() error {
	switch s := uint32(p.iosb.Status); s {
	case 0, statusCancelled:
		return nil
	default:
		return windows.NTStatus(s)
	}
}

// BaseHandle returns the base service provider's handle of socket s
// (SIO_BASE_HANDLE), the handle AFD knows; layered providers may hand out
// others.
func BaseHandle(s windows.Handle) (windows.Handle, error) {
	var base windows.Handle
	var n uint32
	err := windows.WSAIoctl(s, sioBaseHandle, nil, 0, (*byte)(unsafe.Pointer(&base)), uint32(unsafe.Sizeof(base)), &n, nil, 0)
	if err != nil {
		return windows.InvalidHandle, fmt.Errorf("afd: SIO_BASE_HANDLE: %w", err)
	}
	if base == windows.InvalidHandle || base == 0 {
		return windows.InvalidHandle, errors.New("afd: SIO_BASE_HANDLE returned no handle")
	}
	return base, nil
}
