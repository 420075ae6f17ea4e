// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// # The calls
//
// [Process] is the call to use: [ProcessSocketNotifications] over slices of
// [SockNotifyRegistration] and [OverlappedEntry], without allocations, with
// the OS's pointer and count rules applied and the refused registrations
// gathered into one [RegistrationError]. [SockNotifyRegistration.Validate]
// checks a registration against the documented rules;
// [SocketNotificationRetrieveEvents] reads the events of a dequeued entry;
// [Dequeue] is [GetQueuedCompletionStatusEx] over a slice, to dequeue
// without registering. Both Process and Dequeue report a timeout as 0
// entries and a nil error; the raw calls return the OS's code.
//
// Call [LoadProcessSocketNotifications] or [Supported] to find out at run
// time whether this Windows has the API; elsewhere the calls return an
// error matching [ErrNotSupported].
package sockstate
