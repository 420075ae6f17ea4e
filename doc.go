// Package sockstate binds the Windows socket state notifications API of
// ws2_32.dll for Go, without cgo: [ProcessSocketNotifications],
// [SockNotifyRegistration] (SOCK_NOTIFY_REGISTRATION), [OverlappedEntry]
// (OVERLAPPED_ENTRY), [SocketNotificationRetrieveEvents], the SOCK_NOTIFY_*
// constants, and [GetQueuedCompletionStatusEx], which golang.org/x/sys/windows
// lacks.
//
// The API tells an I/O completion port when sockets become readable,
// writable, hung up or in error: a readiness model like epoll or kqueue,
// with level or edge triggers, persistent or one-shot. It needs Windows 10
// build 20348 or later (Windows 11, Windows Server 2022 and later); call
// [LoadProcessSocketNotifications] or [Supported] to find out at run time.
// Elsewhere the calls return an error matching [ErrNotSupported].
//
// [Process] is the call to use: ProcessSocketNotifications over slices,
// without allocations, with the OS's pointer and count rules applied and the
// refused registrations gathered into one [RegistrationError]. [Dequeue] is
// GetQueuedCompletionStatusEx over a slice. Both report a timeout as 0
// entries and a nil error; the raw calls return the OS's code.
// [SockNotifyRegistration.Validate] checks a registration against the
// documented rules; [Events], [Op] and [Trigger] print flags as names.
//
// The names follow golang.org/x/sys/windows: C names for constants, Go names
// for types and fields, errors as windows.Errno so that errors.Is works.
// zsyscall_windows.go is written by mkwinsyscall from the //sys lines of
// syscall_windows.go; run "go generate ./..." to refresh it.
//
// The constants build on every GOOS; everything else is Windows-only.
//
// Microsoft's overview, with the rules on completion keys and removal:
// https://learn.microsoft.com/windows/win32/winsock/winsock-socket-state-notifications
package sockstate
